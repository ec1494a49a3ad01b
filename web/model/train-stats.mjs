// What the experiment measures: accuracy on the test set's 毒, where each
// head looks (its weight on a 毒's left and right neighbour and on the 毒
// itself), and per setting the median, mean and spread over seeds. Pure.
import { MAX_LENGTH } from './corpus.mjs';

/** Share of the test set's 毒 that the predictions get right. */
export function duAccuracy(predictions, testDu) {
  let right = 0;
  for (const { slot, tag } of testDu) if (predictions[slot] === tag) right++;
  return right / testDu.length;
}

/**
 * Each head's mean weight from a 毒 onto its left and its right neighbour and
 * onto the 毒 itself, over the test set's 毒 that have both neighbours (not
 * the first or last token).
 * @param {Float32Array} attention the engine's [count, numHeads, maxLength, maxLength]
 */
export function neighbourWeights(attention, numHeads, testDu, lengths) {
  const L = MAX_LENGTH;
  const inner = testDu.filter(({ sentence, token }) => token > 0 && token < lengths[sentence] - 1);
  return Array.from({ length: numHeads }, (_, h) => {
    let left = 0;
    let right = 0;
    let self = 0;
    for (const { sentence, token } of inner) {
      const row = ((sentence * numHeads + h) * L + token) * L;
      left += attention[row + token - 1];
      right += attention[row + token + 1];
      self += attention[row + token];
    }
    return { left: left / inner.length, right: right / inner.length, self: self / inner.length };
  });
}

/** The places a head's focus is read among: a 毒's left neighbour, its right neighbour, the 毒 itself. */
export const FOCI = Object.freeze(['left', 'right', 'self']);

/** Where a head looks: the one of FOCI it weighs most (neighbourWeights' record of the head). */
export const headFocus = (weights) => FOCI.reduce((best, f) => (weights[f] > weights[best] ? f : best), FOCI[0]);

/**
 * Whether a run's heads divide the two neighbours between them: one head
 * looks mostly left and another mostly right (never true of a single head).
 * A head that looks mostly at the 毒 itself adds to it a function of its own
 * embedding and position, which the residual path already carries: it
 * brings nothing about the neighbours that decide the role.
 */
export function splitsNeighbours(neighbours) {
  const foci = neighbours.map(headFocus);
  return foci.includes('left') && foci.includes('right');
}

/** The median (of an even count, the mean of the two middle values; NaN for none). */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  if (n === 0) return NaN;
  return n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

/** Mean and sample standard deviation (n − 1; NaN for fewer than two values). */
export function meanAndSd(values) {
  const n = values.length;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const sd = n < 2 ? NaN : Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1));
  return { mean, sd };
}

/**
 * Per setting, over its finished seeds: the accuracies (each seed's, their
 * median, and mean ± SD), how many seeds got all six 毒 of the example right,
 * and where the heads look: per seed, the weight of the head that puts most
 * on the left neighbour and of the one that puts most on the right, and
 * whether its heads divide the neighbours (splitsNeighbours); and with more
 * than one head, the medians with one head switched off (headOff).
 */
export function summarize(progress) {
  const settings = [...new Map(progress.runs.map((r) => [r.setting.key, r.setting])).values()];
  return settings.map((setting) => {
    const runs = progress.runs.filter((r) => r.setting.key === setting.key && r.finalAccuracy !== null);
    const accuracies = runs.map((r) => r.finalAccuracy);
    const looks = runs.map(({ neighbours }) => ({
      left: Math.max(...neighbours.map((h) => h.left)),
      right: Math.max(...neighbours.map((h) => h.right)),
      split: splitsNeighbours(neighbours),
    }));
    // With a head switched off, per seed: the better and the worse of the heads kept (2 heads: each head alone).
    const off = runs.filter((r) => r.headsOff).map((r) => r.headsOff.map((h) => h.accuracy));
    return {
      setting,
      seeds: runs.map((r) => r.seed),
      accuracies,
      median: median(accuracies),
      ...meanAndSd(accuracies),
      allRight: runs.filter((r) => r.example.allRight).length,
      left: meanAndSd(looks.map((l) => l.left)).mean,
      right: meanAndSd(looks.map((l) => l.right)).mean,
      splits: looks.filter((l) => l.split).length,
      /** Over seeds, the median accuracy with one head off: keeping the better rest, and the worse (null: one head). */
      headOff: off.length
        ? { best: median(off.map((a) => Math.max(...a))), worst: median(off.map((a) => Math.min(...a))) }
        : null,
      /** Per seed (in the order of `seeds`), each head's neighbourWeights. */
      neighbours: runs.map((r) => r.neighbours),
    };
  });
}
