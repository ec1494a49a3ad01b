// X for the designed heads: one row per token, built from explicit features
// of the annotation (sentence.mjs), each a one-hot block of named columns.
// The heads (designed-heads.mjs) never see the annotation: they only select
// and compare these columns. Pure: no DOM, no engine.
import { TOKENS, ROLES, WORDS, LINKS, ENGLISH } from '../sentence.mjs';
import { Layout, featureMatrix } from './layout.mjs';

/**
 * d_model, the width of X in every designed mode (cross-attention needs one
 * width for its English and Chinese sides). The heads split it, as in the
 * Transformer: H·d_k = d_model and d_v = d_k (designed-heads.mjs headWidth),
 * so it must leave each head room for the columns it reads: 96 = 3 × 32 in
 * the encoder, whose role head reads 31 (role, character, position), and
 * 2 × 48 in the decoder and cross. The features fill 64 columns of the
 * Chinese X and 43 of the English one; the rest are 0.
 */
export const D_MODEL = 96;

/**
 * The blocks whose values a person wrote down (the annotation of sentence.mjs),
 * as opposed to the text itself (character, position): the page marks them,
 * since what the designed heads find is read from them.
 */
export const ANNOTATED_BLOCKS = Object.freeze(['word', 'role', 'head', 'link', 'first', 'lemma', 'lexicon']);

const range = (n) => Array.from({ length: n }, (_, i) => i);

/** Distinct values in order of first appearance. */
const distinct = (values) => [...new Set(values)];

/** Link groups, one per long-distance link, labelled by the pair: "毒3–6". */
export function linkGroups(tokens = TOKENS, links = LINKS) {
  return links.map(({ from, to }) => ({ first: to, second: from, label: `${tokens[to].char}${to}–${from}` }));
}

/**
 * The Chinese sentence's X, [15, D_MODEL]. Blocks (64 columns in all; the rest unused):
 *   char      8  which character (用 毒 蛇 ， 会 不 被 死): the six 毒 share it
 *   position 15  where it is (0–14): the only thing that is unique per token
 *   word     10  which word it belongs to (毒 蛇 of 毒蛇 share one)
 *   role      8  its part of speech (sentence.mjs ROLES)
 *   head     15  the position of its dependency head (none for the root)
 *   link      4  the link group a second mention refers back to
 *   first     4  the link group a first mention starts
 */
export function chineseInput(tokens = TOKENS) {
  const chars = distinct(tokens.map((t) => t.char));
  const groups = linkGroups(tokens);
  const layout = new Layout(
    [
      ['char', chars],
      ['position', range(tokens.length).map(String)],
      ['word', WORDS.map((w, i) => `${i} ${w.text}`)],
      ['role', ROLES],
      ['head', range(tokens.length).map(String)],
      ['link', groups.map((g) => g.label)],
      ['first', groups.map((g) => g.label)],
    ],
    D_MODEL,
  );
  const x = featureMatrix(tokens.length, layout);
  tokens.forEach((token, i) => {
    x.set(i, 'char', chars.indexOf(token.char));
    x.set(i, 'position', i);
    x.set(i, 'word', token.word);
    x.set(i, 'role', ROLES.indexOf(token.role));
    if (token.head !== null) x.set(i, 'head', token.head);
  });
  groups.forEach((group, g) => {
    x.set(group.second, 'link', g);
    x.set(group.first, 'first', g);
  });
  return { X: x.data, layout };
}

/** Lemmas of the English tokens, in order of first appearance. */
export function englishLemmas(english = ENGLISH) {
  return distinct(english.map((t) => t.lemma));
}

/**
 * The English translation's X, [17, D_MODEL]. Blocks:
 *   lemma    15  which lemma (poisoned and poison share "poison")
 *   position 17  where it is (0–16)
 *   lexicon  15  which Chinese tokens its word type translates (several ones for Will → 会不会, venom → 毒1 and 毒12)
 * and the rest unused (the decoder's X is as wide as the encoder's).
 */
export function englishInput(english = ENGLISH, chineseTokens = TOKENS) {
  const lemmas = englishLemmas(english);
  const layout = new Layout(
    [
      ['lemma', lemmas],
      ['position', range(english.length).map(String)],
      ['lexicon', chineseTokens.map((t, i) => `${t.char}${i}`)],
    ],
    D_MODEL,
  );
  const x = featureMatrix(english.length, layout);
  english.forEach((token, i) => {
    x.set(i, 'lemma', lemmas.indexOf(token.lemma));
    x.set(i, 'position', i);
    for (const k of token.lexicon) x.set(i, 'lexicon', k);
  });
  return { X: x.data, layout };
}
