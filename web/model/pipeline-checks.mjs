// The pipeline's live checks: the article's three sentences, quoted as the
// lede words them (every head sees the whole sentence, each head has its own
// projections, Concat + wO keeps every head's view), each against what the
// run shows (the heads split d_model, never the sentence: H·d_k = d_model,
// d_v = d_k), and the invariants of attention, each computed from the
// engine's arrays of the run itself. Pure.
import { maskedScores, maxAbsDiff, maxRowSumError, softmaxRows } from './stats.mjs';
import { allHeads } from './compute.mjs';
import { t } from '../lib/i18n.mjs';

/**
 * @returns {{ ok: boolean, text: string, claim?: string }[]} six checks, in the pipeline's order; claim: the
 *   message key of the article's sentence the check tests (markup: the lede's own words)
 */
export function pipelineChecks(run) {
  const { rows, cols, dims, spec, projections: P, causal } = run;
  const { dModel, numHeads, dK, dV } = dims;
  const heads = allHeads(run);
  // Heads a and b of a projection [dModel, numHeads·width] hold the same numbers?
  const same = (w, width, a, b) => {
    const at = (r, h, c) => w[r * numHeads * width + h * width + c];
    for (let r = 0; r < dModel; r++) for (let c = 0; c < width; c++) if (at(r, a, c) !== at(r, b, c)) return false;
    return true;
  };
  const distinct = (w, width) => run.heads.every((_, a) => run.heads.every((__, b) => a >= b || !same(w, width, a, b)));
  let masked = 0;
  let maskedZero = 0;
  if (causal)
    for (const head of heads)
      for (let q = 0; q < rows; q++)
        for (let k = q + 1; k < cols; k++) {
          masked += 1;
          if (head.weights[q * cols + k] === 0) maskedZero += 1;
        }
  const softmaxOf = (h) =>
    softmaxRows(maskedScores(run.scores, { rows, cols, head: h, causal, mask: true }), rows, cols);
  const softmaxGap = Math.max(...run.heads.map((head, h) => maxAbsDiff(softmaxOf(h), head.weights)));
  const sumError = Math.max(...heads.map((h) => maxRowSumError(h.weights, rows, cols)));
  const concatWidth = `${numHeads}·${dV} = ${numHeads * dV}`;
  const own =
    numHeads === 1 || (distinct(spec.args.wQ, dK) && distinct(spec.args.wK, dK) && distinct(spec.args.wV, dV));
  return [
    {
      claim: 'claim.whole',
      ok: P.K.length === cols * numHeads * dK && P.V.length === cols * numHeads * dV,
      text: t('check.whole', { cols, causal }),
    },
    {
      claim: 'claim.own',
      ok: own && numHeads * dK === dModel && dV === dK,
      text: t('check.own', { dModel, dK, dV, n: numHeads }),
    },
    {
      claim: 'claim.concat',
      ok: P.concat.length === rows * numHeads * dV && run.output.length === rows * dModel,
      text: t('check.concat', { concat: concatWidth, width: numHeads * dV, dModel }),
    },
    {
      ok: sumError < 1e-5,
      text: t('check.sums', { error: sumError.toExponential(1), rows: heads.length * rows }),
    },
    causal
      ? {
          ok: maskedZero === masked,
          text: t('check.masked', { zero: maskedZero, masked, heads: heads.length }),
        }
      : { ok: true, text: t('check.noMask') },
    {
      ok: softmaxGap < 1e-5,
      text: t('check.softmax', { gap: softmaxGap.toExponential(1) }),
    },
  ];
}
