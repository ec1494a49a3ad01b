// A GGUF (version 3) writer for the benchmarks: metadata key/values, tensor
// infos, the data section aligned to general.alignment (32), each tensor's
// bytes written as it is made so that a 1 GB file never sits in memory.
// The layout is ggml's (docs/gguf.md of ggml; the reader of this repository,
// src/js/models/formats/gguf/reader.mjs, reads the same); the block sizes
// come from the loader's own table (types.mjs) so the two cannot disagree.
// Values are typed by the caller: { u32 }, { i32 }, { f32 }, { bool },
// { str }, { arr: 'str' | 'i32', values }. Not a general-purpose writer: no
// checks beyond the sizes of the tensors it is given.
import { closeSync, openSync, writeSync } from 'node:fs';
import { typeNamed } from '../src/js/models/formats/gguf/types.mjs';

const ALIGNMENT = 32;
// gguf_type: the value types of ggml's gguf.h.
const TYPE = { u32: 4, i32: 5, f32: 6, bool: 7, str: 8, arr: 9 };
const encoder = new TextEncoder();

/** Little-endian bytes written into one buffer that doubles as it fills. */
class Bytes {
  constructor() {
    this.buffer = new Uint8Array(1 << 20);
    this.view = new DataView(this.buffer.buffer);
    this.length = 0;
  }
  room(bytes) {
    if (this.length + bytes <= this.buffer.length) return;
    const grown = new Uint8Array(Math.max(2 * this.buffer.length, this.length + bytes));
    grown.set(this.buffer.subarray(0, this.length));
    this.buffer = grown;
    this.view = new DataView(grown.buffer);
  }
  push(u8) {
    this.room(u8.length);
    this.buffer.set(u8, this.length);
    this.length += u8.length;
  }
  u32(v) {
    this.room(4);
    this.view.setUint32(this.length, v, true);
    this.length += 4;
  }
  i32(v) {
    this.room(4);
    this.view.setInt32(this.length, v, true);
    this.length += 4;
  }
  u64(v) {
    this.room(8);
    this.view.setBigUint64(this.length, BigInt(v), true);
    this.length += 8;
  }
  f32(v) {
    this.room(4);
    this.view.setFloat32(this.length, v, true);
    this.length += 4;
  }
  str(s) {
    const utf8 = encoder.encode(s);
    this.u64(utf8.length);
    this.push(utf8);
  }
  concat() {
    return this.buffer.subarray(0, this.length);
  }
}

function writeValue(b, value) {
  const [kind] = Object.keys(value);
  if (kind === 'arr') {
    b.u32(TYPE[value.arr]);
    b.u64(value.values.length);
    for (const v of value.values) b[value.arr](v);
  } else if (kind === 'bool') b.push(Uint8Array.of(value.bool ? 1 : 0));
  else b[kind](value[kind]);
}

/** Bytes of a tensor of ggml type `type` (a name: 'F16', 'Q4_K' …) with dims (innermost first). */
export function tensorBytes(type, dims) {
  const t = typeNamed(type);
  const elements = dims.reduce((a, b) => a * b, 1);
  if (dims[0] % t.blockElements) throw new RangeError(`${type}: a row of ${dims[0]} is not whole blocks`);
  return (elements / t.blockElements) * t.blockBytes;
}

/**
 * Writes `file`: `metadata` ([key, typed value]), then `tensors` ([{ name,
 * type, dims, fill(bytes: Uint8Array) }], in file order); fill writes the
 * tensor's bytes into the array it is given. Returns the file's size in bytes.
 */
export function writeGguf(file, metadata, tensors) {
  const head = new Bytes();
  head.push(encoder.encode('GGUF'));
  head.u32(3);
  head.u64(tensors.length);
  head.u64(metadata.length);
  for (const [key, value] of metadata) {
    head.str(key);
    head.u32(TYPE[Object.keys(value)[0]]);
    writeValue(head, value);
  }
  let offset = 0;
  const placed = tensors.map((t) => {
    const bytes = tensorBytes(t.type, t.dims);
    const at = offset;
    offset += Math.ceil(bytes / ALIGNMENT) * ALIGNMENT;
    head.str(t.name);
    head.u32(t.dims.length);
    for (const d of t.dims) head.u64(d);
    head.u32(typeNamed(t.type).id);
    head.u64(at);
    return { ...t, bytes, at };
  });
  const fd = openSync(file, 'w');
  try {
    const header = head.concat();
    writeSync(fd, header);
    let position = Math.ceil(header.length / ALIGNMENT) * ALIGNMENT;
    writeSync(fd, new Uint8Array(position - header.length));
    for (const t of placed) {
      const data = new Uint8Array(Math.ceil(t.bytes / ALIGNMENT) * ALIGNMENT);
      t.fill(data.subarray(0, t.bytes));
      writeSync(fd, data, 0, data.length, position + t.at);
    }
    return position + offset;
  } finally {
    closeSync(fd);
  }
}
