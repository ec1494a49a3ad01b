// The sinusoidal position code (model/positions.mjs): sin on even dimensions,
// cos on odd ones, of pos / 10000^(2i/dModel).
import { positionCode, positionCodes } from '../../web/model/positions.mjs';

test('position 0 is sin 0 = 0 on even dimensions and cos 0 = 1 on odd ones', () => {
  expect(Array.from({ length: 6 }, (_, d) => positionCode(0, d, 6))).toEqual([0, 1, 0, 1, 0, 1]);
});

test('dimensions 2i and 2i + 1 share the angle pos / 10000^(2i/dModel)', () => {
  // dModel 4: i = 0 has angle pos, i = 1 has angle pos / 10000^(1/2) = pos / 100.
  expect(positionCode(3, 0, 4)).toBeCloseTo(Math.sin(3), 15);
  expect(positionCode(3, 1, 4)).toBeCloseTo(Math.cos(3), 15);
  expect(positionCode(3, 2, 4)).toBeCloseTo(Math.sin(0.03), 15);
  expect(positionCode(3, 3, 4)).toBeCloseTo(Math.cos(0.03), 15);
});

test('positionCodes is the row-major [length, dModel] table of them, in float32', () => {
  const codes = positionCodes(5, 4);
  expect(codes).toBeInstanceOf(Float32Array);
  expect(codes).toHaveLength(20);
  expect(codes[3 * 4 + 2]).toBe(Math.fround(Math.sin(0.03)));
});
