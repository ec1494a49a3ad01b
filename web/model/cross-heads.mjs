// The designed cross-attention heads: English queries (the decoder's side),
// Chinese keys and values (the encoder's side). Built like designed-heads.mjs:
// each column of a head's Q reads one feature of the English token, the same
// column of its K one feature of the Chinese token, and Q·K counts what they
// share. Pure: returns engine arguments and labels; compute.mjs runs them.
//
// Two heads, because one lexical match cannot tell the two "venom" apart:
// venom's lexicon entry is 毒1 and 毒12 alike. The clauses come in opposite
// orders (Chinese: condition 用毒毒毒蛇 first, question second; English:
// question first, "if we poison it with venom" second), so knowing which
// clause a word belongs to settles it:
// - order: score = [same clause]. The clause of an English token and of a
//   Chinese token are read off their position, through boundaries written
//   into wQ and wK (sentence.mjs ENGLISH[].clause and CLAUSES).
// - alignment: score = [the key is in the query word's lexicon entry] +
//   ½·[same clause]. Between two keys of the entry, the one in the word's own
//   clause wins: "by venom" (clause 2) → 毒12, "with venom" (clause 1) → 毒1.
//   A word without an entry (a, by, if, we, ?) scores ½ on its whole clause.
import { ENGLISH, CLAUSES, WITH_VENOM } from '../sentence.mjs';
import { chineseInput, englishInput, D_MODEL } from './features.mjs';
import { Projection, placeHeads } from './layout.mjs';
import { singleHeadArgs } from './single-head.mjs';
import {
  chineseTokens,
  englishTokens,
  headWidth,
  sharpen,
  designedSpec,
  DEFAULT_SHARPNESS,
} from './designed-heads.mjs';

/** The clause columns' weight in the alignment head: enough to break a lexicon tie, never to beat a match. */
export const CLAUSE_WEIGHT = 0.5;

/**
 * Cross-attention, English (query) → Chinese (key, value): heads alignment and
 * order. Key and value are the Chinese X; in a trained Transformer they would
 * be the encoder's output, which here keeps the features anyway.
 */
export function crossSpec(sharpness = DEFAULT_SHARPNESS) {
  const english = englishInput();
  const chinese = chineseInput();
  const heads = ['alignment', 'order'];
  const lexiconWidth = english.layout.size('lexicon');
  // d_k = d_v = 96 / 2 = 48: alignment reads the lexicon's 15 columns and 2 clause columns, order the 2
  // clause columns; the rest of each head's columns are 0.
  const dK = headWidth(heads);
  const dV = dK;
  // wQ reads the English layout, wK and wV the Chinese one.
  const wQ = new Projection(english.layout, heads, dK);
  const wK = new Projection(chinese.layout, heads, dK);
  const wV = new Projection(chinese.layout, heads, dV);

  // The clause of a position, as column `first + clause − 1` (positions in no clause read nothing).
  const readClauses = (projection, head, first, clauses, gain) =>
    clauses.forEach((clause, position) => {
      if (clause !== null) projection.read(head, first + clause - 1, 'position', position, gain, `clause:${clause}`);
    });
  const englishClauses = ENGLISH.map((u) => u.clause);

  // alignment: lexicon against position (1 on every key of the entry), then the clause (½).
  wQ.copy('alignment', 'lexicon', 0);
  wK.copy('alignment', 'position', 0);
  readClauses(wQ, 'alignment', lexiconWidth, englishClauses, CLAUSE_WEIGHT);
  readClauses(wK, 'alignment', lexiconWidth, CLAUSES, 1);

  // order: clause against clause.
  readClauses(wQ, 'order', 0, englishClauses, 1);
  readClauses(wK, 'order', 0, CLAUSES, 1);

  // Values: alignment passes on where the aligned token is, order which word of the clause it reads.
  wV.copy('alignment', 'position', 0);
  wV.copy('order', 'word', 0);
  const wO = placeHeads(heads, wV.labels, D_MODEL);

  sharpen(wQ, sharpness);
  return designedSpec({
    mode: 'cross',
    heads,
    query: { ...english, tokens: englishTokens() },
    key: { ...chinese, tokens: chineseTokens() },
    dK,
    dV,
    weights: { wQ, wK, wV, wO },
    single: singleHeadArgs,
    /** "with venom": venom → 毒1. */
    focusQuery: WITH_VENOM,
  });
}
