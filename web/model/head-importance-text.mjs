// What "Which heads matter" (views/heads-matter.mjs) says of one analysis
// (mha-wasm/analysis: headImportance, then pruningCurve with its order), from
// the numbers only: how many heads go before the re-decoded output changes,
// and which attention group's heads matter most (the largest median drop when
// each head alone is switched off) or, with one group, which head. Pure: no
// DOM, no engine; t() writes the page's language.
import { fixed, percent } from '../lib/format.mjs';
import { t } from '../lib/i18n.mjs';

/** Whether two outputs are the same token ids. */
export const sameIds = (a, b) => a.length === b.length && Array.prototype.every.call(a, (id, i) => id === b[i]);

/**
 * An output as the page writes it: its text (decoders, translations), else its pieces (a BERT's fill, or a text
 * that shows nothing whole: blank, or half a character, U+FFFD, as a lone byte piece decodes).
 */
export const outputText = (output) =>
  typeof output.text === 'string' && output.text.trim() !== '' && !output.text.includes('\uFFFD')
    ? output.text
    : output.tokens.join(' ');

/**
 * Where a pruning curve's re-decoded output first differs from the reference: `changed` the index of that point
 * (-1: never), `kept` the index of the last point before it (-1: none), `headsOff` its heads off (0 when none),
 * `total` the heads the line switches off at 100 %.
 * @param {{ headsOff: number, output: { outputIds: ArrayLike<number> } }[]} points
 * @param {ArrayLike<number>} referenceIds
 */
export function outputKept(points, referenceIds) {
  const changed = points.findIndex((p) => !sameIds(p.output.outputIds, referenceIds));
  const kept = changed === -1 ? points.length - 1 : changed - 1;
  return { changed, kept, headsOff: kept >= 0 ? points[kept].headsOff : 0, total: points.at(-1).headsOff };
}

/** The median of numbers (the mean of the middle two for an even count). */
export function median(values) {
  const sorted = Float64Array.from(values).sort();
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Per group of an importance result: { group, median (of the drops), top ({ layer, head, drop }: the largest
 * drop; ties: the first), raise (heads whose removal alone raises the score), count }. A drop is −delta: how much
 * the reference's log-probability falls when that head alone is off.
 * @param {Record<string, { delta: ArrayLike<number>, shape: [number, number] }>} groups
 */
export function groupDrops(groups) {
  return Object.entries(groups).map(([group, { delta, shape }]) => {
    const heads = shape[1];
    const drops = Array.from(delta, (d) => -d);
    let best = 0;
    drops.forEach((d, i) => {
      if (d > drops[best]) best = i;
    });
    return {
      group,
      median: median(drops),
      top: { layer: Math.floor(best / heads), head: best % heads, drop: drops[best] },
      raise: drops.filter((d) => d < 0).length,
      count: drops.length,
    };
  });
}

/** The group with the largest median drop (ties: the first listed). */
export const mostSensitive = (drops) => drops.reduce((best, g) => (g.median > best.median ? g : best));

/**
 * The one or two sentences of the section: [{ kind, text }]. `importance` is headImportance's result, `points`
 * the pruning curve shown (curves.all, or one group's), its reference the analysis' reference.
 */
export function importanceSentences(importance, points) {
  const reference = importance.reference;
  const kept = outputKept(points, reference.outputIds);
  const out = [];
  const ref = outputText(reference);
  if (kept.changed === -1)
    out.push({ kind: 'never', text: t('matter.text.never', { total: kept.total, output: ref }) });
  else {
    const at = points[kept.changed];
    // No point with heads off keeps it: the output changes at the first one.
    const kind = kept.headsOff === 0 ? 'fragile' : 'kept';
    out.push({
      kind,
      text: t(`matter.text.${kind}`, {
        n: kept.headsOff,
        total: kept.total,
        share: percent(kept.total ? kept.headsOff / kept.total : 0),
        output: ref,
        changedAt: at.headsOff,
        // The share of the line's heads actually off there (3 of 8: 37.5 %), not the curve's step it was asked at (40 %).
        changedShare: percent(kept.total ? at.headsOff / kept.total : 0),
        changed: outputText(at.output),
      }),
    });
  }
  const drops = groupDrops(importance.groups);
  if (drops.length > 1) {
    const most = mostSensitive(drops);
    out.push({
      kind: 'group',
      text: t('matter.text.group', {
        group: t(`matter.group.${most.group}`),
        median: fixed(most.median),
        others: drops
          .filter((g) => g !== most)
          .map((g) => t('matter.text.groupMedian', { group: t(`matter.group.${g.group}`), median: fixed(g.median) }))
          .join(t('list.join')),
      }),
    });
  } else {
    const [only] = drops;
    out.push({
      kind: 'head',
      text: t('matter.text.head', {
        head: t('real.layerHead', only.top),
        drop: fixed(only.top.drop),
        median: fixed(only.median),
        raise: only.raise,
        count: only.count,
      }),
    });
  }
  return out;
}
