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
// This module holds the model's encoding and decoding;
// sentencepiece-model-file.mjs reads the file, sentencepiece-normalizer.mjs
// normalizes the text (and denormalizes decoded text), sentencepiece-utf8.mjs
// has the UTF-8 they share.
import { ArgumentRangeError } from '../../errors.mjs';
import { PIECE_TYPES, pieceToByte } from './sentencepiece-model-file.mjs';
import { ByteTrie, Normalizer } from './sentencepiece-normalizer.mjs';
import { lenientUtf8, utf8, utf8Length } from './sentencepiece-utf8.mjs';

export { MAX_PIECES, PIECE_TYPES, readSentencePieceModel } from './sentencepiece-model-file.mjs';
export { MAX_GROWTH } from './sentencepiece-normalizer.mjs';

const FLT_MAX = 3.4028234663852886e38;
const UNK_PENALTY = 10; // unigram_model.cc kUnkPenalty
const fround = Math.fround;

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
