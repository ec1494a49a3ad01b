// EngineHost.modelWrite (src/js/engine-host.js) on the model build, directly:
// nothing the bindings read can throw in JS, so no exception crosses the
// wasm frames of Model.write (which left its string argument behind, 17 B a
// time): a subclass whose length, byteLength or getters lie or throw is read
// through the intrinsic getters, a dtype that is not F32/F16/BF16 and bytes
// that are not a Uint8Array are refused before the call; after 1,600 such
// calls the heap in use is where it was. And the memory a load stages (a
// packed slot's copy while its tensors arrive) is counted up front.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadHost } from '../../src/js/node-host.mjs';
import { peakStagingFloats } from '../../src/js/models/load.mjs';

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
      'dtype: expected one of F32, F16, BF16, got F64',
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

test("the layout says which tensors share a packed slot; the load's peak staging is counted before allocating", () => {
  const layout = host.call('describeModel', [CONFIG]);
  const byName = new Map(layout.tensors.map((t, index) => [t.name, { ...t, index }]));
  const q = byName.get('encoder.layer.0.attention.self.query.weight');
  const k = byName.get('encoder.layer.0.attention.self.key.weight');
  const v = byName.get('encoder.layer.0.attention.self.value.weight');
  // BERT's query, key and value weights are one [32, 96] product, staged whole until the last arrives.
  expect([k.slot, v.slot]).toEqual([q.slot, q.slot]);
  expect(q.stagingFloats).toBe(32 * 96);
  expect(byName.get('embeddings.LayerNorm.weight').stagingFloats).toBe(0);
  // In the model's order one slot is open at a time; every query first, then every key, keeps both layers' open.
  const inOrder = [layout.tensors.map((t, index) => ({ index }))];
  const qkv = (part) =>
    layout.tensors.map((t, index) => ({ t, index })).filter(({ t }) => t.name.endsWith(`self.${part}.weight`));
  const hostile = [[...qkv('query'), ...qkv('key'), ...qkv('value')].map(({ index }) => ({ index }))];
  const largest = Math.max(...layout.tensors.map((t) => t.stagingFloats));
  expect(peakStagingFloats(layout, inOrder)).toBe(largest);
  expect(peakStagingFloats(layout, hostile)).toBe(2 * 32 * 96);
});

test('a model whose parameters fit but not with what its load stages is refused before anything is allocated', () => {
  // 5 layers of hidden size 4096: about 1.35 GB of parameters, which fit in the 2 GiB memory; staging
  // every layer's query, key and value at once (a checkpoint ordered so) adds 1.0 GB, which does not.
  const big = { ...CONFIG, hidden_size: 4096, num_attention_heads: 8, intermediate_size: 64, num_hidden_layers: 5 };
  const before = host.call('memoryStats', []);
  expect(() => host.call('createModel', [big, 5 * 3 * 4096 * 4096])).toThrow(
    /^model: needs \d+ bytes of WebAssembly memory, more than the \d+ bytes available/,
  );
  const after = host.call('memoryStats', []);
  expect([after.heapBytes, after.inUseBytes]).toEqual([before.heapBytes, before.inUseBytes]);
});
