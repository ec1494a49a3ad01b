// The inputs of the page's one attention call, built from explicit features so
// that every number can be traced back: X (query = key = value, self-attention)
// and seeded random projections wQ, wK, wV, wO. Pure functions: no DOM, no engine.

/**
 * mulberry32, a 32-bit seeded PRNG (public domain, Tommy Ettinger): tiny and
 * reproducible across browsers, which Math.random is not. Not for cryptography.
 * @param {number} seed an integer; only its low 32 bits are used
 * @returns {() => number} uniform numbers in [0, 1)
 */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard normal sample (Box–Muller); 1 - u keeps log() away from 0. */
function normal(random) {
  const u = 1 - random();
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** The distinct characters of the tokens, in order of first appearance. */
export function vocabulary(tokens) {
  return [...new Set(tokens.map((t) => t.char))];
}

/**
 * X [seqLen, dModel], row-major: character identity plus position, summed as
 * in the Transformer's input layer.
 * - Identity: one-hot over the sentence's vocabulary (用 毒 蛇 ， 会 不 被 死 take
 *   dimensions 0..7), so all six 毒 start from the same vector.
 * - Position: the sinusoidal code of "Attention Is All You Need" (§3.5),
 *   PE[pos, 2i] = sin(pos / 10000^(2i/dModel)), PE[pos, 2i+1] = cos(same angle).
 *   Neighbouring positions get similar codes, distant ones different codes;
 *   it is the only thing that makes the six 毒 rows differ.
 */
export function embed(tokens, dModel) {
  const vocab = vocabulary(tokens);
  if (vocab.length > dModel)
    throw new RangeError(`dModel: expected at least ${vocab.length} (the vocabulary size), got ${dModel}`);
  const x = new Float32Array(tokens.length * dModel);
  tokens.forEach((token, pos) => {
    const row = pos * dModel;
    x[row + vocab.indexOf(token.char)] = 1;
    for (let d = 0; d < dModel; d += 2) {
      const angle = pos / 10000 ** (d / dModel);
      x[row + d] += Math.sin(angle);
      if (d + 1 < dModel) x[row + d + 1] += Math.cos(angle);
    }
  });
  return x;
}

/**
 * Seeded random projections, entries N(0, 1/fanIn) ("LeCun normal"). wQ and wK
 * are then multiplied by qkGain: the scores grow with qkGain², and with 1 the
 * softmax of these untrained heads is nearly flat (every weight close to 1/15);
 * 3 lets each head pick favourites, so its pattern is visible.
 * Shapes as in the engine: wQ, wK [dModel, numHeads*dK]; wV [dModel, numHeads*dV];
 * wO [numHeads*dV, dModel]. The draw order is fixed (wQ, wK, wV, wO), so a seed
 * always gives the same weights.
 */
export function randomWeights({ seed, dModel, numHeads, dK, dV, qkGain = 1 }) {
  const random = mulberry32(seed);
  const matrix = (rows, cols, gain = 1) => {
    const scale = gain / Math.sqrt(rows);
    return Float32Array.from({ length: rows * cols }, () => normal(random) * scale);
  };
  return {
    wQ: matrix(dModel, numHeads * dK, qkGain),
    wK: matrix(dModel, numHeads * dK, qkGain),
    wV: matrix(dModel, numHeads * dV),
    wO: matrix(numHeads * dV, dModel),
  };
}
