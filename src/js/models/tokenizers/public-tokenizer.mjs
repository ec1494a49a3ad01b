// model.tokenizer: the checkpoint's tokenizer as a caller uses it without
// running the model, as transformers' tokenizer(text, text_pair, …) and
// tokenizer.decode(…) do: encode a text or a pair (special tokens, truncation
// to a length, padding to it) into input ids, attention mask and, where the
// model takes them, token type ids; decode ids; count a text's tokens; the
// special tokens by role (model.specialTokens, the same object). It runs on
// the tokenizer that run() and generate() use (tokenizer.mjs, in its bounded
// worker); truncation is that worker's (encode.mjs, truncation.mjs), padding
// is done here.
import { describe, rejectUnknown } from '../../checks.mjs';
import { ArgumentRangeError, ArgumentTypeError } from '../../errors.mjs';
import { encodingOffsets, hasOffsets } from './encoding-offsets.mjs';

const ENCODE_OPTIONS = new Set(['addSpecialTokens', 'truncation', 'maxLength', 'padding', 'returnOffsets']);
const PADDING = [false, true, 'longest', 'max_length', 'do_not_pad'];

/** encode's input: a text, or [text, textPair]; a TypeError naming `input` otherwise. */
function readPair(input) {
  if (typeof input === 'string') return [input, undefined];
  if (Array.isArray(input) && input.length === 2 && input.every((t) => typeof t === 'string')) return input;
  throw new ArgumentTypeError(`input: expected a string or [text, textPair] (two strings), got ${describe(input)}`);
}

/**
 * encode's options checked: { addSpecialTokens (default true), truncation,
 * maxLength, padding }, as transformers names them. `longest`: the model's
 * positions, the length truncation and 'max_length' padding default to.
 * Returns { addSpecialTokens, maxLength (truncation's, or null), padding (asked
 * for: true, 'longest' or 'max_length'), padTo (padding's length, or null) }.
 */
export function checkEncodeOptions(options, longest, what = 'encode') {
  if (options === undefined)
    return { addSpecialTokens: true, returnOffsets: false, maxLength: null, padding: false, padTo: null };
  if (!options || typeof options !== 'object' || Array.isArray(options))
    throw new ArgumentTypeError(
      `${what} options: expected { addSpecialTokens, truncation, maxLength, padding, returnOffsets }, got ${describe(options)}`,
    );
  rejectUnknown(options, ENCODE_OPTIONS, what);
  const { addSpecialTokens = true, truncation = false, maxLength, padding = false, returnOffsets = false } = options;
  if (typeof returnOffsets !== 'boolean')
    throw new ArgumentTypeError(`returnOffsets: expected a boolean, got ${describe(returnOffsets)}`);
  if (typeof addSpecialTokens !== 'boolean')
    throw new ArgumentTypeError(`addSpecialTokens: expected a boolean, got ${describe(addSpecialTokens)}`);
  if (typeof truncation !== 'boolean')
    throw new ArgumentTypeError(
      `truncation: expected a boolean (true: the longest text cut first, as transformers' 'longest_first'), got ${describe(truncation)}`,
    );
  if (!PADDING.includes(padding))
    throw new ArgumentTypeError(
      `padding: expected false, true, 'longest', 'max_length' or 'do_not_pad', got ${describe(padding)}`,
    );
  if (maxLength !== undefined) {
    if (typeof maxLength !== 'number' || !Number.isInteger(maxLength))
      throw new ArgumentTypeError(`maxLength: expected an integer, got ${describe(maxLength)}`);
    if (maxLength < 1 || maxLength > longest)
      throw new ArgumentRangeError(`maxLength: expected 1 to ${longest} (the model's positions), got ${maxLength}`);
    if (!truncation && padding !== 'max_length')
      throw new ArgumentTypeError(
        "maxLength: it bounds truncation or padding: 'max_length'; give truncation: true or padding: 'max_length' with it",
      );
  }
  const length = maxLength ?? longest;
  return {
    addSpecialTokens,
    returnOffsets,
    maxLength: truncation ? length : null,
    padding: padding !== false && padding !== 'do_not_pad',
    padTo: padding === 'max_length' ? length : null,
  };
}

/**
 * The public tokenizer of `tokenizer` (createTokenizer's), for a model whose
 * longest input is `longest` tokens and that takes token type ids when
 * `tokenTypes`; `specialTokens`: model.specialTokens.
 */
export function publicTokenizer(tokenizer, { longest, tokenTypes, specialTokens }) {
  // Padding asked for needs a pad token, even where nothing is padded (transformers refuses it alike).
  const canPad = (padding) => {
    if (padding && !specialTokens.pad)
      throw new ArgumentTypeError(
        `padding: ${tokenizer.file}'s tokenizer has no pad token (tokenizer_config.json's pad_token), so it cannot ` +
          'pad (transformers refuses too); leave padding out, or pad the ids yourself',
      );
  };
  // Padded to padTo (null: not padded) with the pad token, on the tokenizer's padding side; the mask 0 there.
  const pad = (ids, typeIds, offsets, padTo) => {
    const n = Math.max(0, (padTo ?? 0) - ids.length);
    const mask = new Uint8Array(ids.length + n).fill(1);
    if (!n) return { ids, typeIds, offsets, mask };
    const left = tokenizer.paddingSide === 'left';
    const side = (row, value) => {
      const fill = new Array(n).fill(value);
      return left ? [...fill, ...row] : [...row, ...fill];
    };
    if (left) mask.fill(0, 0, n);
    else mask.fill(0, ids.length);
    const none = (row) => row && side(row, null).map((o) => o ?? [0, 0]);
    return { ids: side(ids, specialTokens.pad.id), typeIds: typeIds && side(typeIds, 0), offsets: none(offsets), mask };
  };
  return Object.freeze({
    specialTokens,
    /**
     * A text or [text, textPair] as transformers' tokenizer(text, text_pair,
     * add_special_tokens, truncation, max_length, padding, return_offsets_mapping) encodes it:
     * { inputIds, attentionMask, tokenTypeIds (where the model takes them), tokens, offsets (returnOffsets) }.
     */
    async encode(input, options) {
      const [text, textPair] = readPair(input);
      const { addSpecialTokens, returnOffsets, maxLength, padding, padTo } = checkEncodeOptions(options, longest);
      canPad(padding);
      if (returnOffsets && !hasOffsets(tokenizer))
        throw new ArgumentTypeError(
          `returnOffsets: ${tokenizer.file}'s tokenizer is not one whose tokens the engine places in the text ` +
            "(BERT's WordPiece, byte-level BPE, SentencePiece-style pieces with Metaspace or byte fallback; " +
            'docs/api-models.md#offsets lists the parts each may have); leave returnOffsets out',
        );
      const encoded = await tokenizer.encode(text, textPair, { addSpecialTokens, maxLength });
      let offsets = null;
      if (returnOffsets) {
        offsets = await encodingOffsets(tokenizer, text, textPair, encoded.ids);
        if (!offsets)
          throw new ArgumentTypeError(
            `returnOffsets: the tokens of ${describe(input)} do not spell it as ${tokenizer.file}'s tokenizer ` +
              'normalises it (a special token typed in the text?); leave returnOffsets out for this input',
          );
      }
      const padded = pad(encoded.ids, tokenTypes ? encoded.typeIds : null, offsets, padTo);
      const out = { inputIds: Int32Array.from(padded.ids), attentionMask: padded.mask };
      if (tokenTypes) out.tokenTypeIds = Int32Array.from(padded.typeIds ?? padded.ids.map(() => 0));
      out.tokens = tokenizer.pieces(out.inputIds);
      if (returnOffsets) out.offsets = padded.offsets;
      return out;
    },
    /** Ids as text, as transformers' tokenizer.decode (skipSpecialTokens: default false, as there). */
    decode: (ids, options) => tokenizer.decode(ids, options),
    /** The number of tokens of a text (or [text, textPair]) as encode gives them, special tokens included unless addSpecialTokens is false. */
    async countTokens(input, options) {
      const [text, textPair] = readPair(input);
      if (options !== undefined && (!options || typeof options !== 'object'))
        throw new ArgumentTypeError(`countTokens options: expected { addSpecialTokens }, got ${describe(options)}`);
      if (options) rejectUnknown(options, new Set(['addSpecialTokens']), 'countTokens');
      const { addSpecialTokens } = checkEncodeOptions(options, longest, 'countTokens');
      return (await tokenizer.encode(text, textPair, { addSpecialTokens })).ids.length;
    },
  });
}
