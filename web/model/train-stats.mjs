// What the experiment measures: accuracy on the test set's 毒, where each
// head looks (its weight on a 毒's left and right neighbour), and per setting
// the mean and spread over seeds. Pure.
import { MAX_LENGTH } from './corpus.mjs';

/** Share of the test set's 毒 that the predictions get right. */
export function duAccuracy(predictions, testDu) {
  let right = 0;
  for (const { slot, tag } of testDu) if (predictions[slot] === tag) right++;
  return right / testDu.length;
}

/**
 * Each head's mean weight from a 毒 onto its left and its right neighbour, over
 * the test set's 毒 that have both (not the first or last token).
 * @param {Float32Array} attention the engine's [count, numHeads, maxLength, maxLength]
 */
export function neighbourWeights(attention, numHeads, testDu, lengths) {
  const L = MAX_LENGTH;
  const inner = testDu.filter(({ sentence, token }) => token > 0 && token < lengths[sentence] - 1);
  return Array.from({ length: numHeads }, (_, h) => {
    let left = 0;
    let right = 0;
    for (const { sentence, token } of inner) {
      const row = ((sentence * numHeads + h) * L + token) * L;
      left += attention[row + token - 1];
      right += attention[row + token + 1];
    }
    return { left: left / inner.length, right: right / inner.length };
  });
}

/** Mean and sample standard deviation (n − 1; NaN for fewer than two values). */
export function meanAndSd(values) {
  const n = values.length;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const sd = n < 2 ? NaN : Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1));
  return { mean, sd };
}

/**
 * Per setting, over its finished seeds: the accuracies (each seed's, and mean ±
 * SD), how many seeds got all six 毒 of the example right, and where the heads
 * look. For the heads: per seed, the head that puts most weight on the left
 * neighbour and the one that puts most on the right; "split" when they are two
 * different heads, each weighing its own side more than the other (one head
 * looks left, another right). With one head they are the same head.
 */
export function summarize(progress) {
  const settings = [...new Map(progress.runs.map((r) => [r.setting.key, r.setting])).values()];
  return settings.map((setting) => {
    const runs = progress.runs.filter((r) => r.setting.key === setting.key && r.finalAccuracy !== null);
    const accuracies = runs.map((r) => r.finalAccuracy);
    const looks = runs.map(({ neighbours }) => {
      const leftHead = neighbours.reduce((best, h, i) => (h.left > neighbours[best].left ? i : best), 0);
      const rightHead = neighbours.reduce((best, h, i) => (h.right > neighbours[best].right ? i : best), 0);
      const looksLeft = neighbours[leftHead].left > neighbours[leftHead].right;
      const looksRight = neighbours[rightHead].right > neighbours[rightHead].left;
      return {
        left: neighbours[leftHead].left,
        right: neighbours[rightHead].right,
        split: leftHead !== rightHead && looksLeft && looksRight,
      };
    });
    return {
      setting,
      seeds: runs.map((r) => r.seed),
      accuracies,
      ...meanAndSd(accuracies),
      allRight: runs.filter((r) => r.example.allRight).length,
      left: meanAndSd(looks.map((l) => l.left)).mean,
      right: meanAndSd(looks.map((l) => l.right)).mean,
      splits: looks.filter((l) => l.split).length,
    };
  });
}
