// An independent float64 multi-head attention, written from the definition in
// tests/fixtures/README.md (not from the C++ core):
//   Q = query·wQ + bQ, K = key·wK + bK, V = value·wV + bV        (X times W)
//   A_h = softmax(Q_h K_hᵀ / sqrt(dK) + mask) over the usable keys
//   head_h = A_h V_h, output = concat_h(head_h)·wO + bO
// Key j is usable for query i unless (causal and j > i) or keyPaddingMask[b][j] == 1.
// A row with no usable key has attention 0 and head output 0 (output = bO).
// Takes the library's arguments, with the library's defaults.

/** rows×inner (row-major) times inner×cols, plus an optional bias of cols: a new Float64Array. */
function project(x, rows, inner, w, cols, bias) {
  const out = new Float64Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      let sum = bias ? bias[c] : 0;
      for (let i = 0; i < inner; i++) sum += x[r * inner + i] * w[i * cols + c];
      out[r * cols + c] = sum;
    }
  }
  return out;
}

/**
 * Returns { output [B,Lq,D], attention [B,H,Lq,Lk], projections { Q, K, V, concat } } as
 * Float64Arrays, plus two
 * statistics of the logits: maxAbsLogit, and minTopGap (over rows with at
 * least two usable keys, the smallest difference between the two largest logits).
 */
export function referenceAttention(args) {
  const batch = args.batch ?? 1;
  const Lq = args.seqLenQ;
  const Lk = args.seqLenK ?? Lq;
  const D = args.dModel;
  const H = args.numHeads;
  const dK = args.dK ?? D / H;
  const dV = args.dV ?? D / H;
  const mask = args.keyPaddingMask;
  const scale = 1 / Math.sqrt(dK);

  const Q = project(args.query, batch * Lq, D, args.wQ, H * dK, args.bQ);
  const K = project(args.key ?? args.query, batch * Lk, D, args.wK, H * dK, args.bK);
  const V = project(args.value ?? args.query, batch * Lk, D, args.wV, H * dV, args.bV);

  const attention = new Float64Array(batch * H * Lq * Lk);
  const heads = new Float64Array(batch * Lq * H * dV); // concat_h(head_h), [B, Lq, H*dV]
  let maxAbsLogit = 0;
  let minTopGap = Infinity;
  const logits = new Float64Array(Lk);
  for (let b = 0; b < batch; b++) {
    for (let h = 0; h < H; h++) {
      for (let i = 0; i < Lq; i++) {
        const usable = [];
        for (let j = 0; j < Lk; j++) {
          if (args.causal && j > i) continue;
          if (mask && mask[b * Lk + j] === 1) continue;
          usable.push(j);
        }
        if (usable.length === 0) continue; // attention and head output stay 0
        for (const j of usable) {
          let dot = 0;
          for (let d = 0; d < dK; d++)
            dot += Q[(b * Lq + i) * H * dK + h * dK + d] * K[(b * Lk + j) * H * dK + h * dK + d];
          logits[j] = dot * scale;
          maxAbsLogit = Math.max(maxAbsLogit, Math.abs(logits[j]));
        }
        const sorted = usable.map((j) => logits[j]).sort((x, y) => y - x);
        if (sorted.length > 1) minTopGap = Math.min(minTopGap, sorted[0] - sorted[1]);
        let sum = 0;
        for (const j of usable) sum += Math.exp(logits[j] - sorted[0]);
        const row = ((b * H + h) * Lq + i) * Lk;
        for (const j of usable) attention[row + j] = Math.exp(logits[j] - sorted[0]) / sum;
        for (let d = 0; d < dV; d++) {
          let acc = 0;
          for (const j of usable) acc += attention[row + j] * V[(b * Lk + j) * H * dV + h * dV + d];
          heads[(b * Lq + i) * H * dV + h * dV + d] = acc;
        }
      }
    }
  }
  const output = project(heads, batch * Lq, H * dV, args.wO, D, args.bO);
  return { output, attention, maxAbsLogit, minTopGap, projections: { Q, K, V, concat: heads } };
}
