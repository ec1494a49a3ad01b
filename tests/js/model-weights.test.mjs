// 16-bit weights in the engine's memory (loadModel's `weights` option,
// src/core/half.hpp and the kernels' 16-bit products), on every build:
// - a checkpoint stored in bfloat16 or float16 gives the same bits held in
//   16 bits (the default) as held in float32: widening is exact and the
//   products sum in the same order;
// - a float32 checkpoint held as 'bf16' or 'f16' is rounded as PyTorch
//   rounds (tests/fixtures/models/rounded/, made by
//   tests/tools/make_rounded_fixtures.py with tensor.to(torch.bfloat16) and
//   .to(torch.float16)): bit for bit the PyTorch-rounded file held as
//   float32, and its distance from the float64 reference is the rounding's
//   cost, bounded here and quoted in the README;
// - the option's refusals.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';
import { expectSameBits } from './helpers/compare.mjs';

const MODELS = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
const reference = (name) => JSON.parse(readFileSync(path.join(MODELS, name, 'reference.json'), 'utf8'));

/** A fixture folder's files as { name: Uint8Array }, its model.safetensors replaced by `weights` (a file of rounded/). */
function filesWith(name, weights) {
  const files = Object.fromEntries(
    readdirSync(path.join(MODELS, name)).map((f) => [f, new Uint8Array(readFileSync(path.join(MODELS, name, f)))]),
  );
  files['model.safetensors'] = new Uint8Array(readFileSync(path.join(MODELS, 'rounded', weights)));
  return files;
}

const OUTPUTS = { returnAttention: true, returnHiddenStates: true, returnLogits: true };
const inputOf = (c) => ({ inputIds: c.inputIds });

async function expectSameRuns(a, b, ref, label) {
  for (const c of ref.cases) {
    const [x, y] = [await a.run(inputOf(c), OUTPUTS), await b.run(inputOf(c), OUTPUTS)];
    for (const key of ['attention', 'hiddenStates', 'lastHiddenState', 'logits'])
      expectSameBits(x[key], y[key], `${label} ${c.name} ${key}`);
  }
}

const maxError = (got, want) => got.reduce((worst, x, i) => Math.max(worst, Math.abs(x - want[i])), 0);
const maxAbs = (values) => values.reduce((m, x) => Math.max(m, Math.abs(x)), 0);

describe.each([
  ['scalar', 1],
  ['simd', 1],
  ['threaded-simd', 3],
])('%s build, %d thread(s)', (variant, threads) => {
  let engine;
  beforeAll(async () => {
    engine = await createAttention({ variant, threads });
  });
  afterAll(() => engine?.dispose());

  test.each([
    ['hf-llama', 'bf16'],
    ['hf-qwen3', 'bf16'], // its head tied to the embeddings, held once
    ['bert-zh-vocab', 'f16'],
  ])('%s, stored in %s, gives the same bits held in 16 bits or in float32', async (name, stored) => {
    const held = await engine.loadModel(path.join(MODELS, name));
    const wide = await engine.loadModel(path.join(MODELS, name), { weights: 'float32' });
    expect([held.config.weights, wide.config.weights]).toEqual([stored, 'float32']);
    expect(held.config.weightBytes).toBeLessThan(0.6 * wide.config.weightBytes);
    const ref = reference(name);
    if (held.config.hasLogits) {
      await expectSameRuns(held, wide, ref, name);
      // And so does a generation, step by step through the KV cache.
      const prompt = { inputIds: ref.cases[0].inputIds };
      const [g, h] = [
        await held.generate(prompt, { maxNewTokens: 6 }),
        await wide.generate(prompt, { maxNewTokens: 6 }),
      ];
      expect(Array.from(g.outputIds)).toEqual(Array.from(h.outputIds));
      expectSameBits(g.stepScores, h.stepScores, `${name} step scores`);
    } else {
      for (const c of ref.cases) {
        const input = { inputIds: c.inputIds, tokenTypeIds: c.tokenTypeIds };
        const options = { returnAttention: true, returnHiddenStates: true };
        const [x, y] = [await held.run(input, options), await wide.run(input, options)];
        expectSameBits(x.attention, y.attention, `${name} ${c.name} attention`);
        expectSameBits(x.hiddenStates, y.hiddenStates, `${name} ${c.name} hiddenStates`);
      }
    }
    await Promise.all([held.dispose(), wide.dispose()]);
  });

  // The rounding's cost against the float64 reference, as a share of the largest logit (measured on these
  // fixtures on the simd build, AMD EPYC: bf16 1.0–1.6 %, f16 0.07–0.23 %); bounded at about three times that.
  const BOUND = { bf16: 0.05, f16: 0.007 };

  test.each([
    ['hf-qwen2', 'bf16'],
    ['hf-qwen2', 'f16'],
    ['hf-gpt2-lm', 'bf16'],
    ['hf-gpt2-lm', 'f16'],
  ])('%s held as %s is rounded as PyTorch rounds, at a bounded cost', async (name, weights) => {
    const ours = await engine.loadModel(path.join(MODELS, name), { weights });
    const torchRounded = filesWith(name, `${name}.${weights}.safetensors`);
    const theirs = await engine.loadModel(torchRounded, { weights: 'float32' });
    const auto = await engine.loadModel(torchRounded);
    expect([ours.config.weights, theirs.config.weights, auto.config.weights]).toEqual([weights, 'float32', weights]);
    const ref = reference(name);
    await expectSameRuns(ours, theirs, ref, `${name} ${weights}`);
    await expectSameRuns(ours, auto, ref, `${name} ${weights} (auto)`);
    for (const c of ref.cases) {
      const r = await ours.run(inputOf(c), { returnLogits: true });
      const share = maxError(r.logits, c.logits) / maxAbs(c.logits);
      expect(share).toBeLessThan(BOUND[weights]);
      expect(share).toBeGreaterThan(0); // rounded, not float32 under another name
    }
    await Promise.all([ours.dispose(), theirs.dispose(), auto.dispose()]);
  });
});

test('the weights option is checked', async () => {
  const engine = await createAttention({ variant: 'simd' });
  const folder = path.join(MODELS, 'hf-qwen2');
  await expect(engine.loadModel(folder, { weights: 16 })).rejects.toThrow(
    new TypeError("weights: expected one of 'auto', 'float32', 'bf16', 'f16', 'q8', 'q4', got number 16"),
  );
  await expect(engine.loadModel(folder, { weights: 'fp16' })).rejects.toThrow(
    new RangeError("weights: expected one of 'auto', 'float32', 'bf16', 'f16', 'q8', 'q4', got \"fp16\""),
  );
  // A weight float16 cannot hold: refused naming the tensor, and the engine goes on.
  const files = filesWith('hf-qwen2', 'hf-qwen2.bf16.safetensors');
  const bytes = files['model.safetensors'];
  const header = JSON.parse(
    new TextDecoder().decode(bytes.subarray(8, 8 + Number(new DataView(bytes.buffer).getBigUint64(0, true)))),
  );
  const name = 'model.layers.0.mlp.down_proj.weight';
  const start = 8 + Number(new DataView(bytes.buffer).getBigUint64(0, true)) + header[name].data_offsets[0];
  new DataView(bytes.buffer).setUint16(start + 2 * 5, 0x47c3, true); // bfloat16 99840, past float16's 65504
  await expect(engine.loadModel(files, { weights: 'f16' })).rejects.toThrow(
    `${name.replace(/^model\./, '')}: element 5 (99840) is beyond the range of float16 (±65504); hold the weights in bf16 or float32`,
  );
  const model = await engine.loadModel(files, { weights: 'bf16' });
  expect(model.config.weights).toBe('bf16');
  engine.dispose();
});
