// A model loaded into the engine (models/load.mjs makes it): run() reads the
// input (text through the checkpoint's tokenizer, or ids), checks it against
// the model's sizes, and runs it in the model build's engine.
import { describe, rejectUnknown } from '../checks.mjs';
import { CALLS } from '../protocol.mjs';
import { CALL, EngineResource } from '../resource.mjs';

const RUN_OPTIONS = new Set(['returnAttention', 'returnHiddenStates']);
const INPUT_KEYS = new Set(['text', 'textPair', 'inputIds', 'tokenTypeIds']);

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
  #config;

  constructor(call, id, config, tokenizer, onDispose) {
    super(call, id, 'model', CALLS.disposeModel, onDispose);
    this.#tokenizer = tokenizer;
    this.#config = config;
    /** { modelType, numLayers, numHeads, hiddenSize, vocabSize, maxPositions, maxLength (the longest input, in tokens) }. */
    this.config = config.public;
    Object.freeze(this);
  }

  /**
   * Runs the model on one sequence: a string, { text, textPair } or
   * { inputIds, tokenTypeIds? }. Resolves to { inputIds, tokens,
   * lastHiddenState, attention?, hiddenStates? } (see index.d.ts).
   */
  async run(input, options) {
    let tokens;
    let inputIds;
    const result = await this[CALL](CALLS.modelRun, () => {
      const { returnAttention = true, returnHiddenStates = false } = checkRunOptions(options);
      let typeIds = null;
      if (typeof input === 'string' || (input && typeof input === 'object' && 'text' in input)) {
        const [text, textPair] = typeof input === 'string' ? [input, undefined] : [input.text, input.textPair];
        if (typeof input !== 'string') rejectUnknown(input, INPUT_KEYS, 'run input');
        if (typeof text !== 'string') throw new TypeError(`input.text: expected a string, got ${describe(text)}`);
        if (textPair !== undefined && typeof textPair !== 'string')
          throw new TypeError(`input.textPair: expected a string, got ${describe(textPair)}`);
        if (!this.#tokenizer)
          throw new TypeError(
            'input: this model folder has no tokenizer.json or vocab.txt, so it cannot read text; pass { inputIds }',
          );
        const encoding = this.#tokenizer.encode(text, textPair);
        inputIds = Int32Array.from(encoding.ids);
        if (encoding.typeIds && this.#config.architecture === 'bert') typeIds = Int32Array.from(encoding.typeIds);
      } else if (input && typeof input === 'object' && 'inputIds' in input) {
        rejectUnknown(input, INPUT_KEYS, 'run input');
        inputIds = ids(input.inputIds, 'input.inputIds');
        if (input.tokenTypeIds !== undefined) typeIds = ids(input.tokenTypeIds, 'input.tokenTypeIds', inputIds.length);
      } else {
        throw new TypeError(
          `input: expected a string, { text, textPair } or { inputIds, tokenTypeIds }, got ${describe(input)}`,
        );
      }
      const max = this.config.maxLength;
      if (inputIds.length === 0)
        throw new RangeError('input: no tokens (an empty text gives none with this tokenizer)');
      if (inputIds.length > max)
        throw new RangeError(`input: ${inputIds.length} tokens, more than the ${max} this model has positions for`);
      const vocab = this.config.vocabSize;
      const bad = inputIds.findIndex((v) => v >= vocab);
      if (bad >= 0)
        throw new RangeError(
          `input.inputIds[${bad}]: expected an id below the vocabulary size ${vocab}, got ${inputIds[bad]}`,
        );
      tokens = this.#tokenizer ? this.#tokenizer.pieces(inputIds) : Array.from(inputIds, String);
      return [inputIds, typeIds, returnAttention, returnHiddenStates];
    });
    return { inputIds, tokens, ...result };
  }
}

function checkRunOptions(options) {
  if (options === undefined) return {};
  if (!options || typeof options !== 'object')
    throw new TypeError(`run options: expected { returnAttention, returnHiddenStates }, got ${describe(options)}`);
  rejectUnknown(options, RUN_OPTIONS, 'run');
  for (const name of RUN_OPTIONS)
    if (options[name] !== undefined && typeof options[name] !== 'boolean')
      throw new TypeError(`${name}: expected a boolean, got ${describe(options[name])}`);
  return options;
}
