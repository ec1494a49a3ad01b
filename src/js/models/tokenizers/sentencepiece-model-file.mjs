// A SentencePiece model file (.spm, .model: a protobuf ModelProto) read by a
// strict reader of the fields that encoding and decoding use
// (tokenizers/sentencepiece.mjs), and checked as sentencepiece checks a model
// it loads. The file is untrusted: every length is checked against what is
// left, a varint is at most 10 bytes, a file holds at most MAX_PIECES pieces,
// and the normalizer's character map is checked before use
// (sentencepiece-normalizer.mjs); each problem is an Error naming the file.
import { ArgumentTypeError } from '../../errors.mjs';
import { checkCharsmap } from './sentencepiece-normalizer.mjs';
import { strictUtf8 } from './sentencepiece-utf8.mjs';

/** The most pieces a model may have (real ones: 8,000 to 256,000). */
export const MAX_PIECES = 1 << 20;

// ModelProto.SentencePiece.Type.
export const PIECE_TYPES = Object.freeze({ NORMAL: 1, UNKNOWN: 2, CONTROL: 3, USER_DEFINED: 4, UNUSED: 5, BYTE: 6 });
const MODEL_TYPES = { 1: 'UNIGRAM', 2: 'BPE', 3: 'WORD', 4: 'CHAR' };

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
export function pieceToByte(piece) {
  const m = BYTE_PIECE.exec(piece);
  return m ? parseInt(m[1], 16) : -1;
}
