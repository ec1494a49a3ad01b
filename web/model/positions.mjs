// The sinusoidal position code of "Attention Is All You Need" (§3.5): even
// dimensions 2i are sin(pos / 10000^(2i/dModel)), odd ones 2i+1 the cos of the
// same angle. Free mode adds it to its token vectors; the benchmark's
// TensorFlow.js tagger adds it as the engine's trainer does. Pure.

/** Dimension d of the position code of position pos, in float64. */
export function positionCode(pos, d, dModel) {
  const angle = pos / 10000 ** ((d - (d % 2)) / dModel);
  return d % 2 ? Math.cos(angle) : Math.sin(angle);
}

/** The position codes of positions 0 … length − 1, as a row-major [length, dModel] Float32Array. */
export function positionCodes(length, dModel) {
  const codes = new Float32Array(length * dModel);
  for (let pos = 0; pos < length; pos++)
    for (let d = 0; d < dModel; d++) codes[pos * dModel + d] = positionCode(pos, d, dModel);
  return codes;
}
