// The real translation's numbers (views/translation.mjs draws them), from a
// translation model's own results (model.generate, model.run): which
// characters of the input each source piece covers, where each English token
// looks among them through the cross-attention (one head, a layer's mean, or
// the mean of every head), which of the six 毒 it weighs most, and the head
// masks of the "switch heads off" controls. Pure: no DOM, no engine.
import { SENTENCE, TOKENS } from '../sentence.mjs';
import { alignToText } from './token-text.mjs';

const MARK = '▁'; // SentencePiece's word boundary

/** A piece as the page shows it: SentencePiece's ▁ as a space, trimmed ("▁venom" → "venom"). */
export const pieceText = (piece) => piece.replaceAll(MARK, ' ').trim();

/**
 * Which characters of `text` each source piece covers: [{ start, end }]
 * (code-point indices into `text`, end exclusive), or null for a special
 * token (`special[i]` 1) or a piece with no character (a lone ▁). The
 * tokenizer folds full-width forms (NFKC: "，" is the piece ","), so each
 * character is compared in that form; spaces are skipped. A piece that
 * matches nothing (<unk>) covers the characters up to where the next piece
 * matches.
 */
export function sourceSpans(pieces, special, text) {
  return alignToText(pieces, special, text).cover.map((chars) =>
    chars.length ? { start: chars[0], end: chars[chars.length - 1] + 1 } : null,
  );
}

/**
 * The six 毒 of the page's sentence with their roles (sentence.mjs), when
 * `text` is that sentence: [{ index, role }]; [] for any other text (the
 * annotation is of this sentence only).
 */
export function duCharacters(text) {
  if (text !== SENTENCE) return [];
  return TOKENS.flatMap((t, index) => (t.char === '毒' ? [{ index, role: t.role }] : []));
}

/**
 * The cross-attention [T, S] of one head ({ layer, head }), the mean of a
 * layer's heads ({ layer, head: 'mean' }) or of every head of every layer
 * ('mean'), from `cross` { data, shape: [layers, heads, T, S] }.
 */
export function crossWeights({ data, shape }, which) {
  const [layers, heads, T, S] = shape;
  const block = T * S;
  if (which !== 'mean' && which.head !== 'mean') {
    const start = (which.layer * heads + which.head) * block;
    return data.subarray(start, start + block);
  }
  const out = new Float32Array(block);
  const picked = which === 'mean' ? [...Array(layers).keys()] : [which.layer];
  for (const l of picked)
    for (let h = 0; h < heads; h++) {
      const start = (l * heads + h) * block;
      for (let i = 0; i < block; i++) out[i] += data[start + i];
    }
  const n = picked.length * heads;
  for (let i = 0; i < block; i++) out[i] /= n;
  return out;
}

/**
 * For each decoder token t ([T] pieces, `special` marking </s> and <pad>):
 * where it looks among the six 毒, through the pieces that hold them:
 * { token, weights: [{ index, role, piece, weight }], best } — weight is
 * the cross-attention weight of the piece that holds that 毒 (two 毒 in one
 * piece share it: the model sees pieces, not characters), best the 毒 with
 * the most (null when the weights tie or no 毒 is in a piece). `weights` is
 * [T, S] (crossWeights), `spans` the source pieces' sourceSpans.
 */
export function duReadings(weights, decoderTokens, decoderSpecial, spans, dus) {
  const S = spans.length;
  const pieceOf = (charIndex) => spans.findIndex((s) => s && s.start <= charIndex && charIndex < s.end);
  return decoderTokens.map((token, t) => {
    if (decoderSpecial[t] || !dus.length) return { token, weights: [], best: null };
    const row = weights.subarray(t * S, (t + 1) * S);
    const list = dus.map((d) => {
      const piece = pieceOf(d.index);
      return { ...d, piece, weight: piece >= 0 ? row[piece] : 0 };
    });
    const top = Math.max(...list.map((d) => d.weight));
    const leaders = list.filter((d) => d.weight === top);
    const best = top > 0 && new Set(leaders.map((d) => d.piece)).size === 1 && leaders.length === 1 ? leaders[0] : null;
    return { token, weights: list, best };
  });
}

/** A translation model's three groups of attention: the keys of generate()'s `attentions` and of a head mask. */
export const ATTENTION_GROUPS = ['cross', 'encoder', 'decoder'];

/**
 * The sizes of one group in a model's config: { layers, heads }. The
 * encoder's self-attention has the encoder's; the decoder's masked
 * self-attention and its cross-attention have the decoder's.
 */
export function groupDims(config, group) {
  return group === 'encoder'
    ? { layers: config.numLayers, heads: config.numHeads }
    : { layers: config.decoderLayers, heads: config.decoderHeads };
}

/** 1 for each id of `ids` that is one of the model's special tokens ([{ id }]), else 0. */
export function specialFlags(specialTokens, ids) {
  const special = new Set(specialTokens.map((s) => s.id));
  return Array.from(ids, (id) => (special.has(id) ? 1 : 0));
}

/**
 * Head masks for the "switch heads off" controls, each [layers][heads] of 1
 * and 0: 'all' keeps every head; { only: h } keeps head h of every layer
 * and no other. `dims`: { layers, heads }.
 */
export function presetMask({ layers, heads }, preset) {
  return Array.from({ length: layers }, () =>
    Array.from({ length: heads }, (_, h) => (preset === 'all' || preset.only === h ? 1 : 0)),
  );
}

/** Whether a [layers][heads] mask keeps every head (then no mask is the same call). */
export const keepsAll = (mask) => mask.every((row) => row.every((v) => v === 1));

/** How many heads a mask keeps, of how many. */
export function keptHeads(mask) {
  let kept = 0;
  let all = 0;
  for (const row of mask)
    for (const v of row) {
      all += 1;
      kept += v;
    }
  return { kept, all };
}

/**
 * The log-probability the model gives `outputIds` (decoder_start_token_id
 * first) from the logits of a teacher-forced run over all of them but the
 * last ([T, vocab], T = outputIds.length − 1): Σ_t log softmax(logits[t])
 * [outputIds[t + 1]], the model's own, without the search's rules.
 */
export function sequenceLogProb(logits, vocab, outputIds) {
  let sum = 0;
  for (let t = 0; t + 1 < outputIds.length; t++) {
    const row = logits.subarray(t * vocab, (t + 1) * vocab);
    let max = -Infinity;
    for (const v of row) if (v > max) max = v;
    let total = 0;
    for (const v of row) total += Math.exp(v - max);
    sum += row[outputIds[t + 1]] - max - Math.log(total);
  }
  return sum;
}

/**
 * For each row of two alignments [T, S] (the same English tokens, two sets
 * of heads), the source piece each weighs most: { before, after, changed }
 * (changed: how many rows moved to another piece), rows marked special skipped.
 */
export function topPieceChanges(before, after, S, special) {
  const argmax = (w, t) => {
    let best = 0;
    for (let s = 1; s < S; s++) if (w[t * S + s] > w[t * S + best]) best = s;
    return best;
  };
  const rows = [];
  let changed = 0;
  for (let t = 0; t * S < before.length; t++) {
    if (special[t]) continue;
    const row = { t, before: argmax(before, t), after: argmax(after, t) };
    if (row.before !== row.after) changed += 1;
    rows.push(row);
  }
  return { rows, changed };
}
