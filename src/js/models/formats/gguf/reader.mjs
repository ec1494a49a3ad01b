// The GGUF format (ggml/docs/gguf.md; gguf-py's GGUFReader and ggml's
// gguf.cpp read it): "GGUF", a uint32 version (2 and 3 here: version 1 had
// 32-bit counts), uint64 tensor and key/value counts, the key/values (a
// string key, a uint32 value type, the value: scalars, strings as a uint64
// length and UTF-8 bytes, arrays as an element type, a uint64 count and the
// elements), the tensor infos (name, uint32 dimension count, uint64 sizes
// innermost first, uint32 ggml type, uint64 offset in the data), then the
// data, which starts at the next multiple of general.alignment (32 unless
// the file says) and in which every tensor starts at such a multiple. All
// little-endian (a big-endian file, which gguf-py can write, is refused).
//
// Written by hand: the maintained JS parser, @huggingface/gguf, reads a URL
// with its own fetch into one buffer per range and trusts counts and lengths
// (it is made to show a Hub file's metadata, not to refuse a hostile one);
// here the header is read through the loader's own files (a path, a Blob, a
// Hub download: read(begin, end)) a bounded chunk at a time, every count and
// length checked against the bytes the file has left before anything is
// allocated, and every refusal names the file and the field.
import { codedError } from '../../../errors.mjs';
import { GGML_TYPES } from './types.mjs';

/** Bytes read from the file at a time while the header is parsed. */
const READ_BYTES = 1 << 20;
// The format's own bounds (ggml's gguf.cpp): a tensor has at most 4 dimensions (GGML_MAX_DIMS), a name
// at most 63 bytes (GGML_MAX_NAME − 1); keys are bounded here at 64 KiB, more than any real key.
const MAX_DIMS = 4;
const MAX_NAME = 63;
const MAX_KEY = 65535;
// Bounds of this reader, far above any model's and below what would take the memory: the header (key/values
// and tensor infos) at most 64 MiB (the largest vocabularies, with their scores or merges, take a few), an
// array at most 2²² values (the largest vocabularies have 262144 tokens).
const MAX_HEADER = 64 << 20;
const MAX_ARRAY = 1 << 22;

/** Value types: number → [name, bytes of a scalar (0: a string, an array)]. */
const VALUE_TYPES = new Map([
  [0, ['uint8', 1]],
  [1, ['int8', 1]],
  [2, ['uint16', 2]],
  [3, ['int16', 2]],
  [4, ['uint32', 4]],
  [5, ['int32', 4]],
  [6, ['float32', 4]],
  [7, ['bool', 1]],
  [8, ['string', 0]],
  [9, ['array', 0]],
  [10, ['uint64', 8]],
  [11, ['int64', 8]],
  [12, ['float64', 8]],
]);

/** The file's bytes in order, read READ_BYTES at a time; every read bounded by the file's size. */
class Cursor {
  constructor(file, fail) {
    this.file = file;
    this.fail = fail;
    this.at = 0; // the file offset of the next byte
    this.bytes = new Uint8Array(0);
    this.start = 0; // the file offset of bytes[0]
    this.decoder = new TextDecoder('utf-8', { fatal: true });
  }
  /** Bytes left in the file after the cursor. */
  get left() {
    return this.file.size - this.at;
  }
  /** A view of the next n bytes (field: what they are, for the refusal when the file ends first). */
  async take(n, field) {
    if (n > this.left)
      this.fail(field, `needs ${n} bytes at byte ${this.at}, past the end of the file (${this.file.size} bytes)`);
    if (this.at + n > MAX_HEADER)
      this.fail(field, `${n} bytes at byte ${this.at} take the header past ${MAX_HEADER} bytes, more than any model's`);
    let from = this.at - this.start;
    if (from + n > this.bytes.length) {
      const end = Math.min(this.file.size, this.at + Math.max(n, READ_BYTES));
      const read = await this.file.read(this.at, end);
      if (read.byteLength !== end - this.at) this.fail(field, `the file ended at byte ${this.at + read.byteLength}`);
      this.bytes = read;
      this.start = this.at;
      from = 0;
    }
    this.at += n;
    return new DataView(this.bytes.buffer, this.bytes.byteOffset + from, n);
  }
  async u32(field) {
    return (await this.take(4, field)).getUint32(0, true);
  }
  async u64(field) {
    const v = (await this.take(8, field)).getBigUint64(0, true);
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) this.fail(field, `${v} is larger than any file`);
    return Number(v);
  }
  async string(field, max = Infinity) {
    const length = await this.u64(`${field} (its length)`);
    if (length > max) this.fail(field, `a string of ${length} bytes, more than the ${max} it may have`);
    if (length > this.left)
      this.fail(field, `a string of ${length} bytes goes past the end of the file (${this.left} bytes left)`);
    const view = await this.take(length, field);
    try {
      return this.decoder.decode(new Uint8Array(view.buffer, view.byteOffset, length));
    } catch {
      return this.fail(field, 'not valid UTF-8');
    }
  }
}

/** One scalar of value type `type` from `view` at `at`. */
function scalar(view, at, type) {
  switch (type) {
    case 0:
      return view.getUint8(at);
    case 1:
      return view.getInt8(at);
    case 2:
      return view.getUint16(at, true);
    case 3:
      return view.getInt16(at, true);
    case 4:
      return view.getUint32(at, true);
    case 5:
      return view.getInt32(at, true);
    case 6:
      return view.getFloat32(at, true);
    case 7:
      return view.getUint8(at);
    case 10:
      return view.getBigUint64(at, true);
    case 11:
      return view.getBigInt64(at, true);
    default:
      return view.getFloat64(at, true);
  }
}

/** A value of type `type` (a number, bigint for 64-bit integers, boolean, string, or an array of one type). */
async function readValue(cursor, type, field, inArray = false) {
  const kind = VALUE_TYPES.get(type);
  if (!kind) return cursor.fail(field, `unknown value type ${type}`);
  const [name, bytes] = kind;
  if (name === 'string') return cursor.string(field);
  if (name === 'array') {
    // gguf.cpp refuses arrays of arrays too: no file the converters write has one.
    if (inArray) return cursor.fail(field, 'an array of arrays, which GGUF files do not hold');
    const elementType = await cursor.u32(`${field} (its element type)`);
    const element = VALUE_TYPES.get(elementType);
    if (!element) return cursor.fail(field, `an array of unknown value type ${elementType}`);
    if (element[0] === 'array') return cursor.fail(field, 'an array of arrays, which GGUF files do not hold');
    const count = await cursor.u64(`${field} (its length)`);
    // Before anything is allocated: a string takes at least its 8-byte length.
    const least = element[1] || 8;
    if (count * least > cursor.left)
      cursor.fail(
        field,
        `an array of ${count} ${element[0]}s, more than the ${cursor.left} bytes left in the file hold`,
      );
    if (count > MAX_ARRAY) cursor.fail(field, `an array of ${count} values, more than the ${MAX_ARRAY} one may have`);
    if (element[0] === 'string') {
      const out = new Array(count);
      for (let i = 0; i < count; i++) out[i] = await cursor.string(`${field}[${i}]`);
      return out;
    }
    const view = await cursor.take(count * element[1], field);
    const out = new Array(count);
    for (let i = 0; i < count; i++) out[i] = scalar(view, i * element[1], elementType);
    return elementType === 7 ? checkBools(out, cursor, field) : out;
  }
  const value = scalar(await cursor.take(bytes, field), 0, type);
  return type === 7 ? checkBools([value], cursor, field)[0] : value;
}

function checkBools(values, cursor, field) {
  if (values.some((v) => v > 1)) cursor.fail(field, 'a bool that is neither 0 nor 1');
  return values.map((v) => v === 1);
}

/**
 * The header of a GGUF file: { version, metadata: Map(key → { type, value }),
 * tensors: [{ name, type (ggml's name: 'Q8_0' …), dims (ne, innermost
 * first), shape (outermost first, as PyTorch's), elements, begin, end }]
 * (begin/end absolute, in file order), alignment, dataStart }. `file`:
 * { name, size, read(begin, end) }. Every refusal: an Error coded
 * 'BadCheckpoint' with error.file and error.field.
 */
export async function readGgufHeader(file) {
  const fail = (field, problem) => {
    throw codedError('BadCheckpoint', `${file.name}: ${field}: ${problem}`, { file: file.name, field });
  };
  const cursor = new Cursor(file, fail);
  const magic = await cursor.take(4, 'magic');
  if (magic.getUint32(0, true) !== 0x46554747) fail('magic', 'the file does not start with "GGUF": not a GGUF file');
  const version = await cursor.u32('version');
  if (version === 0x03000000 || version === 0x02000000)
    fail('version', 'a big-endian GGUF file; only little-endian files are read');
  if (version !== 2 && version !== 3)
    fail('version', `version ${version}; versions 2 and 3 are read (version 1 files: convert them again)`);
  const tensorCount = await cursor.u64('tensor_count');
  const kvCount = await cursor.u64('metadata_kv_count');
  // The least each takes: a key/value its key's length, a type and a 1-byte value; a tensor info a name's
  // length, a dimension count, one dimension, a type and an offset.
  if (kvCount * 13 > cursor.left)
    fail('metadata_kv_count', `${kvCount} key/values cannot fit in the ${cursor.left} bytes left in the file`);
  if (tensorCount * 32 > cursor.left)
    fail('tensor_count', `${tensorCount} tensor infos cannot fit in the ${cursor.left} bytes left in the file`);
  const metadata = new Map();
  for (let i = 0; i < kvCount; i++) {
    const key = await cursor.string(`metadata key ${i}`, MAX_KEY);
    if (metadata.has(key)) fail(key, 'the key is in the metadata twice');
    const type = await cursor.u32(`${key} (its value type)`);
    metadata.set(key, { type: VALUE_TYPES.get(type)?.[0], value: await readValue(cursor, type, key) });
  }
  let alignment = 32;
  if (metadata.has('general.alignment')) {
    const { type, value } = metadata.get('general.alignment');
    if (type !== 'uint32' || value === 0 || (value & (value - 1)) !== 0)
      fail('general.alignment', `${String(value)} (${type}): expected a uint32 power of two`);
    alignment = value;
  }
  const tensors = [];
  const names = new Set();
  for (let i = 0; i < tensorCount; i++) {
    const name = await cursor.string(`tensor info ${i} (its name)`, MAX_NAME);
    if (names.has(name)) fail(`tensor "${name}"`, 'the name is in the tensor infos twice');
    names.add(name);
    const what = `tensor "${name}"`;
    const nDims = await cursor.u32(`${what} (n_dimensions)`);
    if (nDims < 1 || nDims > MAX_DIMS) fail(`${what} (n_dimensions)`, `${nDims}; expected 1 to ${MAX_DIMS}`);
    const dims = [];
    for (let d = 0; d < nDims; d++) dims.push(await cursor.u64(`${what} (dimension ${d})`));
    const typeId = await cursor.u32(`${what} (type)`);
    const type = GGML_TYPES.get(typeId);
    if (!type) fail(`${what} (type)`, `unknown ggml type ${typeId}`);
    const offset = await cursor.u64(`${what} (offset)`);
    if (dims.some((n) => n === 0)) fail(`${what} (dimensions)`, `[${dims}] has an empty dimension`);
    const elements = dims.reduce((a, b) => a * b, 1);
    if (!Number.isSafeInteger(elements) || elements > file.size * type.blockElements)
      fail(`${what} (dimensions)`, `[${dims}] is more elements than the file can hold`);
    if (dims[0] % type.blockElements !== 0)
      fail(
        `${what} (dimensions)`,
        `rows of ${dims[0]} elements are not whole ${type.name} blocks of ${type.blockElements}`,
      );
    if (offset % alignment !== 0)
      fail(`${what} (offset)`, `${offset} is not a multiple of the alignment (${alignment})`);
    const bytes = (elements / type.blockElements) * type.blockBytes;
    tensors.push({ name, type: type.name, dims, shape: [...dims].reverse(), elements, offset, bytes });
  }
  const dataStart = Math.ceil(cursor.at / alignment) * alignment;
  if (dataStart > file.size)
    fail('tensor data', `starts at byte ${dataStart}, past the end of the file (${file.size} bytes)`);
  for (const t of tensors) {
    t.begin = dataStart + t.offset;
    t.end = t.begin + t.bytes;
    if (t.end > file.size)
      fail(
        `tensor "${t.name}" (offset)`,
        `its ${t.bytes} bytes (${t.type} [${t.dims}]) end at byte ${t.end}, past the end of the file (${file.size} bytes)`,
      );
  }
  // gguf.cpp lays the tensors out in order, each padded to the alignment; a reader takes them as they
  // are, but two that share bytes are a damaged (or forged) file.
  const sorted = [...tensors].sort((a, b) => a.begin - b.begin);
  for (let i = 1; i < sorted.length; i++)
    if (sorted[i].begin < sorted[i - 1].end)
      fail(
        `tensor "${sorted[i].name}" (offset)`,
        `starts at byte ${sorted[i].begin}, inside tensor "${sorted[i - 1].name}" (bytes ${sorted[i - 1].begin}–${sorted[i - 1].end})`,
      );
  return { version, metadata, tensors, alignment, dataStart };
}
