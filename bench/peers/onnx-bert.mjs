// onnxruntime-web (wasm backend, SIMD + threads) on an ONNX export of a BERT
// checkpoint: the graph a PyTorch export of BertModel gives, built
// here with onnx-proto from the safetensors file. Standard opset-17 ops:
// Gather ×3 → Add → LayerNormalization, then per layer MatMul+Add Q, K, V
// (weights transposed to [in, out], as the exporter writes them) → Reshape →
// Transpose, MatMul QKᵀ, Mul 1/√dK, Softmax, MatMul V, Transpose → Reshape,
// MatMul+Add, Add residual, LayerNormalization, MatMul+Add → Gelu →
// MatMul+Add, Add, LayerNormalization. Gelu is com.microsoft.Gelu (exact, erf)
// or the erf formula 0.5·x·(1 + Erf(x/√2)) in standard ops (which onnxruntime
// fuses into the same Gelu). Outputs: last_hidden_state [1, L, D] and each
// layer's attention probabilities attention_i [1, H, L, L]. The `fused` form
// (last_hidden_state only) runs each layer's attention as onnxruntime's
// com.microsoft.MultiHeadAttention instead, its fastest form without the weights.
// The weights (400 MB) go in as rawData bytes rather than floatData arrays.
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

/**
 * The serialized ONNX model (Uint8Array) of the checkpoint in `folder`
 * (config.json + model.safetensors). gelu: 'contrib' (com.microsoft.Gelu) or
 * 'erf' (standard ops). fused: each layer's attention as
 * com.microsoft.MultiHeadAttention, with last_hidden_state the only output.
 * Inputs: input_ids, token_type_ids, position_ids
 * [1, L] int64; L is symbolic.
 */
export function buildBertOnnx(folder, { gelu = 'contrib', fused = false } = {}) {
  const config = JSON.parse(readFileSync(path.join(folder, 'config.json'), 'utf8'));
  const st = readSafetensors(path.join(folder, 'model.safetensors'));
  const D = config.hidden_size,
    H = config.num_attention_heads,
    dK = D / H,
    eps = config.layer_norm_eps ?? 1e-12; // never a whole number, so attribute() writes a FLOAT
  const initializer = [];
  const nodes = [];
  const weight = (name) => {
    initializer.push(floatTensor(name, st.shape(name), st.tensor(name)));
    return name;
  };
  const linearT = (name) => {
    const [out, inp] = st.shape(name);
    initializer.push(floatTensor(name, [inp, out], transpose(st.tensor(name), out, inp)));
    return name;
  };
  if (!fused)
    initializer.push(
      int64Tensor('heads_shape', [0, 0, H, dK]),
      int64Tensor('merge_shape', [0, 0, D]),
      scalar('scale', 1 / Math.sqrt(dK)),
    );
  if (gelu === 'erf') initializer.push(scalar('half', 0.5), scalar('one', 1), scalar('inv_sqrt2', Math.SQRT1_2));

  const e = 'bert.embeddings.';
  nodes.push(
    node('Gather', [weight(`${e}word_embeddings.weight`), 'input_ids'], ['emb_word'], { axis: 0 }),
    node('Gather', [weight(`${e}position_embeddings.weight`), 'position_ids'], ['emb_pos'], { axis: 0 }),
    node('Gather', [weight(`${e}token_type_embeddings.weight`), 'token_type_ids'], ['emb_type'], { axis: 0 }),
    node('Add', ['emb_word', 'emb_type'], ['emb_sum0']),
    node('Add', ['emb_sum0', 'emb_pos'], ['emb_sum']),
    node('LayerNormalization', ['emb_sum', weight(`${e}LayerNorm.weight`), weight(`${e}LayerNorm.bias`)], ['h0'], {
      axis: -1,
      epsilon: eps,
    }),
  );
  const linear = (x, prefix, out) => {
    nodes.push(
      node('MatMul', [x, linearT(`${prefix}.weight`)], [`${out}_mm`]),
      node('Add', [`${out}_mm`, weight(`${prefix}.bias`)], [out]),
    );
    return out;
  };
  const outputs = [];
  let h = 'h0';
  for (let i = 0; i < config.num_hidden_layers; i++) {
    const p = `bert.encoder.layer.${i}.`,
      n = `l${i}_`;
    const heads = (m, perm) => {
      const x = linear(h, `${p}attention.self.${m}`, `${n}${m}`);
      nodes.push(node('Reshape', [x, 'heads_shape'], [`${x}_r`]), node('Transpose', [`${x}_r`], [`${x}_h`], { perm }));
      return `${x}_h`;
    };
    if (fused) {
      // No attention probabilities out: onnxruntime's fused attention op.
      const [q, k, v] = ['query', 'key', 'value'].map((m) => linear(h, `${p}attention.self.${m}`, `${n}${m}`));
      nodes.push(node('MultiHeadAttention', [q, k, v], [`${n}ctx_m`], { num_heads: H }, 'com.microsoft'));
    } else {
      const q = heads('query', [0, 2, 1, 3]);
      const kT = heads('key', [0, 2, 3, 1]);
      const v = heads('value', [0, 2, 1, 3]);
      const probs = `attention_${i}`;
      outputs.push(probs);
      nodes.push(
        node('MatMul', [q, kT], [`${n}scores`]),
        node('Mul', [`${n}scores`, 'scale'], [`${n}scaled`]),
        node('Softmax', [`${n}scaled`], [probs], { axis: -1 }),
        node('MatMul', [probs, v], [`${n}ctx`]),
        node('Transpose', [`${n}ctx`], [`${n}ctx_t`], { perm: [0, 2, 1, 3] }),
        node('Reshape', [`${n}ctx_t`, 'merge_shape'], [`${n}ctx_m`]),
      );
    }
    const attnOut = linear(`${n}ctx_m`, `${p}attention.output.dense`, `${n}attn_out`);
    nodes.push(
      node('Add', [attnOut, h], [`${n}attn_res`]),
      node(
        'LayerNormalization',
        [
          `${n}attn_res`,
          weight(`${p}attention.output.LayerNorm.weight`),
          weight(`${p}attention.output.LayerNorm.bias`),
        ],
        [`${n}attn_ln`],
        { axis: -1, epsilon: eps },
      ),
    );
    const inter = linear(`${n}attn_ln`, `${p}intermediate.dense`, `${n}inter`);
    if (gelu === 'contrib') {
      nodes.push(node('Gelu', [inter], [`${n}gelu`], {}, 'com.microsoft'));
    } else {
      nodes.push(
        node('Mul', [inter, 'inv_sqrt2'], [`${n}gelu_s`]),
        node('Erf', [`${n}gelu_s`], [`${n}gelu_e`]),
        node('Add', [`${n}gelu_e`, 'one'], [`${n}gelu_a`]),
        node('Mul', [inter, `${n}gelu_a`], [`${n}gelu_m`]),
        node('Mul', [`${n}gelu_m`, 'half'], [`${n}gelu`]),
      );
    }
    const out = linear(`${n}gelu`, `${p}output.dense`, `${n}out`);
    const last = i === config.num_hidden_layers - 1;
    nodes.push(
      node('Add', [out, `${n}attn_ln`], [`${n}res`]),
      node(
        'LayerNormalization',
        [`${n}res`, weight(`${p}output.LayerNorm.weight`), weight(`${p}output.LayerNorm.bias`)],
        [last ? 'last_hidden_state' : `h${i + 1}`],
        { axis: -1, epsilon: eps },
      ),
    );
    h = `h${i + 1}`;
  }
  const graph = onnx.GraphProto.create({
    name: 'bert',
    node: nodes,
    initializer,
    input: ['input_ids', 'token_type_ids', 'position_ids'].map((x) => valueInfo(x, INT64, [1, 'L'])),
    output: [
      valueInfo('last_hidden_state', FLOAT, [1, 'L', D]),
      ...outputs.map((x) => valueInfo(x, FLOAT, [1, H, 'L', 'L'])),
    ],
  });
  return encodeModel(graph, { contrib: true });
}

/**
 * onnxruntime-web at `threads` threads (fixed once per process). load(bytes)
 * resolves { createMs, run(inputIds, { returnAttention }), dispose }; run
 * resolves { lastHiddenState [L·D], attention [layers·H·L·L] (with
 * returnAttention) } as Float32Arrays. Without returnAttention only
 * last_hidden_state is fetched (the graph is the same).
 */
export async function createPeer({ threads }) {
  const { ort, version } = onnxRuntime(threads);
  return {
    name: 'onnxruntime-web',
    version,
    async load(modelBytes) {
      const t0 = performance.now();
      const session = await ort.InferenceSession.create(modelBytes, {
        executionProviders: ['wasm'],
        graphOptimizationLevel: 'all',
        logSeverityLevel: 3,
      });
      const createMs = performance.now() - t0;
      const attentionNames = session.outputNames.filter((n) => n.startsWith('attention_'));
      attentionNames.sort((a, b) => Number(a.slice(10)) - Number(b.slice(10)));
      return {
        createMs,
        async run(inputIds, { returnAttention = false } = {}) {
          const L = inputIds.length;
          const ids = BigInt64Array.from(inputIds, (x) => BigInt(x));
          const feeds = {
            input_ids: new ort.Tensor('int64', ids, [1, L]),
            token_type_ids: new ort.Tensor('int64', new BigInt64Array(L), [1, L]),
            position_ids: new ort.Tensor(
              'int64',
              BigInt64Array.from({ length: L }, (_, i) => BigInt(i)),
              [1, L],
            ),
          };
          const fetches = returnAttention ? ['last_hidden_state', ...attentionNames] : ['last_hidden_state'];
          const result = await session.run(feeds, fetches);
          const out = { lastHiddenState: result.last_hidden_state.data };
          if (returnAttention) {
            const per = result[attentionNames[0]].data.length;
            out.attention = new Float32Array(per * attentionNames.length);
            attentionNames.forEach((n, i) => out.attention.set(result[n].data, i * per));
          }
          for (const t of Object.values(result)) t.dispose?.();
          return out;
        },
        dispose: () => session.release(),
      };
    },
  };
}
