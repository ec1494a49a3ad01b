// Seeded randomness, reproducible across browsers and Node, which Math.random
// is not: free mode's inputs, the toy grammar's corpus, and (imported from
// here) the benchmark's inputs and the engine tests' random cases. Pure.

/**
 * mulberry32, a 32-bit seeded PRNG (public domain, Tommy Ettinger): tiny and
 * reproducible. Not for cryptography.
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

/** A standard normal sample (Box–Muller); 1 − u keeps log() away from 0. */
export function normal(random) {
  const u = 1 - random();
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/**
 * Standard normals, both of each Box–Muller pair (the cosine's, then the
 * sine's): half of normal()'s draws and logarithms per value, for the large
 * random checkpoints the benchmarks and tests write (551 M values in 15 s
 * here, against 33 s). A stream of its own, not normal()'s.
 * @param {() => number} random uniform numbers in [0, 1)
 * @returns {() => number}
 */
export function normals(random) {
  let spare = 0;
  let has = false;
  return () => {
    if (has) {
      has = false;
      return spare;
    }
    const radius = Math.sqrt(-2 * Math.log(1 - random()));
    const angle = 2 * Math.PI * random();
    spare = radius * Math.sin(angle);
    has = true;
    return radius * Math.cos(angle);
  };
}

/** FNV-1a over the UTF-16 code units: a token's text → a 32-bit seed. */
export function hashText(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * Seeded random projections, entries N(0, 1/fanIn) ("LeCun normal"); wQ and
 * wK are multiplied by qkGain. With gain 1 free mode's heads are much flatter
 * (a typical row's largest weight a few times an even share, where a trained
 * head's is near 1: free-mode.mjs's untrainedSpread measures it); 3 lets each
 * head pick favourites, so a pattern shows. Shapes as in the engine: wQ, wK [dModel, numHeads·dK]; wV
 * [dModel, numHeads·dV]; wO [numHeads·dV, dModel]. The draw order is fixed
 * (wQ, wK, wV, wO), so a seed always gives the same weights.
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
