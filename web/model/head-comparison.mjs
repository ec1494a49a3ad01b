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
