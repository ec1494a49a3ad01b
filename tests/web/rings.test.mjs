// The ground-truth rings of the heatmaps (model/rings.mjs), on small made-up
// runs: a ring on every target, dashed where the row's top key misses it; the
// single head's rings are every head's targets in the heads' colours.
import { ringsFor, neighbourRings } from '../../web/model/rings.mjs';
import { UI, headColor } from '../../web/lib/palette.mjs';

const targets = (rows) => rows.map((keys) => ({ keys, fallback: keys.length === 0 }));
/** Radii rounded, so that the expectations can spell them as decimals. */
const rounded = (rings) => rings.map((r) => ({ ...r, r: Math.round(r.r * 1e6) / 1e6 }));

// Two designed heads over three tokens, and their single head.
const role = { name: 'role', index: 0, tops: [[1], [1], []], targets: targets([[1], [0], []]) };
const dependency = { name: 'dependency', index: 1, tops: [[2], [2], [2]], targets: targets([[2], [], [0]]) };
const run = { heads: [role, dependency], single: { name: 'single', index: 2, tops: [[2], [0], [1]] } };

test('a head: an ink ring on each target, solid where the row’s top key is that target', () => {
  expect(ringsFor(run, role)).toEqual([
    { q: 0, k: 1, color: UI.ink, r: 0.36, dashed: false },
    { q: 1, k: 0, color: UI.ink, r: 0.36, dashed: true },
  ]);
  expect(ringsFor(run, dependency)).toEqual([
    { q: 0, k: 2, color: UI.ink, r: 0.36, dashed: false },
    { q: 2, k: 0, color: UI.ink, r: 0.36, dashed: true },
  ]);
  expect(ringsFor(run, { name: 'head-0', index: 0, tops: [[0]], targets: null })).toEqual([]);
});

test('the single head: every head’s targets, nested by head, hit or missed by the single head’s tops', () => {
  // Radii: 0.44 for the first of two heads, 0.44 − 0.3/2 = 0.29 for the second.
  expect(rounded(ringsFor(run, run.single))).toEqual([
    { q: 0, k: 1, color: headColor('role', 0), r: 0.44, dashed: true },
    { q: 1, k: 0, color: headColor('role', 0), r: 0.44, dashed: false },
    { q: 0, k: 2, color: headColor('dependency', 1), r: 0.29, dashed: false },
    { q: 2, k: 0, color: headColor('dependency', 1), r: 0.29, dashed: true },
  ]);
});

test('free mode (no targets): the single head’s rings are the heads’ top keys', () => {
  const heads = [
    { name: 'head-0', index: 0, tops: [[0], []], targets: null },
    { name: 'head-1', index: 1, tops: [[1], [0, 1]], targets: null },
    { name: 'head-2', index: 2, tops: [[], [1]], targets: null },
  ];
  const free = { heads, single: { name: 'single', index: 3, tops: [[1], [1]] } };
  // Radii for three heads: 0.44, 0.44 − 0.1 = 0.34, 0.44 − 0.2 = 0.24.
  expect(rounded(ringsFor(free, free.single))).toEqual([
    { q: 0, k: 0, color: headColor('head-0', 0), r: 0.44, dashed: true },
    { q: 0, k: 1, color: headColor('head-1', 1), r: 0.34, dashed: false },
    { q: 1, k: 0, color: headColor('head-1', 1), r: 0.34, dashed: true },
    { q: 1, k: 1, color: headColor('head-1', 1), r: 0.34, dashed: false },
    { q: 1, k: 1, color: headColor('head-2', 2), r: 0.24, dashed: false },
  ]);
});

test('neighbour rings: the left and right neighbour of each given row, solid where the row’s top key is there', () => {
  const tops = [[0], [0], [3], [1, 2]];
  expect(neighbourRings(tops, [1, 2])).toEqual([
    { q: 1, k: 0, color: UI.ink, r: 0.36, dashed: false },
    { q: 1, k: 2, color: UI.ink, r: 0.36, dashed: true },
    { q: 2, k: 1, color: UI.ink, r: 0.36, dashed: true },
    { q: 2, k: 3, color: UI.ink, r: 0.36, dashed: false },
  ]);
});
