// What the experiment's runs showed, in the page's language, written from
// the numbers only: the medians, which setting scores higher seed by seed and
// by how much, whether the seeds overlap, the seeds whose heads did not divide
// the neighbours, whether the MLP narrows the gap, and how the claim fares.
// Pure.
import { percent, thousands, fixed } from '../lib/format.mjs';
import { t } from '../lib/i18n.mjs';
import { meanAndSd } from './train-stats.mjs';
import { settingLabel } from './train-options.mjs';
import { plainEntries, pairSeeds, collapsedSeeds } from './train-evidence.mjs';

/** Differences under half a tenth of a point (the text's precision) count as none. */
const LEVEL = 0.0005;
const points = (x) => t('text.points', { x: fixed(Math.abs(100 * x), 1) });
/** "+5.5 points", "−0.3 points", "0.0 points". */
export const signedPoints = (x) => (Math.abs(x) < LEVEL ? points(0) : `${x > 0 ? '+' : '−'}${points(x)}`);
const weight = (x) => fixed(x, 2);
const label = (s) => settingLabel(s.setting);

/** Accuracies as "93.2 ± 5.2 %" (mean ± sample SD) or, for one value, "93.2 %". */
export function percentMeanSd(values) {
  const { mean, sd } = meanAndSd(values);
  return values.length > 1 ? `${fixed(100 * mean, 1)} ± ${fixed(100 * sd, 1)} %` : percent(mean);
}

function accuracyText(s) {
  return t('text.accuracy', {
    setting: label(s),
    median: percent(s.median),
    spread: s.seeds.length > 1 ? t('text.meanSd', { meanSd: percentMeanSd(s.accuracies) }) : t('text.oneSeed'),
  });
}

/**
 * "2 heads scored higher than 1 head in 10 of 10 seeds": whichever side wins
 * more of the paired seeds is named first; with as many wins as losses, neither.
 * @param {object} paired pairSeeds(base, other)
 */
export function pairLead(base, other, { pairs, wins, losses, ties }) {
  const n = pairs.length;
  if (wins === losses) return t('text.pairLevel', { a: label(base), b: label(other), count: wins, n, ties });
  const [ahead, behind, count, lower] = wins > losses ? [other, base, wins, losses] : [base, other, losses, wins];
  return t('text.pairAhead', {
    ahead: label(ahead),
    behind: label(behind),
    count,
    lower,
    n,
    ties,
    one: ahead.setting.numHeads === 1,
  });
}

/** Seed by seed, `other` against `base`: who scores higher in more seeds, the median difference, the overlap. */
function comparisonText(base, other) {
  const paired = pairSeeds(base, other);
  const lead = pairLead(base, other, paired);
  const gain = signedPoints(paired.medianGain);
  if (paired.wins === paired.losses)
    return t('text.paired', { lead, a: label(base), b: label(other), gain, overlap: '' });
  const [ahead, behind] = paired.wins > paired.losses ? [other, base] : [base, other];
  const worst = Math.min(...ahead.accuracies);
  const best = Math.max(...behind.accuracies);
  const names = { ahead: label(ahead), behind: label(behind) };
  const overlap =
    worst > best ? t('text.above', names) : t('text.overlap', { ...names, worst: percent(worst), best: percent(best) });
  return t('text.paired', { lead, a: label(base), b: label(other), gain, overlap });
}

/** "head 1 mostly on the 毒 itself (0.77)". */
export const headFocusText = (h) =>
  t('text.headFocus', { head: h.index, focus: t(`focus.${h.focus}`), weight: weight(h.weight) });

/** The seeds of a several-head entry whose heads did not divide the neighbours, or null if there are none. */
export function collapseText(entry) {
  const { seeds, lowest } = collapsedSeeds(entry);
  if (!seeds.length) return null;
  const list = seeds.map((c) =>
    t('text.collapsedSeed', {
      seed: c.seed,
      accuracy: percent(c.accuracy),
      heads: c.heads.map(headFocusText).join(t('list.join')),
    }),
  );
  return t('text.collapse', {
    setting: label(entry),
    count: seeds.length,
    n: entry.seeds.length,
    list: list.join(t('text.listJoin')),
    lowest,
  });
}

function lookText(s) {
  if (s.setting.numHeads === 1)
    return t('text.lookOne', { setting: label(s), left: weight(s.left), right: weight(s.right) });
  return t('text.lookMany', {
    setting: label(s),
    splits: s.splits,
    seeds: s.seeds.length,
    left: weight(s.left),
    right: weight(s.right),
  });
}

/** The plain (no MLP) one-head and two-head entries of a summary, or nulls. */
function headlineEntries(summary) {
  const plain = plainEntries(summary);
  const one = plain.find((s) => s.setting.numHeads === 1) ?? null;
  const two = plain.find((s) => s.setting.numHeads === 2) ?? null;
  return { one, two };
}

/**
 * The claim's test in one sentence, for the chart and the note beside the
 * designed heads: who scores higher seed by seed, and both medians; null
 * until both one and two heads have finished seeds.
 */
export function headline(summary) {
  const { one, two } = headlineEntries(summary);
  if (!one || !two) return null;
  return t('text.headline', {
    lead: pairLead(one, two, pairSeeds(one, two)),
    one: label(one),
    two: label(two),
    oneValue: percent(one.median),
    twoValue: percent(two.median),
  });
}

/**
 * What the runs showed, in words, from the numbers only: paragraphs (strings).
 * Nothing here is fixed in advance: which setting scores higher, by how much,
 * whether the seeds overlap, which seeds' heads did not divide the
 * neighbours, whether the MLP narrows the gap, and how the claim fares are all
 * read off `summary` (train-stats.mjs summarize) and `context`.
 * @param {object[]} summary summarize()'s result
 * @param {{ steps: number, testSentences: number, testDu: number,
 *   neighbours: { left: number, right: number } }} context
 */
export function describeResults(summary, { steps, testSentences, testDu, neighbours }) {
  const done = summary.filter((s) => s.seeds.length > 0);
  const find = (numHeads, mlp) => done.find((s) => s.setting.numHeads === numHeads && s.setting.mlpHidden > 0 === mlp);
  const plain = plainEntries(done);
  const withMlp = done.filter((s) => s.setting.mlpHidden > 0);
  const [one, two, oneMlp, twoMlp] = [find(1, false), find(2, false), find(1, true), find(2, true)];
  const paragraphs = [];
  if (plain.length === 0) return paragraphs;

  paragraphs.push(
    t('text.after', {
      steps: thousands(steps),
      sentences: testSentences,
      du: testDu,
      list: plain.map(accuracyText).join(t('text.listJoin')),
    }),
  );
  if (one && plain.length > 1)
    paragraphs.push(
      plain
        .filter((s) => s !== one)
        .map((s) => comparisonText(one, s))
        .join(' '),
    );
  const allRight = done.map((s) =>
    t('text.allRightItem', { right: s.allRight, runs: s.seeds.length, setting: label(s) }),
  );
  paragraphs.push(t('text.allRight', { list: allRight.join(t('list.join')) }));
  paragraphs.push(t('text.looks', { list: plain.map(lookText).join(' ') }));
  const collapses = plain.map(collapseText).filter(Boolean);
  if (collapses.length) paragraphs.push(collapses.join(' '));

  if (withMlp.length) {
    let text = t('text.mlp', { list: withMlp.map(accuracyText).join(t('text.listJoin')) });
    if (one && two && oneMlp && twoMlp) {
      const before = pairSeeds(one, two).medianGain;
      const after = pairSeeds(oneMlp, twoMlp).medianGain;
      text += t('text.gap', {
        before: signedPoints(before),
        after: signedPoints(after),
        change: t(gapChange(before, after)),
      });
    }
    paragraphs.push(text);
  }

  if (one && two) {
    // "Can do it": more 毒 right than any rule reading one neighbour could get;
    // "not as well": two heads score higher in more of the paired seeds.
    const ceiling = Math.max(neighbours.left, neighbours.right);
    const worked =
      one.median > ceiling
        ? t('text.worked', { one: percent(one.median), ceiling: percent(ceiling) })
        : t('text.notWorked', { one: percent(one.median), ceiling: percent(ceiling) });
    paragraphs.push(t('text.claim', { worked, behind: behindText(pairSeeds(one, two)) }));
    // A head switched off the trained 2-head model against the 1-head model trained as one (Michel et al. 2019 switch
    // heads off; the page trains both): measured here, so the sentence says which way it went.
    if (two.headOff) paragraphs.push(headOffText(one, two));
    // The page's own MLP run answers the claim too (the article's nuance: not unable, only not as good), so the
    // verdict gives it beside the plain pair, with how the gap moved.
    if (oneMlp && twoMlp) {
      const before = pairSeeds(one, two).medianGain;
      const paired = pairSeeds(oneMlp, twoMlp);
      const workedMlp =
        oneMlp.median > ceiling
          ? t('text.worked', { one: percent(oneMlp.median), ceiling: percent(ceiling) })
          : t('text.notWorked', { one: percent(oneMlp.median), ceiling: percent(ceiling) });
      paragraphs.push(
        t('text.claimMlp', {
          worked: workedMlp,
          behind: behindText(paired),
          before: signedPoints(before),
          after: signedPoints(paired.medianGain),
          change: t(gapChange(before, paired.medianGain)),
        }),
      );
    }
  }
  return paragraphs;
}

/** The 2-head model with a head switched off, beside the 1-head model trained as one, and what that shows. */
function headOffText(one, two) {
  const { best, worst } = two.headOff;
  const verdict =
    best < one.median - LEVEL
      ? 'text.headOff.below'
      : best > one.median + LEVEL
        ? 'text.headOff.above'
        : 'text.headOff.same';
  return t('text.headOff', {
    two: label(two),
    full: percent(two.median),
    best: percent(best),
    worst: percent(worst),
    one: label(one),
    trained: percent(one.median),
    verdict: t(verdict),
  });
}

/** "and it was behind two heads in 8 of 10 seeds …" or "but it was not behind …", from a pairing of 1 and 2 heads. */
function behindText({ pairs, wins, losses, medianGain }) {
  return wins > losses
    ? t('text.behind', { wins, n: pairs.length, gain: points(medianGain) })
    : t('text.notBehind', { wins, losses, n: pairs.length });
}

/** Whether the per-seed gap (two heads − one) narrowed, widened or stayed within LEVEL, as a message key. */
function gapChange(before, after) {
  if (Math.abs(after) < Math.abs(before) - LEVEL) return 'text.narrowed';
  if (Math.abs(after) > Math.abs(before) + LEVEL) return 'text.widened';
  return 'text.same';
}
