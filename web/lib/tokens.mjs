// The page's fonts, and token labels for SVG views: CJK tokens get a CJK font
// explicitly (an SVG exported on its own cannot rely on the page's :lang()
// CSS), and every label carries its position, because six 毒 look alike, and
// a 毒 its role (noun, verb, modifier: `duRole` of its record), because the
// article's point is that a head must tell them apart.
import { t } from './i18n.mjs';

/**
 * Simplified-Chinese faces, one or more per platform, so that CJK text finds a
 * face everywhere: macOS and iOS (PingFang SC, Hiragino Sans GB, Heiti SC),
 * Windows (Microsoft YaHei, DengXian, SimHei), Linux and Android (Noto Sans
 * CJK SC, Source Han Sans SC, Noto Sans SC, WenQuanYi Micro Hei, Droid Sans
 * Fallback on older Android). style.css's --cjk.
 */
export const CJK_FONTS = [
  "'PingFang SC'",
  "'Hiragino Sans GB'",
  "'Heiti SC'",
  "'Microsoft YaHei'",
  "'Microsoft YaHei UI'",
  "'DengXian'",
  "'Noto Sans CJK SC'",
  "'Source Han Sans SC'",
  "'Noto Sans SC'",
  "'WenQuanYi Micro Hei'",
  "'Droid Sans Fallback'",
  "'SimHei'",
  'sans-serif',
].join(', ');
/** The UI's faces, then the CJK ones, so that Chinese text in Latin runs finds a face; style.css's --font. */
export const UI_FONTS = [
  'system-ui',
  '-apple-system',
  "'Segoe UI'",
  'Roboto',
  "'Noto Sans'",
  "'Helvetica Neue'",
  'Arial',
  CJK_FONTS,
  // Emoji typed in free mode: each platform's colour emoji face.
  "'Apple Color Emoji'",
  "'Segoe UI Emoji'",
  "'Noto Color Emoji'",
].join(', ');

const WIDE = /[\u1100-\u11ff\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]/u;

/** True if the text is a CJK token (drawn upright, one em wide). */
export const isWide = (text) => WIDE.test(text);

/**
 * Rough width of a label in em (CJK 1, Latin 0.64, generous for wide faces
 * such as DejaVu Sans): for layout before the text exists.
 */
export const labelEm = (text) => [...text].reduce((w, ch) => w + (WIDE.test(ch) ? 1 : 0.64), 0);

// The letters that count a character's byte pieces: a, b, c, d (UTF-8 has at most 4 bytes a character).
const PIECE_LETTERS = ['ᵃ', 'ᵇ', 'ᶜ', 'ᵈ'];
const PIECE_NUMBER = /([\u2080-\u2089]+)$/u;

/**
 * A token's text with its byte-piece number (the engine's readable pieces
 * number a character's byte pieces in subscript digits, "不₁") written as a
 * small letter ("不ᵃ"): a digit beside the position the page writes next to
 * it ran into it ("不₁9" read as 不19), and clashed with the numbering 毒1 毒2.
 */
export const pieceLetters = (text) =>
  text.replace(PIECE_NUMBER, (digits) => {
    const n = Number([...digits].map((d) => d.codePointAt(0) - 0x2080).join(''));
    return PIECE_LETTERS[n - 1] ?? `(${n})`;
  });

/** Long Latin tokens are shortened in axis labels (the full text is in the title and the readout). */
export const shortLabel = (text, max = 12) => {
  const shown = pieceLetters(text);
  return [...shown].length > max ? `${[...shown].slice(0, max - 1).join('')}…` : shown;
};

/**
 * The number a token shows: its `label` where the view numbers tokens other
 * than by position (the real view: the sentence's numbering, [CLS] none),
 * else its position.
 */
export const tokenNumber = (token) => String(token.label ?? token.index);

/** A 毒's role in short for axis labels ("动", "v"), '' for any other token. */
export const roleTag = (token) => (token.duRole ? t(`roleShort.${token.duRole}`) : '');

/** Describes a token for readouts and aria labels: "毒 2", "毒 2 · verb", "[CLS]". */
export const tokenName = (token) => {
  const number = tokenNumber(token);
  const text = pieceLetters(token.text);
  const name = number ? `${text} ${number}` : text;
  return token.duRole ? `${name} · ${t(`tag.${token.duRole}`)}` : name;
};

/** Sets the text attributes of an SVG <text> for a token (font, lang). */
export function styleTokenText(text, token) {
  if (token.lang) text.setAttribute('lang', token.lang);
  if (isWide(token.text)) text.setAttribute('font-family', CJK_FONTS);
}
