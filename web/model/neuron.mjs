// The neuron view's numbers (as bertviz's neuron view): for one query–key pair
// of one head, the query's vector q and the key's vector k (the engine's Q and
// K, that head's columns), their element-wise product q⊙k, its sum q·k (in
// float64, written out from the engine's q and k), the score q·k/√d_k next to
// the engine's own score, and the softmax of the row: the engine's weights,
// and the page's softmax of the engine's scores as a check. Pure: reads a run.
import { maskedScores, softmaxRows } from './stats.mjs';

/** The index of the head the neuron view shows: the current head if it is one of the call's heads, else the first. */
export function neuronHead(run, name) {
  return Math.max(
    0,
    run.heads.findIndex((h) => h.name === name),
  );
}

/**
 * The pair the neuron view shows: the state's, else the spec's focus query
 * and the key the head weighs most in its row (the first of its tops; a
 * uniform row: the first key it may see). Indices out of range fall back.
 * @returns {{ q: number, k: number }}
 */
export function pairFor(run, h, pair) {
  const valid = (i, n) => Number.isInteger(i) && i >= 0 && i < n;
  const q = valid(pair?.q, run.rows) ? pair.q : valid(run.spec.focusQuery, run.rows) ? run.spec.focusQuery : 0;
  if (valid(pair?.k, run.cols) && pair.q === q) return { q, k: pair.k };
  const top = run.heads[h].tops[q][0];
  return { q, k: top ?? 0 };
}

/**
 * Head h's numbers for query q and key k.
 * @returns {{ q: Float32Array, k: Float32Array, product: Float64Array, dot: number, dK: number,
 *   score: number, engineScore: number, masked: boolean, weight: number, softmaxWeight: number,
 *   rowScores: Float32Array, rowWeights: Float32Array, qLabels: string[], kLabels: string[] }}
 */
export function neuronPair(run, h, q, k) {
  const { rows, cols, dims, projections, scores, causal, spec } = run;
  const { numHeads, dK } = dims;
  const width = numHeads * dK;
  const qv = projections.Q.subarray(q * width + h * dK, q * width + (h + 1) * dK);
  const kv = projections.K.subarray(k * width + h * dK, k * width + (h + 1) * dK);
  const product = Float64Array.from(qv, (v, i) => v * kv[i]);
  const dot = product.reduce((sum, v) => sum + v, 0);
  const block = h * rows * cols;
  const rowScores = scores.subarray(block + q * cols, block + (q + 1) * cols);
  const rowWeights = run.heads[h].weights.subarray(q * cols, (q + 1) * cols);
  const masked = causal && k > q;
  const ownSoftmax = softmaxRows(
    maskedScores(rowScores, { rows: 1, cols, head: 0, causal: false, mask: false }).map((v, j) =>
      causal && j > q ? -Infinity : v,
    ),
    1,
    cols,
  );
  const labels = (list) => list.slice(h * dK, (h + 1) * dK).map((l) => l.replace(/^[^/]*\//, ''));
  return {
    q: qv,
    k: kv,
    product,
    dot,
    dK,
    score: dot / Math.sqrt(dK),
    engineScore: rowScores[k],
    masked,
    weight: rowWeights[k],
    softmaxWeight: ownSoftmax[k],
    rowScores,
    rowWeights,
    qLabels: labels(spec.labels.q),
    kLabels: labels(spec.labels.k),
  };
}
