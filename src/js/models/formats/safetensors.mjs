// The safetensors format (huggingface/safetensors): an unsigned 64-bit
// little-endian header length N, N bytes of UTF-8 JSON
// { name: { dtype, shape, data_offsets: [begin, end) }, __metadata__? },
// then the data segment, offsets relative to its start. Headers are padded to
// 8 bytes by new writers and not by old ones: nothing here assumes alignment.
// Every check names the file and the problem.
import { fileError } from '../../errors.mjs';

/** Bytes per element of the dtypes the format defines. */
export const DTYPE_BYTES = Object.freeze({
  BOOL: 1,
  U8: 1,
  I8: 1,
  F8_E5M2: 1,
  F8_E4M3: 1,
  I16: 2,
  U16: 2,
  F16: 2,
  BF16: 2,
  I32: 4,
  U32: 4,
  F32: 4,
  F64: 8,
  I64: 8,
  U64: 8,
});
/** The dtypes the engine converts to float32. */
export const FLOAT_DTYPES = ['F32', 'F16', 'BF16'];
// The format's own limit on the header (safetensors/src/tensor.rs).
const MAX_HEADER = 100_000_000;

/**
 * The tensors of one safetensors file: [{ name, dtype, shape, begin, end }],
 * begin/end absolute byte offsets in the file, sorted by begin. `file`:
 * { name, size, read(begin, end) → Promise<Uint8Array> }.
 */
export async function readHeader(file) {
  const fail = (problem) => {
    throw fileError(file.name, `${file.name}: ${problem}`);
  };
  if (file.size < 8) fail(`${file.size} bytes, too short for a safetensors file (it starts with an 8-byte length)`);
  const prefix = await file.read(0, 8);
  const view = new DataView(prefix.buffer, prefix.byteOffset, 8);
  const length = view.getUint32(0, true) + view.getUint32(4, true) * 2 ** 32;
  if (length > MAX_HEADER)
    fail(`header length ${length} is more than the format's ${MAX_HEADER} bytes: not a safetensors file?`);
  if (8 + length > file.size)
    fail(
      `header length ${length} goes past the end of the file (${file.size} bytes): the file is truncated or not safetensors`,
    );
  let header;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(await file.read(8, 8 + length)));
  } catch (error) {
    fail(`the header is not valid UTF-8 JSON (${error.message})`);
  }
  if (!header || typeof header !== 'object' || Array.isArray(header)) fail('the header is not a JSON object');
  const dataStart = 8 + length;
  const dataSize = file.size - dataStart;
  const tensors = [];
  for (const [name, info] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const what = `tensor "${name}"`;
    if (!info || typeof info !== 'object') fail(`${what}: expected { dtype, shape, data_offsets }`);
    const { dtype, shape, data_offsets: offsets } = info;
    if (!Object.hasOwn(DTYPE_BYTES, dtype)) fail(`${what}: unknown dtype ${JSON.stringify(dtype)}`);
    if (!Array.isArray(shape) || !shape.every((n) => Number.isSafeInteger(n) && n >= 0))
      fail(`${what}: shape ${JSON.stringify(shape)} is not a list of sizes`);
    if (
      !Array.isArray(offsets) ||
      offsets.length !== 2 ||
      !offsets.every((n) => Number.isSafeInteger(n) && n >= 0) ||
      offsets[0] > offsets[1]
    )
      fail(`${what}: data_offsets ${JSON.stringify(offsets)} is not a [begin, end) pair`);
    const elements = shape.reduce((a, b) => a * b, 1);
    if (offsets[1] - offsets[0] !== elements * DTYPE_BYTES[dtype])
      fail(
        `${what}: data_offsets [${offsets}] hold ${offsets[1] - offsets[0]} bytes, but ${dtype} [${shape}] needs ${elements * DTYPE_BYTES[dtype]}`,
      );
    if (offsets[1] > dataSize)
      fail(
        `${what} ends at byte ${dataStart + offsets[1]}, past the end of the file (${file.size} bytes): the file is truncated`,
      );
    tensors.push({ name, dtype, shape, elements, begin: dataStart + offsets[0], end: dataStart + offsets[1] });
  }
  // As the format defines it (and its Rust reader checks): sorted by offset, the tensors tile the
  // data segment exactly, empty ones included: no gap, no overlap, nothing after the last. A header
  // length moved into the header's padding, say, shifts every tensor and is refused here.
  tensors.sort((a, b) => a.begin - b.begin || a.end - b.end);
  let at = dataStart;
  for (const t of tensors) {
    if (t.begin < at)
      fail(`tensor "${t.name}" starts at byte ${t.begin}, inside the tensor before it (data_offsets overlap)`);
    if (t.begin > at)
      fail(`tensor "${t.name}" starts at byte ${t.begin}, leaving bytes ${at}–${t.begin} that no tensor holds`);
    at = t.end;
  }
  if (at !== file.size)
    fail(`${file.size - at} bytes after the last tensor (byte ${at} to the end): not a safetensors file as written`);
  return tensors;
}
