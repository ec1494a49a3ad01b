// A model loaded into the engine (models/load.mjs makes it). What every kind
// shares lives here: the tokenizer's pieces and text, the special tokens, the
// queue of calls with state, disposal. What a call does depends on the
// model's kind, and lives in that kind's module (kinds/encoder.mjs,
// kinds/decoder.mjs, kinds/encoder-decoder.mjs), which takes the model's
// `inner` state: this class only looks the call up in KINDS.
import { describe } from '../checks.mjs';
import { CALLS } from '../protocol.mjs';
import { CALL, DETACH, EngineResource } from '../resource.mjs';
import { ArgumentRangeError, ArgumentTypeError } from '../errors.mjs';
import { encoder } from './kinds/encoder.mjs';
import { TASKS } from './tasks/heads.mjs';
import { decoder } from './kinds/decoder.mjs';
import { encoderDecoder } from './kinds/encoder-decoder.mjs';
import { publicTokenizer } from './tokenizers/public-tokenizer.mjs';
import { applyChatTemplate } from './chat/template.mjs';
import { createChat } from './chat/conversation.mjs';

/**
 * An internal door for mha-wasm/analysis (not public API): model[TEACHER_FORCED](inputIds, decoderIds) gives
 * an encoder-decoder's teacher-forced passes that keep the encoder's output between them (encoder-decoder.mjs's
 * teacherForced); undefined for the other kinds, whose run() is one call already.
 */
export const TEACHER_FORCED = Symbol('mha-wasm teacher-forced passes');

/** Each kind's calls, by config.kind; a call a kind lacks is refused with kinds' words (refusal, below). */
const KINDS = Object.freeze({ encoder: { ...encoder, ...TASKS }, decoder, 'encoder-decoder': encoderDecoder });

// Why a kind refuses a call: a TypeError that says which kinds have it.
function refusal(config, what) {
  const { modelType, kind } = config;
  if (what === 'chat')
    return new ArgumentTypeError(
      `chat: a ${modelType} is an ${kind}; a conversation over a KV cache is a decoder's (applyChatTemplate ` +
        'renders the messages for any model with a chat template)',
    );
  if (what === 'prefill' || what === 'step' || what === 'generateSteps')
    return new ArgumentTypeError(
      `${what}: a ${modelType} is an ${kind}, with no state between calls; ` +
        `${what === 'generateSteps' ? 'generateSteps' : 'prefill and step'} are a decoder's ` +
        `(use ${kind === 'encoder-decoder' ? 'generate with onStep, or run' : 'run'})`,
    );
  if (Object.hasOwn(TASKS, what))
    return new ArgumentTypeError(
      `${what}: a ${modelType} is ${kind === 'decoder' ? 'a' : 'an'} ${kind}; task heads and embeddings are an ` +
        "encoder's (BERT, RoBERTa, XLM-R, CamemBERT checkpoints)",
    );
  return new ArgumentTypeError(
    `${what}: a ${modelType} is an ${kind}; generate() is a decoder's or an encoder-decoder's ` +
      "(an encoder's predictions are its masked-LM head's: run() with returnLogits)",
  );
}

export class TransformerModel extends EngineResource {
  #inner;
  #kind;

  constructor(call, id, config, tokenizer, onDispose) {
    super(call, id, 'model', CALLS.disposeModel, onDispose);
    /** { modelType, numLayers, numHeads, hiddenSize, vocabSize, maxPositions, kind, causal, maxLength (the longest input, in tokens) }. */
    this.config = config.public;
    /** config.kind ('encoder', 'decoder', 'encoder-decoder'): which calls the model has, and TypeScript's discriminant. */
    this.kind = this.config.kind;
    /** The tokenizer's special tokens, [{ id, token }] by id ([] without a tokenizer). */
    this.specialTokens = tokenizer?.specialTokens ?? Object.freeze([]);
    /** The checkpoint's tokenizer without the model (encode, decode, countTokens, specialTokens); null without one. */
    this.tokenizer = tokenizer
      ? publicTokenizer(tokenizer, {
          longest: this.config.maxLength,
          tokenTypes: config.architecture.tokenTypes === true,
          specialTokens: this.specialTokens,
        })
      : null;
    let queue = Promise.resolve();
    const pieces = (ids) => (tokenizer ? tokenizer.pieces(ids) : Array.from(ids, String));
    this.#inner = {
      config: this.config,
      architecture: config.architecture,
      // generation_config.json's object (else config.json's), and its file's name for messages.
      generation: config.generation,
      tokenizer,
      specialIds: new Set(this.specialTokens.map((t) => t.id)),
      // The positions a decoder's cache holds, and whose they are (a step stream's, or null: prefill and step's).
      past: 0,
      cacheOwner: null,
      // The ids the cache holds while it is prefill, step and generate's (cacheOwner null); null: not known
      // (a stream's, rewound by the caller): nothing is reused from it (kinds/decoder-cache.mjs).
      cachedIds: [],
      // The head mask the cached keys and values were computed under (decoder-cache.mjs maskKey): reused only under it.
      cachedMask: null,
      // Whose encoding an encoder-decoder holds (kinds/encoder-decoder.mjs: teacherForced's, or null).
      encodedBy: null,
      call: (name, args) => this[CALL](name, args),
      // One model call (run, prefill, step, beamStep, encode, decode) with its named request, made by `request`
      // (possibly async: a text is tokenized first); resolves to the engine's named arrays, { data, shape }.
      send: (request) => this[CALL](CALLS.modelCall, async () => [await request()]),
      // One whole call with state at a time: an encoder-decoder's engine calls (encode, begin, decode …), a
      // decoder's prefill, step, reset, generate and each step of a stream are not interleaved with another's.
      exclusive(task) {
        const result = queue.then(task);
        queue = result.then(
          () => {},
          () => {},
        );
        return result;
      },
      pieces,
      decodeText: async (ids) => (tokenizer?.decode ? tokenizer.decode(ids, { skipSpecialTokens: true }) : null),
    };
    this.#kind = KINDS[this.config.kind];
    Object.freeze(this);
  }

  #callOf(what) {
    const call = this.#kind[what];
    if (!call) throw refusal(this.config, what);
    return call;
  }

  /**
   * Runs the model on one sequence: a string, { text, textPair } or
   * { inputIds, tokenTypeIds? } (an encoder-decoder's: { text | inputIds,
   * decoderInputIds? }). Resolves to { inputIds, tokens, special,
   * lastHiddenState, attention?, attentions?, hiddenStates?, logits?,
   * query?, key?, queryKeyScale? } (see index.d.ts). An encoder's run() of an array of inputs: a batch in one
   * engine call, padded (kinds/encoder-batch.mjs).
   */
  async run(input, options) {
    return this.#callOf('run')(this.#inner, input, options);
  }

  /**
   * A decoder's first call with state: the sequence (a string or
   * { inputIds }) through every layer, each layer's keys and values kept for
   * the steps after it (what came before is forgotten). Resolves as run()
   * does, with past: 0.
   */
  async prefill(input, options) {
    return this.#callOf('prefill')(this.#inner, input, options);
  }

  /**
   * A decoder's next tokens (a string or { inputIds }) after the `past`
   * positions it has seen: only they are computed, each attending to the
   * past and to itself. Resolves to run()'s result for them, attention
   * [numLayers, numHeads, L, past + L], with `past` the positions before
   * them; bit for bit the rows of run() over the whole sequence.
   */
  async step(input, options) {
    return this.#callOf('step')(this.#inner, input, options);
  }

  /**
   * Generation as transformers' generate() with the checkpoint's
   * generation_config.json: a decoder's continuation of a prompt, greedy or
   * sampled; an encoder-decoder's output (a translation), greedy or by beam
   * search. onToken and onStep follow it a token at a time (see index.d.ts).
   */
  async generate(input, options) {
    return this.#callOf('generate')(this.#inner, input, options);
  }

  /**
   * A decoder's generation one step at a time: an async iterator whose each
   * next() computes one token (generate()'s onStep object). Other calls may
   * run between two steps; the stream then feeds its own tokens again.
   */
  generateSteps(input, options) {
    return this.#callOf('generateSteps')(this.#inner, input, options);
  }

  // An encoder's task calls, looked up in its kind as run() is: classify (a sequence-classification head's
  // labels), classifyTokens (a token-classification head's), answer (a question-answering head's span), embed (a
  // pooled last hidden state): tasks/heads.mjs, types/tasks.d.ts.
  static {
    for (const name of Object.keys(TASKS))
      Object.defineProperty(this.prototype, name, {
        value: {
          async [name](input, options) {
            return this.#callOf(name)(this.#inner, input, options);
          },
        }[name],
        writable: true,
        configurable: true,
      });
  }

  /**
   * The messages as the checkpoint's chat template renders them, as transformers'
   * tokenizer.apply_chat_template(…, tokenize=False): the text; with tokenize,
   * { text, inputIds, tokens } (see types/chat.d.ts).
   */
  async applyChatTemplate(messages, options) {
    return applyChatTemplate(this.#inner, messages, options);
  }

  /**
   * A decoder's conversation: each send() renders the whole chat, feeds only
   * the ids its KV cache lacks, and generates the reply (chat/conversation.mjs).
   */
  chat(options) {
    if (this.config.kind !== 'decoder') throw refusal(this.config, 'chat');
    return createChat(this.#inner, options);
  }

  [TEACHER_FORCED](inputIds, decoderIds) {
    return this.#kind.teacherForced?.(this.#inner, inputIds, decoderIds);
  }

  /** The readable pieces of token ids (as results' tokens), ids as strings without a tokenizer. */
  pieces(ids) {
    return this.#inner.pieces(ids);
  }

  /**
   * Token ids as text through the checkpoint's tokenizer (skipSpecialTokens:
   * default true); null without a tokenizer. An id outside the vocabulary is
   * a RangeError naming it.
   */
  async decode(ids, { skipSpecialTokens = true } = {}) {
    const tokenizer = this.#inner.tokenizer;
    if (!tokenizer) return null;
    return tokenizer.decode(ids, { skipSpecialTokens });
  }

  /** Frees it in the engine's memory, and stops its tokenizer. Idempotent; later calls reject. */
  dispose() {
    super.dispose();
    this.#inner.tokenizer?.dispose();
  }

  [DETACH]() {
    super[DETACH]();
    this.#inner.tokenizer?.dispose();
  }

  /** Forgets what a decoder has seen (past becomes 0). */
  async reset() {
    const inner = this.#inner;
    await inner.exclusive(() => inner.call(CALLS.modelReset));
    inner.past = 0;
    inner.cacheOwner = null;
    inner.cachedIds = [];
  }

  /**
   * Keeps the first `past` positions a decoder has seen (its KV cache cut there): the next step() continues
   * from them, as if the later ones had never been fed.
   */
  async rewind(past) {
    const inner = this.#inner;
    await inner.exclusive(async () => {
      if (!Number.isInteger(past) || past < 0 || past > inner.past)
        throw new ArgumentRangeError(
          `past: expected an integer from 0 to ${inner.past} (the positions seen), got ${describe(past)}`,
        );
      await inner.call(CALLS.modelRewind, () => [past]);
      inner.cachedIds = inner.cacheOwner === null && inner.cachedIds ? inner.cachedIds.slice(0, past) : null;
      inner.past = past;
      inner.cacheOwner = null;
    });
  }

  /** The positions a decoder has seen through prefill() and step() (0 for an encoder). */
  get past() {
    return this.#inner.past;
  }
}
