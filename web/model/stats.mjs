// Small numeric helpers over row-major attention blocks [rows, cols]. Pure.

/** Row q of a row-major [rows, cols] block. */
export const rowOf = (block, q, cols) => block.subarray(q * cols, (q + 1) * cols);

/** Entropy of each row in bits (0: all weight on one key; log2(cols): uniform). */
export function rowEntropy(block, rows, cols) {
  return Float64Array.from({ length: rows }, (_, q) => {
    let h = 0;
    for (const w of rowOf(block, q, cols)) if (w > 0) h -= w * Math.log2(w);
    return h;
  });
}

/**
 * The keys each row weighs most: every key within a relative 1e-5 of the row's
 * maximum (ties are kept, not broken by index). A row that is flat over the
 * keys it can see (causal: k ≤ q) has nothing it prefers: [].
 */
export function rowTops(block, rows, cols, causal = false) {
  return Array.from({ length: rows }, (_, q) => {
    const visible = rowOf(block, q, cols).subarray(0, causal ? Math.min(q + 1, cols) : cols);
    let max = -Infinity;
    let min = Infinity;
    for (const w of visible) {
      max = Math.max(max, w);
      min = Math.min(min, w);
    }
    if (max - min <= 1e-6 * max) return [];
    const tops = [];
    visible.forEach((w, k) => w >= max * (1 - 1e-5) && tops.push(k));
    return tops;
  });
}

/** Largest |row sum − 1| over the rows (a row with no visible key sums to 0 and is skipped). */
export function maxRowSumError(block, rows, cols) {
  let worst = 0;
  for (let q = 0; q < rows; q++) {
    let sum = 0;
    for (const w of rowOf(block, q, cols)) sum += w;
    if (sum !== 0) worst = Math.max(worst, Math.abs(sum - 1));
  }
  return worst;
}

/**
 * One head's block of the engine's scores ([numHeads, rows, cols], before
 * masking); with mask, causally masked cells (k > q) shown as −Infinity, as
 * the softmax sees them.
 */
export function maskedScores(scores, { rows, cols, head, causal = false, mask = false }) {
  const block = Float64Array.from(scores.subarray(head * rows * cols, (head + 1) * rows * cols));
  if (mask && causal) for (let q = 0; q < rows; q++) for (let k = q + 1; k < cols; k++) block[q * cols + k] = -Infinity;
  return block;
}

/** Row-wise softmax in float64 (max subtracted; a row of −Infinity gives zeros). */
export function softmaxRows(scores, rows, cols) {
  const out = new Float64Array(rows * cols);
  for (let q = 0; q < rows; q++) {
    const row = scores.subarray(q * cols, (q + 1) * cols);
    const max = Math.max(...row);
    if (max === -Infinity) continue;
    let sum = 0;
    row.forEach((s, k) => (sum += out[q * cols + k] = Math.exp(s - max)));
    for (let k = 0; k < cols; k++) out[q * cols + k] /= sum;
  }
  return out;
}

export function maxAbsDiff(a, b) {
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}

/** Columns c0 … c0+width−1 of a row-major [rows, cols] matrix, as a new [rows, width] one. */
export function columnSlice(matrix, rows, cols, c0, width) {
  const out = new Float32Array(rows * width);
  for (let r = 0; r < rows; r++) out.set(matrix.subarray(r * cols + c0, r * cols + c0 + width), r * width);
  return out;
}
