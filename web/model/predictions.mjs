// What the real-model view shows of a model's predictions (views/predictions.mjs
// draws it), from its own logits: the most probable tokens of one row, as
// softmax(logits / temperature) — a decoder's next token after the text, a
// masked-LM's fill of a [MASK]. Pure: no DOM, no engine.

/**
 * The `k` most probable tokens of `row` (one position's logits) at
 * `temperature`: [{ id, probability }], most probable first (ties: the lower
 * id first), probabilities in float64.
 */
export function topTokens(row, k, temperature = 1) {
  if (!(temperature > 0)) throw new RangeError(`temperature: expected a number > 0, got ${temperature}`);
  let max = -Infinity;
  for (let i = 0; i < row.length; i++) if (row[i] > max) max = row[i];
  let sum = 0;
  for (let i = 0; i < row.length; i++) sum += Math.exp((row[i] - max) / temperature);
  const best = [];
  for (let i = 0; i < row.length; i++) {
    if (best.length === k && !(row[i] > row[best[k - 1]])) continue;
    let at = best.length < k ? best.length : k - 1;
    while (at > 0 && row[i] > row[best[at - 1]]) at--;
    best.splice(at, 0, i);
    if (best.length > k) best.pop();
  }
  return best.map((id) => ({ id, probability: Math.exp((row[id] - max) / temperature) / sum }));
}

/** The rows of a run's logits [L, vocab] that hold `id` in the input (the [MASK] positions). */
export function positionsOf(inputIds, id) {
  const out = [];
  inputIds.forEach((v, i) => v === id && out.push(i));
  return out;
}
