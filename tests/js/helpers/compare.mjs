// The comparison rule of tests/fixtures/README.md:
//   |got - want| <= abs + rel * |want|, element-wise, and nothing NaN.

/** The README's tolerance for a configuration: rel 1e-4, abs 1e-5 * max(1, sqrt(R/64)) to two digits. */
export function toleranceFor({ dModel, numHeads, dK, dV, seqLenK }) {
  const R = Math.max(dModel, numHeads * dV, seqLenK, dK);
  return { abs: Number((1e-5 * Math.max(1, Math.sqrt(R / 64))).toPrecision(2)), rel: 1e-4 };
}

/**
 * Returns null when `got` matches `want` within `tol`, else a message naming
 * the worst index (largest error relative to its allowance), or the first NaN.
 */
export function compareClose(got, want, tol) {
  if (!got || got.length !== want.length) return `length ${got?.length} instead of ${want.length}`;
  let worst = -1;
  let worstRatio = -Infinity;
  for (let i = 0; i < want.length; i++) {
    if (Number.isNaN(got[i]) || Number.isNaN(want[i])) return `NaN at index ${i} (got ${got[i]}, want ${want[i]})`;
    const allowed = tol.abs + tol.rel * Math.abs(want[i]);
    const err = got[i] === want[i] ? 0 : Math.abs(got[i] - want[i]); // Infinity === Infinity is fine
    const ratio = err / allowed;
    if (ratio > worstRatio) {
      worstRatio = ratio;
      worst = i;
    }
  }
  if (worst < 0 || worstRatio <= 1) return null;
  const err = Math.abs(got[worst] - want[worst]);
  return (
    `worst index ${worst}: got ${got[worst]}, want ${want[worst]}, |diff| ${err.toExponential(3)} > ` +
    `allowed ${(tol.abs + tol.rel * Math.abs(want[worst])).toExponential(3)} (abs ${tol.abs}, rel ${tol.rel})`
  );
}

/** Throws (failing the test) unless got matches want within tol; `label` says what was compared. */
export function expectClose(got, want, tol, label) {
  const problem = compareClose(got, want, tol);
  if (problem) throw new Error(`${label}: ${problem}`);
}

/** Throws unless a and b hold the same bits (same float32 values, same NaN payloads, same zeros' signs). */
export function expectSameBits(a, b, label) {
  const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  if (x.length !== y.length) throw new Error(`${label}: ${a.length} elements instead of ${b.length}`);
  const i = x.findIndex((v, k) => v !== y[k]);
  if (i >= 0) {
    const e = Math.floor(i / a.BYTES_PER_ELEMENT);
    throw new Error(`${label}: first difference at index ${e}: ${a[e]} vs ${b[e]}`);
  }
}

/** Throws unless every element of got[from .. from+want.length) is === want (so +0 equals -0). */
export function expectExactly(got, from, want, label) {
  for (let k = 0; k < want.length; k++) {
    if (!(got[from + k] === want[k]))
      throw new Error(`${label}: index ${from + k} is ${got[from + k]}, want exactly ${want[k]}`);
  }
}

/** Whether two typed arrays hold the same bytes (bit for bit: -0 is not 0, NaNs by their bits). */
export const sameBits = (a, b) =>
  a.length === b.length &&
  Buffer.compare(
    Buffer.from(a.buffer, a.byteOffset, a.byteLength),
    Buffer.from(b.buffer, b.byteOffset, b.byteLength),
  ) === 0;

/** Throws naming `label[i]` at the first element outside |got − want| ≤ abs + rel·|want| (and a length apart). */
export function expectNear(got, want, abs, rel, label) {
  if (got.length !== want.length) throw new Error(`${label}: ${got.length} elements, want ${want.length}`);
  for (let i = 0; i < want.length; i++)
    if (!(Math.abs(got[i] - want[i]) <= abs + rel * Math.abs(want[i])))
      throw new Error(`${label}[${i}]: got ${got[i]}, want ${want[i]}`);
}
