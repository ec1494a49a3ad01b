// Free mode: tokenizing any script, seeded reproducible inputs, d_model split
// between the heads, the single head's arguments, and the engine computing it.
import { createAttention } from '../../src/js/node.mjs';
import {
  tokenize,
  freeSpec,
  embed,
  headChoices,
  fitHeads,
  MAX_TOKENS,
  D_MODEL_CHOICES,
  DEFAULT_FREE,
  QK_GAIN,
  untrainedSpread,
} from '../../web/model/free-mode.mjs';
import { singleHeadArgs } from '../../web/model/single-head.mjs';
import { runSpec } from '../../web/model/compute.mjs';

test('CJK is split by character, other scripts by word, punctuation by mark', () => {
  expect(tokenize('注意力机制 lets every token look.').tokens).toEqual([
    '注',
    '意',
    '力',
    '机',
    '制',
    'lets',
    'every',
    'token',
    'look',
    '.',
  ]);
  expect(tokenize('猫がmatの上に座った。').tokens).toEqual([
    '猫',
    'が',
    'mat',
    'の',
    '上',
    'に',
    '座',
    'っ',
    'た',
    '。',
  ]);
  expect(tokenize('Don’t stop state-of-the-art Straße, naïve!').tokens).toEqual([
    'Don’t',
    'stop',
    'state-of-the-art',
    'Straße',
    ',',
    'naïve',
    '!',
  ]);
  expect(tokenize('  ').tokens).toEqual([]);
  expect(tokenize('한국어 문장').tokens).toEqual(['한', '국', '어', '문', '장']);
});

test(`at most ${MAX_TOKENS} tokens, and it says so`, () => {
  const { tokens, truncated } = tokenize('字'.repeat(MAX_TOKENS + 5));
  expect([tokens.length, truncated]).toEqual([MAX_TOKENS, true]);
});

test('a seed always gives the same inputs; the same token starts from the same vector', () => {
  const a = freeSpec({ text: 'the cat saw the cat', dModel: 8, numHeads: 2, seed: 7, causal: false });
  const b = freeSpec({ text: 'the cat saw the cat', dModel: 8, numHeads: 2, seed: 7, causal: false });
  for (const k of ['query', 'wQ', 'wK', 'wV', 'wO']) expect(a.args[k]).toEqual(b.args[k]);
  expect(freeSpec({ text: 'the cat', dModel: 8, numHeads: 2, seed: 8, causal: false }).args.wQ).not.toEqual(a.args.wQ);
  // Token vectors without the position code: "the" at 0 and 3 differ only by position.
  const x = embed(['the', 'x', 'y', 'the'], 8, 7);
  const pos = (p, d) =>
    d % 2 ? Math.cos(p / 10000 ** ((d - (d % 2)) / 8)) : Math.sin(p / 10000 ** ((d - (d % 2)) / 8));
  for (let d = 0; d < 8; d++) expect(x[d] - pos(0, d)).toBeCloseTo(x[24 + d] - pos(3, d), 5);
  expect(() => freeSpec({ text: ' ', dModel: 8, numHeads: 1, seed: 1, causal: false })).toThrow(RangeError);
  expect(() => freeSpec({ text: 'a b', dModel: 8, numHeads: 3, seed: 1, causal: false })).toThrow(RangeError);
});

test('the single head is as wide as all heads and its wQ is scaled by √numHeads', () => {
  const { args } = freeSpec({ text: 'a b c', dModel: 32, numHeads: 4, seed: 1, causal: true });
  const single = singleHeadArgs(args);
  expect([single.numHeads, single.dK, single.dV, single.causal]).toEqual([1, 32, 32, true]);
  expect(single.wQ[5]).toBeCloseTo(args.wQ[5] * 2, 6);
  expect(single.wK).toBe(args.wK);
});

test('the engine runs a free-mode spec, causal included', async () => {
  const engine = await createAttention({ variant: 'simd' });
  try {
    const spec = freeSpec({ text: '我 love 注意力', dModel: 12, numHeads: 3, seed: 5, causal: true });
    const n = spec.args.seqLenQ;
    expect(n).toBe(5);
    const { attention, projections } = await engine.multiHeadAttention(spec.args);
    expect(attention).toHaveLength(3 * n * n);
    expect(projections.concat).toHaveLength(n * 12);
    for (let h = 0; h < 3; h++)
      for (let q = 0; q < n; q++) for (let k = q + 1; k < n; k++) expect(attention[h * n * n + q * n + k]).toBe(0);
  } finally {
    engine.dispose();
  }
});

test('d_model stays put when heads are added: each head gets d_model / numHeads', () => {
  const widths = [1, 2, 4, 8].map((numHeads) => {
    const { args } = freeSpec({ text: 'one head is not enough', dModel: 32, numHeads, seed: 3, causal: false });
    return [args.dModel, args.numHeads, args.dK, args.dV, args.wQ.length, args.wO.length];
  });
  expect(widths).toEqual([
    [32, 1, 32, 32, 32 * 32, 32 * 32],
    [32, 2, 16, 16, 32 * 32, 32 * 32],
    [32, 4, 8, 8, 32 * 32, 32 * 32],
    [32, 8, 4, 4, 32 * 32, 32 * 32],
  ]);
  expect(headChoices(48)).toEqual([1, 2, 3, 4, 6, 8]);
  expect(headChoices(8)).toEqual([1, 2, 4, 8]);
  expect([fitHeads(12, 8), fitHeads(16, 3), fitHeads(8, 1)]).toEqual([6, 2, 1]);
  for (const d of D_MODEL_CHOICES) expect(headChoices(d)).toContain(1);
});

test('untrained heads are much flatter than drawn: the spread without the gain is the engine’s own run of the ungained weights', async () => {
  const engine = await createAttention({ variant: 'simd' });
  try {
    for (const causal of [false, true]) {
      const spec = freeSpec({ ...DEFAULT_FREE, causal });
      const run = await runSpec(engine, spec);
      const { gain, drawn, untrained } = untrainedSpread(run);
      expect(gain).toBe(QK_GAIN);
      // The same random weights, wQ and wK divided by the gain, through the engine: the untrained heads.
      const plain = await engine.multiHeadAttention({
        ...spec.args,
        wQ: spec.args.wQ.map((v) => v / gain),
        wK: spec.args.wK.map((v) => v / gain),
      });
      const { rows: n, heads } = run;
      // This test's own median of each row's largest weight over its even share.
      const typical = (weights) => {
        const ratios = [];
        for (let h = 0; h < heads.length; h++)
          for (let q = 0; q < n; q++) {
            const visible = causal ? q + 1 : n;
            const row = Array.from(weights.subarray(h * n * n + q * n, h * n * n + q * n + visible));
            ratios.push(visible * Math.max(...row));
          }
        ratios.sort((a, b) => a - b);
        return (ratios[ratios.length / 2 - 1] + ratios[ratios.length / 2]) / 2;
      };
      expect(Math.abs(untrained - typical(plain.attention))).toBeLessThan(1e-4);
      expect(Math.abs(drawn - typical((await engine.multiHeadAttention(spec.args)).attention))).toBeLessThan(1e-6);
      // What the page says in free mode: the gain is what makes a typical row pick a key.
      expect(drawn).toBeGreaterThan(2 * untrained);
    }
  } finally {
    engine.dispose();
  }
});
