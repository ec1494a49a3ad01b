// Hostile trainer calls on a build of each kind of wasm memory (helpers/engines.mjs:
// MEMORY_BUILDS; the threaded one on 2 threads): sizes
// whose products pass 32 bits (wasm32's size_t) or the wasm memory, a call of
// days of work, float options a float cannot hold, a data set past the wasm
// memory. Each is a RangeError that names the arguments (and the elements or
// bytes needed); the engine stays usable, the process alive, and the wasm
// heap's in-use bytes come back to where they were.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { variantFiles } from '../../src/js/files.mjs';
import { createEngines, disposeEngines, MEMORY_VARIANTS as VARIANTS } from './helpers/engines.mjs';

const require = createRequire(import.meta.url);
let engines;
beforeAll(async () => {
  engines = await createEngines({ training: true, variants: VARIANTS });
});
afterAll(() => disposeEngines(engines));

const oneToken = (count) => Array.from({ length: count }, (_, i) => ({ tokens: [i % 4] }));
const parameterCount = async (trainer) =>
  Object.values(await trainer.parameters()).reduce((sum, values) => sum + values.length, 0);

// A normal trainer's life: made, given data, trained, evaluated, disposed.
async function normalCycle(engine) {
  const trainer = await engine.createTrainer({ vocabSize: 6, numTags: 3, maxLength: 5, numHeads: 2, mlpHidden: 8 });
  await trainer.setData({
    sentences: [
      { tokens: [0, 1, 2], tags: [0, 1, 2] },
      { tokens: [3, 4], tags: [1, -1] },
    ],
  });
  const { losses } = await trainer.train({ steps: 3, batchSize: 2 });
  const { attention } = await trainer.evaluate({ sentences: [{ tokens: [1, 2] }], returnAttention: true });
  trainer.dispose();
  expect(losses.every(Number.isFinite) && attention.every(Number.isFinite)).toBe(true);
}

async function refusal(promise) {
  const error = await promise.then(
    () => new Error('accepted'),
    (e) => e,
  );
  expect(error).toBeInstanceOf(RangeError);
  return error.message;
}

describe.each(VARIANTS)('%s build', (variant) => {
  test('sizes past 32 bits or the wasm memory, days of work and floats out of range are RangeErrors; the engine goes on, its memory back where it was', async () => {
    const engine = engines[variant];
    await normalCycle(engine); // warm-up: what the engine keeps after its first calls
    const before = (await engine.memoryStats()).inUseBytes;

    // evaluate: slots·numHeads·maxLength past 2^32 (1,025 and 1,024 sentences:
    // the heap overflowed, or the attention came back empty), past 2^31
    // elements, then past what the wasm memory can give.
    const wide = await engine.createTrainer({ vocabSize: 4, numTags: 2, maxLength: 1024, numHeads: 4 });
    for (const count of [1025, 1024])
      expect(await refusal(wide.evaluate({ sentences: oneToken(count), returnAttention: true }))).toBe(
        `attention: sentences×numHeads×maxLength×maxLength = ${count}×4×1024×1024 = ${count * 4 * 2 ** 20} elements (${count * 16 * 2 ** 20} bytes), more than 2147483647`,
      );
    expect(await refusal(wide.evaluate({ sentences: oneToken(256), returnAttention: true }))).toMatch(
      /^attention: .* = 256×4×1024×1024 = 1073741824 elements \(4294967296 bytes\), more than the 4294967295 bytes this platform can address$/,
    );
    expect(await refusal(wide.evaluate({ sentences: oneToken(128), returnAttention: true }))).toMatch(
      /^evaluate: this call needs \d+ bytes of WebAssembly memory, more than the \d+ bytes available \(limit 2147483648\); evaluate fewer sentences at a time$/,
    );
    // Without the weights the same sentences are small.
    const { predictions } = await wide.evaluate({ sentences: oneToken(1025) });
    expect(predictions).toHaveLength(1025 * 1024);
    wide.dispose();

    // train: the shards' gradients, ⌈batchSize/8⌉ × parameters, past 2^31
    // elements with 2^19 parameters (8,192 × 2^19 floats = 2^33 bytes), past
    // 2^32 bytes with 2^17, past the memory with 2^16.
    for (const [vocabSize, pattern] of [
      [
        2 ** 15,
        /^shard gradients: ⌈batchSize\/8⌉×parameters = 8192×\d+ = \d+ elements \(\d+ bytes\), more than 2147483647$/,
      ],
      [
        2 ** 13,
        /^shard gradients: .* elements \(\d+ bytes\), more than the 4294967295 bytes this platform can address$/,
      ],
      [
        2 ** 12,
        /^train: this call needs \d+ bytes of WebAssembly memory, more than the \d+ bytes available \(limit 2147483648\); use a smaller batchSize$/,
      ],
    ]) {
      const trainer = await engine.createTrainer({ vocabSize, numTags: 2, maxLength: 2 });
      expect(await parameterCount(trainer)).toBeGreaterThan(vocabSize * 16);
      await trainer.setData({ sentences: [{ tokens: [1, 2], tags: [0, 1] }] });
      expect(await refusal(trainer.train({ steps: 1, batchSize: 65536 }))).toMatch(pattern);
      expect((await trainer.train({ steps: 2, batchSize: 4 })).losses).toHaveLength(2);
      trainer.dispose();
    }

    // Days of work in one call; floats that are finite as doubles only.
    const small = await engine.createTrainer({ vocabSize: 4, numTags: 2, maxLength: 4 });
    await small.setData({ sentences: [{ tokens: [1, 2], tags: [0, 1] }] });
    expect(await refusal(small.train({ steps: 1e6, batchSize: 65536 }))).toMatch(
      /^train: steps×batchSize×maxLength = 1000000×65536×\d+ = \d+ token slots, more than 16777216 per call; split it into calls of at most \d+ steps$/,
    );
    small.dispose();
    for (const [name, value, float] of [
      ['learningRate', 1e39, 'Infinity'],
      ['learningRate', 1e-50, '0'],
      ['epsilon', 1e-50, '0'],
      ['epsilon', 1e39, 'Infinity'],
      ['beta2', 0.99999999999, '1'],
    ])
      expect(await refusal(engine.createTrainer({ vocabSize: 4, numTags: 2, maxLength: 4, [name]: value }))).toBe(
        `${name}: expected a finite number ${name === 'beta2' ? '≥ 0 and < 1' : '> 0'} as a 32-bit float, got ${value} (${float} as a float)`,
      );

    await normalCycle(engine);
    expect((await engine.memoryStats()).inUseBytes).toBe(before);
  }, 60_000);

  test('setData past the wasm memory is a RangeError that says how many bytes, and what to change', async () => {
    const engine = engines[variant];
    await normalCycle(engine);
    const before = (await engine.memoryStats()).inUseBytes;
    // 140,000 one-token sentences of maxLength 1024: 1.1 GB of tokens and
    // tags in JS (within src/js's limits), more than 2 GB in the engine.
    const trainer = await engine.createTrainer({ vocabSize: 4, numTags: 2, maxLength: 1024 });
    const sentence = { tokens: [1], tags: [0] };
    const sentences = Array.from({ length: 140_000 }, () => sentence);
    const message = await refusal(trainer.setData({ sentences }));
    const [, needs, available] =
      /^setData: this call needs (\d+) bytes of WebAssembly memory, more than the (\d+) bytes available \(limit 2147483648\); use fewer sentences or a smaller maxLength$/.exec(
        message,
      ) ?? [message];
    // At least the tokens and tags themselves, 8 bytes a slot.
    expect(Number(needs)).toBeGreaterThanOrEqual(8 * 140_000 * 1024);
    expect(Number(needs)).toBeGreaterThan(Number(available));
    // The trainer goes on: fewer sentences are taken and trained on.
    await trainer.setData({ sentences: sentences.slice(0, 8) });
    expect((await trainer.train({ steps: 1, batchSize: 8 })).losses).toHaveLength(1);
    trainer.dispose();
    await normalCycle(engine);
    expect((await engine.memoryStats()).inUseBytes).toBe(before);
  }, 60_000);
});

test("the engine's own checks of float options say what they got, as src/js says it", async () => {
  const files = variantFiles('simd', 'train');
  const dist = (name) => fileURLToPath(new URL(`../../dist/${name}`, import.meta.url));
  const raw = await require(dist(files.glue))({ wasmBinary: readFileSync(dist(files.wasm)) });
  const rawEngine = new raw.Engine(1);
  const options = { vocabSize: 4, numTags: 2, maxLength: 4, dModel: 4, numHeads: 1, mlpHidden: 0, seed: 1 };
  const adam = { learningRate: 0.01, beta1: 0.9, beta2: 0.999, epsilon: 1e-8 };
  const message = (changes) => {
    const trainer = new raw.Trainer(rawEngine);
    try {
      // The bindings return a refusal as a RangeError value (src/bindings/convert.hpp).
      const refusal = trainer.configure({ ...options, ...adam, ...changes });
      if (refusal instanceof RangeError) throw refusal;
      return 'accepted';
    } catch (error) {
      return `${error.constructor.name}: ${error.message}`;
    } finally {
      trainer.delete();
    }
  };
  // The engine holds floats: 1e39 arrives as Infinity, 1e-50 as 0.
  expect(message({ learningRate: 1e39 })).toBe('RangeError: learningRate: expected a finite number > 0, got Infinity');
  expect(message({ learningRate: 1e-50 })).toBe('RangeError: learningRate: expected a finite number > 0, got 0');
  expect(message({ learningRate: NaN })).toBe('RangeError: learningRate: expected a finite number > 0, got NaN');
  expect(message({ epsilon: -1e-8 })).toBe('RangeError: epsilon: expected a finite number > 0, got -1e-8');
  expect(message({ beta1: 1.5 })).toBe('RangeError: beta1: expected a finite number ≥ 0 and < 1, got 1.5');
  expect(message({ beta2: -0.001 })).toBe('RangeError: beta2: expected a finite number ≥ 0 and < 1, got -0.001');
  expect(message({ beta2: 1 })).toBe('RangeError: beta2: expected a finite number ≥ 0 and < 1, got 1');
  expect(message({})).toBe('accepted');
  rawEngine.delete();
});
