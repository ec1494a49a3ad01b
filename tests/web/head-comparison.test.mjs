// The single head against the heads, row by row (model/head-comparison.mjs),
// on a made-up run of three query rows over three keys.
import { compareRows, compareSummary } from '../../web/model/head-comparison.mjs';

const h0 = { name: 'head-0', index: 0, tops: [[1], [2], []] };
const h1 = { name: 'head-1', index: 1, tops: [[2], [0], []] };
const tokens = ['a', 'b', 'c'].map((text, index) => ({ text, index }));
const run = {
  cols: 3,
  queryTokens: tokens,
  heads: [h0, h1],
  single: {
    tops: [[1], [1], [0]],
    // Row-major [3, 3].
    weights: Float32Array.from([0.5, 0.25, 0.25, 0.125, 0.5, 0.375, 0.5, 0.25, 0.25]),
  },
};

test('each head’s pick, whether the single head keeps it, and the weight the single head gives it', () => {
  const rows = compareRows(run);
  expect(rows.map((r) => [r.token, r.q, r.singleTops])).toEqual([
    [tokens[0], 0, [1]],
    [tokens[1], 1, [1]],
    [tokens[2], 2, [0]],
  ]);
  expect(rows[0].picks).toEqual([
    { head: h0, tops: [1], kept: true, singleWeight: 0.25 }, // the single head's top is head 0's pick
    { head: h1, tops: [2], kept: false, singleWeight: 0.25 },
  ]);
  expect(rows[1].picks).toEqual([
    { head: h0, tops: [2], kept: false, singleWeight: 0.375 },
    { head: h1, tops: [0], kept: false, singleWeight: 0.125 },
  ]);
  expect(rows[2].picks).toEqual([
    { head: h0, tops: [], kept: false, singleWeight: 0 },
    { head: h1, tops: [], kept: false, singleWeight: 0 },
  ]);
});

test('"none": the single head’s top is none of the heads’ picks (rows where no head picks do not count)', () => {
  // Row 0: its top (key 1) is head 0's pick. Row 1: its top (key 1) is neither pick (2, 0). Row 2: no head picks.
  expect(compareRows(run).map((r) => r.none)).toEqual([false, true, false]);
  const flat = { ...run, single: { ...run.single, tops: [[1], [], [0]] } };
  expect(compareRows(flat)[1].none).toBe(false); // a uniform single row has no top to miss with
});

test('the summary: picks kept, mean entropies (a head without a pick has none, not NaN), the flat case', () => {
  const entropy = (values) => Float64Array.from(values);
  const withEntropy = {
    ...run,
    heads: [
      { ...h0, entropy: entropy([0.5, 1, 3]) },
      { ...h1, entropy: entropy([0.25, 0.75, 3]) },
    ],
    single: { ...run.single, entropy: entropy([1, 0.5, 0]) },
  };
  const summary = compareSummary(withEntropy);
  expect(summary).toMatchObject({ picks: 4, kept: 1, flat: false, singleBits: 0.5 });
  expect(summary.headBits.map((h) => h.bits)).toEqual([0.75, 0.5]);
  // No row's top is a tie: a spread row (1 bit) is not one.
  expect(summary.split).toEqual([]);
  expect(summary.none.map((r) => r.q)).toEqual([1]);
  // Every row of every head even (sharpness 0): no pick at all, log2(3) bits everywhere, and no NaN.
  const even = Math.log2(3);
  const flatHead = (head) => ({ ...head, tops: [[], [], []], entropy: entropy([even, even, even]) });
  const flat = compareSummary({
    ...run,
    heads: [flatHead(h0), flatHead(h1)],
    single: {
      ...run.single,
      tops: [[], [], []],
      weights: new Float32Array(9).fill(1 / 3),
      entropy: entropy([even, even, even]),
    },
  });
  expect(flat).toMatchObject({ picks: 0, kept: 0, flat: true, singleBits: even, none: [] });
  expect(flat.headBits.map((h) => h.bits)).toEqual([null, null]);
});

test('a tie is keys sharing the single head’s top weight, not a spread row (issue 38: at sharpness 1 every row was one)', () => {
  const entropy = Float64Array.from([1.5, 1.5, 0.2]);
  const tied = {
    ...run,
    heads: [
      { ...h0, entropy },
      { ...h1, entropy },
    ],
    // Row 0 spread over 1.5 bits with one top; row 1 two keys tied at the top; row 2 sharp.
    single: { ...run.single, tops: [[1], [0, 2], [0]], entropy },
  };
  expect(compareSummary(tied).split.map((r) => r.q)).toEqual([1]);
});
