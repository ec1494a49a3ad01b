// What "Which heads matter" (views/heads-matter.mjs) says of fewer heads
// (views/fewer-heads.mjs) and of one head (views/head-detail.mjs), from the
// numbers only: each layer reduced to the head oneHeadPerLayer keeps there,
// all layers at once (the mask withHeadsOff runs); each group's single most
// important head alone; one head switched off and whether the output stays.
// Pure: no DOM, no engine; t() writes the page's language.
import { fixed } from '../lib/format.mjs';
import { t } from '../lib/i18n.mjs';
import { outputText, sameIds } from './head-importance-text.mjs';

/**
 * The mask that keeps, in every layer of every group, the head oneHeadPerLayer kept there (`layers`: its result's
 * layers), and switches off the layer's other heads: { group: [layers][heads] of 0/1 }.
 * @param {Record<string, { layer: number, head: number }[]>} layers
 * @param {Record<string, { shape: [number, number] }>} groups headImportance's groups (their shapes)
 */
export function oneHeadMask(layers, groups) {
  return Object.fromEntries(
    Object.entries(layers).map(([group, kept]) => {
      const [count, heads] = groups[group].shape;
      return [
        group,
        Array.from({ length: count }, (_, l) => Array.from({ length: heads }, (_, h) => (kept[l].head === h ? 1 : 0))),
      ];
    }),
  );
}

/** The mask with one head of one group switched off, every other head kept. */
export function headOffMask(groups, { group, layer, head }) {
  return Object.fromEntries(
    Object.entries(groups).map(
      ([
        name,
        {
          shape: [layers, heads],
        },
      ]) => [
        name,
        Array.from({ length: layers }, (_, l) =>
          Array.from({ length: heads }, (_, h) => (name === group && l === layer && h === head ? 0 : 1)),
        ),
      ],
    ),
  );
}

/** Whether an output is the reference's ('same') or another ('changed'). */
export const verdict = (output, reference) => (sameIds(output.outputIds, reference.outputIds) ? 'same' : 'changed');

/**
 * The sentence on every layer reduced at once: heads kept of the total, the score against the reference's and
 * whether the output stays. `off` is withHeadsOff's result with oneHeadMask.
 */
export function oneHeadSentence(off, mask) {
  const cells = Object.values(mask).flat(2);
  const kept = cells.filter((v) => v === 1).length;
  const said = verdict(off.output, off.reference);
  return t(`matter.few.layers.${said}`, {
    kept,
    total: cells.length,
    score: fixed(off.score),
    reference: fixed(off.reference.score),
    output: outputText(off.output),
  });
}

/** The sentence on each group's single head (oneHeadPerLayer's `single`, and `singleAll` with several groups). */
export function singleSentences(one) {
  const out = Object.entries(one.single).map(([group, s]) =>
    t(`matter.few.single.${verdict(s.output, one.reference)}`, {
      group: t(`matter.group.${group}`),
      head: t('real.layerHead', s),
      score: fixed(s.score),
      output: outputText(s.output),
    }),
  );
  if (one.singleAll)
    out.push(
      t(`matter.few.singleAll.${verdict(one.singleAll.output, one.reference)}`, {
        score: fixed(one.singleAll.score),
        output: outputText(one.singleAll.output),
      }),
    );
  return out;
}

/** The sentence on one head switched off alone (withHeadsOff's result with headOffMask). */
export function headOffSentence(off, { group, layer, head }) {
  return t(`matter.head.off.${verdict(off.output, off.reference)}`, {
    head: t('real.layerHead', { layer, head }),
    group: t(`matter.group.${group}`),
    delta: fixed(off.delta),
    output: outputText(off.output),
    reference: outputText(off.reference),
  });
}

/**
 * What one head writes from each token (Kobayashi et al. 2020): ‖f_h(x_j)‖, the norm of token j's value through
 * the head's part of W_O, per position: [{ position, token, norm }]. `run` is run()'s result with
 * returnHeadOutputs; the cross-attention's tokens are the encoder's, the decoder's of an encoder-decoder its own.
 */
export function headWrites(run, { group, layer, head }) {
  const { data, shape } = run.headOutputs[group].valueNorms;
  const [, heads, count] = shape;
  const tokens = group === 'decoder' && run.decoderTokens ? run.decoderTokens : run.tokens;
  const from = (layer * heads + head) * count;
  return Array.from({ length: count }, (_, position) => ({
    position,
    token: tokens[position],
    norm: data[from + position],
  }));
}

/** The sentence on what a head writes: the token it would move the output furthest from, and the median's. */
export function writesSentence(rows) {
  const top = rows.reduce((best, r) => (r.norm > best.norm ? r : best));
  const sorted = rows.map((r) => r.norm).sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return t('matter.head.writes', {
    token: top.token,
    position: top.position,
    norm: fixed(top.norm),
    median: fixed(median),
  });
}
