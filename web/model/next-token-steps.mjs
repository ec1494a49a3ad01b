// Generation a step at a time for the "下一个词 / Next token" view
// (views/next-token-steps.mjs draws it), through the library's step stream
// (model.generateSteps: the prompt through every layer once, its keys and
// values kept, then each most probable next token fed back alone): each step
// the new token, its attention over everything before it and the logits of
// the token after it. No DOM; the model is a parameter, so Node tests and the
// page run the same code.
import { CLAUSES, SENTENCE, TOKENS } from '../sentence.mjs';

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
 * One prompt's generation, a step a click, over the library's step stream
 * (model.generateSteps: greedy, stopped as Hugging Face's generate() stops,
 * at the checkpoint's eos_token_id or at the last position). Each next() is
 * one step: { step, ids, tokens, position, id, from, attention, logits } —
 * ids the prompt's and the chosen ones through the new token `id` (at
 * `position`), `from` the logits row it was chosen from, attention
 * [numLayers, numHeads, 1, position + 1] its own attention once fed, logits
 * the row it gives for the token after it — or, when the generation cannot
 * go on, { ended: 'eos' | 'length', id } (the token chosen is the end of the
 * text; or the model has no position left to read it). A step of the view is
 * one token fed, so it reads the stream one step ahead: the stream's next
 * step fed this one's token.
 */
export class TokenSteps {
  #model;
  #prompt;
  #maxLength;
  #stream = null;
  #chosen = null; // the stream's step whose token the next record shows
  #ended = null;
  #step = 0;

  /**
   * @param {{ generateSteps: Function, pieces: Function, config: { maxLength: number } }} model
   *   a decoder with its head's logits (TransformerModel)
   * @param {string} prompt the text the generation starts from
   * @param {{ maxLength?: number }} [options] the length it stops at (default: every position of the model)
   */
  constructor(model, prompt, { maxLength } = {}) {
    if (typeof prompt !== 'string') throw new TypeError(`prompt: expected a string, got ${typeof prompt}`);
    this.#model = model;
    this.#prompt = prompt;
    this.#maxLength = maxLength;
  }

  /** The steps taken so far. */
  get steps() {
    return this.#step;
  }

  async next() {
    if (this.#ended) return this.#ended;
    const model = this.#model;
    if (!this.#stream) {
      // With the weights returned, as the section's run(): without them the engine takes its online
      // softmax, whose last bits differ.
      const maxLength = this.#maxLength ?? model.config.maxLength;
      this.#stream = model.generateSteps(this.#prompt, { maxLength, returnAttention: true });
      this.#chosen = (await this.#stream.next()).value;
    }
    const chosen = this.#chosen;
    const after = await this.#stream.next();
    if (after.done) {
      const full = chosen.outputIds.length >= (this.#maxLength ?? model.config.maxLength);
      this.#ended = { ended: full ? 'length' : 'eos', id: chosen.id };
      return this.#ended;
    }
    this.#chosen = after.value;
    const ids = chosen.outputIds;
    this.#step++;
    return {
      step: this.#step,
      ids,
      tokens: model.pieces(ids),
      position: ids.length - 1,
      id: chosen.id,
      from: chosen.logits,
      attention: after.value.attention,
      logits: after.value.logits,
    };
  }
}
