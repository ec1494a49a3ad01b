// A GGUF file's tokenizer (its tokenizer.ggml.* keys) as the files the
// loader's tokenizers read: a tokenizer.json object and a
// tokenizer_config.json, built as transformers' GGUF conversion builds them
// (tokenizer-json.mjs), so that the model tokenizes as transformers'
// AutoTokenizer.from_pretrained(…, gguf_file=…) does, and runs through the
// same checked path as any tokenizer.json (tokenizers/tokenizer.mjs).
//
// Built: Qwen2 and Qwen3 (tokenizer.ggml.model "gpt2": byte-level BPE with
// merges); Llama's SentencePiece vocabularies (model "llama": tokens,
// scores, token types, byte fallback; merges rebuilt from the scores when
// the file has none); Llama's byte-level BPE (model "gpt2") whose
// tokenizer.ggml.pre is GPT-2's own pre-tokenizer. transformers reads no
// tokenizer.ggml.pre: it pre-tokenizes every Llama byte-level BPE with
// GPT-2's regex, which is not what Llama 3's ("llama-bpe"), SmolLM's
// ("smollm") and the others' vocabularies were trained with, so those load
// without a tokenizer rather than tokenized wrong (ids in, ids out), as any
// other model does, and a file without one.
import { codedError } from '../../../errors.mjs';
import { llamaTokenizer, qwen2Tokenizer } from './tokenizer-json.mjs';

// The pre-tokenizer transformers gives a Llama byte-level BPE (GPT-2's regex) is this one of llama.cpp's.
const GPT2_PRE = 'gpt-2';
// Merges rebuilt from the scores split each piece at each of its characters (a piece of n characters: n²
// work): the squares of the pieces' lengths may add up to this (Llama 2's 32000 pieces: about 10⁶).
const MERGE_WORK = 1 << 25;

/**
 * { [fileName]: text } of the tokenizer of a GGUF file's metadata ({}: none
 * built for it). An Error coded 'BadTokenizer' naming the file and the key
 * when the keys it reads are malformed ({} too for a Llama byte-level BPE
 * whose pre-tokenizer transformers would get wrong).
 */
export function ggufTokenizerFiles(fileName, metadata) {
  const arch = metadata.get('general.architecture')?.value;
  const model = metadata.get('tokenizer.ggml.model')?.value;
  const kind =
    (arch === 'qwen2' || arch === 'qwen3') && model === 'gpt2'
      ? 'qwen2'
      : arch === 'llama' && (model === 'llama' || model === 'gpt2')
        ? model
        : null;
  if (!kind) return {};
  const fail = (field, problem, code = 'BadTokenizer') => {
    throw codedError(code, `${fileName}: ${field}: ${problem}`, { file: fileName, field });
  };
  // A Llama byte-level BPE is built only with GPT-2's pre-tokenizer, the one transformers' GGUF conversion
  // gives it whatever the file says: with another (Llama 3's, SmolLM's) the model loads without a tokenizer.
  if (kind === 'gpt2' && metadata.get('tokenizer.ggml.pre')?.value !== GPT2_PRE) return {};
  const keys = readKeys(metadata, fail, kind);
  const { tokenizer, config } = kind === 'qwen2' ? qwen2Tokenizer(keys) : llamaTokenizer(keys, kind === 'gpt2');
  // transformers' GGUF table (integrations/ggml.py) gives tokenizer.chat_template to the tokenizer as its chat_template.
  const template = metadata.get('tokenizer.chat_template');
  if (template !== undefined) {
    if (typeof template.value !== 'string') fail('tokenizer.chat_template', `a ${template.type}, expected a string`);
    config.chat_template = template.value;
  }
  return { 'tokenizer.json': JSON.stringify(tokenizer), 'tokenizer_config.json': JSON.stringify(config) };
}

// The tokenizer.ggml.* keys, checked: { tokens, scores?, tokenTypes?, merges?, ids, addSpacePrefix? }.
function readKeys(metadata, fail, kind) {
  const array = (key, isItem, expected, required) => {
    const entry = metadata.get(key);
    if (!entry) return required ? fail(key, 'missing from the metadata') : undefined;
    if (!Array.isArray(entry.value)) fail(key, `a ${entry.type}, expected ${expected}`);
    const bad = entry.value.findIndex((item) => !isItem(item));
    if (bad >= 0) fail(`${key}[${bad}]`, `${String(entry.value[bad])}, in what should be ${expected}`);
    return entry.value;
  };
  const tokens = array('tokenizer.ggml.tokens', (s) => typeof s === 'string', 'an array of strings', true);
  const seen = new Set();
  tokens.forEach((token, id) => {
    if (seen.has(token)) fail(`tokenizer.ggml.tokens[${id}]`, `token ${JSON.stringify(token)} is there twice`);
    seen.add(token);
  });
  const sameLength = (key, values) => {
    if (values && values.length !== tokens.length)
      fail(key, `${values.length} values for the ${tokens.length} tokens of tokenizer.ggml.tokens`);
    return values;
  };
  const tokenTypes = sameLength(
    'tokenizer.ggml.token_type',
    array('tokenizer.ggml.token_type', Number.isInteger, 'an array of integers', false),
  );
  const scores = sameLength(
    'tokenizer.ggml.scores',
    array('tokenizer.ggml.scores', Number.isFinite, 'an array of finite numbers', false),
  );
  const text = array('tokenizer.ggml.merges', (s) => typeof s === 'string', 'an array of strings', kind !== 'llama');
  const merges = text?.map((merge, i) => {
    const parts = merge.split(' ');
    if (parts.length !== 2 || !seen.has(parts[0]) || !seen.has(parts[1]))
      fail(`tokenizer.ggml.merges[${i}]`, `${JSON.stringify(merge)} is not two tokens of the vocabulary`);
    return parts;
  });
  if (kind === 'llama' && !merges) {
    if (!scores) fail('tokenizer.ggml.scores', 'missing: a vocabulary without merges needs its scores to make them');
    let work = 0;
    tokens.forEach((token, id) => {
      work += token.length * token.length;
      if (work > MERGE_WORK)
        fail(
          `tokenizer.ggml.tokens[${id}]`,
          `a piece of ${token.length} characters takes the work of rebuilding the merges from the scores ` +
            `(the squares of the pieces' lengths) past ${MERGE_WORK}: pieces longer than any vocabulary's`,
        );
    });
  }
  const ids = {};
  for (const [role, key] of [
    ['bos', 'bos_token_id'],
    ['eos', 'eos_token_id'],
    ['unk', 'unknown_token_id'],
    ['pad', 'padding_token_id'],
  ]) {
    const entry = metadata.get(`tokenizer.ggml.${key}`);
    if (!entry) continue;
    const id = typeof entry.value === 'bigint' ? Number(entry.value) : entry.value;
    if (!Number.isInteger(id) || id < 0 || id >= tokens.length)
      fail(`tokenizer.ggml.${key}`, `${String(entry.value)} is not the id of one of the ${tokens.length} tokens`);
    ids[role] = id;
  }
  const prefix = metadata.get('tokenizer.ggml.add_space_prefix');
  if (prefix && typeof prefix.value !== 'boolean')
    fail('tokenizer.ggml.add_space_prefix', `a ${prefix.type}, expected a bool`);
  return { tokens, scores, tokenTypes, merges, ids, addSpacePrefix: prefix?.value };
}
