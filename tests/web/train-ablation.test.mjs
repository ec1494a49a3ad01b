// Switching heads off a trained tagger (web/model/train-ablation.mjs), on
// every training build: the trained models of tests/fixtures/train with each
// head off, then all, against PyTorch's own model with those heads' outputs
// kept out of W_O's sum (tests/fixtures/train/ablation/heads-off.json, from
// tests/tools/make_trainer_ablation_fixtures.py); and headsOffAccuracy puts
// the trained parameters back.
import { readFileSync } from 'node:fs';
import { headsOffAccuracy, withHeadsOff } from '../../web/model/train-ablation.mjs';
import { createEngines, disposeEngines, VARIANTS } from '../js/helpers/engines.mjs';
import { expectClose } from '../js/helpers/compare.mjs';

const fixture = (name) => JSON.parse(readFileSync(new URL(`../fixtures/train/${name}.json`, import.meta.url), 'utf8'));
const { cases } = fixture('ablation/heads-off');
const floats = (object) => Object.fromEntries(Object.entries(object).map(([k, v]) => [k, Float32Array.from(v)]));

let engines;
beforeAll(async () => {
  engines = await createEngines({ training: true });
});
afterAll(() => disposeEngines(engines));

test('the fixture has a two-head and a four-head case, each head off and all off', () => {
  expect(cases.map((c) => [c.name, c.off.length])).toEqual([
    ['two_heads', 3],
    ['four_heads_mlp', 5],
  ]);
});

describe.each(VARIANTS)('%s build', (variant) => {
  test.each(cases.map((c) => c.name))('%s: each head off, then all, gives PyTorch’s probabilities', async (name) => {
    const f = fixture(name);
    const { off, probabilities } = cases.find((c) => c.name === name);
    const trainer = await engines[variant].createTrainer({ ...f.config, seed: 7 });
    try {
      const trained = floats(f.final);
      const L = f.config.maxLength;
      const T = f.config.numTags;
      for (const [k, heads] of off.entries()) {
        await trainer.setParameters(withHeadsOff(trained, f.config, heads));
        const got = (await trainer.evaluate({ sentences: f.sentences })).probabilities;
        f.sentences.forEach((s, i) =>
          expectClose(
            got.subarray(i * L * T, (i * L + s.tokens.length) * T),
            probabilities[k][i],
            { abs: 2e-6, rel: 1e-4 },
            `${name}, heads ${heads} off, sentence ${i}`,
          ),
        );
      }
    } finally {
      trainer.dispose();
    }
  });
});

test('headsOffAccuracy measures each head off and puts the trained parameters back', async () => {
  const f = fixture('two_heads');
  const trainer = await engines.simd.createTrainer({ ...f.config, seed: 7 });
  try {
    await trainer.setParameters(floats(f.final));
    const before = await trainer.parameters();
    const seen = [];
    // The accuracy here: the first sentence's first probability, enough to tell the models apart.
    const result = await headsOffAccuracy(trainer, f.config, async (t) => {
      const p = (await t.evaluate({ sentences: f.sentences })).probabilities[0];
      seen.push(p);
      return p;
    });
    const { probabilities } = cases.find((c) => c.name === 'two_heads');
    expect(result.map((r) => r.off)).toEqual([[0], [1]]);
    result.forEach((r, h) => expect(r.accuracy).toBeCloseTo(probabilities[h][0][0], 5));
    const after = await trainer.parameters();
    for (const [k, v] of Object.entries(before)) expect(Array.from(after[k])).toEqual(Array.from(v));
  } finally {
    trainer.dispose();
  }
});

test('a head outside the model is refused by name', () => {
  const p = { wO: new Float32Array(16) };
  expect(() => withHeadsOff(p, { dModel: 4, numHeads: 2 }, [2])).toThrow(
    new RangeError('off: expected head indices in [0, 2), got 2'),
  );
});
