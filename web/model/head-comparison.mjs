// The single head against the heads of its run, row by row: what each head
// picks (its top keys), whether the single head's one softmax keeps that pick,
// and the rows where the single head's top key is none of the heads' tops.
// Pure: reads only the run.

/**
 * Per query row: each head's tops, whether the single head keeps them (one of
 * its own tops is among them), the weight the single head gives them, and the
 * "none" flag (the single head's tops miss every head's).
 * @returns {{ token: object, q: number, singleTops: number[], none: boolean,
 *   picks: { head: object, tops: number[], kept: boolean, singleWeight: number }[] }[]}
 */
export function compareRows(run) {
  return run.queryTokens.map((token, q) => {
    const singleTops = run.single.tops[q];
    const picks = run.heads.map((h) => ({
      head: h,
      tops: h.tops[q],
      kept: h.tops[q].some((k) => singleTops.includes(k)),
      singleWeight: h.tops[q].reduce((s, k) => s + run.single.weights[q * run.cols + k], 0),
    }));
    const union = new Set(picks.flatMap((p) => p.tops));
    const none = union.size > 0 && singleTops.length > 0 && !singleTops.some((k) => union.has(k));
    return { token, q, singleTops, picks, none };
  });
}

const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;

/**
 * What the comparison's text says, from the rows (compareRows): the heads'
 * picks (a head's top keys in a row where it has some) and how many the
 * single head keeps; each head's mean entropy over its rows with a pick
 * (null when it has none: its mean would be 0/0), the single head's over
 * every row; the rows where keys tie for the single head's top weight, and
 * those whose top is none of the heads'. `flat`: no head, the single head
 * included, prefers any key in any row (every score equal, as at sharpness
 * 0), so there is nothing to keep or drop.
 * @returns {{ picks: number, kept: number, flat: boolean, headBits: { head: object, bits: number | null }[],
 *   singleBits: number, split: object[], none: object[] }}
 */
export function compareSummary(run, rows = compareRows(run)) {
  const picks = rows.flatMap((r) => r.picks.filter((p) => p.tops.length));
  const headBits = run.heads.map((head) => {
    const picked = [...head.entropy].filter((_, q) => head.tops[q].length);
    return { head, bits: picked.length ? mean(picked) : null };
  });
  return {
    picks: picks.length,
    kept: picks.filter((p) => p.kept).length,
    flat: picks.length === 0 && rows.every((r) => r.singleTops.length === 0),
    headBits,
    singleBits: mean([...run.single.entropy]),
    // A tie is keys sharing the row's top weight (rowTops), not a spread row: at sharpness 1 every row is spread.
    split: rows.filter((r) => r.singleTops.length > 1),
    none: rows.filter((r) => r.none),
  };
}
