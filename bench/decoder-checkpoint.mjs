// Decoder checkpoints in the Hugging Face layout, made at bench time for
// bench/decoder.mjs: a GPT2LMHeadModel of GPT-2 small's shape (12 layers,
// 12 heads, n_embd 768, vocabulary 50,257, 1,024 positions; float32, as
// openai-community/gpt2 is stored) and a Qwen2ForCausalLM of Qwen2.5-0.5B's
// (24 layers, 14 query heads over 2 key/value heads, hidden 896, MLP 4,864,
// vocabulary 151,936, q/k/v biases, tied embeddings, rope_theta 10⁶;
// bfloat16, as Qwen/Qwen2.5-0.5B is stored). Each folder holds config.json
// (the Hub file's fields), generation_config.json (plus min_new_tokens, so
// that every generation is exactly NEW_TOKENS steps whatever the random
// weights prefer), a byte-level BPE tokenizer.json of the model's whole
// vocabulary (the byte tokens, the merges that make each character of the
// sentence one token, placeholder tokens for the rest, the special tokens at
// the Hub tokenizer's ids) with tokenizer_config.json, and model.safetensors
// with transformers' tensor names (sorted, as save_pretrained writes them;
// the tied head left out), seeded random weights scaled like the models'
// initialization (N(0, 0.02²) matrices and embeddings, norm weights ≈ 1,
// small biases).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { writeSafetensors } from './model-checkpoint.mjs';

/** The prompt: the sentence, one token per character (15 ids) for both tokenizers made here. */
export const PROMPT = '用毒毒毒蛇，毒蛇会不会被毒毒死';

/** The tokens of every timed generation (greedy, the end-of-text token banned until then). */
export const NEW_TOKENS = 16;

/**
 * The weights in memory a row is timed with: mha-wasm's loadModel options,
 * the ONNX export's form (bench/peers/onnx-decoder.mjs) and what the report
 * says of them. One more kind of weights is one more entry.
 */
export const WEIGHTS = [
  {
    name: 'float32',
    load: { weights: 'float32' },
    onnx: 'float32',
    about: "mha-wasm loadModel(folder, { weights: 'float32' }); onnxruntime-web model.onnx, float32 initializers",
  },
  {
    name: 'bf16',
    load: { weights: 'bf16' },
    onnx: 'bfloat16',
    about:
      "mha-wasm loadModel(folder, { weights: 'bf16' }): the matrices held in 16 bits, widened in the GEMM; " +
      'onnxruntime-web model_bf16.onnx: the matrices bfloat16 initializers, each Cast to float32 (its wasm ' +
      'kernels have no 16-bit MatMul; its optimizer folds each Cast of an initializer into a float32 ' +
      'initializer at load: float32 speed, and not half the memory)',
  },
  // Quantized at load into llama.cpp's blocks, activations float32 in both runtimes: onnxruntime-web's
  // MatMulNBits over the same blocks (bench/peers/onnx-quant.mjs), its dequantized matrices bit for bit
  // mha-wasm's.
  {
    name: 'q8',
    load: { weights: 'q8' },
    onnx: 'q8',
    about:
      "mha-wasm loadModel(folder, { weights: 'q8' }): the matrices in Q8_0 blocks (GPT-2's Conv1D stay " +
      'float32); onnxruntime-web model_q8.onnx: the same blocks as com.microsoft MatMulNBits (bits 8, ' +
      'block_size 32, float32 activations), the token embeddings gathered from a float32 copy of the ' +
      "head's blocks' values",
  },
  {
    name: 'q4',
    load: { weights: 'q4' },
    onnx: 'q4',
    about:
      "mha-wasm loadModel(folder, { weights: 'q4' }): the matrices in Q4_0 blocks, the tied head in Q8_0 " +
      "(GPT-2's Conv1D stay float32: its q4 is its q8); onnxruntime-web model_q4.onnx: MatMulNBits bits 4 " +
      '(the head bits 8) over the same blocks, float32 activations, the embeddings gathered as in q8',
  },
];

/** openai-community/gpt2's config.json, the fields the model reads and a few more. */
export const GPT2_SMALL = {
  activation_function: 'gelu_new',
  architectures: ['GPT2LMHeadModel'],
  attn_pdrop: 0.1,
  bos_token_id: 50256,
  embd_pdrop: 0.1,
  eos_token_id: 50256,
  initializer_range: 0.02,
  layer_norm_epsilon: 1e-5,
  model_type: 'gpt2',
  n_ctx: 1024,
  n_embd: 768,
  n_head: 12,
  n_inner: null,
  n_layer: 12,
  n_positions: 1024,
  resid_pdrop: 0.1,
  scale_attn_weights: true,
  tie_word_embeddings: true,
  torch_dtype: 'float32',
  use_cache: true,
  vocab_size: 50257,
};

/** Qwen/Qwen2.5-0.5B's config.json. */
export const QWEN25_05B = {
  architectures: ['Qwen2ForCausalLM'],
  attention_dropout: 0.0,
  bos_token_id: 151643,
  eos_token_id: 151643,
  hidden_act: 'silu',
  hidden_size: 896,
  initializer_range: 0.02,
  intermediate_size: 4864,
  max_position_embeddings: 32768,
  max_window_layers: 24,
  model_type: 'qwen2',
  num_attention_heads: 14,
  num_hidden_layers: 24,
  num_key_value_heads: 2,
  rms_norm_eps: 1e-6,
  rope_theta: 1000000.0,
  sliding_window: 32768,
  tie_word_embeddings: true,
  torch_dtype: 'bfloat16',
  use_cache: true,
  use_sliding_window: false,
  vocab_size: 151936,
};

/**
 * The two shapes: the stored dtype, the special tokens at the Hub
 * tokenizer's ids, generation_config.json as the Hub's, and `quick`: the
 * sizes --quick uses instead (the same vocabulary and tokenizer, 2 layers,
 * narrower; Qwen keeps 14 query heads over 2 key/value heads).
 */
export const SHAPES = [
  {
    key: 'gpt2',
    name: 'GPT-2 small',
    config: GPT2_SMALL,
    quick: { n_layer: 2, n_embd: 256, n_head: 4 },
    dtype: 'F32',
    special: { 50256: '<|endoftext|>' },
    generation: { bos_token_id: 50256, eos_token_id: 50256 },
  },
  {
    key: 'qwen2',
    name: 'Qwen2.5-0.5B',
    config: QWEN25_05B,
    quick: { num_hidden_layers: 2, max_window_layers: 2, hidden_size: 224, intermediate_size: 608 },
    dtype: 'BF16',
    special: { 151643: '<|endoftext|>', 151644: '<|im_start|>', 151645: '<|im_end|>' },
    generation: { bos_token_id: 151643, do_sample: false, eos_token_id: 151643, max_new_tokens: 2048 },
  },
];

/** A shape's config.json: the full one, or under --quick its smaller sizes. */
export const configOf = (shape, quick) => (quick ? { ...shape.config, ...shape.quick } : shape.config);

const byName = (a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/** [name, shape, kind] of a GPT2LMHeadModel, sorted as save_pretrained writes them (lm_head tied, left out). */
export function gpt2Tensors(c) {
  const D = c.n_embd,
    F = c.n_inner ?? 4 * D;
  const t = [
    ['transformer.wte.weight', [c.vocab_size, D], 'embedding'],
    ['transformer.wpe.weight', [c.n_positions, D], 'position'],
    ['transformer.ln_f.weight', [D], 'normWeight'],
    ['transformer.ln_f.bias', [D], 'bias'],
  ];
  for (let i = 0; i < c.n_layer; i++) {
    const p = `transformer.h.${i}`;
    // Conv1D keeps [in, out]: no transpose anywhere.
    t.push(
      [`${p}.ln_1.weight`, [D], 'normWeight'],
      [`${p}.ln_1.bias`, [D], 'bias'],
      [`${p}.attn.c_attn.weight`, [D, 3 * D], 'linear'],
      [`${p}.attn.c_attn.bias`, [3 * D], 'bias'],
      [`${p}.attn.c_proj.weight`, [D, D], 'linear'],
      [`${p}.attn.c_proj.bias`, [D], 'bias'],
      [`${p}.ln_2.weight`, [D], 'normWeight'],
      [`${p}.ln_2.bias`, [D], 'bias'],
      [`${p}.mlp.c_fc.weight`, [D, F], 'linear'],
      [`${p}.mlp.c_fc.bias`, [F], 'bias'],
      [`${p}.mlp.c_proj.weight`, [F, D], 'linear'],
      [`${p}.mlp.c_proj.bias`, [D], 'bias'],
    );
  }
  return t.sort(byName);
}

/** The [name, shape, kind] of a Qwen2ForCausalLM, sorted (lm_head only when not tied). */
export function qwen2Tensors(c) {
  const D = c.hidden_size,
    I = c.intermediate_size,
    dk = D / c.num_attention_heads;
  const Q = c.num_attention_heads * dk,
    KV = c.num_key_value_heads * dk;
  const t = [
    ['model.embed_tokens.weight', [c.vocab_size, D], 'embedding'],
    ['model.norm.weight', [D], 'normWeight'],
  ];
  if (!c.tie_word_embeddings) t.push(['lm_head.weight', [c.vocab_size, D], 'linear']);
  for (let i = 0; i < c.num_hidden_layers; i++) {
    const p = `model.layers.${i}`;
    t.push(
      [`${p}.input_layernorm.weight`, [D], 'normWeight'],
      [`${p}.self_attn.q_proj.weight`, [Q, D], 'linear'],
      [`${p}.self_attn.q_proj.bias`, [Q], 'bias'],
      [`${p}.self_attn.k_proj.weight`, [KV, D], 'linear'],
      [`${p}.self_attn.k_proj.bias`, [KV], 'bias'],
      [`${p}.self_attn.v_proj.weight`, [KV, D], 'linear'],
      [`${p}.self_attn.v_proj.bias`, [KV], 'bias'],
      [`${p}.self_attn.o_proj.weight`, [D, Q], 'linear'],
      [`${p}.post_attention_layernorm.weight`, [D], 'normWeight'],
      [`${p}.mlp.gate_proj.weight`, [I, D], 'linear'],
      [`${p}.mlp.up_proj.weight`, [I, D], 'linear'],
      [`${p}.mlp.down_proj.weight`, [D, I], 'linear'],
    );
  }
  return t.sort(byName);
}

const TENSORS = { gpt2: gpt2Tensors, qwen2: qwen2Tensors };

/** The parameters of a config (the tied head counted once). */
export const parameterCount = (config) =>
  TENSORS[config.model_type](config).reduce((n, [, shape]) => n + shape.reduce((a, b) => a * b, 1), 0);

// initializer_range 0.02 for the matrices and the token embeddings, GPT-2's
// 0.01 for its positions; biases (zeros in a fresh model) small but not zero,
// so that the comparison sees them added.
const INIT = {
  embedding: { mean: 0, std: 0.02 },
  position: { mean: 0, std: 0.01 },
  linear: { mean: 0, std: 0.02 },
  bias: { mean: 0, std: 0.02 },
  normWeight: { mean: 1, std: 0.05 },
};

// GPT-2's bytes_to_unicode (tokenizers/tokenizer.mjs holds its inverse): the
// printable bytes stand for themselves, the other 68 are shifted to U+0100…;
// the vocabulary's first 256 ids are the printable ones in order, then the
// shifted ones.
const PRINTABLE = (b) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
const BYTE_CHAR = (() => {
  const chars = [];
  let shifted = 0;
  for (let b = 0; b < 256; b++) chars[b] = String.fromCodePoint(PRINTABLE(b) ? b : 256 + shifted++);
  return chars;
})();
const BYTE_ORDER = [...Array(256).keys()].sort((a, b) => Number(!PRINTABLE(a)) - Number(!PRINTABLE(b)) || a - b);

/**
 * The vocabulary and merges of the byte-level BPE made here: ids 0–255 the
 * bytes, then for each character of PROMPT its bytes merged from the right
 * (as the fixtures' tokenizers merge 毒: ¯+Ĵ, then æ+¯Ĵ), then placeholder
 * tokens ("t" and the id) up to vocab_size, the special tokens at their ids.
 * Resolves { vocab (piece → id, without the special ids), merges, promptIds }.
 */
export function byteLevelBpe(config, special) {
  const vocab = new Map();
  BYTE_ORDER.forEach((b, id) => vocab.set(BYTE_CHAR[b], id));
  const merges = [];
  const promptIds = [];
  const encoder = new TextEncoder();
  let next = 256;
  for (const ch of PROMPT) {
    const pieces = Array.from(encoder.encode(ch), (b) => BYTE_CHAR[b]);
    let right = pieces[pieces.length - 1];
    for (let k = pieces.length - 2; k >= 0; k--) {
      const merged = pieces[k] + right;
      if (!vocab.has(merged)) {
        merges.push([pieces[k], right]);
        vocab.set(merged, next++);
      }
      right = merged;
    }
    promptIds.push(vocab.get(right));
  }
  for (let id = next; id < config.vocab_size; id++) if (!(id in special)) vocab.set(`t${id}`, id);
  return { vocab, merges, promptIds: Int32Array.from(promptIds) };
}

/** The sentence as the ids of the tokenizer written for `config` (15, one per character). */
export const promptIds = (shape, config) => byteLevelBpe(config, shape.special).promptIds;

const BPE_MODEL = {
  type: 'BPE',
  dropout: null,
  unk_token: null,
  continuing_subword_prefix: '',
  end_of_word_suffix: '',
  fuse_unk: false,
  byte_fallback: false,
  ignore_merges: false,
};
const SEQUENCE_A = { Sequence: { id: 'A', type_id: 0 } };
const POST_PROCESSOR = {
  type: 'TemplateProcessing',
  single: [SEQUENCE_A],
  pair: [SEQUENCE_A, { Sequence: { id: 'B', type_id: 1 } }],
  special_tokens: {},
};
const BYTE_LEVEL = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true };
// Qwen2's pre-tokenizer: its split, then the bytes (tokenizers' own Qwen2 tokenizer.json).
const QWEN2_SPLIT = {
  type: 'Split',
  pattern: {
    Regex:
      "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
  },
  behavior: 'Isolated',
  invert: false,
};

/** tokenizer.json and tokenizer_config.json of a shape, as the Hub model's tokenizer lays them out. */
function tokenizerFiles(shape, config) {
  const { vocab, merges } = byteLevelBpe(config, shape.special);
  const added = Object.entries(shape.special).map(([id, content]) => ({
    id: Number(id),
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  }));
  const qwen = config.model_type === 'qwen2';
  // GPT-2's vocab.json lists <|endoftext|> too; Qwen2's keeps its special tokens in added_tokens alone.
  if (!qwen) for (const t of added) vocab.set(t.content, t.id);
  const json = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added,
    normalizer: qwen ? { type: 'NFC' } : null,
    pre_tokenizer: qwen
      ? { type: 'Sequence', pretokenizers: [QWEN2_SPLIT, { ...BYTE_LEVEL, use_regex: false }] }
      : BYTE_LEVEL,
    post_processor: POST_PROCESSOR,
    decoder: { ...BYTE_LEVEL, add_prefix_space: true },
    model: { ...BPE_MODEL, vocab: Object.fromEntries(vocab), merges },
  };
  const eos = shape.special[config.eos_token_id];
  const tokenizerConfig = qwen
    ? {
        add_prefix_space: false,
        bos_token: null,
        eos_token: eos,
        extra_special_tokens: ['<|im_start|>', '<|im_end|>'],
        model_max_length: 131072,
        pad_token: eos,
        tokenizer_class: 'Qwen2Tokenizer',
        unk_token: null,
      }
    : {
        add_prefix_space: false,
        bos_token: eos,
        eos_token: eos,
        model_max_length: config.n_positions,
        tokenizer_class: 'GPT2Tokenizer',
        unk_token: eos,
      };
  return { 'tokenizer.json': json, 'tokenizer_config.json': tokenizerConfig };
}

/**
 * Writes a shape's checkpoint (`config`: configOf(shape, quick)) into `dir`;
 * returns { bytes (model.safetensors), parameters, ms, path }. The same seed
 * gives the same bytes.
 */
export function writeDecoderCheckpoint(dir, shape, config, { seed = 31, newTokens = NEW_TOKENS } = {}) {
  const t0 = performance.now();
  mkdirSync(dir, { recursive: true });
  const json = (file, value) => writeFileSync(path.join(dir, file), JSON.stringify(value, null, 2) + '\n');
  json('config.json', config);
  json('generation_config.json', { ...shape.generation, min_new_tokens: newTokens });
  for (const [file, value] of Object.entries(tokenizerFiles(shape, config))) json(file, value);
  const file = path.join(dir, 'model.safetensors');
  const bytes = writeSafetensors(file, TENSORS[config.model_type](config), (kind) => INIT[kind], seed, {
    dtype: shape.dtype,
  });
  return { path: file, bytes, parameters: parameterCount(config), ms: performance.now() - t0 };
}
