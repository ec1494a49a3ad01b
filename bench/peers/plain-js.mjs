// A plain JavaScript float32 implementation (what one would write without a
// library): Float32Array buffers, i-k-j loops, weights resident.
import { headsOf } from '../inputs.mjs';

function matmul(A, B, M, K, N) {
  const C = new Float32Array(M * N);
  for (let i = 0; i < M; i++)
    for (let k = 0; k < K; k++) {
      const a = A[i * K + k];
      const row = k * N;
      for (let j = 0; j < N; j++) C[i * N + j] += a * B[row + j];
    }
  return C;
}

export async function createPeer({ threads }) {
  if (threads !== 1) return null;
  return {
    name: 'plain JS',
    version: process.version,
    async prepare(config, inputs) {
      const { dModel: D, numHeads: H, dK, dV } = headsOf(config);
      const L = config.L;
      return {
        async run() {
          const Q = matmul(inputs.query, inputs.wQ, L, D, H * dK);
          const K = matmul(inputs.query, inputs.wK, L, D, H * dK);
          const V = matmul(inputs.query, inputs.wV, L, D, H * dV);
          const concat = new Float32Array(L * H * dV);
          const s = new Float32Array(L);
          const scale = 1 / Math.sqrt(dK);
          for (let h = 0; h < H; h++)
            for (let i = 0; i < L; i++) {
              const n = config.causal ? i + 1 : L;
              let max = -Infinity;
              for (let j = 0; j < n; j++) {
                let dot = 0;
                for (let c = 0; c < dK; c++) dot += Q[i * H * dK + h * dK + c] * K[j * H * dK + h * dK + c];
                s[j] = dot * scale;
                if (s[j] > max) max = s[j];
              }
              let sum = 0;
              for (let j = 0; j < n; j++) sum += s[j] = Math.exp(s[j] - max);
              for (let j = 0; j < n; j++) {
                const p = s[j] / sum;
                for (let c = 0; c < dV; c++) concat[i * H * dV + h * dV + c] += p * V[j * H * dV + h * dV + c];
              }
            }
          return matmul(concat, inputs.wO, L, H * dV, D);
        },
        dispose() {},
      };
    },
  };
}
