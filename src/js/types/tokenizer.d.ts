// Declarations of model.tokenizer (src/js/models/tokenizers/public-tokenizer.mjs): a checkpoint's tokenizer
// without the model, as transformers' tokenizer(text, text_pair, …) and tokenizer.decode(…); and run()'s
// truncation. src/js/index.d.ts re-exports them.
import type { SpecialTokens } from './models.js';

/** A text, or a pair of texts ([text, textPair]: a question and its context, two sentences). */
export type TokenizerInput = string | [string, string];

export interface EncodeOptions {
  /** The model's special tokens ([CLS] … [SEP], <s>, </s>) around the text (default true). */
  addSpecialTokens?: boolean;
  /**
   * Cut to maxLength tokens (special tokens counted), the longer text of a pair first, as transformers'
   * truncation=True ('longest_first'); default false: a text longer than the model's positions is run() as a
   * RangeError.
   */
  truncation?: boolean;
  /** The length truncation cuts to and padding 'max_length' pads to: 1 to the model's maxLength (its default). */
  maxLength?: number;
  /**
   * 'max_length': pad with the pad token to maxLength (tokenizer_config.json's padding_side, default right);
   * true or 'longest': one sequence is its own longest, nothing is added. A tokenizer without a pad token refuses
   * any padding (a TypeError), as transformers does.
   */
  padding?: boolean | 'longest' | 'max_length' | 'do_not_pad';
  /**
   * Each token's [start, end) in the text it came from (transformers' return_offsets_mapping): for BERT's
   * WordPiece, byte-level BPE (GPT-2, RoBERTa, Qwen) and SentencePiece-style pieces (Llama, XLM-R); another
   * tokenizer, or a text whose tokens do not spell it, is a TypeError.
   */
  returnOffsets?: boolean;
}

export interface Encoding {
  /** [L] (transformers' input_ids). */
  inputIds: Int32Array;
  /** [L]: 1 for a token, 0 for padding (attention_mask). */
  attentionMask: Uint8Array;
  /** [L]: 0 for the first text, 1 for the pair's (token_type_ids); only for models that take them (BERT). */
  tokenTypeIds?: Int32Array;
  /** [L] readable pieces, as results' tokens. */
  tokens: string[];
  /**
   * With returnOffsets: [L] × [start, end), UTF-16 positions in the text the token came from (the pair's second
   * text for its tokens: text.slice(start, end)); [0, 0] for special tokens and padding.
   */
  offsets?: Array<[number, number]>;
}

export interface ModelTokenizer {
  /** model.specialTokens: by id, and by role (bos, eos, unk, sep, pad, cls, mask). */
  readonly specialTokens: SpecialTokens;
  /** A text or a pair as the model's tokenizer encodes it (the ids run() would take, with the same options). */
  encode(
    input: TokenizerInput,
    options: EncodeOptions & { returnOffsets: true },
  ): Promise<Encoding & { offsets: Array<[number, number]> }>;
  encode(input: TokenizerInput, options?: EncodeOptions): Promise<Encoding>;
  /** Ids as text, as transformers' tokenizer.decode (skipSpecialTokens default false, as there). */
  decode(ids: ArrayLike<number>, options?: { skipSpecialTokens?: boolean }): Promise<string>;
  /** The tokens encode gives a text (special tokens included unless addSpecialTokens is false). */
  countTokens(input: TokenizerInput, options?: { addSpecialTokens?: boolean }): Promise<number>;
}

/** run()'s truncation of a text input, as encode's (with inputIds: a TypeError). */
export interface TruncationOptions {
  truncation?: boolean;
  maxLength?: number;
}
