// A model loaded into the engine (models/load.mjs makes it): run() reads the
// input (text through the checkpoint's tokenizer, or ids), checks it against
// the model's sizes, and runs it in the model build's engine.
import { describe, rejectUnknown } from '../checks.mjs';
import { CALLS } from '../protocol.mjs';
import { CALL, DETACH, EngineResource } from '../resource.mjs';

const RUN_OPTIONS = new Set(['returnAttention', 'returnHiddenStates', 'returnLogits']);
const INPUT_KEYS = new Set(['text', 'textPair', 'inputIds', 'tokenTypeIds']);
// A decoder's calls with state take one text or ids (no pair, no token types).
const STEP_KEYS = new Set(['inputIds']);

function ids(value, name, length) {
  if (!(value instanceof Int32Array) && !Array.isArray(value))
    throw new TypeError(`${name}: expected an Int32Array or an array of integers, got ${describe(value)}`);
  if (length !== undefined && value.length !== length)
    throw new RangeError(`${name}: expected ${length} ids (one per token of inputIds), got ${value.length}`);
  const out = new Int32Array(value.length);
  for (let i = 0; i < value.length; i++) {
    const v = value[i];
    if (!Number.isInteger(v) || v < 0 || v > 2 ** 31 - 1)
      throw new RangeError(`${name}[${i}]: expected a non-negative integer id, got ${describe(v)}`);
    out[i] = v;
  }
  return out;
}

export class TransformerModel extends EngineResource {
  #tokenizer;
  #architecture;
  #specialIds;
  #past = 0;

  constructor(call, id, config, tokenizer, onDispose) {
    super(call, id, 'model', CALLS.disposeModel, onDispose);
    this.#tokenizer = tokenizer;
    this.#architecture = config.architecture;
    /** { modelType, numLayers, numHeads, hiddenSize, vocabSize, maxPositions, kind, causal, maxLength (the longest input, in tokens) }. */
    this.config = config.public;
    /** The tokenizer's special tokens, [{ id, token }] by id ([] without a tokenizer). */
    this.specialTokens = tokenizer?.specialTokens ?? Object.freeze([]);
    this.#specialIds = new Set(this.specialTokens.map((t) => t.id));
    Object.freeze(this);
  }

  /**
   * Runs the model on one sequence: a string, { text, textPair } or
   * { inputIds, tokenTypeIds? }. Resolves to { inputIds, tokens, special,
   * lastHiddenState, attention?, attentions?, hiddenStates?, logits? } (see
   * index.d.ts).
   */
  async run(input, options) {
    let read;
    const result = await this[CALL](CALLS.modelRun, async () => {
      const {
        returnAttention = true,
        returnHiddenStates = false,
        returnLogits = false,
      } = checkRunOptions(options, 'run');
      read = await this.#read(input, 'run', true, 0);
      return [read.inputIds, read.typeIds, returnAttention, returnHiddenStates, returnLogits];
    });
    return this.#result(read, result);
  }

  /**
   * A decoder's first call with state: the sequence (a string or
   * { inputIds }) through every layer, each layer's keys and values kept for
   * the steps after it (what came before is forgotten). Resolves as run()
   * does, with past: 0.
   */
  async prefill(input, options) {
    return this.#stateful(CALLS.modelPrefill, input, options, 'prefill');
  }

  /**
   * A decoder's next tokens (a string or { inputIds }) after the `past`
   * positions it has seen: only they are computed, each attending to the
   * past and to itself. Resolves to run()'s result for them, attention
   * [numLayers, numHeads, L, past + L], with `past` the positions before
   * them; bit for bit the rows of run() over the whole sequence.
   */
  async step(input, options) {
    return this.#stateful(CALLS.modelStep, input, options, 'step');
  }

  /** Frees it in the engine's memory, and stops its tokenizer. Idempotent; later calls reject. */
  dispose() {
    super.dispose();
    this.#tokenizer?.dispose();
  }

  [DETACH]() {
    super[DETACH]();
    this.#tokenizer?.dispose();
  }

  /** Forgets what a decoder has seen (past becomes 0). */
  async reset() {
    await this[CALL](CALLS.modelReset);
    this.#past = 0;
  }

  /** The positions a decoder has seen through prefill() and step() (0 for an encoder). */
  get past() {
    return this.#past;
  }

  async #stateful(method, input, options, what) {
    if (this.config.kind !== 'decoder')
      throw new TypeError(
        `${what}: a ${this.config.modelType} is an ${this.config.kind}, with no state between calls; ` +
          "prefill and step are a decoder's (use run)",
      );
    let read;
    const result = await this[CALL](method, async () => {
      const {
        returnAttention = true,
        returnHiddenStates = false,
        returnLogits = false,
      } = checkRunOptions(options, what);
      read = await this.#read(input, what, false, what === 'step' ? this.#past : 0);
      return [read.inputIds, returnAttention, returnHiddenStates, returnLogits];
    });
    this.#past = result.past + read.inputIds.length;
    return this.#result(read, result);
  }

  // A call's result: its tokens, which of them are special (1) by the
  // tokenizer's list, the engine's arrays, and the attention by group
  // (transformers' names: encoder, decoder, cross) with its shape.
  #result(read, { attentionShape, ...result }) {
    const special = Uint8Array.from(read.inputIds, (id) => (this.#specialIds.has(id) ? 1 : 0));
    const out = { inputIds: read.inputIds, tokens: read.tokens, special, ...result };
    if (result.attention) {
      const [group] = this.#architecture.attentionGroups;
      out.attentions = { [group]: { data: result.attention, shape: attentionShape } };
    }
    return out;
  }

  // { inputIds, typeIds, tokens } of an input of `what` (run, prefill, step):
  // text through the tokenizer (a text pair and token types only when
  // `pairs`), or ids; L within the positions left after `past`.
  async #read(input, what, pairs, past) {
    let inputIds;
    let typeIds = null;
    const keys = pairs ? INPUT_KEYS : STEP_KEYS;
    if (input && typeof input === 'object' && 'text' in input && 'inputIds' in input)
      throw new TypeError('input: give text or inputIds, not both (which would the model run?)');
    if (input && typeof input === 'object' && 'inputIds' in input && 'textPair' in input)
      throw new TypeError('input.textPair: a second text goes with text, not with inputIds');
    if (typeof input === 'string' || (pairs && input && typeof input === 'object' && 'text' in input)) {
      const [text, textPair] = typeof input === 'string' ? [input, undefined] : [input.text, input.textPair];
      if (typeof input !== 'string') rejectUnknown(input, keys, `${what} input`);
      if (typeof text !== 'string') throw new TypeError(`input.text: expected a string, got ${describe(text)}`);
      if (textPair !== undefined && typeof textPair !== 'string')
        throw new TypeError(`input.textPair: expected a string, got ${describe(textPair)}`);
      if (!this.#tokenizer)
        throw new TypeError(
          'input: this model folder has no tokenizer.json or vocab.txt, so it cannot read text; pass { inputIds }',
        );
      // A step continues a text: no [CLS]/<s> of a new sequence in the middle of it.
      const encoding = await this.#tokenizer.encode(text, textPair, { addSpecialTokens: what !== 'step' });
      // The tokenizer is the checkpoint's, untrusted: its ids must be the model's (an added token of id
      // 2^32 + 5 or 5.5 would otherwise run as row 5).
      const bad = encoding.ids.findIndex((id) => !Number.isInteger(id) || id < 0 || id >= this.config.vocabSize);
      if (bad >= 0)
        throw new Error(
          `${this.#tokenizer.file}: the tokenizer gave id ${encoding.ids[bad]} for this text, not a token of the model ` +
            `(0 to ${this.config.vocabSize - 1}, config.json's vocab_size)`,
        );
      inputIds = Int32Array.from(encoding.ids);
      if (encoding.typeIds && this.#architecture.tokenTypes) typeIds = Int32Array.from(encoding.typeIds);
    } else if (input && typeof input === 'object' && 'inputIds' in input) {
      rejectUnknown(input, keys, `${what} input`);
      inputIds = ids(input.inputIds, 'input.inputIds');
      if (input.tokenTypeIds !== undefined) {
        // transformers' GPT-2 would add wte(token_type_ids): refused rather than ignored.
        if (!this.#architecture.tokenTypeEmbeddings)
          throw new TypeError(
            `input.tokenTypeIds: a ${this.config.modelType} has no token type embeddings; leave tokenTypeIds out`,
          );
        typeIds = ids(input.tokenTypeIds, 'input.tokenTypeIds', inputIds.length);
      }
    } else {
      throw new TypeError(
        pairs
          ? `input: expected a string, { text, textPair } or { inputIds, tokenTypeIds }, got ${describe(input)}`
          : `input: expected a string or { inputIds }, got ${describe(input)}`,
      );
    }
    const max = this.config.maxLength - past;
    if (inputIds.length === 0) throw new RangeError('input: no tokens (an empty text gives none with this tokenizer)');
    if (inputIds.length > max)
      throw new RangeError(
        past
          ? `input: ${inputIds.length} tokens, more than the ${max} positions left after the ${past} the model has seen`
          : `input: ${inputIds.length} tokens, more than the ${max} this model has positions for`,
      );
    const vocab = this.config.vocabSize;
    const bad = inputIds.findIndex((v) => v >= vocab);
    if (bad >= 0)
      throw new RangeError(
        `input.inputIds[${bad}]: expected an id below the vocabulary size ${vocab}, got ${inputIds[bad]}`,
      );
    const tokens = this.#tokenizer ? this.#tokenizer.pieces(inputIds) : Array.from(inputIds, String);
    return { inputIds, typeIds, tokens };
  }
}

function checkRunOptions(options, what) {
  if (options === undefined) return {};
  if (!options || typeof options !== 'object')
    throw new TypeError(
      `${what} options: expected { returnAttention, returnHiddenStates, returnLogits }, got ${describe(options)}`,
    );
  rejectUnknown(options, RUN_OPTIONS, what);
  for (const name of RUN_OPTIONS)
    if (options[name] !== undefined && typeof options[name] !== 'boolean')
      throw new TypeError(`${name}: expected a boolean, got ${describe(options[name])}`);
  return options;
}
