// SentencePiece (google/sentencepiece) unigram models: the model file (.spm,
// .model: a protobuf ModelProto) read by a strict reader of the fields used,
// and its encoding and decoding ported from sentencepiece's C++ (0.2:
// normalizer.cc Normalize, unigram_model.cc EncodeOptimized,
// sentencepiece_processor.cc PopulateSentencePieceText and Decode), so that a
// text gets exactly the pieces sentencepiece gives it, near ties included:
// the path scores' float32 arithmetic and the user-defined pieces' score are
// sentencepiece 0.2.2's (what transformers' references run on), measured on
// crafted models where its source and 0.2.2 part (encode() says how).
//
// Ported rather than built as a tokenizer.json for @huggingface/tokenizers
// (what transformers' SpmConverter would make): that package's Precompiled
// normalizer (0.2) ignores precompiled_charsmap and applies
// String.prototype.normalize('NFKC') with a few replacements, which is not
// nmt_nfkc (a different Unicode version, nmt's own rules, nmt_nfkc_cf's case
// folding, a custom map); its Unigram also puts control pieces (<s>, </s>) in
// the lattice, where sentencepiece never matches them, and sums path scores
// in float64 where sentencepiece keeps float32. The npm builds of
// sentencepiece itself (sentencepiece-js and its forks) are 4 MB of
// Emscripten output that read the model with node:fs.
//
// The file is untrusted: every length is checked against what is left, a
// varint is at most 10 bytes, a file holds at most MAX_PIECES pieces, a
// character map's indices are checked before use, and the normalized text may
// grow at most MAX_GROWTH times; each problem is an Error naming the file.
import { ArgumentRangeError, ArgumentTypeError } from '../../errors.mjs';

/** The most pieces a model may have (real ones: 8,000 to 256,000). */
export const MAX_PIECES = 1 << 20;
/** The most bytes the normalizer may make of each byte of text (nmt_nfkc: 13, for U+FDFA). */
export const MAX_GROWTH = 64;

// ModelProto.SentencePiece.Type.
export const PIECE_TYPES = Object.freeze({ NORMAL: 1, UNKNOWN: 2, CONTROL: 3, USER_DEFINED: 4, UNUSED: 5, BYTE: 6 });
const MODEL_TYPES = { 1: 'UNIGRAM', 2: 'BPE', 3: 'WORD', 4: 'CHAR' };
const FLT_MAX = 3.4028234663852886e38;
const UNK_PENALTY = 10; // unigram_model.cc kUnkPenalty
const SPACE = 0x20;
const SPACE_SYMBOL = [0xe2, 0x96, 0x81]; // U+2581, which stands for a space in pieces
const REPLACEMENT = Uint8Array.of(0xef, 0xbf, 0xbd); // U+FFFD
const MAX_TRIE_RESULTS = 32; // normalizer.h kMaxTrieResultsSize
const fround = Math.fround;
// Made when first used: the module also loads where TextDecoder is not (a bundle's first run in a bare VM).
let codecs;
const coders = () =>
  (codecs ??= {
    strict: new TextDecoder('utf-8', { fatal: true }),
    lenient: new TextDecoder(), // for bytes known to be UTF-8
    encoder: new TextEncoder(),
  });
const strictUtf8 = { decode: (bytes) => coders().strict.decode(bytes) };
const lenientUtf8 = { decode: (bytes) => coders().lenient.decode(bytes) };
const utf8 = { encode: (text) => coders().encoder.encode(text) };

// ---- The protobuf reader --------------------------------------------------

// Wire types: 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32.
const WIRE = { varint: 0, fixed64: 1, bytes: 2, fixed32: 5 };

class ProtoReader {
  constructor(bytes, begin, end, fail) {
    this.bytes = bytes;
    this.pos = begin;
    this.end = end;
    this.fail = fail;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  // A varint as its low and high 32 bits (an int32 field's -1 is ten bytes of 64-bit two's complement).
  varint() {
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) this.fail(`ends inside a varint at byte ${this.pos}`);
      const b = this.bytes[this.pos++];
      const bits = b & 0x7f;
      if (i < 4) lo |= bits << (7 * i);
      else if (i === 4) {
        lo |= (bits & 0x0f) << 28;
        hi |= bits >> 4;
      } else hi |= bits << (7 * i - 32);
      if (!(b & 0x80)) return { lo: lo >>> 0, hi: hi >>> 0 };
    }
    return this.fail(`has a varint of more than 10 bytes at byte ${this.pos - 10}`);
  }

  // A varint read as a length or a field key: a count of bytes, at most 2^53.
  uint() {
    const { lo, hi } = this.varint();
    return hi * 2 ** 32 + lo;
  }

  // The [begin, end) of a length-delimited field's bytes, which must be inside this message.
  span(what) {
    const length = this.uint();
    if (length > this.end - this.pos)
      this.fail(`${what} claims ${length} bytes at byte ${this.pos}, past the end of its message (${this.end})`);
    const begin = this.pos;
    this.pos += length;
    return [begin, this.pos];
  }

  fixed32Float() {
    if (this.end - this.pos < 4) this.fail(`ends inside a 4-byte field at byte ${this.pos}`);
    const value = this.view.getFloat32(this.pos, true);
    this.pos += 4;
    return value;
  }

  skip(wire, what) {
    if (wire === WIRE.varint) this.varint();
    else if (wire === WIRE.bytes) this.span(what);
    else {
      const size = wire === WIRE.fixed64 ? 8 : 4;
      if (this.end - this.pos < size) this.fail(`ends inside ${what} at byte ${this.pos}`);
      this.pos += size;
    }
  }
}

/**
 * Reads one message from `r` (up to r.end): `fields` maps a field number to
 * [wire type, (r, begin, end) or (r) => void]; other fields are skipped (as
 * protobuf does), a known field with another wire type, a group or a wire
 * type protobuf does not have is an error.
 */
function readMessage(r, fields, where) {
  while (r.pos < r.end) {
    const at = r.pos;
    const key = r.uint();
    const number = Math.floor(key / 8);
    const wire = key % 8;
    if (number === 0 || number >= 2 ** 29) r.fail(`${where}: field number ${number} at byte ${at}, not a valid one`);
    if (wire === 3 || wire === 4)
      r.fail(`${where}: a group (wire type ${wire}) at byte ${at}, which a SentencePiece model never has`);
    if (wire === 6 || wire === 7) r.fail(`${where}: wire type ${wire} at byte ${at}, which protobuf does not have`);
    const field = fields[number];
    if (!field) {
      r.skip(wire, `${where} field ${number}`);
      continue;
    }
    const [expected, read] = field;
    if (wire !== expected)
      r.fail(`${where}: field ${number} has wire type ${wire} at byte ${at}, expected ${expected}`);
    if (wire === WIRE.bytes) {
      const [begin, end] = r.span(`${where} field ${number}`);
      read(r, begin, end);
    } else read(r);
  }
}

const string = (r, begin, end, what) => {
  try {
    return strictUtf8.decode(r.bytes.subarray(begin, end));
  } catch {
    return r.fail(`${what} is not valid UTF-8`);
  }
};
const bool = (r) => {
  const { lo, hi } = r.varint();
  return (lo | hi) !== 0;
};
const int32 = (r) => r.varint().lo | 0;
// A nested message read by `fields` (a second occurrence merges into the first, as protobuf does);
// `where` names it in errors (a function: made only when needed).
const nested = (fields, where) => (r, begin, end) => {
  const outer = r.end;
  r.end = end;
  r.pos = begin;
  readMessage(r, fields, typeof where === 'function' ? where() : where);
  r.end = outer;
};

function normalizerFields(spec, where) {
  return {
    1: [WIRE.bytes, (r, b, e) => (spec.name = string(r, b, e, `${where}.name`))],
    2: [WIRE.bytes, (r, b, e) => (spec.precompiledCharsmap = r.bytes.slice(b, e))],
    3: [WIRE.varint, (r) => (spec.addDummyPrefix = bool(r))],
    4: [WIRE.varint, (r) => (spec.removeExtraWhitespaces = bool(r))],
    5: [WIRE.varint, (r) => (spec.escapeWhitespaces = bool(r))],
  };
}

const defaultNormalizer = () => ({
  name: '',
  precompiledCharsmap: new Uint8Array(0),
  addDummyPrefix: true,
  removeExtraWhitespaces: true,
  escapeWhitespaces: true,
});

/**
 * The fields of a SentencePiece model file (`bytes`) that encoding and
 * decoding use: { pieces: [{ piece, score, type }], normalizer: { name,
 * precompiledCharsmap, addDummyPrefix, removeExtraWhitespaces,
 * escapeWhitespaces }, denormalizer (the same, or null), trainer: {
 * modelType, byteFallback, treatWhitespaceAsSuffix, unkSurface, unkId } },
 * checked as sentencepiece checks a model it loads (ModelInterface's
 * InitializePieces): an Error naming `file` when it is not one.
 */
export function readSentencePieceModel(bytes, file) {
  const fail = (problem) => {
    throw new Error(`${file}: ${problem}; not a SentencePiece model this package reads`);
  };
  if (!(bytes instanceof Uint8Array)) throw new ArgumentTypeError(`${file}: expected the file's bytes as a Uint8Array`);
  if (bytes.length === 0) fail('the file is empty');
  const r = new ProtoReader(bytes, 0, bytes.length, fail);
  const pieces = [];
  const trainer = {
    modelType: 1,
    byteFallback: false,
    treatWhitespaceAsSuffix: false,
    unkSurface: ' \u2047 ',
  };
  const normalizer = defaultNormalizer();
  let denormalizer = null;
  let piece; // the piece being read (one set of fields for all: a model has 250,000 pieces)
  const readPiece = nested(
    {
      1: [WIRE.bytes, (r2, b, e) => (piece.piece = string(r2, b, e, `piece ${pieces.length - 1}`))],
      2: [WIRE.fixed32, (r2) => (piece.score = r2.fixed32Float())],
      3: [WIRE.varint, (r2) => (piece.type = int32(r2))],
    },
    () => `piece ${pieces.length - 1}`,
  );
  const trainerFields = {
    3: [WIRE.varint, (r2) => (trainer.modelType = int32(r2))],
    24: [WIRE.varint, (r2) => (trainer.treatWhitespaceAsSuffix = bool(r2))],
    35: [WIRE.varint, (r2) => (trainer.byteFallback = bool(r2))],
    44: [WIRE.bytes, (r2, b, e) => (trainer.unkSurface = string(r2, b, e, 'trainer_spec.unk_surface'))],
  };
  readMessage(
    r,
    {
      1: [
        WIRE.bytes,
        (r2, b, e) => {
          if (pieces.length >= MAX_PIECES) fail(`more than ${MAX_PIECES} pieces`);
          piece = { piece: '', score: 0, type: PIECE_TYPES.NORMAL };
          pieces.push(piece);
          readPiece(r2, b, e);
        },
      ],
      2: [WIRE.bytes, nested(trainerFields, 'trainer_spec')],
      3: [WIRE.bytes, nested(normalizerFields(normalizer, 'normalizer_spec'), 'normalizer_spec')],
      5: [
        WIRE.bytes,
        (r2, b, e) => {
          denormalizer ??= defaultNormalizer();
          nested(normalizerFields(denormalizer, 'denormalizer_spec'), 'denormalizer_spec')(r2, b, e);
        },
      ],
    },
    'ModelProto',
  );

  const modelType = MODEL_TYPES[trainer.modelType];
  if (modelType === undefined) fail(`trainer_spec.model_type is ${trainer.modelType}, not a model type`);
  if (modelType !== 'UNIGRAM')
    fail(`a ${modelType} model (trainer_spec.model_type ${trainer.modelType}): only unigram models are read`);
  // InitializePieces' checks.
  if (pieces.length === 0) fail('no pieces');
  const normal = new Set();
  const reserved = new Set();
  const bytesFound = new Set();
  let unkId = -1;
  pieces.forEach(({ piece, type }, id) => {
    if (!Object.values(PIECE_TYPES).includes(type)) fail(`piece ${id} has type ${type}, not a piece type`);
    if (piece === '') fail(`piece ${id} is empty`);
    const isNormal = type === PIECE_TYPES.NORMAL || type === PIECE_TYPES.USER_DEFINED || type === PIECE_TYPES.UNUSED;
    const set = isNormal ? normal : reserved;
    if (set.has(piece)) fail(`piece ${id} ${JSON.stringify(piece)} is already defined`);
    set.add(piece);
    if (type === PIECE_TYPES.UNKNOWN) {
      if (unkId >= 0) fail(`piece ${id} is a second unknown piece (the first is ${unkId})`);
      unkId = id;
    }
    if (type === PIECE_TYPES.BYTE) {
      if (!trainer.byteFallback) fail(`piece ${id} is a byte piece, though trainer_spec.byte_fallback is false`);
      const byte = pieceToByte(piece);
      if (byte < 0) fail(`byte piece ${id} ${JSON.stringify(piece)} is not <0x00> to <0xFF>`);
      bytesFound.add(byte);
    }
  });
  if (unkId < 0) fail('no unknown piece (of type UNKNOWN)');
  if (trainer.byteFallback && bytesFound.size !== 256)
    fail(`${bytesFound.size} byte pieces, though trainer_spec.byte_fallback needs all 256`);
  if (normal.size === 0) fail('no pieces to encode with (all are control, unknown or byte pieces)');
  trainer.unkId = unkId;
  for (const spec of [normalizer, denormalizer]) if (spec) checkCharsmap(spec.precompiledCharsmap, fail);
  return { pieces, normalizer, denormalizer, trainer };
}

const BYTE_PIECE = /^<0x([0-9A-F]{2})>$/;
/** The byte a piece <0xHH> stands for, or -1 (model_interface.cc PieceToByte). */
function pieceToByte(piece) {
  const m = BYTE_PIECE.exec(piece);
  return m ? parseInt(m[1], 16) : -1;
}

// ---- The normalizer ---------------------------------------------------------

// precompiled_charsmap: <the trie's size, uint32 little-endian><a darts-clone
// double array of uint32 units><the normalized strings, each ended by NUL>
// (normalizer.cc DecodePrecompiledCharsMap).
function checkCharsmap(blob, fail) {
  if (blob.length === 0) return;
  if (blob.length <= 4) fail(`a precompiled_charsmap of ${blob.length} bytes, too short for its header`);
  const trieSize = new DataView(blob.buffer, blob.byteOffset, 4).getUint32(0, true);
  if (trieSize > blob.length - 4)
    fail(`the precompiled_charsmap's trie claims ${trieSize} bytes, more than the ${blob.length - 4} it has`);
}

function parseCharsmap(blob) {
  if (blob.length === 0) return null;
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  const trieSize = view.getUint32(0, true);
  const units = new Uint32Array(Math.floor(trieSize / 4));
  for (let i = 0; i < units.length; i++) units[i] = view.getUint32(4 + 4 * i, true);
  return { units, strings: blob.subarray(4 + trieSize), cache: new Map() };
}

/**
 * The longest key of a darts-clone double array (`units`) that is a prefix of
 * bytes[pos, end) among its first `max` matches: [length, value], or [0, 0].
 * A unit index past the array (a damaged map) is `damaged()`.
 */
function longestPrefix(units, bytes, pos, end, max, damaged) {
  const unit = (i) => (i < units.length ? units[i] : damaged());
  const offset = (u) => (u >>> 10) << ((u & (1 << 9)) >>> 6);
  let node = offset(unit(0));
  let found = 0;
  let bestLength = 0;
  let bestValue = 0;
  for (let i = pos; i < end; i++) {
    node = (node ^ bytes[i]) >>> 0;
    const u = unit(node);
    if ((u & 0x800000ff) >>> 0 !== bytes[i]) break; // label() != key[i]
    node = (node ^ offset(u)) >>> 0;
    if ((u >>> 8) & 1) {
      // has_leaf(): the value is in the unit the offset leads to.
      if (found++ < max && i + 1 - pos > bestLength) {
        bestLength = i + 1 - pos;
        bestValue = unit(node) & 0x7fffffff;
      }
    }
  }
  return [bestLength, bestValue];
}

/** Bytes of text, appended to with a bound on the total. */
class ByteSink {
  constructor(limit, tooLong) {
    this.bytes = new Uint8Array(64);
    this.length = 0;
    this.limit = limit;
    this.tooLong = tooLong;
  }

  push(...values) {
    this.append(values);
  }

  append(values) {
    const need = this.length + values.length;
    if (need > this.limit) this.tooLong();
    if (need > this.bytes.length) {
      const grown = new Uint8Array(Math.min(Math.max(need, this.bytes.length * 2), this.limit));
      grown.set(this.bytes.subarray(0, this.length));
      this.bytes = grown;
    }
    this.bytes.set(values, this.length);
    this.length = need;
  }

  endsWith(values) {
    if (this.length < values.length) return false;
    for (let i = 0; i < values.length; i++) if (this.bytes[this.length - values.length + i] !== values[i]) return false;
    return true;
  }

  result() {
    return this.bytes.subarray(0, this.length);
  }
}

/** The length of the UTF-8 character at bytes[pos] if it is a valid one, else 0 (util.cc DecodeUTF8). */
function utf8Length(bytes, pos, end) {
  const b0 = bytes[pos];
  if (b0 < 0x80) return 1;
  const trail = (i) => pos + i < end && (bytes[pos + i] & 0xc0) === 0x80;
  const valid = (cp) => cp < 0xd800 || (cp >= 0xe000 && cp <= 0x10ffff);
  if ((b0 & 0xe0) === 0xc0 && trail(1)) {
    const cp = ((b0 & 0x1f) << 6) | (bytes[pos + 1] & 0x3f);
    return cp >= 0x80 ? 2 : 0;
  }
  if ((b0 & 0xf0) === 0xe0 && trail(1) && trail(2)) {
    const cp = ((b0 & 0x0f) << 12) | ((bytes[pos + 1] & 0x3f) << 6) | (bytes[pos + 2] & 0x3f);
    return cp >= 0x800 && valid(cp) ? 3 : 0;
  }
  if ((b0 & 0xf8) === 0xf0 && trail(1) && trail(2) && trail(3)) {
    const cp =
      ((b0 & 0x07) << 18) | ((bytes[pos + 1] & 0x3f) << 12) | ((bytes[pos + 2] & 0x3f) << 6) | (bytes[pos + 3] & 0x3f);
    return cp >= 0x10000 && valid(cp) ? 4 : 0;
  }
  return 0;
}

/**
 * A normalizer of `spec` (normalizer.cc): its character map, user-defined
 * pieces kept as they are (`userDefined`, a ByteTrie or null), whitespace as
 * the spec says. normalize(bytes) → the normalized UTF-8 bytes.
 */
class Normalizer {
  constructor(spec, { userDefined = null, treatWhitespaceAsSuffix = false, file }) {
    this.spec = spec;
    this.charsmap = parseCharsmap(spec.precompiledCharsmap);
    this.userDefined = userDefined;
    this.suffix = treatWhitespaceAsSuffix;
    this.file = file;
  }

  #damaged() {
    throw new Error(`${this.file}: its normalizer's precompiled_charsmap is damaged (an index past its end)`);
  }

  // The normalized string a map entry points to: bytes from `value` to the next NUL, valid UTF-8.
  #mapped(value) {
    const { strings, cache } = this.charsmap;
    let out = cache.get(value);
    if (out) return out;
    const end = value < strings.length ? strings.indexOf(0, value) : -1;
    if (end < 0) this.#damaged();
    out = strings.subarray(value, end);
    try {
      strictUtf8.decode(out);
    } catch {
      throw new Error(
        `${this.file}: its normalizer's precompiled_charsmap maps a character to bytes that are not UTF-8`,
      );
    }
    cache.set(value, out);
    return out;
  }

  // NormalizePrefix: [the normalized bytes of the text's first character or rule, the bytes it consumed].
  #prefix(input, pos) {
    const end = input.length;
    if (this.userDefined) {
      const length = this.userDefined.longest(input, pos, end);
      if (length > 0) return [input.subarray(pos, pos + length), length];
    }
    if (this.charsmap) {
      const [length, value] = longestPrefix(this.charsmap.units, input, pos, end, MAX_TRIE_RESULTS, () =>
        this.#damaged(),
      );
      if (length > 0) return [this.#mapped(value), length];
    }
    const length = utf8Length(input, pos, end);
    return length ? [input.subarray(pos, pos + length), length] : [REPLACEMENT, 1];
  }

  /** The normalized bytes of UTF-8 `input` (Normalizer::Normalize). */
  normalize(input) {
    const { addDummyPrefix, removeExtraWhitespaces, escapeWhitespaces } = this.spec;
    let pos = 0;
    if (input.length === 0) return input;
    if (removeExtraWhitespaces)
      while (pos < input.length) {
        const [sp, consumed] = this.#prefix(input, pos);
        if (!(sp.length === 1 && sp[0] === SPACE)) break;
        pos += consumed;
      }
    if (pos === input.length) return new Uint8Array(0);
    const out = new ByteSink(MAX_GROWTH * input.length + 16, () => {
      throw new Error(
        `${this.file}: its normalizer makes more than ${MAX_GROWTH} bytes of a byte of this text; refused ` +
          '(a damaged or hostile precompiled_charsmap?)',
      );
    });
    const space = escapeWhitespaces ? SPACE_SYMBOL : [SPACE];
    if (!this.suffix && addDummyPrefix) out.append(space);
    let isPrevSpace = removeExtraWhitespaces;
    while (pos < input.length) {
      const [sp, consumed] = this.#prefix(input, pos);
      let begin = 0;
      // Leading spaces of this piece go when the text so far ends with one.
      while (isPrevSpace && begin < sp.length && sp[begin] === SPACE) begin++;
      if (begin < sp.length) {
        for (let n = begin; n < sp.length; n++) {
          if (escapeWhitespaces && sp[n] === SPACE) out.append(SPACE_SYMBOL);
          else out.push(sp[n]);
        }
        isPrevSpace = sp[sp.length - 1] === SPACE;
      }
      pos += consumed;
      if (!removeExtraWhitespaces) isPrevSpace = false;
    }
    if (removeExtraWhitespaces) while (out.endsWith(space)) out.length -= space.length;
    if (this.suffix && addDummyPrefix) out.append(space);
    return out.result();
  }
}

/** A trie of byte strings: the longest one that starts at a position (normalizer.cc PrefixMatcher). */
class ByteTrie {
  constructor(keys) {
    this.next = new Map(); // node * 256 + byte → node
    this.terminal = new Set();
    let nodes = 1;
    for (const key of keys) {
      let node = 0;
      for (const b of key) {
        const edge = node * 256 + b;
        let child = this.next.get(edge);
        if (child === undefined) this.next.set(edge, (child = nodes++));
        node = child;
      }
      this.terminal.add(node);
    }
  }

  longest(bytes, pos, end) {
    let node = 0;
    let best = 0;
    for (let i = pos; i < end; i++) {
      node = this.next.get(node * 256 + bytes[i]);
      if (node === undefined) break;
      if (this.terminal.has(node)) best = i + 1 - pos;
    }
    return best;
  }
}

// ---- The model ----------------------------------------------------------------

/**
 * A SentencePiece unigram model, from readSentencePieceModel's fields:
 * encode(text) → its pieces as sentencepiece's EncodeAsPieces gives them,
 * decodePieces(pieces) → text as its DecodePieces does, pieceToId, idToPiece,
 * size. `file` names the model in errors.
 */
export class SentencePiece {
  #pieces;
  #types;
  #scores; // float32 values
  #utf8Lengths;
  #ids = new Map(); // normal, user-defined and unused pieces → id
  #reserved = new Map(); // control, unknown and byte pieces → id
  #trie = new Map(); // node * 0x110000 + code point → node, over the code points of #ids' pieces
  #trieIds = [-1]; // node → piece id or -1
  #unkId;
  #minScore = FLT_MAX;
  #byteFallback;
  #unkSurface;
  #normalizer;
  #denormalizer;
  #normalizerSpec;

  constructor(model, file) {
    const { pieces, normalizer, denormalizer, trainer } = model;
    this.file = file;
    this.#pieces = pieces.map((p) => p.piece);
    this.#types = Uint8Array.from(pieces, (p) => p.type);
    this.#scores = Float32Array.from(pieces, (p) => p.score);
    // Bytes of a user-defined piece, which its score is made of.
    this.#utf8Lengths = pieces.map((p) => (p.type === PIECE_TYPES.USER_DEFINED ? utf8.encode(p.piece).length : 0));
    this.#unkId = trainer.unkId;
    this.#byteFallback = trainer.byteFallback;
    this.#unkSurface = trainer.unkSurface;
    this.#normalizerSpec = normalizer;
    const userDefined = [];
    pieces.forEach(({ piece, type, score }, id) => {
      const isNormal = type === PIECE_TYPES.NORMAL || type === PIECE_TYPES.USER_DEFINED || type === PIECE_TYPES.UNUSED;
      (isNormal ? this.#ids : this.#reserved).set(piece, id);
      if (type === PIECE_TYPES.USER_DEFINED) userDefined.push(utf8.encode(piece));
      if (type === PIECE_TYPES.NORMAL) {
        this.#minScore = Math.min(this.#minScore, fround(score));
      }
    });
    for (const [piece, id] of this.#ids) {
      let node = 0;
      for (let i = 0; i < piece.length; i++) {
        const cp = piece.codePointAt(i);
        if (cp > 0xffff) i++;
        const edge = node * 0x110000 + cp;
        let child = this.#trie.get(edge);
        if (child === undefined) {
          child = this.#trieIds.length;
          this.#trieIds.push(-1);
          this.#trie.set(edge, child);
        }
        node = child;
      }
      this.#trieIds[node] = id;
    }
    this.#normalizer = new Normalizer(normalizer, {
      userDefined: userDefined.length ? new ByteTrie(userDefined) : null,
      treatWhitespaceAsSuffix: trainer.treatWhitespaceAsSuffix,
      file,
    });
    // Applied to decoded text, when the model has one with a map (SentencePieceProcessor::Load).
    this.#denormalizer =
      denormalizer && denormalizer.precompiledCharsmap.length ? new Normalizer(denormalizer, { file }) : null;
  }

  /** How many pieces the model has (ids are 0 to size - 1). */
  get size() {
    return this.#pieces.length;
  }

  /** The id of `piece`: its own, else the unknown piece's (ModelInterface::PieceToId). */
  pieceToId(piece) {
    return this.#reserved.get(piece) ?? this.#ids.get(piece) ?? this.#unkId;
  }

  /** The piece of id `id`; a RangeError outside 0 to size - 1. */
  idToPiece(id) {
    if (!Number.isInteger(id) || id < 0 || id >= this.#pieces.length)
      throw new ArgumentRangeError(
        `id: expected a piece id of ${this.file} (0 to ${this.#pieces.length - 1}), got ${id}`,
      );
    return this.#pieces[id];
  }

  /** The normalized text of `text` (what the pieces are cut from), as a string. */
  normalize(text) {
    return lenientUtf8.decode(this.#normalizer.normalize(utf8.encode(text)));
  }

  /** The pieces of `text` (SentencePieceProcessor::Encode with EncodeOptimized, as EncodeAsPieces gives them). */
  encode(text) {
    // A lone surrogate of a JS string becomes U+FFFD, as TextEncoder writes it.
    const normalized = this.normalize(text);
    const chars = Array.from(normalized, (c) => c.codePointAt(0));
    const n = chars.length;
    if (n === 0) return [];
    // best_path_ends_at: the best path's score (float32), its last piece's start and id, per end.
    const best = new Float64Array(n + 1);
    const startsAt = new Int32Array(n + 1).fill(-1);
    const ids = new Int32Array(n + 1).fill(-1);
    const unkScore = fround(this.#minScore - UNK_PENALTY);
    for (let start = 0; start < n; start++) {
      const till = best[start];
      let hasSingleNode = false;
      let node = 0;
      for (let k = start; k < n; k++) {
        node = this.#trie.get(node * 0x110000 + chars[k]);
        if (node === undefined) break;
        const id = this.#trieIds[node];
        if (id < 0 || this.#types[id] === PIECE_TYPES.UNUSED) continue;
        const end = k + 1;
        // Path scores are float32, each sum rounded before it is compared, and a user-defined piece
        // scores 0.1 per byte less 0.1 whatever the other scores are: what sentencepiece 0.2.2 (the
        // references' own) gives, measured on crafted models; its 0.2.0 source compares the float sum
        // in double and gives a user-defined piece (bytes × the best score − 0.1), which picks other
        // pieces on near ties (about 4% of texts of repeated pieces).
        const score =
          this.#types[id] === PIECE_TYPES.USER_DEFINED ? fround(this.#utf8Lengths[id] * 0.1 - 0.1) : this.#scores[id];
        const candidate = fround(score + till);
        if (startsAt[end] === -1 || candidate > best[end]) {
          best[end] = candidate;
          startsAt[end] = start;
          ids[end] = id;
        }
        if (end - start === 1) hasSingleNode = true;
      }
      if (!hasSingleNode) {
        const candidate = fround(unkScore + till);
        if (startsAt[start + 1] === -1 || candidate > best[start + 1]) {
          best[start + 1] = candidate;
          startsAt[start + 1] = start;
          ids[start + 1] = this.#unkId;
        }
      }
    }
    const path = [];
    for (let end = n; end > 0; end = startsAt[end]) path.push([startsAt[end], end, ids[end]]);
    path.reverse();
    // PopulateSentencePieceText: an unknown character as byte pieces (byte_fallback), else runs of them as one piece.
    const pieces = [];
    let prevUnknown = false;
    for (const [start, end, id] of path) {
      const surface = String.fromCodePoint(...chars.slice(start, end));
      const unknown = id === this.#unkId;
      if (unknown && this.#byteFallback)
        for (const b of utf8.encode(surface)) pieces.push(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);
      else if (unknown && prevUnknown) pieces[pieces.length - 1] += surface;
      else pieces.push(surface);
      prevUnknown = unknown;
    }
    return pieces;
  }

  /** The text of `pieces` (SentencePieceProcessor::Decode of pieces, DecodePieces in Python). */
  decodePieces(pieces) {
    const { addDummyPrefix, removeExtraWhitespaces } = this.#normalizerSpec;
    let text = '';
    let isBosWs = true; // whether a leading ▁ may still be dropped
    let bosWsSeen = false;
    let bytes = [];
    // A run of byte pieces: each valid UTF-8 character as it is, each other byte as U+FFFD.
    const flushBytes = () => {
      const run = Uint8Array.from(bytes);
      for (let at = 0; at < run.length;) {
        const length = utf8Length(run, at, run.length);
        text += length ? lenientUtf8.decode(run.subarray(at, at + length)) : '\uFFFD';
        at += length || 1;
      }
      bytes = [];
    };
    for (const piece of pieces) {
      const id = this.pieceToId(piece);
      const type = this.#types[id];
      if (type === PIECE_TYPES.BYTE) {
        bytes.push(pieceToByte(piece));
        continue;
      }
      flushBytes();
      if (bosWsSeen || text !== '') isBosWs = false;
      bosWsSeen = false;
      if (type === PIECE_TYPES.CONTROL) continue; // invisible
      if (type === PIECE_TYPES.UNKNOWN) {
        // <unk> itself shows as the unknown surface; any other piece not in the model as it is.
        text += this.#pieces[id] === piece ? this.#unkSurface : piece;
        continue;
      }
      let rest = piece;
      if (isBosWs && (addDummyPrefix || removeExtraWhitespaces) && rest.startsWith('\u2581')) {
        rest = rest.slice(1);
        // With remove_extra_whitespaces every leading ▁ goes, not only the first.
        bosWsSeen = !removeExtraWhitespaces;
      }
      text += rest.replaceAll('\u2581', ' ');
    }
    flushBytes();
    if (this.#denormalizer) text = lenientUtf8.decode(this.#denormalizer.normalize(utf8.encode(text)));
    return text;
  }
}
