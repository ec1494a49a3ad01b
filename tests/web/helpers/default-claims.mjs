// The page's claims about the default experiment (DEFAULT_OPTIONS: every seed of 1 and 2 heads), checked
// against its numbers, each counted again here from the runs themselves: the medians, the seeds where 2 heads
// score higher, the seeds whose heads did not divide the neighbours, the median seed the bridge shows, which
// way the claim's sentence goes, in both languages. tests/e2e/train.test.mjs calls it on Node's run of the
// experiment, the run it compares the page's with (one run of the 60,000 training steps for both checks).
import { DEFAULT_OPTIONS } from '../../../web/model/train-options.mjs';
import { summarize, headFocus } from '../../../web/model/train-stats.mjs';
import { pairSeeds, collapsedSeeds, medianSeed, sideHeads } from '../../../web/model/train-evidence.mjs';
import { describeResults, headline } from '../../../web/model/train-text.mjs';
import { setLanguage } from '../../../web/lib/i18n.mjs';

/** The measured numbers, for whoever changes the experiment (MHA_REPORT=1). */
const report = (...words) => process.env.MHA_REPORT && console.log(...words);

/** The median as a reader computes it: the middle value, or the mean of the middle two. */
const middle = (values) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const pct = (x) => `${(100 * x).toFixed(1)} %`;

/** `progress`: runExperiment's result on the default experiment; `data`: buildData()'s. */
export function expectDefaultClaims(progress, data) {
  expect(DEFAULT_OPTIONS).toMatchObject({ seeds: 10, steps: 3000, fourHeads: false, mlp: false });
  const runsOf = (numHeads) => progress.runs.filter((r) => r.setting.numHeads === numHeads);
  const [one, two] = [runsOf(1), runsOf(2)];
  report(
    one
      .map((r, i) => `seed ${r.seed}: 1 head ${pct(r.finalAccuracy)}, 2 heads ${pct(two[i].finalAccuracy)}`)
      .join('\n'),
  );
  expect(one.map((r) => r.seed)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);

  const summary = summarize(progress);
  const [s1, s2] = summary;
  expect([s1.median, s2.median]).toEqual([
    middle(one.map((r) => r.finalAccuracy)),
    middle(two.map((r) => r.finalAccuracy)),
  ]);
  const wins = two.filter((r, i) => r.finalAccuracy > one[i].finalAccuracy).length;
  const losses = two.filter((r, i) => r.finalAccuracy < one[i].finalAccuracy).length;
  const paired = pairSeeds(s1, s2);
  expect([paired.wins, paired.losses, paired.ties]).toEqual([wins, losses, 10 - wins - losses]);

  // Collapse, from the runs' own neighbour weights: a two-head run whose heads do not look one mostly left
  // (of left neighbour, right neighbour, the 毒 itself) and another mostly right.
  const mostly = (w) =>
    Object.entries({ left: w.left, right: w.right, self: w.self }).sort((a, b) => b[1] - a[1])[0][0];
  const notDivided = two.filter((r) => {
    const foci = r.neighbours.map(mostly);
    return !(foci.includes('left') && foci.includes('right'));
  });
  expect(
    collapsedSeeds(s2)
      .seeds.map((c) => c.seed)
      .sort((a, b) => a - b),
  ).toEqual(notDivided.map((r) => r.seed));
  expect(two.every((r) => r.neighbours.every((w) => mostly(w) === headFocus(w)))).toBe(true);

  // The bridge's median seed: the lower middle of the two-head accuracies, its heads one left and one right if
  // they divided the neighbours.
  const order = [...two].sort((a, b) => a.finalAccuracy - b.finalAccuracy || a.seed - b.seed);
  const median = order[4];
  expect(medianSeed(s2)).toBe(median.seed);
  const sides = sideHeads(median.neighbours);
  if (notDivided.includes(median)) expect([sides.left, sides.right]).toContain(null);
  else {
    expect(median.neighbours[sides.left].left).toBeGreaterThan(median.neighbours[sides.left].right);
    expect(median.neighbours[sides.right].right).toBeGreaterThan(median.neighbours[sides.right].left);
  }

  // The text, in both languages: the side that wins more seeds is named as scoring higher; the medians are the
  // numbers above; the claim says "behind" only if two heads win more seeds; the collapsed seeds are named.
  const context = {
    steps: 3000,
    testSentences: data.test.length,
    testDu: data.testDu.length,
    neighbours: data.neighbours,
  };
  setLanguage('en');
  const lead =
    wins > losses
      ? `2 heads scored higher than 1 head in ${wins} of 10 seeds and lower in ${losses}`
      : wins < losses
        ? `1 head scored higher than 2 heads in ${losses} of 10 seeds and lower in ${wins}`
        : `2 heads and 1 head each scored higher in ${wins} of 10 seeds`;
  expect(headline(summary)).toBe(
    `${lead}${wins + losses < 10 ? ` (the same in ${10 - wins - losses})` : ''}; median held-out 毒 accuracy ` +
      `${pct(s2.median)} with 2 heads, ${pct(s1.median)} with 1 head`,
  );
  const text = describeResults(summary, context).join('\n');
  expect(text).toContain(`1 head ${pct(s1.median)} (mean ± SD `);
  expect(text).toContain(`2 heads ${pct(s2.median)} (mean ± SD `);
  expect(text).toContain(lead);
  if (wins > losses) expect(text).toContain(`and it was behind two heads in ${wins} of 10 seeds`);
  else expect(text).toContain('but it was not behind two heads');
  for (const r of notDivided) expect(text).toContain(`seed ${r.seed} (${pct(r.finalAccuracy)}): head 0 mostly on`);
  if (notDivided.length === 0) expect(text).not.toContain('did not divide');
  const ceiling = Math.max(data.neighbours.left, data.neighbours.right);
  expect(text).toContain(s1.median > ceiling ? 'one head worked' : 'one head did not get past');

  // A head switched off the trained 2-head models: each run measured both heads off in turn, the 1-head runs none;
  // the medians of the better and the worse are counted again here, and the sentence goes the way they do.
  expect(one.every((r) => r.headsOff === null)).toBe(true);
  expect(two.every((r) => r.headsOff.map((h) => h.off).join() === '0,1')).toBe(true);
  const kept = (pick) => middle(two.map((r) => pick(...r.headsOff.map((h) => h.accuracy))));
  expect(s2.headOff).toEqual({ best: kept(Math.max), worst: kept(Math.min) });
  expect(s1.headOff).toBeNull();
  report(
    `one head off the 2-head models: median ${pct(s2.headOff.best)} (better head kept), ${pct(s2.headOff.worst)} (worse)`,
  );
  expect(text).toContain(
    `leaves a median of ${pct(s2.headOff.best)} when the better head stays and ${pct(s2.headOff.worst)} when the ` +
      `worse one does, against ${pct(s1.median)} for 1 head trained as one head`,
  );
  const gap = s2.headOff.best - s1.median;
  expect(text).toContain(
    gap < -0.0005
      ? 'switching a head off is not training with one head'
      : gap > 0.0005
        ? 'does better alone'
        : 'as well as',
  );

  setLanguage('zh');
  const zh = describeResults(summary, context).join('\n');
  expect(zh).toContain(`1 个头 ${pct(s1.median)}（平均 ± 标准差`);
  if (wins > losses) expect(zh).toContain(`10 个种子中，2 个头有 ${wins} 个高于 1 个头`);
  for (const r of notDivided) expect(zh).toContain(`种子 ${r.seed}（${pct(r.finalAccuracy)}）：头 0 主要看`);
  setLanguage('en');
}
