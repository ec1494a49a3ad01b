// MarianMT's tokenizer (Helsinki-NLP/opus-mt-*), as transformers'
// MarianTokenizer (models/marian/tokenization_marian.py, with the slow
// tokenizer's PythonBackend around it) encodes and decodes: the folder has
// source.spm (the SentencePiece model that cuts the input), target.spm,
// vocab.json ({ piece: id }, one vocabulary for both sides unless
// tokenizer_config.json says separate_vocabs, then target_vocab.json is the
// target's) and no tokenizer.json. The SentencePiece models run through
// sentencepiece.mjs, an exact port of sentencepiece's own code.
//
// What MarianTokenizer does, step by step (each is matched here):
// - the added tokens (</s>, <unk>, <pad> and any of tokenizer_config.json's
//   added_tokens_decoder) are split out of the text first, by transformers'
//   Trie (the longest match, leftmost first), with their lstrip, rstrip and
//   single_word; each text between them is tokenized on its own (so each gets
//   its own leading ▁);
// - a text that starts with ">>" and has a "<<" (">>fra<<") gives that code
//   as one token, the rest goes to the source model;
// - a piece is its vocab.json id, or <unk>'s when vocab.json lacks it (the
//   SentencePiece model's own ids are never used: the vocabularies differ);
// - </s> is appended (a pair: both texts, then </s>);
// - decoding skips the special tokens' ids (<unk> too) if asked, cuts the
//   rest at special tokens, decodes each run of pieces with the SOURCE model
//   unless separate_vocabs (transformers 5 defaults use_source_tokenizer to
//   `not separate_vocabs`), where a piece the model lacks is kept as it is;
//   a special token is followed by a space; ▁ becomes a space and the text
//   is stripped of Python's whitespace.
import { TOKENIZER_KINDS } from '../checkpoint-files.mjs';
import { parseJsonObject } from '../read-file.mjs';
import { SentencePiece, readSentencePieceModel } from './sentencepiece.mjs';
import { ArgumentRangeError } from '../../errors.mjs';
import { tokenContent as contentOf, withRoles } from './special-roles.mjs';

/** The files a Marian tokenizer is made of (checkpoint-files.mjs's TOKENIZER_KINDS, the loader's one list). */
export const MARIAN_FILES = TOKENIZER_KINDS.find((k) => k.kind === 'marian').files;

// Python's str.isspace() characters: what strip(), lstrip() and rstrip() remove.
const PY_SPACE = '[\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const LEADING = new RegExp(`^${PY_SPACE}+`);
const TRAILING = new RegExp(`${PY_SPACE}+$`);
const lstrip = (s) => s.replace(LEADING, '');
const rstrip = (s) => s.replace(TRAILING, '');

// PreTrainedTokenizerBase.SPECIAL_TOKENS_ATTRIBUTES, in its order, with MarianTokenizer's defaults.
const SPECIAL_ATTRIBUTES = ['bos_token', 'eos_token', 'unk_token', 'sep_token', 'pad_token', 'cls_token', 'mask_token'];
const MARIAN_DEFAULTS = { eos_token: '</s>', unk_token: '<unk>', pad_token: '<pad>' };

/**
 * The files of a Marian tokenizer, as a tokenizer host is given them
 * (tokenizer.mjs, node-host.mjs): { 'source.spm', 'target.spm' (bytes),
 * 'vocab.json', 'target_vocab.json'? (texts) }. A class, so that a host
 * tells it from a tokenizer.json's object by what it is, not by a key the
 * file could hold.
 */
export class MarianFiles {
  constructor(files) {
    this.files = Object.freeze(
      Object.fromEntries(MARIAN_FILES.filter((n) => files[n] !== undefined).map((n) => [n, files[n]])),
    );
  }
}

// transformers' Trie (tokenization_python.py): split() cuts a text at the
// added tokens, the longest match first, as Python does it (on code points).
class AddedTokenTrie {
  constructor(tokens) {
    this.root = new Map();
    for (const token of tokens) {
      if (!token) continue;
      let node = this.root;
      for (const ch of token) {
        if (!node.has(ch)) node.set(ch, new Map());
        node = node.get(ch);
      }
      node.set('', true);
    }
  }

  split(input) {
    const text = Array.from(input);
    let states = new Map(); // start → trie node, in insertion order (an OrderedDict)
    const offsets = [0];
    let skip = 0;
    for (let current = 0; current < text.length; current++) {
      const currentChar = text[current];
      if (skip && current < skip) continue;
      const toRemove = [];
      let reset = false;
      for (let [start, pointer] of states) {
        if (pointer.has('')) {
          // A token ends here; look ahead for a longer one that starts no later.
          let end;
          for (const [lookStart, lookPointerStart] of states) {
            let lookPointer = lookPointerStart;
            let lookahead;
            if (lookStart > start) break;
            else if (lookStart < start) {
              lookahead = current + 1;
              end = current + 1;
            } else {
              lookahead = current;
              end = current;
            }
            let next = lookahead < text.length ? text[lookahead] : undefined;
            if (lookPointer.has('')) {
              start = lookStart;
              end = lookahead;
              skip = lookahead;
            }
            while (next !== undefined && lookPointer.has(next)) {
              lookPointer = lookPointer.get(next);
              lookahead += 1;
              if (lookPointer.has('')) {
                start = lookStart;
                end = lookahead;
                skip = lookahead;
              }
              if (lookahead === text.length) break;
              next = text[lookahead];
            }
          }
          offsets.push(start, end);
          reset = true;
          break;
        } else if (pointer.has(currentChar)) {
          pointer = pointer.get(currentChar);
          states.set(start, pointer);
        } else toRemove.push(start);
      }
      if (reset) states = new Map();
      else for (const start of toRemove) states.delete(start);
      if (current >= skip && this.root.has(currentChar)) states.set(current, this.root.get(currentChar));
    }
    for (const [start, pointer] of states)
      if (pointer.has('')) {
        offsets.push(start, text.length);
        break;
      }
    // cut_text
    offsets.push(text.length);
    const parts = [];
    let start = 0;
    for (const end of offsets) {
      if (start >= end) continue;
      parts.push(text.slice(start, end).join(''));
      start = end;
    }
    return parts;
  }
}

/** { piece: id } of a vocabulary file's text as a Map; an Error naming the file for anything else. */
function readVocab(name, text) {
  const json = parseJsonObject(name, text);
  const vocab = new Map();
  for (const [piece, id] of Object.entries(json)) {
    if (!Number.isSafeInteger(id) || id < 0)
      throw new Error(`${name}: the id of ${JSON.stringify(piece)} is ${JSON.stringify(id)}, not a token id`);
    vocab.set(piece, id);
  }
  return vocab;
}

/**
 * A Marian tokenizer of `files` ({ 'source.spm', 'target.spm': bytes;
 * 'vocab.json', 'target_vocab.json'?: texts }) and `config`
 * (tokenizer_config.json's object): encode(text, textPair, {
 * addSpecialTokens }) → { ids, typeIds: null, tokens }, decode(ids, {
 * skipSpecialTokens }) → text, pieces(ids), specialTokens: [{ id, token }] with
 * its roles (special-roles.mjs: eos, unk, pad).
 * Errors name the file that is wrong.
 */
export function createMarianTokenizer(files, config = {}) {
  for (const name of ['source.spm', 'target.spm', 'vocab.json'])
    if (files[name] === undefined)
      throw new Error(`${name}: missing; a Marian tokenizer (source.spm without tokenizer.json) needs ${name}`);
  // Both files read and checked now; each model built when first used (in Node that is in the
  // tokenizer's worker thread, not where createTokenizer checks the files).
  const spm = (name) => {
    const model = readSentencePieceModel(files[name], name);
    let built;
    return { size: model.pieces.length, get: () => (built ??= new SentencePiece(model, name)) };
  };
  const source = spm('source.spm');
  const targetModel = spm('target.spm');
  const encoder = readVocab('vocab.json', files['vocab.json']);
  const separate = config.separate_vocabs === true;
  if (separate && files['target_vocab.json'] === undefined)
    throw new Error('target_vocab.json: missing; tokenizer_config.json says separate_vocabs, so it is needed');
  const targetEncoder = separate ? readVocab('target_vocab.json', files['target_vocab.json']) : encoder;
  // id → piece; of two pieces with one id, the later (a Python dict comprehension's).
  const inverse = (vocab) => new Map([...vocab].map(([piece, id]) => [id, piece]));
  const decoder = inverse(targetEncoder);
  const sourceDecoder = separate ? inverse(encoder) : decoder;

  // Special and added tokens as PythonBackend sets them up: the named ones (a null one is none), then a
  // model's own *_token strings (from_pretrained's model_specific_special_tokens), then the extra ones.
  const named = [...SPECIAL_ATTRIBUTES, ...Object.keys(config).filter((k) => k.endsWith('_token'))]
    .filter((attr, i, all) => all.indexOf(attr) === i)
    .filter((attr) => SPECIAL_ATTRIBUTES.includes(attr) || typeof config[attr] === 'string')
    .map((attr) => contentOf(Object.hasOwn(config, attr) ? config[attr] : MARIAN_DEFAULTS[attr]))
    .filter(Boolean);
  const unk = contentOf(Object.hasOwn(config, 'unk_token') ? config.unk_token : MARIAN_DEFAULTS.unk_token);
  if (!encoder.has(unk)) throw new Error(`vocab.json: no ${unk} token, which MarianTokenizer needs`);
  let extra = config.extra_special_tokens ?? config.additional_special_tokens ?? [];
  if (extra && typeof extra === 'object' && !Array.isArray(extra)) extra = Object.values(extra);
  const allSpecial = [...new Set([...named, ...(Array.isArray(extra) ? extra.map(contentOf).filter(Boolean) : [])])];
  const addedDecoder = new Map(); // id → { content, lstrip, rstrip, singleWord }
  for (const [key, value] of Object.entries(config.added_tokens_decoder ?? {})) {
    const id = Number(key);
    const content = contentOf(value);
    if (!Number.isSafeInteger(id) || id < 0 || content === null)
      throw new Error(`tokenizer_config.json: added_tokens_decoder["${key}"] is not { content } of a token id`);
    addedDecoder.set(id, {
      content,
      lstrip: value.lstrip === true,
      rstrip: value.rstrip === true,
      singleWord: value.single_word === true,
    });
  }
  const addedEncoder = new Map([...addedDecoder].map(([id, t]) => [t.content, id]));
  // Special tokens not yet added: their vocab.json id, or the next id after the vocabulary (_add_tokens).
  const vocabSize = new Set([...encoder.keys(), ...addedEncoder.keys()]).size;
  let appended = 0;
  for (const content of allSpecial) {
    if (addedEncoder.has(content) || content === '') continue;
    const id = encoder.get(content) ?? vocabSize + appended++;
    addedDecoder.set(id, { content, lstrip: false, rstrip: false, singleWord: false });
    addedEncoder.set(content, id);
  }
  const trie = new AddedTokenTrie([...addedDecoder.values()].map((t) => t.content));
  const specialSet = new Set(allSpecial);
  // The model and vocabulary a text is cut by: the source's, or the target's for a target text
  // (_switch_to_target_mode).
  let model = source;
  let vocab = encoder;
  const tokenToId = (token) => addedEncoder.get(token) ?? vocab.get(token) ?? vocab.get(unk);
  const specialIds = new Set(allSpecial.map(tokenToId));
  const eos = contentOf(Object.hasOwn(config, 'eos_token') ? config.eos_token : MARIAN_DEFAULTS.eos_token);
  if (eos === null) throw new Error('tokenizer_config.json: no eos_token, which MarianTokenizer appends');
  const eosId = tokenToId(eos);
  const decodeModel = separate ? targetModel : source;

  // _tokenize: a language code (">>fra<<") off the front, the rest through the model.
  const cut = (text) => {
    const code = [];
    if (text.startsWith('>>')) {
      const end = text.indexOf('<<');
      if (end !== -1) {
        code.push(text.slice(0, end + 2));
        text = text.slice(end + 2);
      }
    }
    return [...code, ...model.get().encode(text)];
  };

  // PythonBackend.tokenize.
  const tokenize = (text) => {
    if (config.split_special_tokens === true) return cut(text);
    const parts = trie.split(text);
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i];
      if (!addedEncoder.has(part)) continue;
      const token = addedDecoder.get(addedEncoder.get(part));
      const left = i > 0 ? parts[i - 1] : null;
      const right = i < parts.length - 1 ? parts[i + 1] : null;
      if (token.rstrip && right) parts[i + 1] = lstrip(right);
      if (token.lstrip && left) parts[i - 1] = rstrip(left);
      if (token.singleWord) {
        if (left && !left.endsWith(' ')) {
          parts[i - 1] += part;
          parts[i] = '';
        } else if (right && !right.startsWith(' ')) {
          parts[i + 1] = part + parts[i + 1];
          parts[i] = '';
        }
      }
    }
    const tokens = [];
    for (const part of parts) {
      if (!part) continue;
      if (addedEncoder.has(part) || specialSet.has(part)) tokens.push(part);
      else tokens.push(...cut(part));
    }
    return tokens;
  };

  // _convert_id_to_token for decoding: the vocabulary's piece, else the decoding model's own.
  const idToToken = (id) => addedDecoder.get(id)?.content ?? decoder.get(id) ?? decodeModel.get().idToPiece(id);
  const validId = (id) => addedDecoder.has(id) || decoder.has(id) || (id >= 0 && id < decodeModel.size);
  const maxId = [...decoder.keys(), ...addedDecoder.keys()].reduce((m, id) => Math.max(m, id), decodeModel.size - 1);
  const idRange = `0 to ${maxId}, ${separate ? 'target_vocab.json' : 'vocab.json'}'s`;

  const specialTokens = withRoles(
    [...new Set(specialIds)].sort((a, b) => a - b).map((id) => Object.freeze({ id, token: idToToken(id) })),
    config,
    (text) => addedEncoder.get(text) ?? encoder.get(text),
    MARIAN_DEFAULTS,
  );

  return {
    specialTokens,
    /**
     * The input's ids (and tokens): the text's, the pair's, then </s> unless addSpecialTokens is false;
     * `target`: a text of the target language, as tokenizer(text_target=…) cuts it (target.spm, and
     * target_vocab.json with separate_vocabs), the decoder's labels.
     */
    encode(text, textPair, { addSpecialTokens = true, target = false } = {}) {
      [model, vocab] = target ? [targetModel, targetEncoder] : [source, encoder];
      try {
        const tokens = tokenize(text);
        if (textPair !== undefined && textPair !== null) tokens.push(...tokenize(textPair));
        const ids = tokens.map(tokenToId);
        if (addSpecialTokens) {
          ids.push(eosId);
          tokens.push(eos);
        }
        return { ids, typeIds: null, tokens };
      } finally {
        [model, vocab] = [source, encoder];
      }
    },
    /** The largest id each file can make encode() give, for checking them against the model's vocabulary. */
    largestIds: Object.freeze({
      'vocab.json': largest(encoder.values()),
      ...(separate ? { 'target_vocab.json': largest(targetEncoder.values()) } : {}),
      'tokenizer_config.json': largest(addedEncoder.values()),
    }),
    /** Whether `id` is one decode() takes, and which those are (for messages). */
    validId,
    idRange,
    /** The text of `ids` as MarianTokenizer.decode gives it; a RangeError names an id it has no token for. */
    decode(ids, { skipSpecialTokens = false } = {}) {
      const tokens = [];
      Array.from(ids).forEach((id, i) => {
        if (!Number.isInteger(id) || !validId(id))
          throw new ArgumentRangeError(`ids[${i}]: expected a token id of this tokenizer (${idRange}), got ${id}`);
        if (!(skipSpecialTokens && specialIds.has(id))) tokens.push(idToToken(id));
      });
      // convert_tokens_to_string: special tokens are not decoded by the SentencePiece model.
      let out = '';
      let run = [];
      for (const token of tokens)
        if (specialSet.has(token)) {
          out += `${decodeModel.get().decodePieces(run)}${token} `;
          run = [];
        } else run.push(token);
      out += decodeModel.get().decodePieces(run);
      out = lstrip(rstrip(out.replaceAll('\u2581', ' ')));
      if (config.clean_up_tokenization_spaces === true) out = cleanUpTokenization(out);
      return out;
    },
    /** The tokens of input ids, by the source vocabulary (an id it lacks as "[id]"). */
    pieces(ids) {
      return Array.from(ids, (id) => addedDecoder.get(id)?.content ?? sourceDecoder.get(id) ?? `[${id}]`);
    },
  };
}

// The largest of ids (-1 of none); not Math.max(...ids), which a vocabulary of 250,000 would overflow.
const largest = (ids) => {
  let max = -1;
  for (const id of ids) if (id > max) max = id;
  return max;
};

// PreTrainedTokenizerBase.clean_up_tokenization.
function cleanUpTokenization(text) {
  return text
    .replaceAll(' .', '.')
    .replaceAll(' ?', '?')
    .replaceAll(' !', '!')
    .replaceAll(' ,', ',')
    .replaceAll(" ' ", "'")
    .replaceAll(" n't", "n't")
    .replaceAll(" 'm", "'m")
    .replaceAll(" 's", "'s")
    .replaceAll(" 've", "'ve")
    .replaceAll(" 're", "'re");
}
