// onnxruntime-web (wasm backend, SIMD + threads) running the same multi-head
// self-attention as an ONNX graph of standard ops, built here with onnx-proto:
// MatMul → Reshape → Transpose per projection, MatMul, Mul(1/√dK), [Add(causal
// mask)], Softmax, MatMul, Transpose → Reshape → MatMul(wO). The weights are
// initializers, resident in the session like an mha-wasm layer's.
import { headsOf } from '../inputs.mjs';
import { encodeModel, node, onnx, onnxRuntime } from './onnx-common.mjs';

const FLOAT = onnx.TensorProto.DataType.FLOAT;
const INT64 = onnx.TensorProto.DataType.INT64;

function tensor(name, dims, values, dataType = FLOAT) {
  return onnx.TensorProto.create({
    name,
    dims,
    dataType,
    ...(dataType === FLOAT ? { floatData: Array.from(values) } : { int64Data: values.map(Number) }),
  });
}

function valueInfo(name, dims) {
  return onnx.ValueInfoProto.create({
    name,
    type: { tensorType: { elemType: FLOAT, shape: { dim: dims.map((d) => ({ dimValue: d })) } } },
  });
}

/**
 * The serialized ONNX model of one config's attention layer: `standard` ops, or
 * `contrib`: the projections as MatMuls around onnxruntime's fused
 * com.microsoft.MultiHeadAttention op (unidirectional = causal).
 */
export function buildModel(config, inputs, form = 'standard') {
  if (form === 'contrib') return buildContribModel(config, inputs);
  const { numHeads: H, dK, dV } = headsOf(config);
  const L = config.L;
  const initializer = [
    ...weightInitializers(config, inputs),
    tensor('shapeQK', [4], [0, 0, H, dK], INT64),
    tensor('shapeV', [4], [0, 0, H, dV], INT64),
    tensor('shapeOut', [3], [0, 0, H * dV], INT64),
    tensor('scale', [], [1 / Math.sqrt(dK)]),
  ];
  const nodes = [
    node('MatMul', ['query', 'wQ'], ['Q']),
    node('Reshape', ['Q', 'shapeQK'], ['Qr']),
    node('Transpose', ['Qr'], ['Qh'], { perm: [0, 2, 1, 3] }),
    node('MatMul', ['query', 'wK'], ['K']),
    node('Reshape', ['K', 'shapeQK'], ['Kr']),
    node('Transpose', ['Kr'], ['Kt'], { perm: [0, 2, 3, 1] }),
    node('MatMul', ['query', 'wV'], ['V']),
    node('Reshape', ['V', 'shapeV'], ['Vr']),
    node('Transpose', ['Vr'], ['Vh'], { perm: [0, 2, 1, 3] }),
    node('MatMul', ['Qh', 'Kt'], ['S']),
    node('Mul', ['S', 'scale'], ['Ss']),
  ];
  let logits = 'Ss';
  if (config.causal) {
    const mask = new Float32Array(L * L);
    for (let i = 0; i < L; i++) for (let j = i + 1; j < L; j++) mask[i * L + j] = -Infinity;
    initializer.push(tensor('mask', [L, L], mask));
    nodes.push(node('Add', ['Ss', 'mask'], ['Sm']));
    logits = 'Sm';
  }
  nodes.push(
    node('Softmax', [logits], ['P'], { axis: -1 }),
    node('MatMul', ['P', 'Vh'], ['O']),
    node('Transpose', ['O'], ['Ot'], { perm: [0, 2, 1, 3] }),
    node('Reshape', ['Ot', 'shapeOut'], ['concat']),
    node('MatMul', ['concat', 'wO'], ['output']),
  );
  return layerModel(config, nodes, initializer, false);
}

function weightInitializers(config, inputs) {
  const { dModel: D, numHeads: H, dK, dV } = headsOf(config);
  return [
    tensor('wQ', [D, H * dK], inputs.wQ),
    tensor('wK', [D, H * dK], inputs.wK),
    tensor('wV', [D, H * dV], inputs.wV),
    tensor('wO', [H * dV, D], inputs.wO),
  ];
}

function layerModel(config, nodes, initializer, contrib) {
  const shape = [1, config.L, config.dModel];
  const graph = onnx.GraphProto.create({
    name: 'mha',
    node: nodes,
    initializer,
    input: [valueInfo('query', shape)],
    output: [valueInfo('output', shape)],
  });
  return encodeModel(graph, { contrib });
}

function buildContribModel(config, inputs) {
  const { numHeads: H } = headsOf(config);
  const mha = node(
    'MultiHeadAttention',
    ['Q', 'K', 'V'],
    ['concat'],
    { num_heads: H, ...(config.causal ? { unidirectional: 1 } : {}) },
    'com.microsoft',
  );
  const nodes = [
    node('MatMul', ['query', 'wQ'], ['Q']),
    node('MatMul', ['query', 'wK'], ['K']),
    node('MatMul', ['query', 'wV'], ['V']),
    mha,
    node('MatMul', ['concat', 'wO'], ['output']),
  ];
  return layerModel(config, nodes, weightInitializers(config, inputs), true);
}

export async function createPeer({ threads }) {
  const { ort, version } = onnxRuntime(threads);
  return {
    name: 'onnxruntime-web',
    version,
    async prepare(config, inputs, form = 'standard') {
      const t0 = performance.now();
      const session = await ort.InferenceSession.create(buildModel(config, inputs, form), {
        executionProviders: ['wasm'],
      });
      const createMs = performance.now() - t0;
      const { dModel } = headsOf(config);
      return {
        createMs,
        async run() {
          const feeds = { query: new ort.Tensor('float32', inputs.query, [1, config.L, dModel]) };
          const result = await session.run(feeds);
          return result.output.data;
        },
        dispose: () => session.release(),
      };
    },
  };
}
