// Qwen2.5-0.5B-shaped GGUF files with random weights, made at bench time for
// bench/llama.mjs (mha-wasm against llama.cpp's own wasm build, wllama): the
// shape of Qwen/Qwen2.5-0.5B (24 layers, 14 query heads over 2 key/value
// heads, hidden 896, MLP 4,864, vocabulary 151,936, q/k/v biases, tied
// embeddings, rope_theta 10⁶), the metadata convert_hf_to_gguf.py writes for
// it (qwen2.* keys, general.file_type) and a qwen2 byte-level BPE tokenizer
// (tokenizer.ggml.model gpt2, pre qwen2: the tokens, token types and merges of
// bench/decoder-checkpoint.mjs's tokenizer, which makes each character of the
// sentence one token; <|endoftext|> at 151643 as eos, bos and padding).
//
// The quantized files are written block by block, with no quantizer: random
// quants and random f16 scales of the magnitude a quantized N(0, 0.02²)
// matrix has (each block's scale jittered by ±25 %; Q4_K's mins set so that
// each sub-block's mean is about 0). Which tensor gets which type follows
// llama-quantize (src/llama-quant.cpp, llama_tensor_get_type), for the four
// files:
//   F16     every matrix F16 (convert_hf_to_gguf --outtype f16); norms and biases F32 in all four
//   Q8_0    every matrix Q8_0
//   Q4_0    every matrix Q4_0; the tied token embedding takes the output's type, Q6_K, which a row of
//           896 (not whole 256-blocks) falls back to Q8_0
//   Q4_K_M  Q4_K by default; attn_v and ffn_down Q6_K in the layers use_more_bits picks (the first and
//           last eighth and every third between: 12 of 24); the tied token embedding Q6_K; then every
//           tensor whose rows are not whole 256-blocks falls back: Q4_K → Q5_0, Q6_K → Q8_0. On this
//           shape only ffn_down (rows of 4,864 = 19·256) stays a K-quant: Q4_K in 12 layers, Q6_K in 12;
//           attn_q/k/v/output, ffn_gate/up are Q5_0 (attn_v Q8_0 in the 12), the embedding Q8_0.
// --quick: 2 layers, hidden 128 (4 query heads over 2 key/value heads), MLP 512, the same vocabulary
// and tokenizer; the same rules give it Q4_K and Q6_K (ffn_down), Q5_0 and Q8_0.
import { writeGguf } from './gguf-write.mjs';
import { PROMPT, QWEN25_05B, byteLevelBpe } from './decoder-checkpoint.mjs';
import { mulberry32, normal } from '../web/model/random.mjs';

export { PROMPT };

/** The files, by the name llama-quantize gives their mix, and general.file_type (llama_ftype). */
export const FILE_TYPES = [
  { name: 'F16', fileType: 1 },
  { name: 'Q8_0', fileType: 7 },
  { name: 'Q4_0', fileType: 2 },
  { name: 'Q4_K_M', fileType: 15 },
];

export const SHAPE = {
  name: 'Qwen2.5-0.5B',
  config: QWEN25_05B,
  quick: {
    num_hidden_layers: 2,
    hidden_size: 128,
    num_attention_heads: 4,
    num_key_value_heads: 2,
    intermediate_size: 512,
  },
};
/** The shapes the benchmark can write (bench/llama.mjs --shape): Qwen2.5-0.5B's, the default, and Qwen2.5-1.5B's. */
export const SHAPES = [
  SHAPE,
  {
    name: 'Qwen2.5-1.5B',
    // Qwen/Qwen2.5-1.5B's config.json where it differs from Qwen2.5-0.5B's (bench/memory.mjs lists the same sizes).
    config: {
      ...QWEN25_05B,
      hidden_size: 1536,
      intermediate_size: 8960,
      max_window_layers: 28,
      num_attention_heads: 12,
      num_hidden_layers: 28,
    },
    quick: SHAPE.quick,
  },
];
export const configOf = (quick, shape = SHAPE) => (quick ? { ...shape.config, ...shape.quick } : shape.config);

const EOS = 151643;
const SPECIAL = { [EOS]: '<|endoftext|>' };
const STD = 0.02;

// llama-quantize's use_more_bits: the first and last eighth of the layers and every third between.
const useMoreBits = (i, n) =>
  i < Math.floor(n / 8) || i >= Math.floor((7 * n) / 8) || (i - Math.floor(n / 8)) % 3 === 2;
const BLOCK = { Q4_0: 32, Q5_0: 32, Q8_0: 32, Q4_K: 256, Q6_K: 256 };
// tensor_type_fallback: a row that is not whole blocks of the chosen type.
const FALLBACK = { Q4_K: 'Q5_0', Q6_K: 'Q8_0' };
const fallback = (type, columns) => (columns % BLOCK[type] ? FALLBACK[type] : type);

/** The ggml type of matrix `role` (token_embd, attn_q … ffn_down) of layer `i` of `n` with rows of `columns`. */
export function matrixType(fileType, role, i, n, columns) {
  if (fileType === 'F16') return 'F16';
  const base = { Q8_0: 'Q8_0', Q4_0: 'Q4_0', Q4_K_M: 'Q4_K' }[fileType];
  let type = base;
  if (role === 'token_embd') {
    // Tied: quantized as the output would be (nx % block of the base type, then Q6_K unless Q8_0).
    type = columns % BLOCK[base] ? 'Q8_0' : base === 'Q8_0' ? 'Q8_0' : 'Q6_K';
  } else if (fileType === 'Q4_K_M' && (role === 'attn_v' || role === 'ffn_down') && useMoreBits(i, n)) type = 'Q6_K';
  return BLOCK[type] === 256 ? fallback(type, columns) : type;
}

// ---- random bytes ----

/** A seeded xorshift32 filling bytes four at a time. */
function randomBytes(seed) {
  let x = seed >>> 0 || 1;
  return (bytes) => {
    const words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length >> 2);
    for (let i = 0; i < words.length; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      words[i] = x;
    }
    for (let i = words.length * 4; i < bytes.length; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      bytes[i] = x;
    }
  };
}

/** IEEE half bits of x (round to nearest; normal and subnormal range, which is all these values use). */
export function halfBits(x) {
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  if (a < 2 ** -14) return sign | Math.round(a * 2 ** 24);
  let e = Math.floor(Math.log2(a));
  let m = Math.round((a / 2 ** e - 1) * 1024);
  if (m === 1024) {
    m = 0;
    e++;
  }
  return sign | ((e + 15) << 10) | m;
}

/** Fills `bytes` (f16 values) with N(mean, std²) draws: a table of 65,536 seeded draws indexed by random bits. */
function fillHalf(bytes, random, table) {
  random(bytes);
  const u16 = new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.length >> 1);
  for (let i = 0; i < u16.length; i++) u16[i] = table[u16[i]];
}
function halfTable(seed, mean, std) {
  const uniform = mulberry32(seed);
  return Uint16Array.from({ length: 65536 }, () => halfBits(mean + std * normal(uniform)));
}
function fillFloat(bytes, uniform, mean, std) {
  const f = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length >> 2);
  for (let i = 0; i < f.length; i++) f[i] = mean + std * normal(uniform);
}

// The blocks (ggml-common.h): random quants, then the scales written over their bytes. The
// standard deviations of the quants: uniform int8 73.3, 4-bit 4.61, 5-bit 9.23, Q6_K's q − 32 18.5.
const setHalf = (bytes, at, x) => {
  const h = halfBits(x);
  bytes[at] = h & 255;
  bytes[at + 1] = h >> 8;
};
const BLOCKS = {
  Q8_0: { bytes: 34, fill: (b, at, j) => (setHalf(b, at, (STD / 73.3) * j), clampInt8(b, at + 2)) },
  Q4_0: { bytes: 18, fill: (b, at, j) => setHalf(b, at, (STD / 4.61) * j) },
  Q5_0: { bytes: 22, fill: (b, at, j) => setHalf(b, at, (STD / 9.23) * j) },
  // { d, dmin, scales[12] (eight 6-bit scales and mins), qs[128] }: x = d·sc·q − dmin·m.
  Q4_K: { bytes: 144, fill: fillQ4K },
  // { ql[128], qh[64], int8 scales[16], d }: x = d·scale·(q − 32).
  Q6_K: { bytes: 210, fill: fillQ6K },
};
// llama.cpp's quantizer never writes −128 (it rounds into −127…127).
function clampInt8(b, at) {
  for (let k = at; k < at + 32; k++) if (b[k] === 0x80) b[k] = 0x81;
}
function fillQ4K(b, at, j, uniform) {
  const d = (STD / (4.61 * 47.5)) * j;
  setHalf(b, at, d);
  setHalf(b, at + 2, 8 * d);
  const sc = Array.from({ length: 8 }, () => 32 + Math.floor(uniform() * 32));
  // mean of d·sc·q over q in 0…15 is 7.5·d·sc: the min takes it back off.
  const m = sc.map((s) => Math.round((7.5 * s) / 8));
  const s = at + 4;
  for (let k = 0; k < 4; k++) {
    b[s + k] = sc[k] | ((sc[k + 4] >> 4) << 6);
    b[s + k + 4] = m[k] | ((m[k + 4] >> 4) << 6);
    b[s + k + 8] = (sc[k + 4] & 15) | ((m[k + 4] & 15) << 4);
  }
}
function fillQ6K(b, at, j, uniform) {
  for (let k = 0; k < 16; k++) b[at + 192 + k] = 16 + Math.floor(uniform() * 48);
  setHalf(b, at + 208, (STD / (18.5 * 40)) * j);
}

/** Fills `bytes` with blocks of `type`. */
function fillBlocks(type, bytes, random, uniform) {
  random(bytes);
  const { bytes: size, fill } = BLOCKS[type];
  for (let at = 0; at < bytes.length; at += size) fill(bytes, at, 0.75 + 0.5 * uniform(), uniform);
}

// ---- the file ----

/** The metadata of the file: convert_hf_to_gguf's qwen2 keys and the tokenizer. */
function metadata(config, fileType) {
  const { vocab, merges, promptIds } = byteLevelBpe(config, SPECIAL);
  const tokens = new Array(config.vocab_size);
  for (const [piece, id] of vocab) tokens[id] = piece;
  for (const [id, text] of Object.entries(SPECIAL)) tokens[id] = text;
  const types = tokens.map((_, id) => (id in SPECIAL ? 3 : 1)); // llama_token_type: 1 normal, 3 control
  const ft = FILE_TYPES.find((f) => f.name === fileType);
  const kv = [
    ['general.architecture', { str: 'qwen2' }],
    ['general.name', { str: `Qwen2.5-0.5B-shaped, random weights (mha-wasm bench, ${fileType})` }],
    ['general.file_type', { u32: ft.fileType }],
    ['qwen2.block_count', { u32: config.num_hidden_layers }],
    ['qwen2.context_length', { u32: config.max_position_embeddings }],
    ['qwen2.embedding_length', { u32: config.hidden_size }],
    ['qwen2.feed_forward_length', { u32: config.intermediate_size }],
    ['qwen2.attention.head_count', { u32: config.num_attention_heads }],
    ['qwen2.attention.head_count_kv', { u32: config.num_key_value_heads }],
    ['qwen2.rope.freq_base', { f32: config.rope_theta }],
    ['qwen2.attention.layer_norm_rms_epsilon', { f32: config.rms_norm_eps }],
    ...(fileType === 'F16' ? [] : [['general.quantization_version', { u32: 2 }]]),
    ['tokenizer.ggml.model', { str: 'gpt2' }],
    ['tokenizer.ggml.pre', { str: 'qwen2' }],
    ['tokenizer.ggml.tokens', { arr: 'str', values: tokens }],
    ['tokenizer.ggml.token_type', { arr: 'i32', values: types }],
    ['tokenizer.ggml.merges', { arr: 'str', values: merges.map(([a, b]) => `${a} ${b}`) }],
    ['tokenizer.ggml.eos_token_id', { u32: EOS }],
    ['tokenizer.ggml.padding_token_id', { u32: EOS }],
    ['tokenizer.ggml.bos_token_id', { u32: EOS }],
    ['tokenizer.ggml.add_bos_token', { bool: false }],
  ];
  return { kv, promptIds };
}

/** The tensors in file order: { name, type, dims (innermost first), role, fill }. */
function tensors(config, fileType, seed) {
  const D = config.hidden_size,
    I = config.intermediate_size,
    n = config.num_hidden_layers;
  const dk = D / config.num_attention_heads,
    KV = config.num_key_value_heads * dk;
  const random = randomBytes(seed);
  const uniform = mulberry32(seed + 1);
  const weights = halfTable(seed + 2, 0, STD);
  const float = (mean, std) => (bytes) => fillFloat(bytes, uniform, mean, std);
  const matrix = (name, role, i, rows, columns) => {
    const type = matrixType(fileType, role, i, n, columns);
    return {
      name,
      type,
      dims: [columns, rows],
      fill: (bytes) => (type === 'F16' ? fillHalf(bytes, random, weights) : fillBlocks(type, bytes, random, uniform)),
    };
  };
  const vector = (name, size, mean, std) => ({ name, type: 'F32', dims: [size], fill: float(mean, std) });
  const out = [
    matrix('token_embd.weight', 'token_embd', -1, config.vocab_size, D),
    vector('output_norm.weight', D, 1, 0.05),
  ];
  for (let i = 0; i < n; i++) {
    const p = `blk.${i}`;
    out.push(
      vector(`${p}.attn_norm.weight`, D, 1, 0.05),
      matrix(`${p}.attn_q.weight`, 'attn_q', i, D, D),
      vector(`${p}.attn_q.bias`, D, 0, STD),
      matrix(`${p}.attn_k.weight`, 'attn_k', i, KV, D),
      vector(`${p}.attn_k.bias`, KV, 0, STD),
      matrix(`${p}.attn_v.weight`, 'attn_v', i, KV, D),
      vector(`${p}.attn_v.bias`, KV, 0, STD),
      matrix(`${p}.attn_output.weight`, 'attn_output', i, D, D),
      vector(`${p}.ffn_norm.weight`, D, 1, 0.05),
      matrix(`${p}.ffn_gate.weight`, 'ffn_gate', i, I, D),
      matrix(`${p}.ffn_up.weight`, 'ffn_up', i, I, D),
      matrix(`${p}.ffn_down.weight`, 'ffn_down', i, D, I),
    );
  }
  return out;
}

/**
 * Writes the `fileType` file (F16, Q8_0, Q4_0, Q4_K_M) of `shape` (one of SHAPES; `quick`: its small one) to
 * `file`; returns { file, bytes, ms, types (ggml type → tensor count), promptIds (the sentence as
 * this tokenizer's ids) }. The same seed gives the same bytes.
 */
export function writeQwenGguf(file, fileType, { quick = false, seed = 41, shape = SHAPE } = {}) {
  const t0 = performance.now();
  const config = configOf(quick, shape);
  const { kv, promptIds } = metadata(config, fileType);
  const list = tensors(config, fileType, seed);
  const bytes = writeGguf(file, kv, list);
  const types = {};
  for (const t of list) types[t.type] = (types[t.type] ?? 0) + 1;
  return { file, bytes, ms: performance.now() - t0, types, promptIds: Array.from(promptIds), config };
}
