// EngineHost.modelWrite (src/js/engine-host.js) on the model build, directly:
// nothing the bindings read can throw in JS, so no exception crosses the
// wasm frames of Model.write (which left its string argument behind, 17 B a
// time): a subclass whose length, byteLength or getters lie or throw is read
// through the intrinsic getters, a dtype that is not F32/F16/BF16 and bytes
// that are not a Uint8Array are refused before the call; after 1,600 such
// calls the heap in use is where it was. And the memory a model takes, in
// float32 or 16-bit weights, is counted up front. EngineHost.modelCall, the
// one named call of run, prefill, step, encode and decode, likewise refuses a
// malformed request before the bindings read it.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadHost } from '../../src/js/node-host.mjs';

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
const CONFIG = JSON.parse(readFileSync(new URL('../fixtures/models/bert-zh/config.json', import.meta.url), 'utf8'));

let host;
beforeAll(async () => {
  const files = { glue: 'mha-model-scalar.js', wasm: 'mha-model-scalar.wasm' };
  const paths = Object.fromEntries(Object.values(files).map((f) => [f, DIST + f]));
  host = await loadHost({ variant: 'scalar', threads: 1, files, paths, locateFile: false });
});
afterAll(() => host?.dispose());

class Lying extends Uint8Array {
  get length() {
    return 1e9;
  }
  get byteLength() {
    throw new Error('a getter that throws');
  }
}

test('hostile bytes and dtypes never reach the bindings; the heap in use stays where it was', () => {
  const { id } = host.call('createModel', [CONFIG]);
  // The first tensor (embeddings.word_embeddings.weight, 832 F32), two elements a call; the
  // first call sizes the model's chunk buffer, which it keeps until the load ends.
  host.call('modelWrite', [id, 0, 'F32', 0, new Uint8Array(8)]);
  const before = host.call('memoryStats', []).inUseBytes;
  for (let i = 1; i < 400; i++) {
    // Read through the intrinsics: the 8 real bytes (two F32) are written, the lying getters never asked.
    host.call('modelWrite', [id, 0, 'F32', 2 * i, new Lying(8)]);
    expect(() => host.call('modelWrite', [id, 0, 'F64', 0, new Uint8Array(8)])).toThrow(
      'dtype: expected one of F32, F16, BF16, Q8_0, Q4_0, Q5_0, Q4_K, Q5_K, Q6_K, got F64',
    );
    expect(() => host.call('modelWrite', [id, 0, 'F32', 0, { length: 8 }])).toThrow(
      "bytes: expected a Uint8Array of the tensor's elements",
    );
    expect(() => host.call('modelWrite', [id, 0, 'F32', 0, new Uint8Array(7)])).toThrow(
      'bytes: not a whole number of elements',
    );
  }
  expect(host.call('memoryStats', []).inUseBytes).toBe(before);
  host.call('disposeModel', [id]);
});

test('the layout says which tensors share a packed slot and which are matrices; their bytes either way', () => {
  const layout = host.call('describeModel', [CONFIG]);
  const byName = new Map(layout.tensors.map((t, index) => [t.name, { ...t, index }]));
  const q = byName.get('encoder.layer.0.attention.self.query.weight');
  const k = byName.get('encoder.layer.0.attention.self.key.weight');
  const v = byName.get('encoder.layer.0.attention.self.value.weight');
  // BERT's query, key and value weights are one [32, 96] product; the token embeddings are a matrix too (Eᵀ).
  expect([k.slot, v.slot]).toEqual([q.slot, q.slot]);
  expect([q.matrix, byName.get('embeddings.word_embeddings.weight').matrix]).toEqual([true, true]);
  expect(byName.get('embeddings.LayerNorm.weight').matrix).toBeUndefined();
  expect(layout.storage).toBe('F32');
  // From the shapes: each matrix slot is [K, N] with N = its tensors' rows (nn.Linear's [out, in]),
  // packed in panels of 8 columns; vectors are float32 whatever the storage.
  const slots = new Map();
  let vectorElements = 0;
  for (const t of layout.tensors) {
    if (!t.matrix) vectorElements += t.shape.reduce((a, b) => a * b, 1);
    else slots.set(t.slot, { K: t.shape[1], N: (slots.get(t.slot)?.N ?? 0) + t.shape[0] });
  }
  const matrixElements = [...slots.values()].reduce((sum, { K, N }) => sum + K * Math.ceil(N / 8) * 8, 0);
  expect(layout.storageBytes).toEqual({
    F32: 4 * (vectorElements + matrixElements),
    F16: 4 * vectorElements + 2 * matrixElements,
    BF16: 4 * vectorElements + 2 * matrixElements,
  });
});

test('a model too large for the memory is refused before anything is allocated, in every storage', () => {
  // 40 layers of hidden size 4096: about 10.7 GB of parameters in float32, 5.4 GB in 16 bits.
  const big = { ...CONFIG, hidden_size: 4096, num_attention_heads: 8, intermediate_size: 64, num_hidden_layers: 40 };
  const before = host.call('memoryStats', []);
  const needs = ['F32', 'BF16', 'F16'].map((storage) => {
    let message = '';
    try {
      host.call('createModel', [big, storage]);
    } catch (error) {
      message = error.message;
    }
    expect(message).toMatch(/^model: needs \d+ bytes of WebAssembly memory, more than the \d+ bytes available/);
    return Number(/needs (\d+) bytes/.exec(message)[1]);
  });
  const { storageBytes } = host.call('describeModel', [big]);
  expect(needs).toEqual([storageBytes.F32, storageBytes.BF16, storageBytes.F16]);
  expect(needs[1] / needs[0]).toBeCloseTo(0.5, 2);
  const after = host.call('memoryStats', []);
  expect([after.heapBytes, after.inUseBytes]).toEqual([before.heapBytes, before.inUseBytes]);
  expect(() => host.call('createModel', [CONFIG, 'bf16'])).toThrow(
    'storage: expected one of F32, F16, BF16, Q8_0, Q4_0, Q5_0, Q4_K, Q5_K, Q6_K, got bf16',
  );
});

test('modelCall: one named request; a malformed one is refused before the bindings, the heap unchanged', () => {
  const { id } = host.call('createModel', [CONFIG]);
  const ids = Int32Array.of(1, 2, 3);
  // A model whose weights are not all written is refused by the bindings by name (their own check).
  expect(() => host.call('modelCall', [id, { call: 'run', inputIds: ids }])).toThrow(/not loaded|missing|weights/);
  const before = host.call('memoryStats', []).inUseBytes;
  for (let i = 0; i < 200; i++) {
    expect(() => host.call('modelCall', [id, { call: 'fly', inputIds: ids }])).toThrow(
      'call: expected one of run, prefill, step, beamStep, encode, decode, got fly',
    );
    expect(() => host.call('modelCall', [id, null])).toThrow('request: expected an object');
    expect(() => host.call('modelCall', [id, { call: 'run', inputIds: [1, 2, 3] }])).toThrow(
      'request.inputIds: expected an Int32Array',
    );
    expect(() => host.call('modelCall', [id, { call: 'run', inputIds: ids, tokenTypeIds: [0, 0, 0] }])).toThrow(
      'request.tokenTypeIds: expected an Int32Array or null',
    );
    expect(() => host.call('modelCall', [id, { call: 'run', inputIds: ids, headMask: { encoder: [1, 1] } }])).toThrow(
      'request.headMask.encoder: expected a Uint8Array or null',
    );
  }
  expect(host.call('memoryStats', []).inUseBytes).toBe(before);
  host.call('disposeModel', [id]);
});

test('modelBytes counts what createModel allocates, matrices held in blocks or not; bad holds refused', () => {
  const layout = host.call('describeModel', [CONFIG]);
  // Every matrix in Q8_0 (BERT's joined query, key and value included: each of its tensors asks the same).
  const holds = layout.tensors.flatMap((t, index) => (t.matrix ? [[index, 'Q8_0']] : []));
  for (const [storage, held] of [
    ['F32', null],
    ['BF16', null],
    ['F32', holds],
    ['F32', holds.slice(0, 1)],
  ]) {
    const bytes = host.call('modelBytes', [CONFIG, storage, held]);
    const { id, bytes: allocated } = host.call('createModel', [CONFIG, storage, held]);
    host.call('disposeModel', [id]);
    expect([storage, held?.length, bytes]).toEqual([storage, held?.length, allocated]);
  }
  expect(host.call('modelBytes', [CONFIG, 'F32', holds])).toBeLessThan(
    0.4 * host.call('modelBytes', [CONFIG, 'F32', null]),
  );
  expect(() => host.call('modelBytes', [CONFIG, 'F32', [[0, 'Q9_9']]])).toThrow(
    'holds: expected one of F32, F16, BF16, Q8_0, Q4_0, Q5_0, Q4_K, Q5_K, Q6_K, got Q9_9',
  );
});
