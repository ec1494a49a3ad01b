// A checkpoint's tokenizer: tokenizer.json as the Hub ships it, or, for a
// BERT folder with only vocab.txt, the WordPiece tokenizer that
// BertTokenizer builds from it, both run by @huggingface/tokenizers; for a
// Marian folder (source.spm, no tokenizer.json), MarianTokenizer's
// (marian.mjs, on sentencepiece.mjs). Each runs where the platform's host
// puts it (a worker, bounded in time: bounded-host.mjs); here, on the
// calling thread, only what needs no library: its ids checked against the
// model, and each call's input against what its growth allows.
// Also the readable pieces the page shows: byte-level BPE (GPT-2, RoBERTa)
// stores a CJK character as pieces of its UTF-8 bytes, which are shown as
// that character, numbered.
import { describe, rejectUnknown } from '../../checks.mjs';
import { parseJsonObject } from '../read-file.mjs';
import { MarianFiles, createMarianTokenizer } from './marian.mjs';
import { ArgumentRangeError, ArgumentTypeError } from '../../errors.mjs';
import { roleDefaults, withRoles } from './special-roles.mjs';
import { tokenizerKind } from '../checkpoint-files.mjs';
import { wordPieceRule } from './word-offsets.mjs';
import { pieceRule } from './piece-offsets.mjs';

// GPT-2's bytes_to_unicode: printable bytes stand for themselves, the other
// 68 are shifted to U+0100…; the inverse turns a byte-level piece into bytes.
const BYTE_OF_CHAR = (() => {
  const map = new Map();
  let shifted = 0;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
    map.set(String.fromCodePoint(printable ? b : 256 + shifted++), b);
  }
  return map;
})();
const SUBSCRIPTS = '₀₁₂₃₄₅₆₇₈₉';
const subscript = (n) => [...String(n)].map((d) => SUBSCRIPTS[d]).join('');
let strict; // made when first needed: the module also loads where TextDecoder is not (a bundle's first run)

function decodes(bytes) {
  try {
    strict ??= new TextDecoder('utf-8', { fatal: true });
    return strict.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Whether a tokenizer.json uses byte-level pieces (its pre-tokenizer or decoder is ByteLevel). */
function isByteLevel(json) {
  const has = (part) =>
    part?.type === 'ByteLevel' ||
    (Array.isArray(part?.pretokenizers ?? part?.decoders) && (part.pretokenizers ?? part.decoders).some(has));
  return has(json.pre_tokenizer) || has(json.decoder);
}

/** A byte-level BPE piece's bytes (GPT-2's bytes_to_unicode inverted), or undefined. */
function byteLevelBytes(piece) {
  const out = [];
  for (const ch of piece) {
    const b = BYTE_OF_CHAR.get(ch);
    if (b === undefined) return undefined;
    out.push(b);
  }
  return Uint8Array.from(out);
}

/** A byte-fallback piece's byte (<0xE6>), or undefined for any other piece. */
export function byteFallbackBytes(piece) {
  const m = /^<0x([0-9A-Fa-f]{2})>$/.exec(piece);
  return m ? Uint8Array.of(parseInt(m[1], 16)) : undefined;
}

/**
 * Readable pieces of byte-level tokens (tests/fixtures/models/README.md has
 * the rule): a piece whose bytes are whole UTF-8 characters shows them
 * ("Ġsnake" → " snake"). A run of pieces that are not is decoded as one byte
 * string, left to right: a complete UTF-8 sequence is a character, any other
 * byte shows as <0xHH>; each piece shows the characters it overlaps, plain if
 * wholly inside it, else with the piece's place in that character ("毒₁",
 * "毒₂", "毒₃"). `special`: pieces shown as they are (added tokens such as <s>).
 * `bytesOf(piece)`: its bytes, or undefined for a piece that is not bytes
 * (byte-level BPE's by default; byteFallbackBytes for SentencePiece's
 * <0xHH> pieces, Llama 2's byte fallback).
 */
export function readableBytePieces(pieces, special = new Set(), bytesOf = byteLevelBytes) {
  const bytes = pieces.map((piece) => (special.has(piece) ? undefined : bytesOf(piece)));
  const whole = bytes.map((b) => b && decodes(b));
  const shown = pieces.map((piece, i) => (bytes[i] ? whole[i] : piece));
  for (let i = 0; i < pieces.length;) {
    if (!bytes[i] || whole[i] !== undefined) {
      i++;
      continue;
    }
    let end = i;
    while (end < pieces.length && bytes[end] && whole[end] === undefined) end++;
    // The run's bytes, and the piece each byte came from.
    const run = [];
    const owner = [];
    for (let k = i; k < end; k++)
      for (const b of bytes[k]) {
        run.push(b);
        owner.push(k);
      }
    const units = []; // { text, first, last } byte ranges [first, last]
    for (let p = 0; p < run.length;) {
      const lead = run[p];
      const size = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
      const text = p + size <= run.length ? decodes(Uint8Array.from(run.slice(p, p + size))) : undefined;
      if (text !== undefined && text !== '\uFFFD') {
        units.push({ text, first: p, last: p + size - 1 });
        p += size;
      } else {
        units.push({ text: `<0x${lead.toString(16).toUpperCase().padStart(2, '0')}>`, first: p, last: p });
        p++;
      }
    }
    for (let k = i; k < end; k++) shown[k] = '';
    for (const unit of units) {
      const from = owner[unit.first];
      const to = owner[unit.last];
      for (let k = from; k <= to; k++) shown[k] += from === to ? unit.text : `${unit.text}${subscript(k - from + 1)}`;
    }
    i = end;
  }
  return shown;
}

// The tokenizer.json that BertTokenizer amounts to, from vocab.txt (one token
// per line, the line number is its id) and tokenizer_config.json.
function wordPieceJson(vocabText, config) {
  const vocab = Object.create(null); // a line such as __proto__ is a token like any other
  // A line repeated: the last id wins, as transformers' load_vocab keeps it.
  vocabText.split(/\r?\n/).forEach((token, id) => {
    if (token !== '') vocab[token] = id;
  });
  // A special token of tokenizer_config.json: a string or { content }, else the BERT default.
  const special = (name, fallback) => {
    const value = config[name];
    const text = value && typeof value === 'object' ? value.content : value;
    return typeof text === 'string' ? text : fallback;
  };
  const [cls, sep, unk, pad, mask] = [
    special('cls_token', '[CLS]'),
    special('sep_token', '[SEP]'),
    special('unk_token', '[UNK]'),
    special('pad_token', '[PAD]'),
    special('mask_token', '[MASK]'),
  ];
  for (const token of [cls, sep, unk])
    if (!Object.hasOwn(vocab, token)) throw new Error(`vocab.txt: no ${token} token, which BERT's tokenizer needs`);
  const lowercase = config.do_lower_case ?? true;
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [cls, sep, unk, pad, mask]
      .filter((t) => Object.hasOwn(vocab, t))
      .map((content) => specialAddedToken(vocab[content], content)),
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: config.tokenize_chinese_chars ?? true,
      strip_accents: config.strip_accents ?? null,
      lowercase,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [
        { SpecialToken: { id: cls, type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: sep, type_id: 0 } },
      ],
      pair: [
        { SpecialToken: { id: cls, type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: sep, type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: sep, type_id: 1 } },
      ],
      special_tokens: Object.fromEntries([cls, sep].map((t) => [t, { id: t, ids: [vocab[t]], tokens: [t] }])),
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: unk,
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab,
    },
  };
}

/** id → token of a tokenizer.json's object: its model's vocabulary, then its added tokens (what id_to_token gives). */
function tokensById(json) {
  const byId = new Map();
  const vocab = json.model?.vocab;
  if (Array.isArray(vocab)) vocab.forEach((entry, id) => Array.isArray(entry) && byId.set(id, String(entry[0])));
  else if (vocab && typeof vocab === 'object')
    for (const [token, id] of Object.entries(vocab)) if (Number.isInteger(id)) byId.set(id, token);
  for (const t of json.added_tokens ?? [])
    if (t && Number.isInteger(t.id) && typeof t.content === 'string') byId.set(t.id, t.content);
  return byId;
}

const DECODE_OPTIONS = new Set(['skipSpecialTokens']);

/**
 * decode's arguments checked: `ids` an array (or typed array) of token ids
 * that `validId` takes, `options` { skipSpecialTokens }. Returns the ids as
 * a plain array.
 */
function decodeArguments(ids, options, validId, range) {
  if (!Array.isArray(ids) && !(ArrayBuffer.isView(ids) && !(ids instanceof DataView)))
    throw new ArgumentTypeError(`ids: expected an array of token ids, got ${describe(ids)}`);
  const list = Array.from(ids);
  list.forEach((id, i) => {
    if (typeof id !== 'number' || !Number.isInteger(id))
      throw new ArgumentTypeError(`ids[${i}]: expected an integer token id, got ${describe(id)}`);
    if (!validId(id))
      throw new ArgumentRangeError(`ids[${i}]: expected a token id of this tokenizer (${range}), got ${id}`);
  });
  if (options !== undefined) {
    if (!options || typeof options !== 'object')
      throw new ArgumentTypeError(`decode options: expected { skipSpecialTokens }, got ${describe(options)}`);
    rejectUnknown(options, DECODE_OPTIONS, 'decode');
    if (options.skipSpecialTokens !== undefined && typeof options.skipSpecialTokens !== 'boolean')
      throw new ArgumentTypeError(`skipSpecialTokens: expected a boolean, got ${describe(options.skipSpecialTokens)}`);
  }
  return [list, { skipSpecialTokens: options?.skipSpecialTokens ?? false }];
}

// The most UTF-16 units a call may make: a text times its tokenizer's growth
// (check.mjs) when encoding, the ids' longest tokens when decoding. A
// browser's worker that runs out of memory takes the page with it, so a
// call that could is refused before it is sent.
export const MAX_TEXT_UNITS = 1 << 22;
export const MAX_DECODED_UNITS = 1 << 24;

/**
 * `runner`'s encode and decode, each refusing an input that its growth (a
 * host's, from check.mjs) could make longer than the bounds above; `file`
 * for messages, `longestToken`: the longest token's length (null: decode
 * unbounded here).
 */
function boundedCalls(runner, file, longestToken) {
  const { encode: grow, decode: shrink } = runner.growth ?? {};
  const maxText = grow ? Math.floor((MAX_TEXT_UNITS - grow.extra) / grow.factor) : Infinity;
  const maxIds =
    shrink && longestToken !== null
      ? Math.floor(MAX_DECODED_UNITS / (shrink.factor * Math.max(1, longestToken) + shrink.extra + 1))
      : Infinity;
  const tooLong = (name, text) => {
    if (typeof text === 'string' && text.length > maxText)
      throw new ArgumentRangeError(
        `${name}: ${text.length} characters, more than the ${maxText} that ${file}'s tokenizer reads at once ` +
          `(it can grow a text up to ${grow.factor} times)`,
      );
  };
  return {
    encode: async (text, textPair, options) => {
      tooLong('input.text', text);
      tooLong('input.textPair', textPair);
      return runner.encode(text, textPair, options);
    },
    decode: async (ids, options) => {
      if (ids.length > maxIds)
        throw new ArgumentRangeError(
          `ids: ${ids.length} ids, more than the ${maxIds} that ${file}'s tokenizer decodes at once`,
        );
      return runner.decode(ids, options);
    },
  };
}

/**
 * Every id the tokenizer of tokenizer.json's object `json` can give — its
 * vocabulary's, its added tokens', its post-processor's special tokens' —
 * is a token of the model (an integer from 0 to vocabSize − 1), and the
 * unknown token it falls back to is in its vocabulary: an Error naming
 * `file` and the entry otherwise (an id of 2^32 + 5 or 5.5 once ran as row
 * 5; an unk_token missing from the vocabulary once gave id 0).
 */
function checkIds(json, file, vocabSize) {
  const model = `(0 to ${vocabSize - 1}, config.json's vocab_size)`;
  const check = (id, where) => {
    if (!Number.isInteger(id) || id < 0 || id >= vocabSize)
      throw new Error(
        `${file}: ${where} has id ${typeof id === 'number' ? id : describe(id)}, not a token of the model ${model}`,
      );
  };
  const { vocab, unk_token: unk, unk_id: unkId, type } = json.model;
  if (Array.isArray(vocab)) {
    // Unigram: the pieces are ids 0…n−1.
    if (vocab.length > vocabSize)
      throw new Error(`${file}: model.vocab has ${vocab.length} pieces, more than the model's ${vocabSize} ${model}`);
    if (unkId !== undefined && unkId !== null && !(Number.isInteger(unkId) && unkId >= 0 && unkId < vocab.length))
      throw new Error(`${file}: model.unk_id ${describe(unkId)} is not one of its ${vocab.length} pieces`);
  } else if (vocab && typeof vocab === 'object') {
    for (const [token, id] of Object.entries(vocab))
      check(
        id,
        file === 'vocab.txt' ? `line ${id + 1} (${JSON.stringify(token)})` : `model.vocab[${JSON.stringify(token)}]`,
      );
    // WordPiece and WordLevel give the unknown token for a word they cannot cut; a BPE names one or none.
    const needsUnk = type === 'WordPiece' || type === 'WordLevel';
    if ((needsUnk || (unk !== undefined && unk !== null)) && !(typeof unk === 'string' && Object.hasOwn(vocab, unk)))
      throw new Error(
        `${file}: model.unk_token ${typeof unk === 'string' ? JSON.stringify(unk) : describe(unk)} is not in ` +
          'model.vocab, so an unknown word would have no id',
      );
  } else throw new Error(`${file}: model.vocab is ${describe(vocab)}, not a vocabulary`);
  (json.added_tokens ?? []).forEach((t, i) => check(t?.id, `added_tokens[${i}] (${JSON.stringify(t?.content)})`));
  const processor = (part, where) => {
    if (!part || typeof part !== 'object') return;
    if (part.type === 'Sequence') (part.processors ?? []).forEach((p, i) => processor(p, `${where}.processors[${i}]`));
    for (const name of ['cls', 'sep']) if (Array.isArray(part[name])) check(part[name][1], `${where}.${name}`);
    for (const [token, special] of Object.entries(part.special_tokens ?? {}))
      (special?.ids ?? []).forEach((id, i) => check(id, `${where}.special_tokens[${JSON.stringify(token)}].ids[${i}]`));
  };
  processor(json.post_processor, 'post_processor');
}

// A Marian folder's tokenizer: checked here (every file's Error names it), run by the host.
async function marianTokenizer(files, config, host, vocabSize) {
  const marian = createMarianTokenizer(files, config);
  if (vocabSize !== undefined)
    for (const [file, id] of Object.entries(marian.largestIds))
      if (id >= vocabSize)
        throw new Error(
          `${file}: id ${id}, not a token of the model (0 to ${vocabSize - 1}, config.json's vocab_size)`,
        );
  const runner = await host(new MarianFiles(files), config, 'source.spm');
  const calls = boundedCalls(runner, 'source.spm', null);
  return {
    file: 'source.spm',
    paddingSide: paddingSide(config),
    specialTokens: marian.specialTokens,
    // options: { addSpecialTokens, target } (target: a text of the target language, cut by target.spm).
    encode: calls.encode,
    decode: async (ids, options) => calls.decode(...decodeArguments(ids, options, marian.validId, marian.idRange)),
    pieces: (inputIds) => marian.pieces(inputIds),
    dispose: () => runner.dispose(),
  };
}

/** Where a folder's chat template is (a GGUF file's: formats/gguf/checkpoint.mjs). */
const CHAT_TEMPLATE_SOURCE = Object.freeze({ file: 'tokenizer_config.json', field: 'chat_template' });

/**
 * The folder's tokenizer, or null when it has none of tokenizer.json,
 * source.spm (Marian's) and vocab.txt: { encode(text, textPair, {
 * addSpecialTokens, maxLength }) → Promise<{ ids, typeIds }> (maxLength:
 * truncated to it, encode.mjs), decode(ids, { skipSpecialTokens }) →
 * Promise<text>, pieces(ids) → readable strings, paddingSide,
 * specialTokens: [{ id, token }] with its roles (special-roles.mjs), render(chat) (its
 * chat template, chat-render.mjs), chatTemplate ({ file, field } where that
 * template is, null: none), dispose() }. `files`: { 'tokenizer.json'?,
 * 'tokenizer_config.json'?, 'chat_template.jinja'?, 'vocab.txt'?, 'vocab.json'?,
 * 'target_vocab.json'? } as texts, { 'source.spm'?, 'target.spm'? } as
 * bytes. `host(json, config, file)`: where it runs and is checked (the
 * platform's: node-host.mjs in Node, bounded-host.mjs through browser.mjs in
 * browsers; in-thread-host.mjs for tests). `vocabSize`: config.json's, which
 * every id the tokenizer can give must be below.
 */
export async function createTokenizer(files, host, { vocabSize, chatTemplateSource = CHAT_TEMPLATE_SOURCE } = {}) {
  const parse = (name) => parseJsonObject(name, files[name]);
  // The kind the loader chose the files for (checkpoint-files.mjs: the one rule).
  const kind = tokenizerKind((name) => files[name] !== undefined)?.kind;
  if (!kind) return null;
  const json = kind === 'tokenizer.json' ? parse('tokenizer.json') : null;
  let config = files['tokenizer_config.json'] !== undefined ? parse('tokenizer_config.json') : {};
  // transformers takes a chat_template.jinja before tokenizer_config.json's chat_template.
  if (typeof files['chat_template.jinja'] === 'string') {
    config = { ...config, chat_template: files['chat_template.jinja'] };
    chatTemplateSource = { file: 'chat_template.jinja', field: 'the template' };
  }
  if (kind === 'marian') return marianTokenizer(files, config, host, vocabSize);
  const tokenizer = await jsonTokenizer(
    json ?? wordPieceJson(files['vocab.txt'], config),
    kind === 'wordpiece' ? 'vocab.txt' : 'tokenizer.json',
    config,
    host,
    vocabSize,
  );
  const stored = config.chat_template;
  // Where its chat template is (null: none), and the host's rendering of it (tokenizers/chat-render.mjs).
  tokenizer.chatTemplate = typeof stored === 'string' || Array.isArray(stored) ? chatTemplateSource : null;
  return tokenizer;
}

// A tokenizer.json's tokenizer (or the one BertTokenizer makes of a vocab.txt): checked here, run by the host.
async function jsonTokenizer(json, file, config, host, vocabSize) {
  if (!json.model || typeof json.model !== 'object') throw new Error(`${file}: model is missing; refused`);
  if (vocabSize !== undefined) checkIds(json, file, vocabSize);
  // Checked (check.mjs) where it runs, with the tokenizers library's own regex compiler.
  const runner = await host(json, config, file);
  const byteLevel = isByteLevel(json);
  const byteFallback = json.model?.byte_fallback === true;
  const byId = tokensById(json);
  let maxId = -1; // not Math.max(...): 250,000 arguments
  let longestToken = 0;
  for (const [id, token] of byId) {
    maxId = Math.max(maxId, id);
    longestToken = Math.max(longestToken, token.length);
  }
  const calls = boundedCalls(runner, file, longestToken);
  const special = new Set((json.added_tokens ?? []).map((t) => t.content));
  // The tokenizer's own special tokens ([CLS], <s>, <|endoftext|> …): its
  // added tokens marked special, by id (valid ids only, each once).
  const specialTokens = [];
  for (const t of json.added_tokens ?? [])
    if (t && t.special === true && Number.isInteger(t.id) && t.id >= 0 && typeof t.content === 'string')
      if (!specialTokens.some((s) => s.id === t.id)) specialTokens.push(Object.freeze({ id: t.id, token: t.content }));
  specialTokens.sort((a, b) => a.id - b.id);
  // By role (tokenizer_config.json's *_token), their ids as the tokenizer has them: an added token's, else the vocabulary's.
  const added = new Map((json.added_tokens ?? []).filter((t) => Number.isInteger(t?.id)).map((t) => [t.content, t.id]));
  let vocab; // token → id, made when a role is not an added token
  const idOf = (text) => added.get(text) ?? (vocab ??= new Map([...byId].map(([id, t]) => [t, id]))).get(text);
  return {
    file, // the file it was made from, for messages
    paddingSide: paddingSide(config),
    wordPieces: wordPieceRule(json), // BERT's WordPiece: token offsets and the decoder (word-offsets.mjs), else null
    // Byte-level BPE's and SentencePiece-style pieces' offsets (piece-offsets.mjs), else null.
    pieceOffsets: pieceRule(json, byteLevelBytes),
    /** Each id's token as the vocabulary writes it (Ġsnake, ▁the, ##s, <0xE6>), for the offsets. */
    tokenStrings: (ids) => Array.from(ids, (id) => byId.get(id) ?? ''),
    specialTokens: withRoles(specialTokens, config, idOf, roleDefaults(config, file)),
    // addSpecialTokens false: the text alone ([CLS], <s>, [SEP] … not added), as a decoder's step continues one.
    encode: calls.encode,
    decode: async (ids, options) =>
      calls.decode(...decodeArguments(ids, options, (id) => byId.has(id), `${file}'s, 0 to ${maxId}`)),
    pieces(ids) {
      const pieces = Array.from(ids, (id) => byId.get(id) ?? `[${id}]`);
      if (byteLevel) return readableBytePieces(pieces, special);
      return byteFallback ? readableBytePieces(pieces, special, byteFallbackBytes) : pieces;
    },
    render: (chat) => runner.render(chat),
    dispose: () => runner.dispose(),
  };
}

/** Where padding goes: tokenizer_config.json's padding_side ('right', transformers' default, or 'left'). */
const paddingSide = (config) => (config.padding_side === 'left' ? 'left' : 'right');

/** A special token of a tokenizer.json's added_tokens, as transformers' converters write one. */
export function specialAddedToken(id, content) {
  return { id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true };
}
