// The "train it yourself" experiment through the engine in Node: its
// data (test set disjoint from training, the example sentence in neither), a
// short run's records (curves, accuracies, the example's 毒 and attention),
// stopping, and the result text, which must follow the numbers it is given
// (tests/web/train-evidence.test.mjs: the default experiment's own text).
import { createAttention } from '../../src/js/node.mjs';
import { heldOut, vocabulary, tagSet, MAX_LENGTH } from '../../web/model/corpus.mjs';
import { maxRowSumError } from '../../web/model/stats.mjs';
import { buildData, TRAIN_CORPUS } from '../../web/model/train-data.mjs';
import { settingsFor, MLP_HIDDEN } from '../../web/model/train-options.mjs';
import { runExperiment } from '../../web/model/train-runner.mjs';
import { summarize, meanAndSd, neighbourWeights } from '../../web/model/train-stats.mjs';
import { describeResults, headline, percentMeanSd } from '../../web/model/train-text.mjs';
import { percent } from '../../web/lib/format.mjs';
import { ruleGrid } from '../../web/model/rule-grid.mjs';

const DU_POSITIONS = [1, 2, 3, 6, 12, 13];
const text = (ids) => ids.map((id) => vocabulary[id]).join('');

let engine;
let data;
beforeAll(async () => {
  engine = await createAttention({ training: true });
  data = buildData();
});
afterAll(() => engine?.dispose());

test('the test set shares no sentence with the training set, repeats none, and the example is in neither', () => {
  expect(data.train).toHaveLength(TRAIN_CORPUS.count);
  const train = new Set(data.train.map((s) => text(s.tokens)));
  const test = data.test.map((s) => text(s.tokens));
  expect(test.length).toBeGreaterThan(300);
  expect(test.filter((t) => train.has(t))).toEqual([]);
  expect(new Set(test).size).toBe(test.length);
  expect(train.has(heldOut.tokens.join(''))).toBe(false);
  expect(test).not.toContain(heldOut.tokens.join(''));
  // Encoded as the engine's ids; the 毒 list points at the test set's 毒 and their tags.
  expect(text(data.example.tokens)).toBe(heldOut.tokens.join(''));
  expect(data.example.tags.map((t) => tagSet[t])).toEqual([...heldOut.tags]);
  for (const { sentence, token, slot, tag } of data.testDu) {
    expect(data.test[sentence].tokens[token]).toBe(vocabulary.indexOf('毒'));
    expect([slot, tagSet[tag]]).toEqual([sentence * MAX_LENGTH + token, tagSet[data.test[sentence].tags[token]]]);
    expect(['noun', 'verb', 'modifier']).toContain(tagSet[tag]);
  }
  expect(data.neighbours.both).toBe(1);
});

test('the settings: 1 and 2 heads, 4 and the MLP variants when asked', () => {
  expect(settingsFor().map((s) => s.label)).toEqual(['1 head', '2 heads']);
  const all = settingsFor({ fourHeads: true, mlp: true });
  expect(all.map((s) => s.key)).toEqual(['h1', 'h2', 'h4', 'h1-mlp', 'h2-mlp', 'h4-mlp']);
  expect(all.filter((s) => s.mlpHidden).every((s) => s.mlpHidden === MLP_HIDDEN)).toBe(true);
});

test('a short experiment: curves, accuracies in [0, 1], the example’s six 毒, attention rows summing to 1', async () => {
  const settings = settingsFor();
  const reports = [];
  const result = await runExperiment(engine, {
    settings,
    seeds: 2,
    steps: 300,
    data,
    chunkSteps: 50,
    evalEvery: 100,
    onProgress: (p) => reports.push({ stepsDone: p.stepsDone, step: p.runs.map((r) => r.step) }),
  });
  expect(result.done).toBe(true);
  expect(result.runs.map((r) => `${r.setting.key}/${r.seed}`)).toEqual(['h1/1', 'h1/2', 'h2/1', 'h2/2']);
  // One report after the first evaluation, then one per round of chunks; every run moves together.
  expect(reports.map((r) => r.stepsDone)).toEqual([0, 200, 400, 600, 800, 1000, 1200]);
  expect(reports.every((r) => r.step.every((s) => s === r.step[0]))).toBe(true);
  expect(result.stepsPerSecond).toBeGreaterThan(0);

  for (const run of result.runs) {
    expect(run.loss.map((p) => p.step)).toEqual([50, 100, 150, 200, 250, 300]);
    expect(run.loss.every((p) => Number.isFinite(p.value) && p.value > 0)).toBe(true);
    expect(run.loss.at(-1).value).toBeLessThan(run.loss[0].value);
    expect(run.accuracy.map((p) => p.step)).toEqual([0, 100, 200, 300]);
    expect(run.accuracy.every((p) => p.value >= 0 && p.value <= 1)).toBe(true);
    expect(run.finalAccuracy).toBe(run.accuracy.at(-1).value);

    const { du, heads, allRight } = run.example;
    expect(du.map((d) => d.position)).toEqual(DU_POSITIONS);
    expect(du.map((d) => d.want)).toEqual(DU_POSITIONS.map((p) => heldOut.tags[p]));
    expect(du.every((d) => tagSet.includes(d.got) && d.right === (d.got === d.want))).toBe(true);
    expect(allRight).toBe(du.every((d) => d.right));
    expect(heads).toHaveLength(run.setting.numHeads);
    for (const weights of heads) {
      expect(weights).toHaveLength(15 * 15);
      expect(maxRowSumError(weights, 15, 15)).toBeLessThan(1e-5);
      expect(weights.every((w) => w >= 0)).toBe(true);
    }
    expect(run.neighbours).toHaveLength(run.setting.numHeads);
    for (const { left, right, self } of run.neighbours) {
      expect(left).toBeGreaterThanOrEqual(0);
      expect(right).toBeGreaterThanOrEqual(0);
      expect(self).toBeGreaterThanOrEqual(0);
      expect(left + right + self).toBeLessThanOrEqual(1 + 1e-6);
    }
  }
  // Seeded: the same setting and seed train the same model; another seed another one.
  const again = await runExperiment(engine, { settings: settings.slice(0, 1), seeds: 1, steps: 300, data });
  expect(again.runs[0].loss).toEqual(result.runs[0].loss);
  expect(again.runs[0].accuracy).toEqual(result.runs[0].accuracy);
  expect(result.runs[1].loss).not.toEqual(result.runs[0].loss);

  // The summary and the text read these very runs.
  const summary = summarize(result);
  expect(summary.map((s) => [s.setting.key, s.seeds, s.accuracies])).toEqual(
    settings.map((setting) => [
      setting.key,
      [1, 2],
      result.runs.filter((r) => r.setting === setting).map((r) => r.finalAccuracy),
    ]),
  );
  const paragraphs = describeResults(summary, {
    steps: 300,
    testSentences: data.test.length,
    testDu: data.testDu.length,
    neighbours: data.neighbours,
  });
  expect(paragraphs[0]).toContain(
    `1 head ${percent(summary[0].median)} (mean ± SD ${percentMeanSd(summary[0].accuracies)})`,
  );
  expect(paragraphs[0]).toContain(
    `2 heads ${percent(summary[1].median)} (mean ± SD ${percentMeanSd(summary[1].accuracies)})`,
  );
});

test('stopping: the promise rejects with an AbortError and every trainer is freed', async () => {
  let created = 0;
  let disposed = 0;
  // The engine with its trainers counted.
  const counting = {
    async createTrainer(options) {
      const trainer = await engine.createTrainer(options);
      created++;
      return {
        setData: (a) => trainer.setData(a),
        train: (a) => trainer.train(a),
        evaluate: (a) => trainer.evaluate(a),
        dispose: () => {
          disposed++;
          trainer.dispose();
        },
      };
    },
  };
  const controller = new AbortController();
  const run = runExperiment(counting, {
    settings: settingsFor(),
    seeds: 2,
    steps: 3000,
    data,
    signal: controller.signal,
    onProgress: (p) => p.stepsDone > 0 && controller.abort(),
  });
  await expect(run).rejects.toMatchObject({ name: 'AbortError' });
  expect([created, disposed]).toEqual([4, 4]);
});

/** A finished experiment with these final accuracies per setting key, and all other fields plausible. */
function madeUp(accuracies, { allRight = {}, neighbours = {} } = {}) {
  const settings = settingsFor({ mlp: Object.keys(accuracies).some((k) => k.endsWith('-mlp')) }).filter(
    (s) => accuracies[s.key],
  );
  return {
    done: true,
    steps: 1500,
    runs: settings.flatMap((setting) =>
      accuracies[setting.key].map((finalAccuracy, i) => ({
        setting,
        seed: i + 1,
        finalAccuracy,
        example: { allRight: i < (allRight[setting.key] ?? 0) },
        neighbours:
          neighbours[setting.key]?.[i] ??
          Array.from({ length: setting.numHeads }, () => ({ left: 0.3, right: 0.4, self: 0.2 })),
      })),
    ),
  };
}
const context = { steps: 1500, testSentences: 489, testDu: 1733, neighbours: { left: 0.775, right: 0.814, both: 1 } };
const textOf = (progress) => describeResults(summarize(progress), context).join('\n');

const LEFT = { left: 0.8, right: 0.1, self: 0.05 };
const RIGHT = { left: 0.05, right: 0.7, self: 0.2 };
const SELF = { left: 0.17, right: 0.01, self: 0.77 };

test('the result text follows the numbers: medians, who wins seed by seed, overlap, collapse, MLP gap, the claim', () => {
  const twoAhead = textOf(
    madeUp(
      { h1: [0.9, 0.92, 0.94], h2: [0.99, 1, 0.93], 'h1-mlp': [0.99, 0.995, 1], 'h2-mlp': [0.995, 1, 1] },
      {
        allRight: { h1: 1, h2: 3 },
        neighbours: {
          h2: [
            [LEFT, RIGHT],
            [RIGHT, LEFT],
            [RIGHT, SELF],
          ],
        },
      },
    ),
  );
  expect(twoAhead).toContain('1 head 92.0 % (mean ± SD 92.0 ± 2.0 %); 2 heads 99.0 % (mean ± SD 97.3 ± 3.8 %)');
  expect(twoAhead).toContain(
    '2 heads scored higher than 1 head in 2 of 3 seeds and lower in 1; the median over the seeds of 2 heads minus ' +
      '1 head was +8.0 points; but their seeds overlap: the worst seed with 2 heads (93.0 %) was not above the best ' +
      'with 1 head (94.0 %).',
  );
  expect(twoAhead).toContain('all six 毒 right in 1 of 3 runs with 1 head, 3 of 3 runs with 2 heads');
  expect(twoAhead).toContain(
    'one head looked mostly left and another mostly right in 2 of 3 seeds ' +
      '(the most left-looking head put 0.59 on the left neighbour, the most right-looking 0.70',
  );
  expect(twoAhead).toContain("0.30 of its weight on a 毒's left neighbour and 0.40 on its right one");
  // Seed 3's second head looks at the 毒 itself: named, and it is the lowest seed with 2 heads.
  expect(twoAhead).toContain(
    'With 2 heads, the heads did not divide the two neighbours between them in 1 of 3 seeds: seed 3 (93.0 %): ' +
      'head 0 mostly on the right neighbour (0.70), head 1 mostly on the 毒 itself (0.77). It is the lowest seed ' +
      'with 2 heads.',
  );
  expect(twoAhead).toContain('+8.0 points without the MLP and +0.5 points with it: the gap narrowed.');
  expect(twoAhead).toContain('one head worked: its median, 92.0 %, is more than the 81.4 %');
  expect(twoAhead).toContain('and it was behind two heads in 2 of 3 seeds, by a median of 8.0 points per seed.');

  // The opposite ordering, with one head under the one-neighbour ceiling: the text turns round.
  const oneAhead = textOf(
    madeUp({ h1: [0.8, 0.78, 0.82], h2: [0.7, 0.81, 0.75], 'h1-mlp': [0.9, 0.9, 0.9], 'h2-mlp': [0.8, 0.8, 0.8] }),
  );
  expect(oneAhead).toContain(
    '1 head scored higher than 2 heads in 2 of 3 seeds and lower in 1; the median over the seeds of 2 heads minus ' +
      '1 head was −7.0 points; but their seeds overlap: the worst seed with 1 head (78.0 %) was not above the best ' +
      'with 2 heads (81.0 %).',
  );
  expect(oneAhead).not.toContain('2 heads scored higher');
  expect(oneAhead).toContain('all six 毒 right in 0 of 3 runs with 1 head, 0 of 3 runs with 2 heads');
  // Every head split its weight alike (0.3 / 0.4): none divided the neighbours, each run is named.
  expect(oneAhead).toContain('one head looked mostly left and another mostly right in 0 of 3 seeds');
  expect(oneAhead).toContain('did not divide the two neighbours between them in 3 of 3 seeds: seed 1 (70.0 %)');
  expect(oneAhead).not.toContain('lowest seed');
  expect(oneAhead).toContain('−7.0 points without the MLP and −10.0 points with it: the gap widened.');
  expect(oneAhead).toContain(
    'one head did not get past what one neighbour alone allows (a median of 80.0 % against 81.4 %), ' +
      'but it was not behind two heads: they scored higher in only 1 of 3 seeds and lower in 2.',
  );
  expect(headline(summarize(madeUp({ h1: [0.8, 0.78, 0.82], h2: [0.7, 0.81, 0.75] })))).toBe(
    '1 head scored higher than 2 heads in 2 of 3 seeds and lower in 1; median held-out 毒 accuracy 75.0 % with ' +
      '2 heads, 80.0 % with 1 head',
  );

  // Level, with a tie; a single seed; no MLP and no 4 heads: nothing about them is said.
  const level = summarize(madeUp({ h1: [0.9, 0.95, 0.9], h2: [0.95, 0.9, 0.9] }));
  expect(headline(level)).toBe(
    '2 heads and 1 head each scored higher in 1 of 3 seeds (the same in 1); median held-out 毒 accuracy 90.0 % with ' +
      '2 heads, 90.0 % with 1 head',
  );
  expect(describeResults(level, context).join('\n')).toContain(
    'the median over the seeds of 2 heads minus 1 head was 0.0 points.',
  );
  const single = textOf(madeUp({ h1: [0.95], h2: [0.95] }));
  expect(single).toContain('1 head 95.0 %, one seed so no spread');
  expect(single).toContain('2 heads and 1 head each scored higher in 0 of 1 seed (the same in 1)');
  expect(single).not.toMatch(/MLP|4 heads/);
  expect(describeResults([], context)).toEqual([]);
  expect(headline([])).toBeNull();
});

test('neighbour weights: each head’s mean weight from a 毒 on its two neighbours and itself, 毒 at an end left out', () => {
  const L = MAX_LENGTH;
  const attention = new Float32Array(2 * 2 * L * L); // 2 sentences, 2 heads
  const at = (sentence, head, q, k, w) => (attention[((sentence * 2 + head) * L + q) * L + k] = w);
  // Sentence 0 (length 4): 毒 at 1 and at 3 (the last token: no right neighbour, so not counted).
  (at(0, 0, 1, 0, 0.7), at(0, 0, 1, 2, 0.2), at(0, 1, 1, 0, 0.1), at(0, 1, 1, 2, 0.9));
  (at(0, 0, 3, 2, 1), at(0, 1, 3, 2, 1));
  // Sentence 1 (length 5): 毒 at 2.
  (at(1, 0, 2, 1, 0.5), at(1, 0, 2, 3, 0.4), at(1, 1, 2, 1, 0.3), at(1, 1, 2, 3, 0.5));
  const du = [
    { sentence: 0, token: 1 },
    { sentence: 0, token: 3 },
    { sentence: 1, token: 2 },
  ];
  (at(0, 0, 1, 1, 0.1), at(1, 1, 2, 2, 0.2));
  const [h0, h1] = neighbourWeights(attention, 2, du, [4, 5]);
  const rounded = (h) => [h.left, h.right, h.self].map((x) => Number(x.toFixed(6)));
  expect([rounded(h0), rounded(h1)]).toEqual([
    [0.6, 0.3, 0.05],
    [0.2, 0.7, 0.1],
  ]);
});

test('mean ± sample SD', () => {
  const { mean, sd } = meanAndSd([0.9, 0.95, 1]);
  expect(mean).toBeCloseTo(0.95, 12);
  expect(sd).toBeCloseTo(0.05, 12);
  expect(meanAndSd([0.5]).sd).toBeNaN();
  expect(percentMeanSd([0.9, 0.95, 1])).toBe('95.0 ± 5.0 %');
});

test('the rule table as a grid: every rule in its cell, one neighbour alone ambiguous in most rows and columns', () => {
  const grid = ruleGrid();
  expect(grid.lefts).toEqual(['edge', 'marker', 'du', 'noun', 'modal']);
  expect(grid.rights).toEqual(['noun', 'du', 'result', 'modal', 'edge']);
  expect(grid.cells.flat().filter(Boolean)).toHaveLength(20);
  expect(grid.cells[2][1]).toMatchObject({ left: 'du', right: 'du', role: 'verb' }); // 毒毒毒: the middle one poisons
  expect([grid.ambiguousLefts, grid.ambiguousRights]).toEqual([4, 3]);
  expect(grid.members.noun).toEqual(['蛇', '狗', '人']);
});

test('the closing verdict gives the page’s own MLP pair beside the plain one, from its numbers', () => {
  // As the article's nuance has it: with the MLP one head comes close to two, and the verdict says so, with the
  // gap computed seed by seed (+6.0 points without the MLP, +2.2 with it), never written in advance.
  const paragraphs = describeResults(
    summarize(
      madeUp({
        h1: [0.92, 0.93, 0.94],
        h2: [0.98, 0.99, 1],
        'h1-mlp': [0.97, 0.977, 0.98],
        'h2-mlp': [0.999, 0.999, 1],
      }),
    ),
    context,
  );
  expect(paragraphs.at(-2)).toMatch(/^The claim .* one head worked: its median, 93\.0 %/);
  expect(paragraphs.at(-1)).toBe(
    'With an MLP after attention, against the same claim: one head worked: its median, 97.7 %, is more than the ' +
      '81.4 % that the better neighbour alone allows on this test set, and it was behind two heads in 3 of 3 seeds, ' +
      'by a median of 2.2 points per seed; the per-seed median gap went from +6.0 points without the MLP to ' +
      '+2.2 points with it: it narrowed.',
  );
  // Without the MLP variants, nothing about them.
  const plain = describeResults(summarize(madeUp({ h1: [0.92, 0.93, 0.94], h2: [0.98, 0.99, 1] })), context);
  expect(plain.join('\n')).not.toMatch(/MLP/);
});

test('a head switched off the 2-head model: its medians and which way the sentence goes follow the numbers', () => {
  // The 2-head runs' accuracies with head 0 off and with head 1 off, per seed (the 1-head median is 93.0 %).
  const withOff = (pairs) => {
    const progress = madeUp({ h1: [0.92, 0.93, 0.94], h2: [0.98, 0.99, 1] });
    for (const run of progress.runs)
      run.headsOff =
        run.setting.numHeads === 2 ? pairs[run.seed - 1].map((accuracy, head) => ({ off: [head], accuracy })) : null;
    return textOf(progress);
  };
  const below = withOff([
    [0.6, 0.5],
    [0.45, 0.7],
    [0.66, 0.4],
  ]);
  // Better head kept: 0.6, 0.7, 0.66 → median 66.0 %; worse: 0.5, 0.45, 0.4 → 45.0 %.
  expect(below).toContain(
    'Switching a head off the trained 2 heads model (its 毒 accuracy 99.0 % with both) leaves a median of 66.0 % when ' +
      'the better head stays and 45.0 % when the worse one does, against 93.0 % for 1 head trained as one head: ' +
      'switching a head off is not training with one head; the model trained with one does better.',
  );
  expect(
    withOff([
      [0.95, 0.5],
      [0.96, 0.4],
      [0.97, 0.3],
    ]),
  ).toMatch(/leaves a median of 96\.0 %.*does better alone/);
  expect(
    withOff([
      [0.93, 0.5],
      [0.93, 0.4],
      [0.93, 0.3],
    ]),
  ).toMatch(/leaves a median of 93\.0 %.*does as well as/);
  // No heads measured off (1 head only, or runs from before), no sentence.
  expect(textOf(madeUp({ h1: [0.92, 0.93, 0.94], h2: [0.98, 0.99, 1] }))).not.toMatch(/Switching a head off/);
});
