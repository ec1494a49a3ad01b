// Trust, but verify: the float64 JS reference (helpers/reference.mjs) that the
// random tests rely on must reproduce every fixture to 1e-9, and the helpers'
// tolerance rule must be the one the fixtures were written with.
import { fixtureNames, loadFixture } from './helpers/fixtures.mjs';
import { referenceAttention } from './helpers/reference.mjs';
import { compareClose, expectClose, toleranceFor } from './helpers/compare.mjs';
import { mulberry32, gaussian } from './helpers/random.mjs';

const names = fixtureNames();
const TIGHT = { abs: 1e-9, rel: 1e-9 };

test('there are fixtures to check', () => {
  expect(names.length).toBeGreaterThanOrEqual(11);
});

describe.each(names)('fixture %s', (name) => {
  const fx = loadFixture(name);

  test('the JS float64 reference reproduces output and attention to 1e-9', () => {
    const ref = referenceAttention(fx.args);
    expectClose(ref.output, fx.want.output, TIGHT, 'output');
    expectClose(ref.attention, fx.want.attention, TIGHT, 'attention');
  });

  test("toleranceFor() gives the fixture's tolerance", () => {
    expect(toleranceFor(fx.raw)).toEqual(fx.tolerance);
  });
});

describe('compareClose (the tolerance rule)', () => {
  const tol = { abs: 1e-5, rel: 1e-4 };
  test('accepts errors up to abs + rel*|want| and names the worst index beyond', () => {
    expect(compareClose(new Float32Array([1.0001, 0]), [1, 0], tol)).toBeNull();
    const message = compareClose(new Float32Array([1, 2e-5, 100.1]), [1, 0, 100], tol);
    expect(message).toMatch(/worst index 2: got 100\.0999\d*, want 100/);
  });
  test('rejects NaN, infinities and wrong lengths', () => {
    expect(compareClose(new Float32Array([0, NaN]), [0, 0], tol)).toMatch(/NaN at index 1/);
    expect(compareClose(new Float32Array([Infinity]), [1e30], tol)).toMatch(/worst index 0/);
    expect(compareClose(new Float32Array(3), [0, 0], tol)).toMatch(/length 3 instead of 2/);
  });
});

describe('seeded PRNG', () => {
  test('mulberry32 is reproducible and uniform-looking; gaussian has mean 0, variance 1', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const xs = Array.from({ length: 1000 }, () => a());
    expect(xs).toEqual(Array.from({ length: 1000 }, () => b()));
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
    const normal = gaussian(mulberry32(7));
    const n = Array.from({ length: 20000 }, normal);
    const mean = n.reduce((s, x) => s + x, 0) / n.length;
    const variance = n.reduce((s, x) => s + (x - mean) ** 2, 0) / n.length;
    expect(Math.abs(mean)).toBeLessThan(0.03);
    expect(Math.abs(variance - 1)).toBeLessThan(0.05);
  });
});
