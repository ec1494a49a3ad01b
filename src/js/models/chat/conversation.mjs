// model.chat(): a decoder's conversation over the KV cache it holds. Each
// turn renders the whole conversation with the chat template and tokenizes it
// (applyChatTemplate's text and ids, as transformers gives them), keeps the
// longest prefix of those ids that the cache already holds, and feeds only
// the rest — normally the new turn (the reply's last token, chosen but not yet
// fed, then the template's end of turn, the user's message and the generation
// prompt) — before generating a token a step (generation/greedy.mjs, as
// generateSteps). Where the rendering changes tokens the cache holds (a reply
// whose text tokenizes to other ids than were generated, a template that drops
// or rewrites history, undo()), the cache is rewound to the first differing
// token (the engine's KVCache::truncate): only the rest is fed.
// The model has one cache: a conversation holds it until another call
// (prefill, step, generate, generateSteps, another conversation) uses it, and
// its next turn then prefills its whole conversation again.
import { describe, rejectUnknown } from '../../checks.mjs';
import { CALLS } from '../../protocol.mjs';
import { ArgumentTypeError } from '../../errors.mjs';
import { GENERATE_OPTIONS, checkGenerateOptions } from '../model-options.mjs';
import { greedySteps } from '../generation/greedy.mjs';
import { stopStringCheck } from '../generation/stopping.mjs';
import { seededRandom } from '../generation/sampling.mjs';
import { decoderSettings, feed, lastQueries, masks, publicStep, textDeltas } from '../kinds/decoder.mjs';
import { chatTokenizer, checkChatOptions, checkMessages, renderMessages } from './template.mjs';

const CHAT_OPTIONS = new Set(['system', 'messages', 'chatTemplate', 'tools', 'documents', 'variables']);
/** send()'s options: generateSteps()'s, and onStep (each step, as sendSteps yields it). */
const SEND_OPTIONS = new Set([...GENERATE_OPTIONS.steps, 'onStep']);

const frozenCopy = (messages) => Object.freeze(messages.map((m) => Object.freeze(structuredClone(m))));

export class Conversation {
  #inner;
  #request; // the renderer's request but the messages (checkChatOptions)
  #messages;
  #owner = {}; // the model's cache is this conversation's while inner.cacheOwner is this object
  #cached = []; // the ids this conversation has fed into the cache, in order
  #busy = false;

  constructor(inner, request, messages) {
    this.#inner = inner;
    this.#request = request;
    this.#messages = messages;
  }

  /** The conversation so far: [{ role, content, … }], frozen. */
  get messages() {
    return frozenCopy(this.#messages);
  }

  /** The ids the model's cache holds for this conversation (empty when another call has used the cache since). */
  get cachedIds() {
    return Int32Array.from(this.#inner.cacheOwner === this.#owner ? this.#cached : []);
  }

  /**
   * The next turn: `content` as the user's message, the reply generated (generateSteps()'s options) and
   * added to the messages. Resolves to { text, message, inputIds (the rendered conversation), outputIds,
   * prefilled (ids fed for this turn before its first token), reused (ids the cache already held), score }.
   */
  async send(content, options) {
    const { onStep, ...rest } = checkGenerateOptions(options, this.#inner.config, SEND_OPTIONS, 'send');
    const turn = this.#turn(content, rest);
    let last;
    let score = 0;
    try {
      for (let next = await turn.next(); !next.done; next = await turn.next()) {
        last = next.value;
        score += last.logProbability;
        if (onStep) await onStep(last.public);
      }
    } catch (error) {
      // onStep's error fails the turn, as the engine's or the signal's do: it does not join the messages.
      await turn.throw(error).catch(() => {});
      throw error;
    }
    const { prefilled, reused, prompt, text } = last.turn;
    return {
      text,
      message: { role: 'assistant', content: text },
      inputIds: prompt,
      outputIds: last.public.outputIds,
      prefilled,
      reused,
      score,
    };
  }

  /**
   * The next turn a step per next(), as generateSteps() yields them (each with its textDelta and, with
   * returnAttention, the attention of the ids fed for it: at step 1 only the new turn's, over every key the
   * cache holds); step 1 also carries { prefilled, reused }. The turn joins the messages when the stream ends
   * (done, or stopped by the caller with the reply so far); a turn that fails (the engine, the signal) does not.
   */
  async *sendSteps(content, options) {
    const opts = checkGenerateOptions(options, this.#inner.config, GENERATE_OPTIONS.steps, 'sendSteps');
    for await (const step of this.#turn(content, opts)) yield step.public;
  }

  /**
   * Takes the last exchange back: the messages from the last user message on. Returns them. The cache keeps
   * its ids; the next turn shares the prefix they have with it, and rewinds from where they differ.
   */
  undo() {
    if (this.#busy) throw new ArgumentTypeError('undo: a turn of this conversation is still running');
    let at = this.#messages.length - 1;
    while (at >= 0 && this.#messages[at].role !== 'user') at--;
    if (at < 0) return Object.freeze([]);
    return frozenCopy(this.#messages.splice(at));
  }

  /** A new conversation with these messages and settings; its first turn prefills its whole history. */
  fork() {
    return new Conversation(
      this.#inner,
      this.#request,
      this.#messages.map((m) => structuredClone(m)),
    );
  }

  // The cache cut to the first `same` ids of this conversation's (those the next rendering shares with it;
  // KVCache::truncate through the model's rewind): returns how many it holds.
  async #rewind(same) {
    await this.#inner.call(CALLS.modelRewind, () => [same]);
    this.#cached = this.#cached.slice(0, same);
    return same;
  }

  // Greedy steps of a turn: { public (the caller's step), logProbability, turn (the turn's facts, last step) }.
  async *#turn(content, opts) {
    const inner = this.#inner;
    if (typeof content !== 'string')
      throw new ArgumentTypeError(`content: expected the user's message as a string, got ${describe(content)}`);
    if (this.#busy) throw new ArgumentTypeError('send: a turn of this conversation is still running');
    this.#busy = true;
    const messages = [...this.#messages, { role: 'user', content }];
    const newIds = [];
    let failed = false;
    try {
      const request = { ...this.#request, context: { ...this.#request.context, add_generation_prompt: true } };
      const { inputIds } = await renderMessages(inner, messages, { tokenize: true, request }, 'send');
      const prompt = Array.from(inputIds);
      const settings = decoderSettings(
        inner,
        prompt.length,
        opts,
        `the conversation's ${prompt.length} and the reply's`,
      );
      const seed = opts.seed ?? Math.floor(Math.random() * 2 ** 32);
      const attention = opts.returnAttention !== false;
      const mask = masks(inner, opts.headMask);
      const facts = { prefilled: 0, reused: 0, prompt: inputIds };
      let first = true;
      const step = (ids) =>
        inner.exclusive(async () => {
          if (inner.cacheOwner !== this.#owner) this.#cached = [];
          let fed = ids;
          let r;
          if (first) {
            // greedySteps gives the whole conversation: only what the cache lacks is fed (at least one id).
            let same = 0;
            const most = Math.min(this.#cached.length, prompt.length - 1);
            while (same < most && this.#cached[same] === prompt[same]) same++;
            const kept = same < this.#cached.length ? await this.#rewind(same) : same;
            fed = prompt.slice(kept);
            r = await feed(inner, kept ? 'step' : 'prefill', fed, attention, mask);
            Object.assign(facts, { prefilled: fed.length, reused: kept });
            this.#cached = prompt.slice(0, kept);
            first = false;
          } else if (this.#cached.length) {
            r = await feed(inner, 'step', ids, attention, mask);
          } else {
            // Another call used the cache since the last step: the conversation so far, again.
            const all = [...prompt, ...newIds.slice(0, -1)];
            r = await feed(inner, 'prefill', [...all, ...ids], attention, mask);
            if (attention) r = { ...r, attention: lastQueries(r.attention, ids.length) };
            this.#cached = all;
          }
          this.#cached.push(...fed);
          inner.cacheOwner = this.#owner;
          inner.past = this.#cached.length;
          return r;
        });
      let index = 0;
      const texts = textDeltas(inner, prompt);
      for await (const found of greedySteps(step, settings, {
        prompt,
        random: seededRandom(seed),
        signal: opts.signal,
        stopText: stopStringCheck(inner.decodeText, settings.stopStrings),
      })) {
        newIds.push(found.id);
        const textDelta = await texts(found);
        const out = publicStep(inner, found, ++index, settings.doSample ? seed : undefined, textDelta);
        if (index === 1) Object.assign(out, { prefilled: facts.prefilled, reused: facts.reused });
        if (found.done) facts.text = await inner.decodeText(newIds);
        yield { public: out, logProbability: found.logProbability, turn: facts };
      }
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      // The turn joins the conversation once a token of the reply is decided (all of it, or what the caller kept),
      // unless it failed.
      if (newIds.length && !failed) {
        const reply = await inner.decodeText(newIds).catch(() => null);
        if (reply !== null) this.#messages.push(messages.at(-1), { role: 'assistant', content: reply });
      }
      this.#busy = false;
    }
  }
}

/** model.chat(options): a conversation, its options checked; messages given are the history it starts with. */
export function createChat(inner, options = {}) {
  if (!options || typeof options !== 'object' || Array.isArray(options))
    throw new ArgumentTypeError(
      `chat options: expected { system, messages, chatTemplate, tools, documents, variables }, got ${describe(options)}`,
    );
  rejectUnknown(options, CHAT_OPTIONS, 'chat');
  const { system, messages, ...rest } = options;
  if (system !== undefined && typeof system !== 'string')
    throw new ArgumentTypeError(`system: expected the system message as a string, got ${describe(system)}`);
  if (system !== undefined && messages !== undefined)
    throw new ArgumentTypeError('system, messages: give one of them (the system message is messages[0])');
  const history = messages === undefined ? [] : checkMessages(messages);
  if (system !== undefined) history.push({ role: 'system', content: system });
  const { request } = checkChatOptions(rest, 'chat');
  if (request.template === null) chatTokenizer(inner, 'chat');
  return new Conversation(inner, request, history);
}
