// A model's input read and checked: text through the checkpoint's tokenizer
// (its ids checked to be the model's), or ids; the token types, a text pair,
// the decoder's ids of an encoder-decoder; the length within the model's
// positions. `inner` is the model's state shared with its kind's module
// (transformer-model.mjs): { config, architecture, tokenizer, specialIds }.
import { describe, rejectUnknown } from '../checks.mjs';
import { ArgumentRangeError, ArgumentTypeError } from '../errors.mjs';

const INPUT_KEYS = new Set(['text', 'textPair', 'inputIds', 'tokenTypeIds']);
// A decoder's calls with state take one text or ids (no pair, no token types).
const STEP_KEYS = new Set(['inputIds']);
const SEQ2SEQ_KEYS = new Set(['text', 'inputIds', 'decoderInputIds']);

function ids(value, name, length) {
  if (!(value instanceof Int32Array) && !Array.isArray(value))
    throw new ArgumentTypeError(`${name}: expected an Int32Array or an array of integers, got ${describe(value)}`);
  if (length !== undefined && value.length !== length)
    throw new ArgumentRangeError(`${name}: expected ${length} ids (one per token of inputIds), got ${value.length}`);
  const out = new Int32Array(value.length);
  for (let i = 0; i < value.length; i++) {
    const v = value[i];
    if (!Number.isInteger(v) || v < 0 || v > 2 ** 31 - 1)
      throw new ArgumentRangeError(`${name}[${i}]: expected a non-negative integer id, got ${describe(v)}`);
    out[i] = v;
  }
  return out;
}

// { inputIds, typeIds, tokens } of an input of `what` (run, prefill, step):
// text through the tokenizer (a text pair and token types only when
// `pairs`; cut to `truncateTo` tokens when given), or ids; L within the
// positions left after `past`.
export async function readInput(inner, input, what, pairs, past, truncateTo = null) {
  let inputIds;
  let typeIds = null;
  const keys = pairs ? INPUT_KEYS : STEP_KEYS;
  if (input && typeof input === 'object' && 'text' in input && 'inputIds' in input)
    throw new ArgumentTypeError('input: give text or inputIds, not both (which would the model run?)');
  if (input && typeof input === 'object' && 'inputIds' in input && 'textPair' in input)
    throw new ArgumentTypeError('input.textPair: a second text goes with text, not with inputIds');
  if (typeof input === 'string' || (pairs && input && typeof input === 'object' && 'text' in input)) {
    const [text, textPair] = typeof input === 'string' ? [input, undefined] : [input.text, input.textPair];
    if (typeof input !== 'string') rejectUnknown(input, keys, `${what} input`);
    if (typeof text !== 'string') throw new ArgumentTypeError(`input.text: expected a string, got ${describe(text)}`);
    if (textPair !== undefined && typeof textPair !== 'string')
      throw new ArgumentTypeError(`input.textPair: expected a string, got ${describe(textPair)}`);
    if (!inner.tokenizer)
      throw new ArgumentTypeError(
        'input: this model folder has no tokenizer (tokenizer.json, vocab.txt, or source.spm with vocab.json), so it ' +
          'cannot read text; pass { inputIds }',
      );
    // A step continues a text: no [CLS]/<s> of a new sequence in the middle of it.
    const encoding = await inner.tokenizer.encode(text, textPair, {
      addSpecialTokens: what !== 'step',
      maxLength: truncateTo,
    });
    // The tokenizer is the checkpoint's, untrusted: its ids must be the model's (an added token of id
    // 2^32 + 5 or 5.5 would otherwise run as row 5).
    const bad = encoding.ids.findIndex((id) => !Number.isInteger(id) || id < 0 || id >= inner.config.vocabSize);
    if (bad >= 0)
      throw new Error(
        `${inner.tokenizer.file}: the tokenizer gave ${typeof encoding.ids[bad] === 'number' ? `id ${encoding.ids[bad]}` : `no id (${describe(encoding.ids[bad])}) to a piece`} for this text, not a token of the model ` +
          `(0 to ${inner.config.vocabSize - 1}, config.json's vocab_size)`,
      );
    inputIds = Int32Array.from(encoding.ids);
    if (encoding.typeIds && inner.architecture.tokenTypes) typeIds = Int32Array.from(encoding.typeIds);
  } else if (input && typeof input === 'object' && 'inputIds' in input) {
    rejectUnknown(input, keys, `${what} input`);
    if (truncateTo !== null)
      throw new ArgumentTypeError(
        'truncation: it cuts a text as the tokenizer encodes it, and this input is inputIds; give text, or cut the ids',
      );
    inputIds = ids(input.inputIds, 'input.inputIds');
    if (input.tokenTypeIds !== undefined) {
      // transformers' GPT-2 would add wte(token_type_ids): refused rather than ignored.
      if (!inner.architecture.tokenTypeEmbeddings)
        throw new ArgumentTypeError(
          `input.tokenTypeIds: a ${inner.config.modelType} has no token type embeddings; leave tokenTypeIds out`,
        );
      typeIds = ids(input.tokenTypeIds, 'input.tokenTypeIds', inputIds.length);
    }
  } else {
    throw new ArgumentTypeError(
      pairs
        ? `input: expected a string, { text, textPair } or { inputIds, tokenTypeIds }, got ${describe(input)}`
        : `input: expected a string or { inputIds }, got ${describe(input)}`,
    );
  }
  const max = inner.config.maxLength - past;
  if (inputIds.length === 0)
    throw new ArgumentRangeError('input: no tokens (an empty text gives none with this tokenizer)');
  if (inputIds.length > max)
    throw new ArgumentRangeError(
      past
        ? `input: ${inputIds.length} tokens, more than the ${max} positions left after the ${past} the model has seen`
        : `input: ${inputIds.length} tokens, more than the ${max} this model has positions for`,
    );
  const vocab = inner.config.vocabSize;
  const bad = inputIds.findIndex((v) => v >= vocab);
  if (bad >= 0)
    throw new ArgumentRangeError(
      `input.inputIds[${bad}]: expected an id below the vocabulary size ${vocab}, got ${inputIds[bad]}`,
    );
  const tokens = inner.tokenizer ? inner.tokenizer.pieces(inputIds) : Array.from(inputIds, String);
  return { inputIds, typeIds, tokens };
}

// { inputIds, tokens, special, decoderInputIds? } of an encoder-decoder's input: a string, { text } or
// { inputIds }, with decoderInputIds (the decoder's, decoder_start_token_id first) for run().
export async function readSeq2Seq(inner, input, what, truncateTo = null) {
  let source = input;
  let decoderInputIds;
  if (input && typeof input === 'object' && !Array.isArray(input) && !(input instanceof Int32Array)) {
    rejectUnknown(input, SEQ2SEQ_KEYS, `${what} input`);
    if ('decoderInputIds' in input) {
      if (what === 'generate')
        throw new ArgumentTypeError('input.decoderInputIds: generate() decides them; give them to run()');
      decoderInputIds = ids(input.decoderInputIds, 'input.decoderInputIds');
      const bad = decoderInputIds.findIndex((v) => v >= inner.config.vocabSize);
      if (bad >= 0)
        throw new ArgumentRangeError(
          `input.decoderInputIds[${bad}]: expected an id below the vocabulary size ${inner.config.vocabSize}, got ${decoderInputIds[bad]}`,
        );
    }
    if ('text' in input && 'inputIds' in input)
      throw new ArgumentTypeError('input: give text or inputIds, not both (which would the model run?)');
    if ('text' in input && typeof input.text !== 'string')
      throw new ArgumentTypeError(`input.text: expected a string, got ${describe(input.text)}`);
    source = 'text' in input ? input.text : { inputIds: input.inputIds };
  }
  const read = await readInput(inner, source, what, false, 0, truncateTo);
  const special = Uint8Array.from(read.inputIds, (id) => (inner.specialIds.has(id) ? 1 : 0));
  return { inputIds: read.inputIds, tokens: read.tokens, special, ...(decoderInputIds && { decoderInputIds }) };
}
