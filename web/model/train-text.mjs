// What the experiment's runs showed, in the page's language, written from
// the numbers only: which setting is ahead, by how much, whether the seeds
// overlap, whether the MLP narrows the gap, and how the claim fares. Pure.
import { percent, thousands, fixed } from '../lib/format.mjs';
import { t } from '../lib/i18n.mjs';
import { meanAndSd } from './train-stats.mjs';
import { settingLabel } from './train-options.mjs';

/** Differences of means under half a tenth of a point (the text's precision) count as none. */
const LEVEL = 0.0005;
const points = (x) => t('text.points', { x: fixed(Math.abs(100 * x), 1) });
const weight = (x) => fixed(x, 2);
const seedList = (s) => s.accuracies.map((a, i) => `${s.seeds[i]}: ${fixed(100 * a, 1)}`).join(', ');
const label = (s) => settingLabel(s.setting);

/** Accuracies as "93.2 ± 5.2 %" (mean ± sample SD) or, for one value, "93.2 %". */
export function percentMeanSd(values) {
  const { mean, sd } = meanAndSd(values);
  return values.length > 1 ? `${fixed(100 * mean, 1)} ± ${fixed(100 * sd, 1)} %` : percent(mean);
}

function accuracyText(s) {
  return t('text.accuracy', {
    setting: label(s),
    accuracy: percentMeanSd(s.accuracies),
    spread: s.seeds.length > 1 ? '' : t('text.oneSeed'),
    seeds: seedList(s),
  });
}

/** "2 heads were ahead of 1 head by 6.2 points; …": b against a, and whether their seeds overlap. */
function comparisonText(a, b) {
  const gap = b.mean - a.mean;
  if (Math.abs(gap) < LEVEL)
    return t('text.level', { b: label(b), a: label(a), bValue: percent(b.mean), aValue: percent(a.mean) });
  const [ahead, behind] = gap > 0 ? [b, a] : [a, b];
  const worst = Math.min(...ahead.accuracies);
  const best = Math.max(...behind.accuracies);
  const names = { ahead: label(ahead), behind: label(behind) };
  const overlap =
    worst > best ? t('text.above', names) : t('text.overlap', { ...names, worst: percent(worst), best: percent(best) });
  return t('text.ahead', { ...names, points: points(gap), overlap, one: ahead.setting.numHeads === 1 });
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

/**
 * What the runs showed, in words, from the numbers only: paragraphs (strings).
 * Nothing here is fixed in advance: which setting is ahead, by how much,
 * whether the seeds overlap, whether the MLP narrows the gap, and how the claim
 * fares are all read off `summary` (train-stats.mjs summarize) and `context`.
 * @param {object[]} summary summarize()'s result
 * @param {{ steps: number, testSentences: number, testDu: number,
 *   neighbours: { left: number, right: number } }} context
 */
export function describeResults(summary, { steps, testSentences, testDu, neighbours }) {
  const done = summary.filter((s) => s.seeds.length > 0);
  const find = (numHeads, mlp) => done.find((s) => s.setting.numHeads === numHeads && s.setting.mlpHidden > 0 === mlp);
  const plain = done.filter((s) => s.setting.mlpHidden === 0);
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

  if (withMlp.length) {
    let text = t('text.mlp', { list: withMlp.map(accuracyText).join(t('text.listJoin')) });
    if (one && two && oneMlp && twoMlp) {
      const before = two.mean - one.mean;
      const after = twoMlp.mean - oneMlp.mean;
      const change =
        Math.abs(after) < Math.abs(before) - LEVEL
          ? 'text.narrowed'
          : Math.abs(after) > Math.abs(before) + LEVEL
            ? 'text.widened'
            : 'text.same';
      const signed = (x) => `${x >= 0 ? '+' : '−'}${points(x)}`;
      text += t('text.gap', { before: signed(before), after: signed(after), change: t(change) });
    }
    paragraphs.push(text);
  }

  if (one && two) {
    // "Can do it": more 毒 right than any rule reading one neighbour could get; "not as well": behind two heads.
    const ceiling = Math.max(neighbours.left, neighbours.right);
    const worked =
      one.mean > ceiling
        ? t('text.worked', { one: percent(one.mean), ceiling: percent(ceiling) })
        : t('text.notWorked', { one: percent(one.mean), ceiling: percent(ceiling) });
    const behind =
      two.mean - one.mean >= LEVEL ? t('text.behind', { points: points(two.mean - one.mean) }) : t('text.notBehind');
    paragraphs.push(t('text.claim', { worked, behind }));
  }
  return paragraphs;
}
