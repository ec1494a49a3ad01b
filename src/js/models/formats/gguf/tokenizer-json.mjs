// The tokenizer.json objects transformers' GGUF conversion
// (integrations/ggml.py, GGUF_TO_FAST_CONVERTERS) builds from a GGUF file's
// tokenizer keys, as its TokenizersBackend holds them once made: the same
// model, normalizer, pre-tokenizer, decoder, added tokens and (empty)
// post-processor, so that the loader's tokenizer (tokenizers/tokenizer.mjs)
// encodes and decodes as transformers' AutoTokenizer.from_pretrained(…,
// gguf_file=…) does. The keys come read and checked (tokenizer.mjs).
import { specialAddedToken } from '../../tokenizers/tokenizer.mjs';

// Qwen2Converter's pre-tokenizer regex (transformers' convert_slow_tokenizer.py).
const QWEN2_REGEX =
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
// GGUFQwen2Converter adds these three as special tokens, whatever the file's token types say.
const QWEN2_SPECIAL = ['<|endoftext|>', '<|im_start|>', '<|im_end|>'];
// The token type llama.cpp writes for control tokens (gguf-py's TokenType.CONTROL).
const CONTROL = 3;

const vocabOf = (tokens) => Object.fromEntries(tokens.map((token, id) => [token, id]));
const added = (tokens, ids) => [...new Set(ids)].sort((a, b) => a - b).map((id) => specialAddedToken(id, tokens[id]));
// TokenizersBackend's post-processor when the converter sets none: the sequences, no special tokens.
const NO_SPECIAL_TOKENS = {
  type: 'TemplateProcessing',
  single: [{ Sequence: { id: 'A', type_id: 0 } }],
  pair: [{ Sequence: { id: 'A', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }],
  special_tokens: {},
};

/** { tokenizer, config }: GGUFQwen2Converter's (Qwen2, Qwen3: byte-level BPE with the file's merges). */
export function qwen2Tokenizer({ tokens, merges }) {
  const vocab = vocabOf(tokens);
  const special = QWEN2_SPECIAL.filter((t) => Object.hasOwn(vocab, t));
  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: special.map((content) => specialAddedToken(vocab[content], content)),
    normalizer: { type: 'NFC' },
    pre_tokenizer: {
      type: 'Sequence',
      pretokenizers: [
        { type: 'Split', pattern: { Regex: QWEN2_REGEX }, behavior: 'Isolated', invert: false },
        { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false },
      ],
    },
    post_processor: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true },
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: '',
      end_of_word_suffix: '',
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab,
      merges,
    },
  };
  // Qwen2Tokenizer's defaults, as transformers gives them to the converted tokenizer (no bos_token).
  const endOfText = Object.hasOwn(vocab, '<|endoftext|>') ? '<|endoftext|>' : null;
  const config = {
    tokenizer_class: 'Qwen2Tokenizer',
    bos_token: null,
    eos_token: endOfText,
    unk_token: endOfText,
    pad_token: endOfText,
  };
  return { tokenizer, config };
}

/**
 * { tokenizer, config }: GGUFLlamaConverter's. `byteLevel` false: a
 * SentencePiece vocabulary (tokenizer.ggml.model "llama"; merges, when the
 * file has none, rebuilt from the scores by llamaMerges), as LlamaConverter's
 * legacy tokenizer; true: Llama 3's byte-level BPE (model "gpt2"), as the
 * converter patches that one (GPT-2's ByteLevel pre-tokenizer, no normalizer).
 * Its special tokens: the control tokens (token type 3), or without token
 * types the unknown and BOS tokens, and those transformers' backend adds from
 * the converter's unk and bos tokens. Roles in tokenizer_config.json are
 * transformers': the tokens of the file's bos and unk ids, no pad token;
 * except the EOS token, the file's eos_token_id's (transformers' converter
 * takes it from bos_token_id, a slip not copied).
 */
export function llamaTokenizer({ tokens, scores, tokenTypes, merges, ids, addSpacePrefix }, byteLevel) {
  const token = (id) => (id === undefined ? null : tokens[id]);
  const special = [ids.unk, ids.bos].filter((id) => id !== undefined);
  if (tokenTypes) special.push(...tokenTypes.flatMap((type, id) => (type === CONTROL ? [id] : [])));
  else if (ids.eos !== undefined) special.push(ids.bos ?? ids.eos);
  const prefix = addSpacePrefix ?? true;
  const strip = prefix ? [{ type: 'Strip', content: ' ', start: 1, stop: 0 }] : [];
  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added(tokens, special),
    normalizer: byteLevel
      ? { type: 'Sequence', normalizers: [] }
      : {
          type: 'Sequence',
          normalizers: [
            ...(prefix ? [{ type: 'Prepend', prepend: '\u2581' }] : []),
            { type: 'Replace', pattern: { String: ' ' }, content: '\u2581' },
          ],
        },
    pre_tokenizer: byteLevel
      ? { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: true }
      : null,
    post_processor: NO_SPECIAL_TOKENS,
    decoder: {
      type: 'Sequence',
      decoders: [
        { type: 'ByteFallback' },
        { type: 'Fuse' },
        { type: 'Replace', pattern: { String: '\u2581' }, content: ' ' },
        ...(byteLevel ? [{ type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true }] : []),
        ...strip,
      ],
    },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: token(ids.unk),
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: true,
      byte_fallback: true,
      ignore_merges: false,
      vocab: vocabOf(tokens),
      merges: merges ?? llamaMerges(tokens, scores),
    },
  };
  const config = {
    bos_token: token(ids.bos),
    eos_token: token(ids.eos),
    unk_token: token(ids.unk),
    pad_token: null, // transformers' converted tokenizer has none, whatever padding_token_id says
    clean_up_tokenization_spaces: byteLevel,
  };
  return { tokenizer, config };
}

/**
 * The merges of a SentencePiece vocabulary without any, as transformers'
 * GGUFTokenizerSkeleton makes them: every split of each piece (in code
 * points) into two pieces of the vocabulary, those of a piece ordered by
 * their halves' scores, then all by the piece's score, highest first (both
 * sorts stable, as Python's).
 */
export function llamaMerges(tokens, scores) {
  const score = new Map(tokens.map((t, id) => [t, scores[id]]));
  const all = [];
  tokens.forEach((piece, id) => {
    const local = [];
    // At each code point's end but the last (Python's str slices).
    for (let at = 0, next; at < piece.length; at = next) {
      next = at + (piece.codePointAt(at) > 0xffff ? 2 : 1);
      if (next >= piece.length) break;
      const left = piece.slice(0, next);
      const right = piece.slice(next);
      if (score.has(left) && score.has(right)) local.push([left, right, scores[id]]);
    }
    local.sort((a, b) => score.get(b[0]) - score.get(a[0]) || score.get(b[1]) - score.get(a[1]));
    all.push(...local);
  });
  all.sort((a, b) => b[2] - a[2]);
  return all.map(([left, right]) => [left, right]);
}
