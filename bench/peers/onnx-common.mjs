// What the onnxruntime-web peers share (onnxruntime.mjs: one attention
// layer; onnx-bert.mjs: a BERT encoder; onnx-marian.mjs: a MarianMT
// encoder-decoder): the runtime set up for a thread count, and graph nodes,
// tensors and value infos built with onnx-proto.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
export const { onnx } = require('onnx-proto');
const A = onnx.AttributeProto.AttributeType;

/** onnxruntime-web's wasm backend on `threads` threads (fixed once per process), SIMD on, quiet. */
export function onnxRuntime(threads) {
  const ort = require('onnxruntime-web');
  ort.env.wasm.numThreads = threads;
  ort.env.wasm.simd = true;
  ort.env.logLevel = 'error';
  return { ort, version: ort.env.versions?.web ?? ort.env.versions?.common ?? 'unknown' };
}

function attribute(name, value) {
  if (Array.isArray(value)) return onnx.AttributeProto.create({ name, ints: value, type: A.INTS });
  if (Number.isInteger(value)) return onnx.AttributeProto.create({ name, i: value, type: A.INT });
  return onnx.AttributeProto.create({ name, f: value, type: A.FLOAT });
}

/** A graph node; attributes are ints, int lists or floats; `domain` '' is the standard opset. */
export function node(opType, input, output, attributes = {}, domain = '') {
  return onnx.NodeProto.create({
    opType,
    input,
    output,
    domain,
    name: output[0],
    attribute: Object.entries(attributes).map(([k, v]) => attribute(k, v)),
  });
}

export const FLOAT = onnx.TensorProto.DataType.FLOAT;
export const INT64 = onnx.TensorProto.DataType.INT64;

export const bytesOf = (f32) => new Uint8Array(f32.buffer, f32.byteOffset, f32.byteLength);

export function floatTensor(name, dims, values) {
  return onnx.TensorProto.create({ name, dims, dataType: FLOAT, rawData: bytesOf(values) });
}

export function int64Tensor(name, values) {
  return onnx.TensorProto.create({ name, dims: [values.length], dataType: INT64, int64Data: values });
}

export function scalar(name, value) {
  return onnx.TensorProto.create({ name, dims: [], dataType: FLOAT, rawData: bytesOf(Float32Array.of(value)) });
}

export function valueInfo(name, elemType, dims) {
  return onnx.ValueInfoProto.create({
    name,
    type: {
      tensorType: {
        elemType,
        shape: { dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })) },
      },
    },
  });
}

/**
 * A model of `graph` as bytes: IR 8, the standard opset 17 and, with `contrib`, onnxruntime's com.microsoft ops
 * (MultiHeadAttention, MatMulNBits); `metadata` as the model's metadata_props.
 */
export function encodeModel(graph, { contrib = false, metadata = {} } = {}) {
  const model = onnx.ModelProto.create({
    irVersion: 8,
    opsetImport: [{ domain: '', version: 17 }, ...(contrib ? [{ domain: 'com.microsoft', version: 1 }] : [])],
    graph,
    producerName: 'mha-wasm bench',
    metadataProps: Object.entries(metadata).map(([key, value]) => ({ key, value })),
  });
  return onnx.ModelProto.encode(model).finish();
}

/** [rows, cols] → [cols, rows]: nn.Linear's [out, in] to MatMul's [in, out]. */
export function transpose(w, rows, cols) {
  const t = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    const row = r * cols;
    for (let c = 0; c < cols; c++) t[c * rows + r] = w[row + c];
  }
  return t;
}
