// Generation a step at a time for the "下一个词 / Next token" view
// (views/next-token-steps.mjs draws it): a decoder's prompt through every
// layer once (model.prefill, its keys and values kept in the model's cache),
// then each step the most probable next token (greedy: the same at every
// temperature) fed back alone (model.step: one new row per layer), with the
// new token's attention over everything before it and the logits of the token
// after it. No DOM; the model is a parameter, so Node tests and the page run
// the same code.
import { CLAUSES, SENTENCE, TOKENS } from '../sentence.mjs';
import { topTokens } from './predictions.mjs';

/** The prompts the view offers: the page's sentence, its first clause (用毒毒毒蛇), or the section's text box. */
export const PROMPTS = Object.freeze(['sentence', 'clause', 'text']);

/** The text of a prompt of PROMPTS; `text` is the text box's. */
export function promptText(prompt, text) {
  if (prompt === 'sentence') return SENTENCE;
  if (prompt === 'clause')
    return TOKENS.filter((_, i) => CLAUSES[i] === 1)
      .map((token) => token.char)
      .join('');
  if (prompt === 'text') return text;
  throw new RangeError(`prompt: expected one of ${PROMPTS.join(', ')}, got ${prompt}`);
}

/**
 * The last query row of every head of an attention [numLayers, numHeads,
 * length, keys]: a new Float32Array [numLayers, numHeads, 1, keys], the
 * attention of the last position over every key.
 */
export function lastRows(attention, { numLayers, numHeads, length, keys = length }) {
  for (const [name, v] of Object.entries({ numLayers, numHeads, length, keys }))
    if (!Number.isInteger(v) || v < 1) throw new RangeError(`${name}: expected an integer ≥ 1, got ${v}`);
  const size = numLayers * numHeads * length * keys;
  if (attention?.length !== size)
    throw new RangeError(
      `attention: expected ${size} weights (${numLayers} × ${numHeads} × ${length} × ${keys}), got ${attention?.length}`,
    );
  const out = new Float32Array(numLayers * numHeads * keys);
  for (let block = 0; block < numLayers * numHeads; block++) {
    const start = (block * length + length - 1) * keys;
    out.set(attention.subarray(start, start + keys), block * keys);
  }
  return out;
}

/** Row `position` of logits [L, vocab] (a view, not a copy). */
const logitsRow = (logits, vocab, position) => logits.subarray(position * vocab, (position + 1) * vocab);

/**
 * One prompt's generation. Each next() is one step: { step, ids, tokens,
 * position, id, from, attention, logits } — ids the prompt's and the chosen
 * ones through the new token `id` (at `position`), `from` the logits row it
 * was chosen from, attention [numLayers, numHeads, 1, position + 1] its
 * attention, logits the row it gives for the token after it — or, when the
 * generation cannot go on, { ended: 'special' | 'length', id? } (the most
 * probable token is one of the tokenizer's special tokens, its end of text;
 * or the model has no position left), as Hugging Face's generate() stops.
 */
export class TokenSteps {
  #model;
  #prompt;
  #ids = null; // the ids through the last token fed (the cache's, when model.past says so)
  #next = null; // the logits row after them
  #step = 0;

  /**
   * @param {{ prefill: Function, step: Function, past: number, pieces: Function,
   *   specialTokens: { id: number }[], config: { numLayers: number, numHeads: number, vocabSize: number,
   *   maxLength: number } }} model a decoder with its head's logits (TransformerModel)
   * @param {string} prompt the text the generation starts from
   */
  constructor(model, prompt) {
    if (typeof prompt !== 'string') throw new TypeError(`prompt: expected a string, got ${typeof prompt}`);
    this.#model = model;
    this.#prompt = prompt;
  }

  /** The steps taken so far. */
  get steps() {
    return this.#step;
  }

  async next() {
    const model = this.#model;
    const { numLayers, numHeads, vocabSize, maxLength } = model.config;
    const options = { returnAttention: true, returnLogits: true };
    if (!this.#ids) {
      // The prompt's keys and values into the cache; only its last row of logits is read. With the weights
      // returned, as every call here and the section's run(): without them the engine takes its online
      // softmax, whose last bits differ.
      const r = await model.prefill(this.#prompt, options);
      this.#ids = r.inputIds;
      this.#next = logitsRow(r.logits, vocabSize, r.inputIds.length - 1);
    }
    const from = this.#next;
    const [{ id }] = topTokens(from, 1);
    if (model.specialTokens.some((s) => s.id === id)) return { ended: 'special', id };
    if (this.#ids.length >= maxLength) return { ended: 'length' };
    const ids = Int32Array.from([...this.#ids, id]);
    const position = ids.length - 1;
    let attention, logits;
    if (model.past === this.#ids.length) {
      const r = await model.step({ inputIds: [id] }, options);
      attention = r.attention;
      logits = logitsRow(r.logits, vocabSize, 0);
    } else {
      // The cache holds something else (a generate() or another prompt ran since): the whole sequence
      // again, whose last row is the step's, bit for bit.
      const r = await model.prefill({ inputIds: ids }, options);
      attention = lastRows(r.attention, { numLayers, numHeads, length: ids.length });
      logits = logitsRow(r.logits, vocabSize, position);
    }
    this.#ids = ids;
    this.#next = logits;
    this.#step++;
    return { step: this.#step, ids, tokens: model.pieces(ids), position, id, from, attention, logits };
  }
}
