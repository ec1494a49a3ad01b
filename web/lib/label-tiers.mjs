// A matrix axis's labels in tiers (views/matrix.mjs). The page names a
// column "block:value" (model/layout.mjs; feature-labels.mjs translates it),
// so fifteen columns of position can read "位置" once, over 0 … 14, instead of
// "位置:0" … "位置:14" crowded side by side; a label repeated over
// consecutive columns with no value of its own (the unused columns) becomes
// one band over columns that say nothing. Pure.

/**
 * Consecutive runs of equal keys, with the first item of each: null and
 * undefined keys start no run.
 * @template T
 * @param {T[]} items
 * @param {(item: T) => string | null | undefined} keyOf
 * @returns {{ start: number, size: number, key: string, item: T }[]}
 */
export function runs(items, keyOf = (item) => item) {
  const out = [];
  items.forEach((item, i) => {
    const key = keyOf(item);
    if (key === null || key === undefined) return;
    const last = out.at(-1);
    if (last && last.key === key && last.start + last.size === i) last.size += 1;
    else out.push({ start: i, size: 1, key, item });
  });
  return out;
}

/**
 * @param {string[]} labels one per column ("" for a column that holds nothing)
 * @returns {{ bands: { start: number, size: number, text: string }[], leaves: string[] }}
 *   bands: each block over its consecutive columns; leaves: what each column says under its band
 */
export function labelTiers(labels) {
  const parsed = labels.map((label) => {
    const colon = label.indexOf(':');
    return colon >= 0 ? { block: label.slice(0, colon), leaf: label.slice(colon + 1) } : { block: null, leaf: label };
  });
  labels.forEach((label, i) => {
    if (parsed[i].block === null && label && (labels[i - 1] === label || labels[i + 1] === label))
      parsed[i] = { block: label, leaf: '' };
  });
  return {
    bands: runs(parsed, (p) => p.block).map(({ start, size, key }) => ({ start, size, text: key })),
    leaves: parsed.map((p) => p.leaf),
  };
}

/**
 * The longest start of `text` that fits `width` units at `em` units per em
 * (widthOf: the text's width in em), with "…" when cut; "" if not even one
 * character and the ellipsis fit.
 */
export function fitText(text, width, em, widthOf) {
  if (widthOf(text) * em <= width) return text;
  const chars = [...text];
  for (let n = chars.length - 1; n > 0; n--) {
    const cut = `${chars.slice(0, n).join('')}…`;
    if (widthOf(cut) * em <= width) return cut;
  }
  return '';
}
