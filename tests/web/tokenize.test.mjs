// Free mode's tokenizer on what readers type: grapheme clusters stay whole
// (joined emoji, variation selectors, flags, keycaps, combining accents),
// identifiers stay whole, and nothing invisible becomes a token.
import { tokenize, tokenLanguage, graphemes } from '../../web/model/tokenize.mjs';

const tokens = (text) => tokenize(text).tokens;

test('joined emoji are one token each, and no token is invisible', () => {
  const family = '👩‍👩‍👧'; // woman ZWJ woman ZWJ girl
  const heart = '❤️'; // heart + variation selector 16
  const flag = '🇨🇳';
  const keycap = '1️⃣';
  const thumbs = '👍🏽'; // with a skin tone
  expect(tokens(`${family} loves ${heart} ${flag}${keycap}${thumbs}!`)).toEqual([
    family,
    'loves',
    heart,
    flag,
    keycap,
    thumbs,
    '!',
  ]);
  // A lone joiner or selector between spaces is not a token.
  expect(tokens('a \u200d b \ufe0f c')).toEqual(['a', 'b', 'c']);
  for (const t of tokens('毒👩‍👩‍👧🇨🇳 ok\u200b')) expect(t.replace(/[\s\p{Cf}\p{M}]/gu, '').length).toBeGreaterThan(0);
});

test('identifiers, contractions, hyphenated words and decimals stay whole', () => {
  expect(tokens('W_O maps d_model; wQ·X')).toEqual(['W_O', 'maps', 'd_model', ';', 'wQ', '·', 'X']);
  expect(tokens("don't state-of-the-art 3.14 1,000 end.")).toEqual([
    "don't",
    'state-of-the-art',
    '3.14',
    '1,000',
    'end',
    '.',
  ]);
  expect(tokens("rock 'n' roll - x")).toEqual(['rock', "'", 'n', "'", 'roll', '-', 'x']);
});

test('a letter with a combining accent is one character of its word', () => {
  const decomposed = 'nai\u0308ve cafe\u0301';
  expect(tokens(decomposed)).toEqual(['nai\u0308ve', 'cafe\u0301']);
  expect(graphemes('e\u0301')).toEqual(['e\u0301']);
});

test('CJK: one token per character, with its language', () => {
  expect(tokens('用毒,毒蛇')).toEqual(['用', '毒', ',', '毒', '蛇']);
  expect(['毒', 'が', '한', 'W_O'].map(tokenLanguage)).toEqual(['zh', 'ja', 'ko', undefined]);
});

test('empty and all-space sentences have no tokens', () => {
  for (const text of ['', '   ', '\t\n', '\u3000', '\u200d\ufe0f']) expect(tokens(text)).toEqual([]);
});
