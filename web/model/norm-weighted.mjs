// Norm-weighted attention (Kobayashi et al. 2020, "Attention is Not Only a
// Weight"): a head's output at query i is Σ_j α_ij f_h(x_j), so what token j
// adds is α_ij·‖f_h(x_j)‖, not α_ij alone — a large weight on a token whose
// transformed value is short moves little. ‖f_h(x_j)‖ is run()'s
// headOutputs[group].valueNorms [layers, heads, keys]. Pure.

/** Head `head` of layer `layer`'s ‖f_h(x_j)‖ at the key positions shown (`positions`: indices into the keys). */
export function keyNorms({ data, shape: [, heads, keys] }, layer, head, positions) {
  const from = (layer * heads + head) * keys;
  return Float64Array.from(positions, (j) => data[from + j]);
}

/** α_ij·‖f(x_j)‖ over a [rows × cols] map of weights: Float64Array [rows × cols]. */
export function normWeighted(weights, norms) {
  const cols = norms.length;
  return Float64Array.from(weights, (w, i) => w * norms[i % cols]);
}

/** The largest value of a map (0 for none). */
export const largest = (values) => values.reduce((m, v) => (v > m ? v : m), 0);

/**
 * α·‖f(x)‖ of a group's attention { data, shape: [layers, heads, rows, cols] } with its valueNorms: one head's
 * ({ layer, head }), or the mean over a layer's heads ({ layer, head: 'mean' }) or every head ('mean'), as
 * model/translation.mjs crossWeights averages the weights. Float64Array [rows × cols].
 */
export function normWeightedMap({ data, shape: [layers, heads, rows, cols] }, valueNorms, which) {
  const picked =
    which === 'mean'
      ? Array.from({ length: layers * heads }, (_, i) => ({ layer: Math.floor(i / heads), head: i % heads }))
      : which.head === 'mean'
        ? Array.from({ length: heads }, (_, head) => ({ layer: which.layer, head }))
        : [which];
  const out = new Float64Array(rows * cols);
  const keys = Array.from({ length: cols }, (_, j) => j);
  for (const { layer, head } of picked) {
    const norms = keyNorms(valueNorms, layer, head, keys);
    const from = (layer * heads + head) * rows * cols;
    for (let i = 0; i < rows * cols; i++) out[i] += data[from + i] * norms[i % cols];
  }
  for (let i = 0; i < out.length; i++) out[i] /= picked.length;
  return out;
}
