// GGUF files made byte by byte for the tests (the reader's hostile set):
// each piece as the format lays it out (little-endian), so that a test
// breaks exactly one field. Not a GGUF writer for use: no checks.

const le = (bytes, write) => {
  const view = new DataView(new ArrayBuffer(bytes));
  write(view);
  return new Uint8Array(view.buffer);
};
export const u32 = (v) => le(4, (d) => d.setUint32(0, v, true));
export const u64 = (v) => le(8, (d) => d.setBigUint64(0, BigInt(v), true));
export const f32 = (v) => le(4, (d) => d.setFloat32(0, v, true));
export const bytes = (...parts) => {
  const flat = parts.flat(Infinity);
  const out = new Uint8Array(flat.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of flat) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};
export const str = (s) => {
  const utf8 = new TextEncoder().encode(s);
  return bytes(u64(utf8.length), utf8);
};
/** A key/value: key, then the value type and its bytes. */
export const kv = (key, type, value) => [str(key), u32(type), value];
export const kvU32 = (key, v) => kv(key, 4, u32(v));
export const kvStr = (key, v) => kv(key, 8, str(v));
export const kvF32 = (key, v) => kv(key, 6, f32(v));
/** A tensor info: name, dims (innermost first), ggml type, offset. */
export const info = (name, dims, type, offset) => [str(name), u32(dims.length), dims.map(u64), u32(type), u64(offset)];

/** A whole file: header (version 3), key/values, tensor infos, padding to `alignment`, data. */
export function gguf({ kvs = [], infos = [], data = new Uint8Array(0), alignment = 32, version = 3 }) {
  const head = bytes(new TextEncoder().encode('GGUF'), u32(version), u64(infos.length), u64(kvs.length), kvs, infos);
  const pad = (alignment - (head.length % alignment)) % alignment;
  return bytes(head, new Uint8Array(pad), data);
}

/** The metadata of a tiny qwen2 (hidden 32, 1 layer, 2 heads), for files that differ from it in one field. */
export const QWEN2_KVS = [
  kvStr('general.architecture', 'qwen2'),
  kvU32('qwen2.block_count', 1),
  kvU32('qwen2.context_length', 16),
  kvU32('qwen2.embedding_length', 32),
  kvU32('qwen2.feed_forward_length', 32),
  kvU32('qwen2.attention.head_count', 2),
  kvU32('qwen2.attention.head_count_kv', 2),
  kvF32('qwen2.attention.layer_norm_rms_epsilon', 1e-6),
];
