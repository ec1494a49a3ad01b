// What the experiment's runs showed, in English, written from the numbers
// only: which setting is ahead, by how much, whether the seeds overlap,
// whether the MLP narrows the gap, and how the claim fares. Pure.
import { percent, plural, thousands } from '../lib/format.mjs';
import { meanAndSd } from './train-stats.mjs';

/** Differences of means under half a tenth of a point (the text's precision) count as none. */
const LEVEL = 0.0005;
const points = (x) => `${Math.abs(100 * x).toFixed(1)} point${Math.abs(100 * x).toFixed(1) === '1.0' ? '' : 's'}`;
const weight = (x) => x.toFixed(2);
const seedList = (s) => s.accuracies.map((a, i) => `${s.seeds[i]}: ${(100 * a).toFixed(1)}`).join(', ');

/** Accuracies as "93.2 ± 5.2 %" (mean ± sample SD) or, for one value, "93.2 %". */
export function percentMeanSd(values) {
  const { mean, sd } = meanAndSd(values);
  return values.length > 1 ? `${(100 * mean).toFixed(1)} ± ${(100 * sd).toFixed(1)} %` : percent(mean);
}

function accuracyText(s) {
  const spread = s.seeds.length > 1 ? '' : ', one seed so no spread';
  return `${s.setting.label} ${percentMeanSd(s.accuracies)}${spread} (seed ${seedList(s)})`;
}

/** "2 heads were ahead of 1 head by 6.2 points; …": b against a, and whether their seeds overlap. */
function comparisonText(a, b) {
  const gap = b.mean - a.mean;
  if (Math.abs(gap) < LEVEL)
    return `${b.setting.label} and ${a.setting.label} were level (${percent(b.mean)} and ${percent(a.mean)}).`;
  const [ahead, behind] = gap > 0 ? [b, a] : [a, b];
  const worstAhead = Math.min(...ahead.accuracies);
  const bestBehind = Math.max(...behind.accuracies);
  const overlap =
    worstAhead > bestBehind
      ? `every seed with ${ahead.setting.label} scored above every seed with ${behind.setting.label}`
      : `but their seeds overlap: the worst seed with ${ahead.setting.label} (${percent(worstAhead)}) ` +
        `was not above the best with ${behind.setting.label} (${percent(bestBehind)})`;
  const were = ahead.setting.numHeads === 1 ? 'was' : 'were';
  return `${ahead.setting.label} ${were} ahead of ${behind.setting.label} by ${points(gap)}; ${overlap}.`;
}

function lookText(s) {
  if (s.setting.numHeads === 1)
    return (
      `${s.setting.label}: on average ${weight(s.left)} of its weight on a 毒's left neighbour ` +
      `and ${weight(s.right)} on its right one, from one softmax.`
    );
  return (
    `${s.setting.label}: one head looked mostly left and another mostly right in ${s.splits} of ` +
    `${plural(s.seeds.length, 'seed')} (the most left-looking head put ${weight(s.left)} on the left neighbour, ` +
    `the most right-looking ${weight(s.right)} on the right one).`
  );
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
    `After ${thousands(steps)} steps, held-out 毒 accuracy on ${testSentences} sentences never trained on ` +
      `(${testDu} 毒), mean ± sample SD over seeds: ${plain.map(accuracyText).join('; ')}.`,
  );
  if (one && plain.length > 1)
    paragraphs.push(
      plain
        .filter((s) => s !== one)
        .map((s) => comparisonText(one, s))
        .join(' '),
    );
  const allRight = done.map((s) => `${s.allRight} of ${plural(s.seeds.length, 'run')} with ${s.setting.label}`);
  paragraphs.push(`The example sentence (held out of training): all six 毒 right in ${allRight.join(', ')}.`);
  paragraphs.push(`Where the heads look, measured over the test set's 毒: ${plain.map(lookText).join(' ')}`);

  if (withMlp.length) {
    let text = `With an MLP after attention: ${withMlp.map(accuracyText).join('; ')}.`;
    if (one && two && oneMlp && twoMlp) {
      const before = two.mean - one.mean;
      const after = twoMlp.mean - oneMlp.mean;
      const change =
        Math.abs(after) < Math.abs(before) - LEVEL
          ? 'narrowed'
          : Math.abs(after) > Math.abs(before) + LEVEL
            ? 'widened'
            : 'stayed the same';
      const signed = (x) => `${x >= 0 ? '+' : '−'}${points(x)}`;
      text +=
        ` Two heads minus one head: ${signed(before)} without the MLP, ${signed(after)} with it: ` +
        `the gap ${change}.`;
    }
    paragraphs.push(text);
  }

  if (one && two) {
    // "Can do it": more 毒 right than any rule reading one neighbour could get; "not as well": behind two heads.
    const ceiling = Math.max(neighbours.left, neighbours.right);
    const worked =
      one.mean > ceiling
        ? `one head worked: ${percent(one.mean)}, more than the ${percent(ceiling)} that the better neighbour alone ` +
          'allows on this test set'
        : 'one head did not get past what one neighbour alone allows ' +
          `(${percent(one.mean)} against ${percent(ceiling)})`;
    const asGood =
      two.mean - one.mean >= LEVEL
        ? `and it was ${points(two.mean - one.mean)} behind two heads`
        : 'and it was not behind two heads';
    paragraphs.push(
      `The claim “单头注意力不是不行，而是不够好” (one head can do it, just not as well), against this run: ${worked}, ${asGood}.`,
    );
  }
  return paragraphs;
}
