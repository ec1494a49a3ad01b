// onnxruntime-web (wasm backend, SIMD + threads) on an ONNX export of a
// MarianMT checkpoint in the layout Optimum exports MarianMTModel in (and
// transformers.js runs): three graphs built here with onnx-proto from the
// safetensors file, standard opset-17 ops.
//   encoder_model.onnx            input_ids [batch, S] → last_hidden_state [batch, S, D]
//   decoder_model.onnx            input_ids [batch, T], encoder_hidden_states [batch, S, D]
//                                 → logits [batch, T, V], present.{i}.decoder.key/value
//                                 [batch, H, T, dk] and present.{i}.encoder.key/value
//                                 [batch, H, S, dk] (the first step: computes the
//                                 cross-attention's keys and values; causal over T)
//   decoder_with_past_model.onnx  input_ids [batch, 1], past_key_values.{i}.decoder.key/value
//                                 [batch, H, P, dk], past_key_values.{i}.encoder.key/value
//                                 → logits [batch, 1, V], present.{i}.decoder.key/value
//                                 [batch, H, P + 1, dk] (every later step)
// As the PyTorch export writes MarianMTModel: the token embedding a Gather of
// model.shared.weight times √d_model (scale_embedding), plus the sinusoidal
// table (first half sin, second half cos, as marian.cpp computes it) gathered
// at positions past … past + T − 1; per layer post-LN blocks: MatMul+Add Q
// (times 1/√dk, as BART scales the query), K, V → Reshape → Transpose,
// MatMul QKᵀ (+ the causal mask in decoder_model), Softmax, MatMul V,
// Transpose → Reshape, MatMul+Add, Add residual, LayerNormalization; the
// feed-forward MatMul+Add → x·Sigmoid(x) (SiLU, swish) → MatMul+Add; logits =
// MatMul with the embedding transposed (a second initializer, as the exporter
// writes a tied head) + final_logits_bias. Nothing returns the attention
// probabilities. Left out of Optimum's inputs: encoder_attention_mask (one
// unpadded sentence: all ones, which only adds a zero to every score).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { readSafetensors } from '../model-checkpoint.mjs';
import {
  FLOAT,
  INT64,
  encodeModel,
  floatTensor,
  int64Tensor,
  node,
  onnx,
  onnxRuntime,
  scalar,
  transpose,
  valueInfo,
} from './onnx-common.mjs';

export const FILES = {
  encoder: 'encoder_model.onnx',
  decoder: 'decoder_model.onnx',
  decoderWithPast: 'decoder_with_past_model.onnx',
};

function int64Scalar(name, value) {
  return onnx.TensorProto.create({ name, dims: [], dataType: INT64, int64Data: [value] });
}

/** MarianSinusoidalPositionalEmbedding's table [P, D] (see src/model/arch/marian.cpp). */
export function positionTable(P, D) {
  const half = Math.ceil(D / 2);
  const table = new Float32Array(P * D);
  for (let p = 0; p < P; p++)
    for (let j = 0; j < D; j++) {
      const pair = j < half ? j : j - half;
      const angle = p / Math.pow(10000, (2 * pair) / D);
      table[p * D + j] = j < half ? Math.sin(angle) : Math.cos(angle);
    }
  return table;
}

// One graph under construction: nodes, initializers (each added once), unique value names.
class Graph {
  constructor(st, config) {
    this.st = st;
    this.c = config;
    this.nodes = [];
    this.initializer = [];
    this.added = new Set();
  }

  init(tensor) {
    if (!this.added.has(tensor.name)) {
      this.added.add(tensor.name);
      this.initializer.push(tensor);
    }
    return tensor.name;
  }

  // A tensor of the checkpoint as stored.
  weight(name) {
    if (!this.added.has(name)) this.init(floatTensor(name, this.st.shape(name), this.st.tensor(name)));
    return name;
  }

  // nn.Linear's [out, in] as MatMul's [in, out].
  linearT(name) {
    if (!this.added.has(name)) {
      const [out, inp] = this.st.shape(name);
      this.init(floatTensor(name, [inp, out], transpose(this.st.tensor(name), out, inp)));
    }
    return name;
  }

  op(type, inputs, output, attributes, domain) {
    this.nodes.push(node(type, inputs, [output], attributes, domain));
    return output;
  }

  linear(x, prefix, out) {
    const mm = this.op('MatMul', [x, this.linearT(`${prefix}.weight`)], `${out}_mm`);
    return this.op('Add', [mm, this.weight(`${prefix}.bias`)], out);
  }

  // [B, T, D] → [B, H, T, dk].
  heads(x, out) {
    const r = this.op('Reshape', [x, 'heads_shape'], `${out}_r`);
    return this.op('Transpose', [r], out, { perm: [0, 2, 1, 3] });
  }

  // softmax(q·kᵀ (+ mask))·v, heads merged back to [B, T, D], through the output product.
  attend(q, k, v, mask, prefix, n) {
    const kT = this.op('Transpose', [k], `${n}kT`, { perm: [0, 1, 3, 2] });
    let scores = this.op('MatMul', [q, kT], `${n}scores`);
    if (mask) scores = this.op('Add', [scores, mask], `${n}masked`);
    const probs = this.op('Softmax', [scores], `${n}probs`, { axis: -1 });
    const ctx = this.op('MatMul', [probs, v], `${n}ctx`);
    const t = this.op('Transpose', [ctx], `${n}ctx_t`, { perm: [0, 2, 1, 3] });
    const merged = this.op('Reshape', [t, 'merge_shape'], `${n}ctx_m`);
    return this.linear(merged, `${prefix}.out_proj`, `${n}out`);
  }

  // LN(x + y).
  residual(x, y, ln, out) {
    const sum = this.op('Add', [y, x], `${out}_sum`);
    return this.op('LayerNormalization', [sum, this.weight(`${ln}.weight`), this.weight(`${ln}.bias`)], out, {
      axis: -1,
      epsilon: 1e-5,
    });
  }

  // The query of an attention block: (x·Wq + bq)/√dk, in heads.
  query(x, prefix, n) {
    const q = this.linear(x, `${prefix}.q_proj`, `${n}q`);
    return this.heads(this.op('Mul', [q, 'scaling'], `${n}q_s`), `${n}q_h`);
  }

  // LN(x + W₂·SiLU(W₁x + b₁) + b₂).
  feedForward(x, p, n) {
    const a = this.linear(x, `${p}.fc1`, `${n}fc1`);
    const s = this.op('Sigmoid', [a], `${n}sig`);
    const act = this.op('Mul', [a, s], `${n}act`);
    const y = this.linear(act, `${p}.fc2`, `${n}fc2`);
    return this.residual(x, y, `${p}.final_layer_norm`, `${n}ffn`);
  }

  // s·E[ids] + P[past … past + T − 1], with `past` a scalar int64 value.
  embed(ids, past) {
    const c = this.c;
    const e = this.op('Gather', [this.weight('model.shared.weight'), ids], 'emb_tok', { axis: 0 });
    const scaled = this.op('Mul', [e, 'embed_scale'], 'emb_scaled');
    const shape = this.op('Shape', [ids], 'ids_shape');
    const T = this.op('Gather', [shape, 'one_i'], 'ids_T', { axis: 0 });
    const end = past ? this.op('Add', [past, T], 'pos_end') : T;
    const range = this.op('Range', [past ?? 'zero_i', end, 'one_i'], 'pos_ids');
    this.init(
      floatTensor(
        'positions',
        [c.max_position_embeddings, c.d_model],
        positionTable(c.max_position_embeddings, c.d_model),
      ),
    );
    const pos = this.op('Gather', ['positions', range], 'emb_pos', { axis: 0 });
    return this.op('Add', [scaled, pos], 'h0');
  }

  // The constants every graph's blocks use.
  constants(heads) {
    const D = this.c.d_model;
    const dk = D / heads;
    this.init(int64Tensor('heads_shape', [0, 0, heads, dk]));
    this.init(int64Tensor('merge_shape', [0, 0, D]));
    this.init(scalar('scaling', 1 / Math.sqrt(dk)));
    this.init(scalar('embed_scale', this.c.scale_embedding ? Math.sqrt(D) : 1));
    this.init(int64Scalar('zero_i', 0));
    this.init(int64Scalar('one_i', 1));
  }

  // logits = h·Eᵀ + final_logits_bias.
  logits(h) {
    const V = this.c.vocab_size,
      D = this.c.d_model;
    if (!this.added.has('lm_head_T'))
      this.init(floatTensor('lm_head_T', [D, V], transpose(this.st.tensor('model.shared.weight'), V, D)));
    const mm = this.op('MatMul', [h, 'lm_head_T'], 'logits_mm');
    return this.op('Add', [mm, this.weight('final_logits_bias')], 'logits');
  }

  encode(name, inputs, outputs) {
    const graph = onnx.GraphProto.create({
      name,
      node: this.nodes,
      initializer: this.initializer,
      input: inputs,
      output: outputs,
    });
    return encodeModel(graph);
  }
}

function encoderGraph(st, c) {
  const g = new Graph(st, c);
  g.constants(c.encoder_attention_heads);
  let h = g.embed('input_ids', null);
  for (let i = 0; i < c.encoder_layers; i++) {
    const p = `model.encoder.layers.${i}`,
      n = `e${i}_`,
      a = `${p}.self_attn`;
    const q = g.query(h, a, n);
    const k = g.heads(g.linear(h, `${a}.k_proj`, `${n}k`), `${n}k_h`);
    const v = g.heads(g.linear(h, `${a}.v_proj`, `${n}v`), `${n}v_h`);
    const attn = g.residual(h, g.attend(q, k, v, null, a, n), `${p}.self_attn_layer_norm`, `${n}attn`);
    h = g.feedForward(attn, p, n);
  }
  g.op('Identity', [h], 'last_hidden_state');
  return g.encode(
    'marian_encoder',
    [valueInfo('input_ids', INT64, ['batch_size', 'encoder_sequence_length'])],
    [valueInfo('last_hidden_state', FLOAT, ['batch_size', 'encoder_sequence_length', c.d_model])],
  );
}

function decoderGraph(st, c, withPast) {
  const g = new Graph(st, c);
  const H = c.decoder_attention_heads,
    dk = c.d_model / H;
  g.constants(H);
  const inputs = [valueInfo('input_ids', INT64, ['batch_size', withPast ? 1 : 'decoder_sequence_length'])];
  const outputs = [valueInfo('logits', FLOAT, ['batch_size', withPast ? 1 : 'decoder_sequence_length', c.vocab_size])];
  let past = null,
    mask = null;
  if (withPast) {
    const shape = g.op('Shape', ['past_key_values.0.decoder.key'], 'past_shape');
    g.init(int64Scalar('two_i', 2));
    past = g.op('Gather', [shape, 'two_i'], 'past_length', { axis: 0 });
  } else {
    inputs.push(valueInfo('encoder_hidden_states', FLOAT, ['batch_size', 'encoder_sequence_length', c.d_model]));
    // The causal mask [T, T]: finfo(float32).min above the diagonal (transformers' value), sliced from a table.
    const P = c.max_position_embeddings;
    const table = new Float32Array(P * P);
    for (let r = 0; r < P; r++) table.fill(-3.4028234663852886e38, r * P + r + 1, (r + 1) * P);
    g.init(floatTensor('causal_table', [P, P], table));
    g.init(int64Tensor('mask_starts', [0, 0]));
    g.init(int64Tensor('mask_axes', [0, 1]));
    const T = g.op('Shape', ['input_ids'], 'mask_T', { start: 1, end: 2 });
    const ends = g.op('Concat', [T, T], 'mask_ends', { axis: 0 });
    mask = g.op('Slice', ['causal_table', 'mask_starts', ends, 'mask_axes'], 'causal_mask');
  }
  let h = g.embed('input_ids', past);
  const selfLength = withPast ? 'past_decoder_sequence_length + 1' : 'decoder_sequence_length';
  for (let i = 0; i < c.decoder_layers; i++) {
    const p = `model.decoder.layers.${i}`,
      n = `d${i}_`,
      a = `${p}.self_attn`,
      x = `${p}.encoder_attn`;
    // Causal self-attention, over the past keys and values and the new ones.
    const q = g.query(h, a, n);
    let k = g.heads(g.linear(h, `${a}.k_proj`, `${n}k`), withPast ? `${n}k_new` : `present.${i}.decoder.key`);
    let v = g.heads(g.linear(h, `${a}.v_proj`, `${n}v`), withPast ? `${n}v_new` : `present.${i}.decoder.value`);
    if (withPast) {
      for (const m of ['key', 'value'])
        inputs.push(
          valueInfo(`past_key_values.${i}.decoder.${m}`, FLOAT, ['batch_size', H, 'past_decoder_sequence_length', dk]),
        );
      k = g.op('Concat', [`past_key_values.${i}.decoder.key`, k], `present.${i}.decoder.key`, { axis: 2 });
      v = g.op('Concat', [`past_key_values.${i}.decoder.value`, v], `present.${i}.decoder.value`, { axis: 2 });
    }
    for (const m of ['key', 'value'])
      outputs.push(valueInfo(`present.${i}.decoder.${m}`, FLOAT, ['batch_size', H, selfLength, dk]));
    const selfOut = g.residual(h, g.attend(q, k, v, mask, a, `${n}s_`), `${p}.self_attn_layer_norm`, `${n}self`);
    // Cross-attention over the encoder's keys and values: computed at the first step, given after it.
    const cq = g.query(selfOut, x, `${n}x_`);
    let ck = `past_key_values.${i}.encoder.key`,
      cv = `past_key_values.${i}.encoder.value`;
    if (withPast) {
      for (const m of ['key', 'value'])
        inputs.push(
          valueInfo(`past_key_values.${i}.encoder.${m}`, FLOAT, ['batch_size', H, 'encoder_sequence_length', dk]),
        );
    } else {
      ck = g.heads(g.linear('encoder_hidden_states', `${x}.k_proj`, `${n}xk`), `present.${i}.encoder.key`);
      cv = g.heads(g.linear('encoder_hidden_states', `${x}.v_proj`, `${n}xv`), `present.${i}.encoder.value`);
      for (const m of ['key', 'value'])
        outputs.push(valueInfo(`present.${i}.encoder.${m}`, FLOAT, ['batch_size', H, 'encoder_sequence_length', dk]));
    }
    const crossOut = g.residual(
      selfOut,
      g.attend(cq, ck, cv, null, x, `${n}x_`),
      `${p}.encoder_attn_layer_norm`,
      `${n}cross`,
    );
    h = g.feedForward(crossOut, p, n);
  }
  g.logits(h);
  // Optimum's order: logits first, then the presents layer by layer.
  return g.encode(withPast ? 'marian_decoder_with_past' : 'marian_decoder', inputs, outputs);
}

/**
 * The three serialized ONNX models (Uint8Arrays) of the checkpoint in
 * `folder` (config.json + model.safetensors): { encoder, decoder,
 * decoderWithPast }, written by the caller as FILES names them.
 */
export function buildMarianOnnx(folder) {
  const config = JSON.parse(readFileSync(path.join(folder, 'config.json'), 'utf8'));
  const st = readSafetensors(path.join(folder, 'model.safetensors'));
  return {
    encoder: encoderGraph(st, config),
    decoder: decoderGraph(st, config, false),
    decoderWithPast: decoderGraph(st, config, true),
  };
}

// Beam b of a [B, …] tensor becomes what beam parents[b] was.
function gatherBeams(ort, tensor, parents) {
  const per = tensor.data.length / tensor.dims[0];
  if (parents.every((p, b) => p === b)) return tensor;
  const data = new Float32Array(tensor.data.length);
  parents.forEach((p, b) => data.set(tensor.data.subarray(p * per, (p + 1) * per), b * per));
  return new ort.Tensor('float32', data, tensor.dims);
}

/**
 * onnxruntime-web at `threads` threads (fixed once per process). load(dir)
 * resolves { createMs, forward, generate, dispose }:
 *   forward(inputIds, decoderIds) → { encoderLastHiddenState [S·D], logits [T·V] }: the encoder,
 *     then decoder_model over all of decoderIds at once (teacher-forced)
 *   decoder(inputIds, numBeams, { recordLogits }) → { step, reorder, stepLogits }: the encoder run,
 *     its output repeated for each beam (as transformers' generate() expands it), and the
 *     step(ids)/reorder(parents) of src/js/models/generation/'s searches (each step's logits as { logits }): decoder_model at the
 *     first step, decoder_with_past_model after it; reorder gathers the decoder's past keys and
 *     values by beam (the encoder's are the same for every beam, as BART's _reorder_cache leaves them)
 */
export async function createPeer({ threads }) {
  const { ort, version } = onnxRuntime(threads);
  return {
    name: 'onnxruntime-web',
    version,
    async load(dir) {
      const t0 = performance.now();
      const open = (file) =>
        ort.InferenceSession.create(readFileSync(path.join(dir, file)), {
          executionProviders: ['wasm'],
          graphOptimizationLevel: 'all',
          logSeverityLevel: 3,
        });
      const encoder = await open(FILES.encoder);
      const decoder = await open(FILES.decoder);
      const withPast = await open(FILES.decoderWithPast);
      const createMs = performance.now() - t0;
      const config = JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8'));
      const layers = config.decoder_layers,
        D = config.d_model;
      const int64 = (ids, dims) =>
        new ort.Tensor(
          'int64',
          BigInt64Array.from(ids, (x) => BigInt(x)),
          dims,
        );
      const encode = async (inputIds) =>
        (await encoder.run({ input_ids: int64(inputIds, [1, inputIds.length]) })).last_hidden_state;
      return {
        createMs,
        async forward(inputIds, decoderIds) {
          const hidden = await encode(inputIds);
          const out = await decoder.run({
            input_ids: int64(decoderIds, [1, decoderIds.length]),
            encoder_hidden_states: hidden,
          });
          return { encoderLastHiddenState: hidden.data, logits: out.logits.data };
        },
        async decoder(inputIds, B, { recordLogits = false } = {}) {
          const hidden = await encode(inputIds);
          const S = inputIds.length;
          let states = hidden;
          if (B > 1) {
            const data = new Float32Array(B * S * D);
            for (let b = 0; b < B; b++) data.set(hidden.data, b * S * D);
            states = new ort.Tensor('float32', data, [B, S, D]);
          }
          let past = null,
            cross = null;
          const stepLogits = [];
          const step = async (ids) => {
            const feeds = { input_ids: int64(ids, [B, 1]) };
            let out;
            if (!past) {
              out = await decoder.run({ ...feeds, encoder_hidden_states: states });
              cross = Array.from({ length: layers }, (_, i) => [
                out[`present.${i}.encoder.key`],
                out[`present.${i}.encoder.value`],
              ]);
            } else {
              for (let i = 0; i < layers; i++) {
                feeds[`past_key_values.${i}.decoder.key`] = past[i][0];
                feeds[`past_key_values.${i}.decoder.value`] = past[i][1];
                feeds[`past_key_values.${i}.encoder.key`] = cross[i][0];
                feeds[`past_key_values.${i}.encoder.value`] = cross[i][1];
              }
              out = await withPast.run(feeds);
            }
            past = Array.from({ length: layers }, (_, i) => [
              out[`present.${i}.decoder.key`],
              out[`present.${i}.decoder.value`],
            ]);
            if (recordLogits) stepLogits.push(out.logits.data);
            return out.logits.data;
          };
          const reorder = (parents) => {
            past = past.map((pair) => pair.map((t) => gatherBeams(ort, t, parents)));
          };
          return { step, reorder, stepLogits };
        },
        dispose() {
          encoder.release();
          decoder.release();
          withPast.release();
        },
      };
    },
  };
}
