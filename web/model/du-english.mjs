// Where a translation model's English for the six 毒 changes on a pruning
// curve (views/heads-matter.mjs): the reference translation's tokens that the
// model writes while its cross-attention — the mean of every head of every
// layer, teacher-forced over the reference with every head on — weighs most a
// source piece that holds a 毒 are "the 毒's English"; the first curve point
// whose re-decoded output differs at one of them is where it changes. An
// operational reading, said so on the page: the cross-attention's top piece
// is where the model looks, not a word alignment. No DOM; duEnglish runs the
// model once, the rest is pure; t() writes the page's language.
import { t } from '../lib/i18n.mjs';
import { outputText } from './head-importance-text.mjs';
import { crossWeights, duCharacters, pieceText, sourceSpans, specialFlags } from './translation.mjs';

/**
 * The positions t ≥ 1 of `outputIds` (decoder_start_token_id first) whose token is written while the mean
 * cross-attention's top source piece holds a 毒 of the page's sentence: [] for another text. `cross` is [T − 1, S]
 * (row t − 1 is the step that writes token t), `source` run()'s { tokens, special } of the input.
 * @param {{ cross: Float32Array, outputIds: ArrayLike<number>, special: ArrayLike<number>, source: { tokens: string[],
 *   special: ArrayLike<number> }, text: string }} run
 */
export function duPositions({ cross, outputIds, special, source, text }) {
  const dus = duCharacters(text);
  if (!dus.length) return [];
  const spans = sourceSpans(source.tokens, source.special, text);
  const S = spans.length;
  const holdsDu = spans.map((s) => Boolean(s) && dus.some((d) => s.start <= d.index && d.index < s.end));
  const out = [];
  for (let t = 1; t < outputIds.length; t++) {
    if (special[t]) continue;
    const row = cross.subarray((t - 1) * S, t * S);
    let top = 0;
    for (let k = 1; k < S; k++) if (row[k] > row[top]) top = k;
    if (holdsDu[top]) out.push(t);
  }
  return out;
}

/**
 * A translation of the page's sentence: the reference's positions that are the 毒's English, from one
 * teacher-forced run() of the reference (analysis' reference: inputIds, outputIds) with every head on; [] for
 * another model or text.
 */
export async function duEnglish(model, text, reference) {
  if (model.config.kind !== 'encoder-decoder' || !duCharacters(text).length) return [];
  const ids = reference.outputIds;
  const r = await model.run(
    { inputIds: reference.inputIds, decoderInputIds: ids.subarray(0, ids.length - 1) },
    { returnAttention: true },
  );
  const special = specialFlags(model.specialTokens, ids);
  const source = { tokens: r.tokens, special: r.special };
  return duPositions({ cross: crossWeights(r.attentions.cross, 'mean'), outputIds: ids, special, source, text });
}

/** The first point whose output differs from `referenceIds` at one of `positions` (missing there counts): -1 none. */
export function firstDuChange(points, referenceIds, positions) {
  if (!positions.length) return -1;
  return points.findIndex(({ output: { outputIds } }) => positions.some((t) => outputIds[t] !== referenceIds[t]));
}

/**
 * The sentence on the 毒's English: its tokens (each once, in the order they come), and where on the line shown
 * they first change (or that they do not).
 */
export function duSentence(reference, positions, points, duChanged) {
  const words = [...new Set(positions.map((p) => pieceText(reference.tokens[p])))].join(t('list.join'));
  const at = points[duChanged];
  return at
    ? { kind: 'du', text: t('matter.text.du', { words, n: at.headsOff, output: outputText(at.output) }) }
    : { kind: 'du', text: t('matter.text.duKept', { words, total: points.at(-1).headsOff }) };
}
