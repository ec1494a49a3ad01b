// The chat of the "下一个词 / Next token" view (views/next-token-chat.mjs
// draws it), over the package's conversation API (model.chat(): each turn
// rendered with the checkpoint's chat template, only its new ids fed over the
// KV cache, the reply a greedy token a step): each step's text as it is
// decided, and each reply token's attention in the shape the step-by-step
// view draws (model/next-token-steps.mjs's records). No DOM; the model is a
// parameter, so Node tests and the page run the same code.

/** The chat's first user message by default: the page's sentence. */
export { SENTENCE as CHAT_FIRST } from '../sentence.mjs';

/**
 * Whether `model` has a chat template (the package renders one; a checkpoint without says so with the error
 * code 'NoChatTemplate'). Any other failure is thrown.
 */
export async function hasChatTemplate(model) {
  if (typeof model?.chat !== 'function') return false;
  try {
    await model.applyChatTemplate([{ role: 'user', content: 'x' }], { addGenerationPrompt: true });
    return true;
  } catch (error) {
    if (error?.code === 'NoChatTemplate') return false;
    throw error;
  }
}

/**
 * A conversation with a decoder (model.chat()), a turn at a time. send() yields, for each token of the reply
 * as it is decided, { kind: 'text', step, id, textDelta } (its text: '' while a character is not whole), and
 * then, once the token has been fed back (the next step), { kind: 'record', record } with the record the
 * step-by-step view draws — { step, ids, tokens, position, id, from, attention, logits }: ids the conversation's
 * through the reply's token `id` (at `position`), `from` the logits it was chosen from, attention
 * [numLayers, numHeads, 1, position + 1] its own row once fed, logits the row it gives for the token after it.
 * The reply's last token (the end of the turn, or the last one allowed) is never fed: it has no record.
 */
export class ChatSteps {
  #model;
  #conversation;

  /**
   * @param {{ chat: Function, pieces: Function }} model a decoder with a chat template
   * @param {{ system?: string }} [options] model.chat()'s (the page gives none: the template's default)
   */
  constructor(model, options = {}) {
    this.#model = model;
    this.#conversation = model.chat(options);
  }

  /** The conversation so far ([{ role, content }], frozen; a template's default system message is not one). */
  get messages() {
    return this.#conversation.messages;
  }

  /**
   * How many tokens a reply to `content` has room for: the model's positions (config.maxLength) less the
   * conversation's as the template renders it with `content` and the generation prompt ({ length, room }).
   */
  async room(content) {
    const messages = [...this.#conversation.messages, { role: 'user', content }];
    const { inputIds } = await this.#model.applyChatTemplate(messages, { addGenerationPrompt: true, tokenize: true });
    return { length: inputIds.length, room: this.#model.config.maxLength - inputIds.length };
  }

  /**
   * The next turn: `content` as the user's message; `maxNewTokens` the reply's most tokens. `stopped()` is asked
   * before each step: true ends the turn there, with the reply so far (it joins the messages).
   */
  async *send(content, { maxNewTokens, stopped = () => false }) {
    const stream = this.#conversation.sendSteps(content, { maxNewTokens, returnAttention: true });
    let before = null; // the previous step: its token is fed by this one
    try {
      for await (const step of stream) {
        if (before) yield { kind: 'record', record: this.#record(before, step) };
        const { id, textDelta } = step;
        yield { kind: 'text', step: step.step, id, textDelta, prefilled: step.prefilled, reused: step.reused };
        before = step;
        if (stopped()) break;
      }
    } finally {
      await stream.return();
    }
  }

  /** Takes the last exchange back; returns the user's message it held (or null when there was none). */
  undo() {
    const taken = this.#conversation.undo();
    return taken.find((m) => m.role === 'user')?.content ?? null;
  }

  #record(chosen, after) {
    const ids = chosen.outputIds;
    return {
      step: chosen.step,
      ids,
      tokens: this.#model.pieces(ids),
      position: ids.length - 1,
      id: chosen.id,
      from: chosen.logits,
      attention: after.attention,
      logits: after.logits,
    };
  }
}
