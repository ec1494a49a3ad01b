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

/**
 * Whether a checkpoint's own predictions of a text are better than chance —
 * what the page measures instead of guessing "trained or random" from a
 * model's size (a 260K-parameter Llama trained on TinyStories writes fluent
 * stories with 64 hidden units). Each non-special token of the text is
 * predicted from the logits the model gives it: a decoder's row before it
 * (the next token), an encoder's (masked LM's) row at it (a masked LM
 * trained to fill [MASK] also restores the tokens it sees). The measure is
 * the mean natural-log probability of those tokens against chance,
 * log(1/vocab). For logits unrelated to the text (random weights) the mean
 * is at most about log(1/vocab) (Jensen: E[log p] ≤ log E[p] = log(1/vocab)),
 * and in practice below it, since random logits spread unevenly (the
 * repository's random hf-* checkpoints: −6 to −13 against −5.7); a model
 * whose tokens beat chance twice over on average (mean ≥ log(2/vocab)) has
 * learned something about such text. Worse than that can also mean the text
 * is unlike its training data (stories260K on Chinese bytes), so the page
 * says both. `logits` [L, vocab] float32; `special[i]` 1 for special tokens.
 * @returns {{ count: number, meanLogProb: number, chance: number, better: boolean } | null}
 *   null when no token can be scored (fewer than one predicted token)
 */
export function predictionFit({ logits, vocab, inputIds, special, causal }) {
  let sum = 0;
  let count = 0;
  for (let i = causal ? 1 : 0; i < inputIds.length; i++) {
    if (special?.[i]) continue;
    const row = logits.subarray((causal ? i - 1 : i) * vocab, (causal ? i : i + 1) * vocab);
    let max = -Infinity;
    for (let v = 0; v < vocab; v++) if (row[v] > max) max = row[v];
    let z = 0;
    for (let v = 0; v < vocab; v++) z += Math.exp(row[v] - max);
    sum += row[inputIds[i]] - max - Math.log(z);
    count++;
  }
  if (!count) return null;
  const meanLogProb = sum / count;
  const chance = -Math.log(vocab);
  return { count, meanLogProb, chance, better: meanLogProb >= chance + Math.LN2 };
}

// Characters with no glyph of their own: controls, format characters, private use, unassigned, lone surrogates.
const INVISIBLE = /\p{C}/gu;

/** `text` with each invisible character written as its code, ⟨U+000B⟩, so a reader sees what is there. */
export const escapeInvisible = (text) =>
  text.replace(INVISIBLE, (c) => `⟨U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`);

/**
 * Whether the text a token adds to the decoded sequence may be appended to the
 * text box: null if so; 'invisible' if it holds a character with no glyph (a
 * control such as U+000B: appended silently, the box would look unchanged but
 * the model would read it); 'partial' if it holds U+FFFD, a byte piece that is
 * not a whole character on its own; 'empty' if it adds nothing.
 */
export function appendRefusal(added) {
  if (added === '') return 'empty';
  if (/\p{C}/u.test(added)) return 'invisible';
  if (added.includes('\uFFFD')) return 'partial';
  return null;
}
