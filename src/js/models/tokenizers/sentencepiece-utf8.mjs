// UTF-8 as the SentencePiece port (sentencepiece*.mjs) reads and writes it:
// strict decoding for a model file's strings, lenient decoding for bytes
// known to be UTF-8, encoding, and util.cc's DecodeUTF8 test of one character
// (what the normalizer and the byte pieces' decoding take as a character).
// Made when first used: the module also loads where TextDecoder is not (a bundle's first run in a bare VM).
let codecs;
const coders = () =>
  (codecs ??= {
    strict: new TextDecoder('utf-8', { fatal: true }),
    lenient: new TextDecoder(), // for bytes known to be UTF-8
    encoder: new TextEncoder(),
  });
export const strictUtf8 = { decode: (bytes) => coders().strict.decode(bytes) };
export const lenientUtf8 = { decode: (bytes) => coders().lenient.decode(bytes) };
export const utf8 = { encode: (text) => coders().encoder.encode(text) };

/** The length of the UTF-8 character at bytes[pos] if it is a valid one, else 0 (util.cc DecodeUTF8). */
export function utf8Length(bytes, pos, end) {
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
