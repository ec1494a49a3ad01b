// A GGUF file's tokenizer (its tokenizer.ggml.* keys) as the files the
// loader's tokenizers read: a tokenizer.json object and a
// tokenizer_config.json, built as transformers' GGUF conversion builds them
// (integrations/ggml.py: GGUF_TO_FAST_CONVERTERS, by architecture), so that
// the model tokenizes as transformers' AutoTokenizer.from_pretrained(…,
// gguf_file=…) does, and runs through the same checked path as any
// tokenizer.json (tokenizers/tokenizer.mjs).
//
// Built so far: Qwen2 and Qwen3 (tokenizer.ggml.model "gpt2": byte-level BPE
// with merges, transformers' GGUFQwen2Converter). Not yet: Llama's
// SentencePiece vocabularies (model "llama": transformers rebuilds BPE merges
// from the scores) and Llama 3's byte-level BPE: such a file loads without a
// tokenizer (ids in, ids out).
import { codedError } from '../../../errors.mjs';
import { specialAddedToken } from '../../tokenizers/tokenizer.mjs';

// Qwen2Converter's pre-tokenizer regex (transformers' convert_slow_tokenizer.py).
const QWEN2_REGEX =
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
// GGUFQwen2Converter adds these three as special tokens, whatever the file's token types say.
const QWEN2_SPECIAL = ['<|endoftext|>', '<|im_start|>', '<|im_end|>'];

/**
 * { [fileName]: text } of the tokenizer of a GGUF file's metadata ({}: none
 * built for it). An Error coded 'BadTokenizer' naming the file and the key
 * when the keys it reads are malformed.
 */
export function ggufTokenizerFiles(fileName, metadata) {
  const arch = metadata.get('general.architecture')?.value;
  const model = metadata.get('tokenizer.ggml.model')?.value;
  if (!((arch === 'qwen2' || arch === 'qwen3') && model === 'gpt2')) return {};
  const fail = (field, problem) => {
    throw codedError('BadTokenizer', `${fileName}: ${field}: ${problem}`, { file: fileName, field });
  };
  const strings = (key) => {
    const entry = metadata.get(key);
    if (!entry) fail(key, 'missing from the metadata');
    if (!Array.isArray(entry.value) || entry.value.some((s) => typeof s !== 'string'))
      fail(key, `a ${entry.type}, expected an array of strings`);
    return entry.value;
  };
  const tokens = strings('tokenizer.ggml.tokens');
  const vocab = {};
  tokens.forEach((token, id) => {
    if (Object.hasOwn(vocab, token)) fail('tokenizer.ggml.tokens', `token ${JSON.stringify(token)} is there twice`);
    vocab[token] = id;
  });
  const merges = strings('tokenizer.ggml.merges').map((merge, i) => {
    const parts = merge.split(' ');
    if (parts.length !== 2 || !Object.hasOwn(vocab, parts[0]) || !Object.hasOwn(vocab, parts[1]))
      fail(`tokenizer.ggml.merges[${i}]`, `${JSON.stringify(merge)} is not two tokens of the vocabulary`);
    return parts;
  });
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
  // transformers' GGUF table (integrations/ggml.py) gives tokenizer.chat_template to the tokenizer as its chat_template.
  const template = metadata.get('tokenizer.chat_template');
  if (template !== undefined) {
    if (typeof template.value !== 'string') fail('tokenizer.chat_template', `a ${template.type}, expected a string`);
    config.chat_template = template.value;
  }
  return { 'tokenizer.json': JSON.stringify(tokenizer), 'tokenizer_config.json': JSON.stringify(config) };
}
