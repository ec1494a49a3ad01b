// Where each token of a BERT WordPiece tokenizer lies in the text it was cut from, and the tokens joined back
// into text, as Hugging Face tokenizers gives them (an encoding's offsets; the WordPiece decoder, which
// transformers' convert_tokens_to_string runs): what token-classification's aggregation needs
// (tasks/token-aggregation.mjs). The library the engine runs the tokenizer with gives no offsets, so they are
// found here by walking the text as BertNormalizer and BertPreTokenizer cut it, each normalised character
// keeping the original character it came from. Only that tokenizer (BertNormalizer or none, BertPreTokenizer,
// WordPiece, its decoder): others give null (wordPieceRule).

/** What of tokenizer.json's object `json` the offsets and the decoder follow; null when it is not BERT's. */
export function wordPieceRule(json) {
  const { model, normalizer, pre_tokenizer: pre, decoder } = json;
  if (model?.type !== 'WordPiece' || pre?.type !== 'BertPreTokenizer' || decoder?.type !== 'WordPiece') return null;
  if (normalizer && normalizer.type !== 'BertNormalizer') return null;
  const lowercase = normalizer?.lowercase === true;
  return Object.freeze({
    unk: model.unk_token ?? '[UNK]',
    prefix: model.continuing_subword_prefix ?? '##',
    decoderPrefix: decoder.prefix ?? '##',
    cleanup: decoder.cleanup !== false,
    cleanText: normalizer?.clean_text === true,
    chineseChars: normalizer?.handle_chinese_chars === true,
    stripAccents: normalizer ? (normalizer.strip_accents ?? lowercase) === true : false,
    lowercase,
  });
}

// tokenizers' is_whitespace, is_control (other than \t \n \r), CJK ranges and BERT's punctuation.
const WHITESPACE = /^\s$/u;
const CONTROL = /^[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}]$/u;
const PUNCTUATION = /^[\p{P}!-/:-@[-`{-~]$/u;
const CJK = [
  [0x4e00, 0x9fff],
  [0x3400, 0x4dbf],
  [0x20000, 0x2a6df],
  [0x2a700, 0x2b73f],
  [0x2b740, 0x2b81f],
  [0x2b920, 0x2ceaf],
  [0xf900, 0xfaff],
  [0x2f800, 0x2fa1f],
];
const isCjk = (cp) => CJK.some(([lo, hi]) => cp >= lo && cp <= hi);

// The text as BertNormalizer makes it: [{ char, from, to }] (`from`, `to`: the original character's UTF-16 span).
function normalized(rule, text) {
  const out = [];
  let at = 0;
  for (const c of text) {
    const [from, to] = [at, (at += c.length)];
    const cp = c.codePointAt(0);
    if (rule.cleanText && !/^[\t\n\r]$/.test(c) && (cp === 0 || cp === 0xfffd || CONTROL.test(c))) continue;
    if (rule.cleanText && WHITESPACE.test(c)) out.push({ char: ' ', from, to });
    else if (rule.chineseChars && isCjk(cp))
      out.push({ char: ' ', from, to }, { char: c, from, to }, { char: ' ', from, to });
    else {
      let s = c;
      if (rule.stripAccents) s = s.normalize('NFD').replace(/\p{Mn}/gu, '');
      if (rule.lowercase) s = s.toLowerCase();
      for (const char of s) out.push({ char, from, to });
    }
  }
  return out;
}

// The words BertPreTokenizer cuts the normalised text into: split on whitespace, each punctuation mark alone.
function wordsOf(chars) {
  const words = [];
  let word = [];
  const end = () => (word.length && words.push(word), (word = []));
  for (const c of chars) {
    if (WHITESPACE.test(c.char)) end();
    else if (PUNCTUATION.test(c.char)) (end(), words.push([c]));
    else word.push(c);
  }
  end();
  return words;
}

/**
 * Each token's [start, end) in `text` (UTF-16 units: text.slice(start, end)), null for a special one
 * (`special[i]`), as tokenizers' offsets: a WordPiece piece covers the characters it spells, the unknown token the
 * whole word. null when the tokens do not spell the text (a special token typed in it, a truncated input).
 */
export function tokenOffsets(rule, text, tokens, special) {
  const words = wordsOf(normalized(rule, text));
  const offsets = [];
  let [w, k] = [0, 0];
  for (let i = 0; i < tokens.length; i++) {
    if (special[i]) {
      offsets.push(null);
      continue;
    }
    const word = words[w];
    if (!word) return null;
    let n;
    if (tokens[i] === rule.unk && k === 0) n = word.length;
    else {
      const piece = [...(k > 0 && tokens[i].startsWith(rule.prefix) ? tokens[i].slice(rule.prefix.length) : tokens[i])];
      if (piece.length === 0 || piece.some((char, j) => word[k + j]?.char !== char)) return null;
      n = piece.length;
    }
    offsets.push([word[k].from, word[k + n - 1].to]);
    k += n;
    if (k === word.length) [w, k] = [w + 1, 0];
  }
  return w === words.length ? offsets : null;
}

// tokenizers' cleanup of decoded text (the WordPiece decoder's, with cleanup).
const CLEANUPS = [
  [' .', '.'],
  [' ?', '?'],
  [' !', '!'],
  [' ,', ','],
  [" ' ", "'"],
  [" n't", "n't"],
  [" 'm", "'m"],
  [' do not', " don't"],
  [" 's", "'s"],
  [" 've", "'ve"],
  [" 're", "'re"],
];

/** Tokens (strings) joined as the WordPiece decoder joins them (transformers' convert_tokens_to_string). */
export function joinTokens(rule, tokens) {
  return tokens
    .map((token, i) => {
      let s = token;
      if (i > 0) s = s.startsWith(rule.decoderPrefix) ? s.slice(rule.decoderPrefix.length) : ` ${s}`;
      if (rule.cleanup) for (const [from, to] of CLEANUPS) s = s.replaceAll(from, to);
      return s;
    })
    .join('');
}
