// What both onnxruntime-web peers share (onnxruntime.mjs: one attention
// layer; onnx-bert.mjs: a BERT encoder): the runtime set up for a thread
// count, and graph nodes built with onnx-proto.
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
