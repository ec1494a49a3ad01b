// One head as wide as all the heads of a call together, whose score is the sum
// of their scores: what one softmax makes of several relations at once. Pure.

/**
 * The arguments of a one-head call with the same total width as `args`
 * (dK' = numHeads·dK, dV' = numHeads·dV) and the same X, wV and wO.
 *
 * Its query·key is the sum over heads of Q_h·K_h, because wQ and wK are the
 * heads' columns side by side. The engine divides by √dK' = √numHeads·√dK
 * instead of each head's √dK, so wQ is multiplied by √numHeads: then
 * score_single = Σ_h Q_h·K_hᵀ/√dK = Σ_h score_h, exactly (up to float rounding).
 * V and wO are unchanged, so its output has the same shape as the heads'.
 */
export function singleHeadArgs(args) {
  const { numHeads } = args;
  const gain = Math.sqrt(numHeads);
  return {
    ...args,
    numHeads: 1,
    dK: numHeads * args.dK,
    dV: numHeads * args.dV,
    wQ: args.wQ.map((v) => v * gain),
    bQ: args.bQ ? args.bQ.map((v) => v * gain) : undefined,
  };
}
