// SentencePiece's normalizer (normalizer.cc), ported for
// tokenizers/sentencepiece.mjs: the model's own precompiled_charsmap (a
// darts-clone double array of UTF-8 rules, e.g. nmt_nfkc's) applied by
// longest prefix, user-defined pieces kept as they are, and whitespace
// escaped, trimmed and collapsed as the model's normalizer_spec says. The map
// is untrusted: its indices are checked before use, and the normalized text
// may grow at most MAX_GROWTH times; each problem is an Error naming the file.
import { strictUtf8, utf8Length } from './sentencepiece-utf8.mjs';

/** The most bytes the normalizer may make of each byte of text (nmt_nfkc: 13, for U+FDFA). */
export const MAX_GROWTH = 64;
const SPACE = 0x20;
const SPACE_SYMBOL = [0xe2, 0x96, 0x81]; // U+2581, which stands for a space in pieces
const REPLACEMENT = Uint8Array.of(0xef, 0xbf, 0xbd); // U+FFFD
const MAX_TRIE_RESULTS = 32; // normalizer.h kMaxTrieResultsSize

// precompiled_charsmap: <the trie's size, uint32 little-endian><a darts-clone
// double array of uint32 units><the normalized strings, each ended by NUL>
// (normalizer.cc DecodePrecompiledCharsMap).
export function checkCharsmap(blob, fail) {
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

/**
 * A normalizer of `spec` (normalizer.cc): its character map, user-defined
 * pieces kept as they are (`userDefined`, a ByteTrie or null), whitespace as
 * the spec says. normalize(bytes) → the normalized UTF-8 bytes.
 */
export class Normalizer {
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
export class ByteTrie {
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

/**
 * tokenizers' Precompiled normalizer's lookup over `blob` (a tokenizer.json's precompiled_charsmap): the string its
 * charsmap maps the first (shortest) of its keys that begins `text` to, or null where none does (spm_precompiled's
 * transform). A damaged charsmap is an Error.
 */
export function charsmapLookup(blob) {
  const fail = (what) => {
    throw new Error(`precompiled_charsmap: ${what}`);
  };
  checkCharsmap(blob, fail);
  const map = parseCharsmap(blob);
  const encoder = new TextEncoder();
  return (text) => {
    if (!map) return null;
    const bytes = encoder.encode(text);
    const [length, value] = longestPrefix(map.units, bytes, 0, bytes.length, 1, () => fail('an index past its end'));
    if (length === 0) return null;
    const end = value < map.strings.length ? map.strings.indexOf(0, value) : -1;
    if (end < 0) fail('an index past its end');
    return strictUtf8.decode(map.strings.subarray(value, end));
  };
}
