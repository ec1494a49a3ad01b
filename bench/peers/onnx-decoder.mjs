// onnxruntime-web (wasm backend, SIMD + threads) on an ONNX export of a
// decoder checkpoint (GPT2LMHeadModel, Qwen2ForCausalLM) with past keys and
// values, in the layout Optimum exports decoders in and transformers.js runs
// them (onnx-community's Qwen2.5 model.onnx): one graph, built here with
// onnx-proto from the safetensors file, standard opset-17 ops, its weights in
// model.onnx_data (a 0.5 B model's float32 weights pass protobuf's 2 GB):
//   input_ids [batch, T], past_key_values.{i}.key/value [batch, kvHeads, P, dk]
//   → logits [batch, 1, V] (the last position's), present.{i}.key/value
//     [batch, kvHeads, P + T, dk]
// The prompt runs with P = 0 (empty pasts, as transformers.js feeds them),
// each later token with T = 1. Positions are P … P + T − 1 and the causal
// mask [T, P + T] is made from them in the graph (Range, Greater, Where:
// finfo(float32).min where a key comes after the query), so one unpadded
// sequence needs neither attention_mask nor position_ids. Only the last
// position's logits are computed, as transformers' generate() asks
// (logits_to_keep = 1): the same work as mha-wasm's generate().
// As the PyTorch export writes the two models:
//   GPT-2: Gather wte + Gather wpe; per layer LayerNormalization → MatMul+Add
//     c_attn (Conv1D's [in, out] as stored) → Split q, k, v → Reshape →
//     Transpose; q·1/√dk; k, v after the past (Concat: the presents); MatMul
//     QKᵀ + mask → Softmax → MatMul V → Transpose → Reshape → MatMul+Add
//     c_proj, Add residual; LayerNormalization → MatMul+Add → gelu_new (the
//     tanh formula: Pow, Mul, Add, Tanh) → MatMul+Add, Add residual.
//   Qwen2: Gather embed_tokens; per layer RMSNorm (Pow → ReduceMean → Add →
//     Sqrt → Div → Mul, which onnxruntime fuses into SimplifiedLayerNorm) →
//     MatMul+Add q, k, v (nn.Linear's [out, in] transposed) → Reshape →
//     Transpose → rotary (x·cos + rotate_half(x)·sin, cos and sin of
//     positions × inv_freq computed in the graph); k, v after the past, then
//     repeated to the query heads (repeat_kv: Unsqueeze → Expand → Reshape);
//     attention as GPT-2's; MatMul o_proj, Add; RMSNorm → MatMul gate, up →
//     gate·Sigmoid(gate)·up → MatMul down, Add.
// The head: the final norm → the last position (Slice) → MatMul with the
// embedding transposed (a second initializer, as the exporter writes a tied
// head). Nothing returns the attention probabilities.
// Forms of the weights (FILES): 'float32'; 'bfloat16': the weight
// matrices (every MatMul's, the token embeddings) as bfloat16 initializers,
// each Cast to float32 before its MatMul (the embeddings gathered first, then
// Cast), the vectors (norms, biases, GPT-2's positions) float32 — what
// mha-wasm's loadModel({ weights: 'bf16' }) holds in 16 bits. onnxruntime's
// CPU (wasm) kernels have no bfloat16 or float16 MatMul (MLAS's half GEMM is
// ARM64's); its optimizer folds each Cast of an initializer into a float32
// initializer when the session is made (float32's speed; the memory it
// keeps is not halved, the benchmark measures it).
// 'q8' and 'q4' (onnx-quant.mjs): the matrices mha-wasm's loadModel({
// weights: 'q8' | 'q4' }) quantizes into Q8_0 / Q4_0 blocks, quantized the
// same way and multiplied by com.microsoft MatMulNBits (bits 8 or 4,
// block_size 32, accuracy_level unset: the activations stay float32), their
// dequantized values bit for bit mha-wasm's; the matrices it keeps float32
// (GPT-2's Conv1D) float32 initializers; the token embeddings, whose rows
// mha-wasm gathers from their blocks (a tied head's: Q8_0), a float32
// initializer of those blocks' values for the Gather, and the head a
// MatMulNBits over its blocks.
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { readSafetensors, toBfloat16 } from '../model-checkpoint.mjs';
import {
  FLOAT,
  INT64,
  bytesOf,
  encodeModel,
  int64Tensor,
  node,
  onnx,
  scalar,
  transpose,
  valueInfo,
} from './onnx-common.mjs';
import { QUANT_FORMS, dequantizeBlocks, quantizeBlocks, toMatMulNBits } from './onnx-quant.mjs';

/** The graph and its weights, by form. */
export const FILES = {
  float32: { model: 'model.onnx', data: 'model.onnx_data' },
  bfloat16: { model: 'model_bf16.onnx', data: 'model_bf16.onnx_data' },
  q8: { model: 'model_q8.onnx', data: 'model_q8.onnx_data' },
  q4: { model: 'model_q4.onnx', data: 'model_q4.onnx_data' },
};
const BFLOAT16 = onnx.TensorProto.DataType.BFLOAT16;
const UINT8 = onnx.TensorProto.DataType.UINT8;

/** finfo(float32).min: transformers' value for a masked score. */
const MASKED = -3.4028234663852886e38;
// Offsets in model.onnx_data start on 4 KiB (onnx's convert_model_to_external_data aligns large tensors so).
const ALIGN = 4096;

function int64Scalar(name, value) {
  return onnx.TensorProto.create({ name, dims: [], dataType: INT64, int64Data: [value] });
}

/** The architecture's sizes as the graph needs them, from config.json. */
export function sizesOf(c) {
  if (c.model_type === 'gpt2')
    return {
      layers: c.n_layer,
      D: c.n_embd,
      H: c.n_head,
      kvH: c.n_head,
      dk: c.n_embd / c.n_head,
      V: c.vocab_size,
      eps: c.layer_norm_epsilon,
    };
  if (c.model_type === 'qwen2') {
    const dk = c.hidden_size / c.num_attention_heads;
    return {
      layers: c.num_hidden_layers,
      D: c.hidden_size,
      H: c.num_attention_heads,
      kvH: c.num_key_value_heads,
      dk,
      V: c.vocab_size,
      eps: c.rms_norm_eps,
      theta: c.rope_parameters?.rope_theta ?? c.rope_theta ?? 10000,
    };
  }
  throw new Error(`onnx-decoder: model_type ${c.model_type} is not exported here (gpt2, qwen2)`);
}

// One graph under construction: nodes, initializers (the weights written to
// model.onnx_data as they are added), unique value names.
class Graph {
  constructor(st, sizes, dataFile, form) {
    this.st = st;
    this.s = sizes;
    this.form = form;
    this.quant = QUANT_FORMS[form] ?? null;
    this.weightTypes = {}; // matrices held in each type, as mha-wasm's config.weightTypes counts them
    this.tiedHead = null; // the tied head's name (embed), whose blocks serve the Gather and the head
    this.headBlocks = null; // a tied head's blocks, quantized once for the Gather and the head
    this.nodes = [];
    this.initializer = [];
    this.fd = openSync(dataFile, 'w');
    this.location = path.basename(dataFile);
    this.dataBytes = 0;
  }

  // A weight in model.onnx_data: `values` stored as `dataType` (FLOAT; BFLOAT16: float32 values rounded to
  // nearest even; UINT8: bytes as they are).
  external(name, dims, values, dataType = FLOAT) {
    const stored = dataType === BFLOAT16 ? toBfloat16(values) : values;
    const pad = (ALIGN - (this.dataBytes % ALIGN)) % ALIGN;
    if (pad) writeSync(this.fd, new Uint8Array(pad));
    const offset = this.dataBytes + pad;
    writeSync(this.fd, new Uint8Array(stored.buffer, stored.byteOffset, stored.byteLength));
    this.dataBytes = offset + stored.byteLength;
    this.initializer.push(
      onnx.TensorProto.create({
        name,
        dims,
        dataType,
        dataLocation: onnx.TensorProto.DataLocation.EXTERNAL,
        externalData: [
          { key: 'location', value: this.location },
          { key: 'offset', value: String(offset) },
          { key: 'length', value: String(stored.byteLength) },
        ],
      }),
    );
    return name;
  }

  // A vector of the checkpoint (a norm, a bias, positions), float32 in both forms.
  weight(name) {
    return this.external(name, this.st.shape(name), this.st.tensor(name));
  }

  // A weight matrix as MatMul takes it: float32 (the quantized forms' float ones too), or bfloat16 then Cast.
  matrix(name, dims, values) {
    this.count(this.form === 'bfloat16' ? 'BF16' : 'F32');
    if (this.form !== 'bfloat16') return this.external(name, dims, values);
    return this.op('Cast', [this.external(`${name}_bf16`, dims, values, BFLOAT16)], name, { to: FLOAT });
  }

  count(type) {
    this.weightTypes[type] = (this.weightTypes[type] ?? 0) + 1;
  }

  // The ggml blocks of the matrix `name` ([N, K], nn.Linear's layout) in `type` (a tied head's kept).
  blocks(name, type) {
    if (this.headBlocks?.name === name && this.headBlocks.type === type) return this.headBlocks.blocks;
    const blocks = quantizeBlocks(type, this.st.tensor(name));
    if (name === this.tiedHead) this.headBlocks = { name, type, blocks };
    return blocks;
  }

  // x·Wᵀ (+ b) for nn.Linear's W [N, K] `name`: MatMul with W transposed, or in a quantized form (K whole
  // blocks) MatMulNBits over W's blocks of the type of `role` ('matrices', 'head': QUANT_FORMS).
  linear(x, name, b, out, role = 'matrices') {
    const [N, K] = this.st.shape(name);
    if (!this.quant || K % 32)
      return this.matmul(x, this.matrix(name, [K, N], transpose(this.st.tensor(name), N, K)), b, out);
    const type = this.quant[role];
    this.count(type);
    const { bits, B, scales } = toMatMulNBits(type, this.blocks(name, type), N, K);
    const q = this.external(`${name}_q${bits}`, [N, K / 32, 4 * bits], B, UINT8);
    const s = this.external(`${name}_scales`, [(N * K) / 32], scales);
    const mm = b ? `${out}_mm` : out;
    this.nodes.push(node('MatMulNBits', [x, q, s], [mm], { K, N, bits, block_size: 32 }, 'com.microsoft'));
    return b ? this.op('Add', [mm, b], out) : mm;
  }

  // A token embedding's rows for `ids`: gathered, then (bfloat16) Cast; in a quantized form gathered from
  // the float32 values of its blocks (mha-wasm reads its rows out of them): the head's type when it is the
  // tied head (`tied`), else the matrices'.
  embed(name, ids, out, tied = true) {
    if (this.quant) {
      if (tied) this.tiedHead = name;
      const type = this.quant[tied ? 'head' : 'matrices'];
      if (!tied) this.count(type); // (a tied one is counted once, as the head)
      const values = dequantizeBlocks(type, this.blocks(name, type));
      return this.op('Gather', [this.external(`${name}_dequantized`, this.st.shape(name), values), ids], out, {
        axis: 0,
      });
    }
    if (this.form === 'float32') return this.op('Gather', [this.weight(name), ids], out, { axis: 0 });
    const table = this.external(`${name}_bf16`, this.st.shape(name), this.st.tensor(name), BFLOAT16);
    return this.op('Cast', [this.op('Gather', [table, ids], `${out}_bf16`, { axis: 0 })], out, { to: FLOAT });
  }

  const(tensor) {
    this.initializer.push(tensor);
    return tensor.name;
  }

  op(type, inputs, output, attributes) {
    this.nodes.push(node(type, inputs, [output], attributes));
    return output;
  }

  // x·W (+ b), W as MatMul takes it.
  matmul(x, w, b, out) {
    const mm = this.op('MatMul', [x, w], b ? `${out}_mm` : out);
    return b ? this.op('Add', [mm, b], out) : mm;
  }

  // [B, T, n·dk] → [B, n, T, dk].
  heads(x, shape, out) {
    return this.op('Transpose', [this.op('Reshape', [x, shape], `${out}_r`)], out, { perm: [0, 2, 1, 3] });
  }

  // P (the past's length), T, positions P … P + T − 1 and the mask [T, P + T] of the causal attention.
  positions() {
    this.const(int64Scalar('zero_i', 0));
    this.const(int64Scalar('one_i', 1));
    this.const(int64Scalar('two_i', 2));
    this.const(int64Tensor('axis0', [0]));
    this.const(int64Tensor('axis1', [1]));
    this.const(scalar('masked', MASKED));
    this.const(scalar('zero_f', 0));
    const P = this.op('Gather', [this.op('Shape', ['past_key_values.0.key'], 'past_shape'), 'two_i'], 'P', {
      axis: 0,
    });
    const T = this.op('Gather', [this.op('Shape', ['input_ids'], 'ids_shape'), 'one_i'], 'T', { axis: 0 });
    const S = this.op('Add', [P, T], 'S');
    const pos = this.op('Range', [P, S, 'one_i'], 'positions');
    const keys = this.op('Unsqueeze', [this.op('Range', ['zero_i', S, 'one_i'], 'key_positions'), 'axis0'], 'keys');
    const queries = this.op('Unsqueeze', [pos, 'axis1'], 'queries');
    const later = this.op('Greater', [keys, queries], 'later');
    const mask = this.op('Where', [later, 'masked', 'zero_f'], 'causal_mask');
    return { pos, mask };
  }

  // Causal attention of q [B, H, T, dk] over the past and k, v [B, kvH, T, dk]
  // of layer i; the merged heads [B, T, H·dk].
  attend(i, q, k, v, mask, n) {
    const { H, kvH } = this.s;
    let kAll = this.op('Concat', [`past_key_values.${i}.key`, k], `present.${i}.key`, { axis: 2 });
    let vAll = this.op('Concat', [`past_key_values.${i}.value`, v], `present.${i}.value`, { axis: 2 });
    if (kvH !== H) {
      // repeat_kv: [B, kvH, S, dk] → [B, kvH, H/kvH, S, dk] → [B, H, S, dk].
      const repeat = (x, out) =>
        this.op(
          'Reshape',
          [this.op('Expand', [this.op('Unsqueeze', [x, 'axis2'], `${out}_u`), 'repeat_shape'], `${out}_e`), 'kv_shape'],
          out,
        );
      kAll = repeat(kAll, `${n}k_rep`);
      vAll = repeat(vAll, `${n}v_rep`);
    }
    const kT = this.op('Transpose', [kAll], `${n}kT`, { perm: [0, 1, 3, 2] });
    const scores = this.op('Add', [this.op('MatMul', [q, kT], `${n}scores`), mask], `${n}masked`);
    const probs = this.op('Softmax', [scores], `${n}probs`, { axis: -1 });
    const ctx = this.op('MatMul', [probs, vAll], `${n}ctx`);
    return this.op(
      'Reshape',
      [this.op('Transpose', [ctx], `${n}ctx_t`, { perm: [0, 2, 1, 3] }), 'merge_shape'],
      `${n}ctx_m`,
    );
  }

  // The constants the attention uses.
  attentionConstants() {
    const { D, H, kvH, dk } = this.s;
    this.const(int64Tensor('q_shape', [0, 0, H, dk]));
    this.const(int64Tensor('kv_heads_shape', [0, 0, kvH, dk]));
    this.const(int64Tensor('merge_shape', [0, 0, D]));
    this.const(scalar('scaling', 1 / Math.sqrt(dk)));
    if (kvH !== H) {
      this.const(int64Tensor('axis2', [2]));
      this.const(int64Tensor('repeat_shape', [1, 1, H / kvH, 1, 1]));
      this.const(int64Tensor('kv_shape', [0, H, -1, dk]));
    }
  }

  // The last position of h [B, T, D] times the embedding transposed: logits [B, 1, V].
  logits(h, embedding) {
    const { D, V } = this.s;
    this.const(int64Tensor('last_start', [-1]));
    this.const(int64Tensor('last_end', [2 ** 53 - 1]));
    const last = this.op('Slice', [h, 'last_start', 'last_end', 'axis1'], 'last_hidden');
    if (this.quant) return this.linear(last, embedding, null, 'logits', 'head');
    const head = this.matrix('lm_head_T', [D, V], transpose(this.st.tensor(embedding), V, D));
    return this.op('MatMul', [last, head], 'logits');
  }

  encode(name) {
    const { layers, kvH, dk, V } = this.s;
    closeSync(this.fd);
    const input = [valueInfo('input_ids', INT64, ['batch_size', 'sequence_length'])];
    const output = [valueInfo('logits', FLOAT, ['batch_size', 1, V])];
    for (let i = 0; i < layers; i++)
      for (const m of ['key', 'value']) {
        input.push(valueInfo(`past_key_values.${i}.${m}`, FLOAT, ['batch_size', kvH, 'past_sequence_length', dk]));
        output.push(valueInfo(`present.${i}.${m}`, FLOAT, ['batch_size', kvH, 'total_sequence_length', dk]));
      }
    const graph = onnx.GraphProto.create({ name, node: this.nodes, initializer: this.initializer, input, output });
    // weight_types: what the check step holds against mha-wasm's model.config.weightTypes (decoder-run.mjs).
    return encodeModel(graph, {
      contrib: Boolean(this.quant),
      metadata: { weight_types: JSON.stringify(this.weightTypes) },
    });
  }
}

function gpt2Graph(g, c) {
  const { D, eps } = g.s;
  g.attentionConstants();
  g.const(int64Tensor('qkv_split', [D, D, D]));
  for (const [name, value] of [
    ['half', 0.5],
    ['one_f', 1],
    ['three', 3],
    ['gelu_a', 0.044715],
    ['gelu_b', Math.sqrt(2 / Math.PI)],
  ])
    g.const(scalar(name, value));
  const { pos, mask } = g.positions();
  const tok = g.embed('transformer.wte.weight', 'input_ids', 'tok');
  let h = g.op('Add', [tok, g.op('Gather', [g.weight('transformer.wpe.weight'), pos], 'pos', { axis: 0 })], 'h0');
  const ln = (x, p, out) =>
    g.op('LayerNormalization', [x, g.weight(`${p}.weight`), g.weight(`${p}.bias`)], out, { axis: -1, epsilon: eps });
  const conv = (x, p, out) =>
    g.matmul(
      x,
      g.matrix(`${p}.weight`, g.st.shape(`${p}.weight`), g.st.tensor(`${p}.weight`)),
      g.weight(`${p}.bias`),
      out,
    );
  for (let i = 0; i < c.n_layer; i++) {
    const p = `transformer.h.${i}`,
      n = `l${i}_`;
    const qkv = conv(ln(h, `${p}.ln_1`, `${n}ln1`), `${p}.attn.c_attn`, `${n}qkv`);
    g.nodes.push(node('Split', [qkv, 'qkv_split'], [`${n}q`, `${n}k`, `${n}v`], { axis: -1 }));
    const q = g.op('Mul', [g.heads(`${n}q`, 'q_shape', `${n}q_h`), 'scaling'], `${n}q_s`);
    const k = g.heads(`${n}k`, 'kv_heads_shape', `${n}k_h`);
    const v = g.heads(`${n}v`, 'kv_heads_shape', `${n}v_h`);
    const attn = conv(g.attend(i, q, k, v, mask, n), `${p}.attn.c_proj`, `${n}attn`);
    h = g.op('Add', [h, attn], `${n}h1`);
    const x = conv(ln(h, `${p}.ln_2`, `${n}ln2`), `${p}.mlp.c_fc`, `${n}fc`);
    // gelu_new, in the order NewGELUActivation writes it.
    const inner = g.op('Add', [x, g.op('Mul', [g.op('Pow', [x, 'three'], `${n}x3`), 'gelu_a'], `${n}ax3`)], `${n}in`);
    const t = g.op('Tanh', [g.op('Mul', [inner, 'gelu_b'], `${n}bin`)], `${n}tanh`);
    const gelu = g.op('Mul', [g.op('Mul', [x, 'half'], `${n}hx`), g.op('Add', [t, 'one_f'], `${n}1t`)], `${n}gelu`);
    h = g.op('Add', [h, conv(gelu, `${p}.mlp.c_proj`, `${n}mlp`)], `${n}h2`);
  }
  g.logits(ln(h, 'transformer.ln_f', 'final'), 'transformer.wte.weight');
  return g.encode('gpt2_decoder');
}

function qwen2Graph(g, c) {
  const { dk, eps, theta } = g.s;
  g.attentionConstants();
  g.const(scalar('two_f', 2));
  g.const(scalar('eps', eps));
  g.const(int64Tensor('half_start', [0]));
  g.const(int64Tensor('half_mid', [dk / 2]));
  g.const(int64Tensor('half_end', [dk]));
  g.const(int64Tensor('last_axis', [-1]));
  // inv_freq as transformers computes it in float32: 1 / θ^(2j/dk).
  const invFreq = Float32Array.from({ length: dk / 2 }, (_, j) => 1 / Math.pow(theta, (2 * j) / dk));
  g.const(onnx.TensorProto.create({ name: 'inv_freq', dims: [dk / 2], dataType: FLOAT, rawData: bytesOf(invFreq) }));
  const { pos, mask } = g.positions();
  const angles = g.op(
    'Mul',
    [g.op('Unsqueeze', [g.op('Cast', [pos], 'pos_f', { to: FLOAT }), 'axis1'], 'pos_col'), 'inv_freq'],
    'freqs',
  );
  const emb = g.op('Concat', [angles, angles], 'rope_emb', { axis: -1 });
  const cos = g.op('Cos', [emb], 'cos');
  const sin = g.op('Sin', [emb], 'sin');
  const rope = (x, out) => {
    const x1 = g.op('Slice', [x, 'half_start', 'half_mid', 'last_axis'], `${out}_x1`);
    const x2 = g.op('Slice', [x, 'half_mid', 'half_end', 'last_axis'], `${out}_x2`);
    const rotated = g.op('Concat', [g.op('Neg', [x2], `${out}_nx2`), x1], `${out}_rot`, { axis: -1 });
    return g.op('Add', [g.op('Mul', [x, cos], `${out}_c`), g.op('Mul', [rotated, sin], `${out}_s`)], out);
  };
  const rms = (x, w, out) => {
    const mean = g.op('ReduceMean', [g.op('Pow', [x, 'two_f'], `${out}_sq`)], `${out}_ms`, { axes: [-1], keepdims: 1 });
    const root = g.op('Sqrt', [g.op('Add', [mean, 'eps'], `${out}_eps`)], `${out}_rt`);
    return g.op('Mul', [g.weight(w), g.op('Div', [x, root], `${out}_n`)], out);
  };
  const linear = (x, p, out, bias = false) => g.linear(x, `${p}.weight`, bias ? g.weight(`${p}.bias`) : null, out);
  let h = g.embed('model.embed_tokens.weight', 'input_ids', 'h0', c.tie_word_embeddings);
  for (let i = 0; i < c.num_hidden_layers; i++) {
    const p = `model.layers.${i}`,
      a = `${p}.self_attn`,
      n = `l${i}_`;
    const x = rms(h, `${p}.input_layernorm.weight`, `${n}ln1`);
    const q = rope(g.heads(linear(x, `${a}.q_proj`, `${n}q`, true), 'q_shape', `${n}q_h`), `${n}q_rope`);
    const k = rope(g.heads(linear(x, `${a}.k_proj`, `${n}k`, true), 'kv_heads_shape', `${n}k_h`), `${n}k_rope`);
    const v = g.heads(linear(x, `${a}.v_proj`, `${n}v`, true), 'kv_heads_shape', `${n}v_h`);
    const qs = g.op('Mul', [q, 'scaling'], `${n}q_s`);
    h = g.op('Add', [h, linear(g.attend(i, qs, k, v, mask, n), `${a}.o_proj`, `${n}attn`)], `${n}h1`);
    const y = rms(h, `${p}.post_attention_layernorm.weight`, `${n}ln2`);
    const gate = linear(y, `${p}.mlp.gate_proj`, `${n}gate`);
    const act = g.op('Mul', [gate, g.op('Sigmoid', [gate], `${n}sig`)], `${n}silu`);
    const up = g.op('Mul', [act, linear(y, `${p}.mlp.up_proj`, `${n}up`)], `${n}gu`);
    h = g.op('Add', [h, linear(up, `${p}.mlp.down_proj`, `${n}mlp`)], `${n}h2`);
  }
  g.logits(
    rms(h, 'model.norm.weight', 'final'),
    c.tie_word_embeddings ? 'model.embed_tokens.weight' : 'lm_head.weight',
  );
  return g.encode('qwen2_decoder');
}

/**
 * Exports the checkpoint in `folder` (config.json + model.safetensors) in
 * `form` (a key of FILES): writes FILES[form].data there and returns { model
 * (the serialized graph, for FILES[form].model), dataBytes, weightTypes (the
 * weight matrices in each type: F32, and the quantized forms' Q8_0, Q4_0) }.
 */
export function buildDecoderOnnx(folder, form = 'float32') {
  if (!FILES[form]) throw new RangeError(`form: expected one of ${Object.keys(FILES).join(', ')}, got ${form}`);
  const config = JSON.parse(readFileSync(path.join(folder, 'config.json'), 'utf8'));
  const st = readSafetensors(path.join(folder, 'model.safetensors'));
  const g = new Graph(st, sizesOf(config), path.join(folder, FILES[form].data), form);
  const model = config.model_type === 'gpt2' ? gpt2Graph(g, config) : qwen2Graph(g, config);
  return { model, dataBytes: g.dataBytes, weightTypes: g.weightTypes };
}
