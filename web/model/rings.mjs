// Ground-truth rings over a heatmap's cells: a ring on each cell a head is
// meant to attend to, solid where the row's top key hits it, dashed where it
// misses. Pure: the heatmap draws them.
import { UI, headColor } from '../lib/palette.mjs';

/** Radius of a ring, as a fraction of a cell. */
const RADIUS = 0.36;

/** A ring on (q, k), dashed unless k is one of row q's top keys. */
const ring = (q, k, color, r, tops) => ({ q, k, color, r, dashed: !tops[q].includes(k) });

/**
 * A run's rings for one head: its annotated targets, in ink. The single head
 * gets every head's targets (free mode, which has none: every head's top keys),
 * nested rings in the heads' colours, hit or missed by the single head's tops.
 * @returns {{ q: number, k: number, color: string, r: number, dashed: boolean }[]}
 */
export function ringsFor(run, head) {
  if (head.name !== 'single')
    return (head.targets ?? []).flatMap((t, q) => t.keys.map((k) => ring(q, k, UI.ink, RADIUS, head.tops)));
  return run.heads.flatMap((h, i) => {
    const r = 0.44 - (0.3 * i) / Math.max(1, run.heads.length);
    const wanted = h.targets ? h.targets.map((t) => t.keys) : h.tops;
    return wanted.flatMap((keys, q) => keys.map((k) => ring(q, k, headColor(h.name, h.index), r, run.single.tops)));
  });
}

/**
 * Rings on the two neighbours of each of the given rows (the learned heads:
 * each 毒's left and right neighbour, the pair that decides its role).
 * @param {number[][]} tops each row's top keys (stats.mjs rowTops)
 * @param {number[]} rows the rows that get rings
 */
export function neighbourRings(tops, rows) {
  return rows.flatMap((q) => [q - 1, q + 1].map((k) => ring(q, k, UI.ink, RADIUS, tops)));
}
