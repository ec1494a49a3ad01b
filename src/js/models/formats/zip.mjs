// The few parts of the zip format that torch.save's archives use: the end
// of central directory record, the central directory, and each member's
// local header, for members stored uncompressed. Hand-written, and small:
// a general zip library would bring inflate and a file system abstraction
// this reader refuses anyway (a checkpoint's records are never compressed).

/**
 * The members of a zip archive whose members are stored (not compressed), as
 * torch.save writes them: Map(name → { begin, size }), `begin` the absolute
 * offset of its bytes in `file` ({ name, size, read(begin, end) }). A member
 * path with `..`, `.`, a leading `/` or `\\`, a compressed or ZIP64 member,
 * or a damaged directory is refused through `fail(problem)`, which throws.
 */
export async function readStoredZip(file, fail) {
  const tailSize = Math.min(file.size, 22 + 0xffff);
  const tail = await file.read(file.size - tailSize, file.size);
  const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
  let at = -1;
  for (let i = tail.length - 22; i >= 0; i--)
    if (view.getUint32(i, true) === 0x06054b50) {
      at = i;
      break;
    }
  if (at < 0) fail('no zip end-of-directory record: the file is truncated or not a zip archive');
  const count = view.getUint16(at + 10, true);
  const dirSize = view.getUint32(at + 12, true);
  const dirStart = view.getUint32(at + 16, true);
  if (count === 0xffff || dirSize === 0xffffffff || dirStart === 0xffffffff)
    fail('a ZIP64 archive (a file over 4 GB), which mha-wasm does not read yet: save it as safetensors shards');
  if (dirStart + dirSize > file.size) fail('the zip directory goes past the end of the file: the file is truncated');
  const dir = await file.read(dirStart, dirStart + dirSize);
  const d = new DataView(dir.buffer, dir.byteOffset, dir.byteLength);
  const members = new Map();
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let p = 0;
  for (let k = 0; k < count; k++) {
    if (p + 46 > dir.length || d.getUint32(p, true) !== 0x02014b50) fail('the zip directory is damaged');
    const method = d.getUint16(p + 10, true);
    const compressed = d.getUint32(p + 20, true);
    const size = d.getUint32(p + 24, true);
    const nameLength = d.getUint16(p + 28, true);
    const extra = d.getUint16(p + 30, true);
    const comment = d.getUint16(p + 32, true);
    const local = d.getUint32(p + 42, true);
    if (p + 46 + nameLength > dir.length) fail('the zip directory is damaged');
    let name;
    try {
      name = decoder.decode(dir.subarray(p + 46, p + 46 + nameLength));
    } catch {
      fail('a zip member name is not UTF-8');
    }
    p += 46 + nameLength + extra + comment;
    if (name.startsWith('/') || name.includes('\\') || name.split('/').some((s) => s === '..' || s === '.'))
      fail(`zip member named "${name}": not a path inside the archive`);
    if (members.has(name)) fail(`zip member "${name}" is in the archive twice`);
    if (compressed === 0xffffffff || size === 0xffffffff || local === 0xffffffff)
      fail('a ZIP64 archive (a file over 4 GB), which mha-wasm does not read yet: save it as safetensors shards');
    if (method !== 0 || compressed !== size)
      fail(`zip member "${name}" is compressed (method ${method}); torch.save stores its records uncompressed`);
    if (local + 30 > file.size) fail(`zip member "${name}": its header is past the end of the file`);
    const header = await file.read(local, local + 30);
    const h = new DataView(header.buffer, header.byteOffset, 30);
    if (h.getUint32(0, true) !== 0x04034b50) fail(`zip member "${name}": no local header where the directory says`);
    const begin = local + 30 + h.getUint16(26, true) + h.getUint16(28, true);
    if (begin + size > file.size) fail(`zip member "${name}" goes past the end of the file: the file is truncated`);
    members.set(name, { begin, size });
  }
  return members;
}
