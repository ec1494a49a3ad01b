// The page's evidence, in Node: pairing by seed is fair (a seed gives every
// head count the same initial parameters and the same batches), and the
// evidence module's rules on made-up numbers. The claims the page writes
// from the default experiment, counted again from its runs
// (helpers/default-claims.mjs), are checked on the run of it that
// tests/e2e/train.test.mjs makes in Node to compare the page's with: the
// experiment's 60,000 training steps are run once in npm test, not twice.
import { createAttention } from '../../src/js/node.mjs';
import { vocabulary, tagSet, MAX_LENGTH } from '../../web/model/corpus.mjs';
import { buildData } from '../../web/model/train-data.mjs';
import { D_MODEL } from '../../web/model/train-options.mjs';
import { pairSeeds, collapsedSeeds, medianSeed, sideHeads } from '../../web/model/train-evidence.mjs';

let engine;
let data;
beforeAll(async () => {
  engine = await createAttention({ training: true });
  data = buildData();
});
afterAll(() => engine?.dispose());

const trainerOptions = (numHeads, seed, mlpHidden = 0) => ({
  vocabSize: vocabulary.length,
  numTags: tagSet.length,
  maxLength: MAX_LENGTH,
  dModel: D_MODEL,
  numHeads,
  mlpHidden,
  seed,
});

/** The median as a reader computes it: the middle value, or the mean of the middle two. */
const middle = (values) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

test('pairing by seed: a seed gives 1, 2 and 4 heads the same initial parameters and the same batches', async () => {
  for (const [mlpHidden, seed] of [
    [0, 3],
    [64, 7],
  ]) {
    const trainers = await Promise.all([1, 2, 4].map((h) => engine.createTrainer(trainerOptions(h, seed, mlpHidden))));
    const parameters = await Promise.all(trainers.map((tr) => tr.parameters()));
    for (const p of parameters.slice(1)) expect(p).toEqual(parameters[0]);
    for (const tr of trainers) tr.dispose();
  }
  // The batches: with Q and K zero, attention is uniform, and 1 head and 2 heads compute the same function of the
  // same parameters; the loss of each batch before its step (the parameters set again before every step) is then
  // the same number exactly when the batch is the same. Another seed's batches give other losses.
  const batchLosses = async (numHeads, seed, start) => {
    const trainer = await engine.createTrainer(trainerOptions(numHeads, seed));
    await trainer.setData({ sentences: data.train });
    const losses = [];
    for (let k = 0; k < 40; k++) {
      await trainer.setParameters(start);
      losses.push((await trainer.train({ steps: 1, batchSize: 32 })).losses[0]);
    }
    trainer.dispose();
    return losses;
  };
  const probe = await engine.createTrainer(trainerOptions(1, 4));
  const zero = (a) => new Float32Array(a.length);
  const p = await probe.parameters();
  probe.dispose();
  const start = { ...p, wQ: zero(p.wQ), wK: zero(p.wK), bQ: zero(p.bQ), bK: zero(p.bK) };
  const [one, two, otherSeed] = await Promise.all([
    batchLosses(1, 4, start),
    batchLosses(2, 4, start),
    batchLosses(2, 5, start),
  ]);
  expect(new Set(one).size).toBe(40);
  expect(two).toEqual(one);
  expect(otherSeed).not.toEqual(one);
}, 60_000);

/** A summary entry with these accuracies and, per seed, these heads' weights (left, right, self). */
const entry = (numHeads, accuracies, heads) => ({
  setting: { key: `h${numHeads}`, numHeads, mlpHidden: 0, label: '' },
  seeds: accuracies.map((_, i) => i + 1),
  accuracies,
  median: middle(accuracies),
  neighbours: accuracies.map((_, i) => heads[i]),
});
const head = (left, right, self) => ({ left, right, self });

test('the evidence module: pairs, wins and ties, collapsed seeds and whether they are the lowest, the median seed', () => {
  const divided = [head(0.7, 0.05, 0.1), head(0.02, 0.8, 0.1)];
  const onSelf = [head(0, 0.9, 0.05), head(0.17, 0.01, 0.77)];
  const bothRight = [head(0.3, 0.4, 0.2), head(0.2, 0.25, 0.05)];
  const one = entry(1, [0.9, 0.95, 0.93, 0.8], Array(4).fill([head(0.3, 0.45, 0.2)]));
  const two = entry(2, [0.99, 0.95, 0.87, 0.96], [divided, divided, onSelf, bothRight]);
  // Per seed, 2 heads minus 1 head: +0.09, 0, −0.06, +0.16.
  expect(pairSeeds(one, two)).toMatchObject({ wins: 2, losses: 1, ties: 1 });
  expect(pairSeeds(one, two).medianGain).toBeCloseTo(0.045, 12);
  const { seeds, lowest } = collapsedSeeds(two);
  expect(seeds.map((c) => [c.seed, c.heads.map((h) => h.focus)])).toEqual([
    [3, ['right', 'self']],
    [4, ['right', 'right']],
  ]);
  // 0.87 and 0.96 are not both under 0.95 (seed 2 divided its neighbours): not "the lowest seeds".
  expect(lowest).toBe(false);
  expect(collapsedSeeds(entry(2, [0.99, 0.95, 0.87, 0.9], [divided, divided, onSelf, bothRight])).lowest).toBe(true);
  // All collapsed: nothing to be lower than.
  expect(collapsedSeeds(entry(2, [0.9, 0.8], [onSelf, bothRight])).lowest).toBe(false);
  expect(collapsedSeeds(one).seeds).toEqual([]);
  expect(medianSeed(two)).toBe(2); // 0.87 (3), 0.95 (2), 0.96 (4), 0.99 (1): the lower middle
  expect(sideHeads(divided)).toEqual({ left: 0, right: 1 });
  expect(sideHeads(onSelf)).toEqual({ left: null, right: 0 });
});
