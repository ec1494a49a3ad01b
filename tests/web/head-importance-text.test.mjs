// What "Which heads matter" writes (web/model/head-importance-text.mjs), on
// made-up analyses: where the re-decoded output first changes, each group's
// median drop and most important head, and the sentences in both languages.
import {
  groupDrops,
  importanceSentences,
  median,
  mostSensitive,
  outputKept,
  outputText,
  sameIds,
} from '../../web/model/head-importance-text.mjs';
import { fixed, percent } from '../../web/lib/format.mjs';
import { setLanguage, t } from '../../web/lib/i18n.mjs';

afterEach(() => setLanguage('en'));

const REF = [7, 8, 9];
const point = (headsOff, fraction, ids, text) => ({
  headsOff,
  fraction,
  score: -headsOff,
  output: { outputIds: Int32Array.from(ids), text, tokens: ids.map(String) },
});
// Ten heads, the output the same up to 4 off, another from 6 off.
const CURVE = [
  point(0, 0, REF, 'ref'),
  point(2, 0.2, REF, 'ref'),
  point(4, 0.4, REF, 'ref'),
  point(6, 0.6, [7, 1], 'other'),
  point(10, 1, [2], 'last'),
];

test('sameIds and outputText', () => {
  expect(sameIds(Int32Array.from(REF), REF)).toBe(true);
  expect(sameIds(Int32Array.from([7, 8]), REF)).toBe(false);
  expect(sameIds([7, 8, 1], REF)).toBe(false);
  expect(outputText({ text: 'a cat', tokens: ['a', 'cat'] })).toBe('a cat');
  expect(outputText({ tokens: ['会', '死'] })).toBe('会 死');
  // A text that shows nothing whole: its pieces instead.
  expect(outputText({ text: ' ', tokens: ['▁'] })).toBe('▁');
  expect(outputText({ text: '\uFFFD', tokens: ['<0xE6>'] })).toBe('<0xE6>');
});

test('outputKept: the last point with the reference’s output before the first that differs', () => {
  expect(outputKept(CURVE, REF)).toEqual({ changed: 3, kept: 2, headsOff: 4, total: 10 });
  const same = CURVE.map((p) => ({ ...p, output: { outputIds: REF } }));
  expect(outputKept(same, REF)).toEqual({ changed: -1, kept: 4, headsOff: 10, total: 10 });
  const first = [point(0, 0, [1], 'x'), ...CURVE.slice(1)];
  expect(outputKept(first, REF)).toEqual({ changed: 0, kept: -1, headsOff: 0, total: 10 });
});

test('median, groupDrops and the most sensitive group', () => {
  expect(median([3, 1, 2])).toBe(2);
  expect(median([4, 1, 3, 2])).toBe(2.5);
  // Two layers × two heads; a drop is −delta.
  const groups = {
    encoder: { delta: Float64Array.from([-0.1, -0.2, 0.05, -0.3]), shape: [2, 2] },
    cross: { delta: Float64Array.from([-1, -2, -0.5, 0.25]), shape: [2, 2] },
  };
  const drops = groupDrops(groups);
  expect(drops.map((g) => g.group)).toEqual(['encoder', 'cross']);
  expect(drops[0]).toEqual({
    group: 'encoder',
    median: median([0.1, 0.2, -0.05, 0.3]),
    top: { layer: 1, head: 1, drop: 0.3 },
    raise: 1,
    count: 4,
  });
  expect(drops[1].top).toEqual({ layer: 0, head: 1, drop: 2 });
  expect(drops[1].median).toBe(median([1, 2, 0.5, -0.25]));
  expect(mostSensitive(drops).group).toBe('cross');
  // Ties: the first listed.
  expect(
    mostSensitive([
      { group: 'a', median: 1 },
      { group: 'b', median: 1 },
    ]).group,
  ).toBe('a');
});

test('one group: the sentences say how many heads go and which head matters most, in both languages', () => {
  const importance = {
    reference: { outputIds: Int32Array.from(REF), text: 'ref', tokens: ['7', '8', '9'], score: -3 },
    groups: { decoder: { delta: Float64Array.from([-0.5, 0.25, -1.5, -0.125]), shape: [2, 2] } },
  };
  for (const lang of ['en', 'zh']) {
    setLanguage(lang);
    const [kept, head] = importanceSentences(importance, CURVE);
    expect(kept.kind).toBe('kept');
    expect(kept.text).toBe(
      t('matter.text.kept', {
        n: 4,
        total: 10,
        share: percent(0.4),
        output: 'ref',
        changedAt: 6,
        changedShare: percent(0.6),
        changed: 'other',
      }),
    );
    expect(kept.text).toContain(percent(0.4));
    expect(head.kind).toBe('head');
    expect(head.text).toContain(t('real.layerHead', { layer: 1, head: 0 }));
    expect(head.text).toContain(fixed(1.5));
    expect(head.text).toContain(fixed(median([0.5, -0.25, 1.5, 0.125])));
  }
});

test('several groups: the group with the largest median drop; an output that never changes', () => {
  const importance = {
    reference: { outputIds: Int32Array.from(REF), tokens: ['a', 'b', 'c'], score: -1 },
    groups: {
      encoder: { delta: Float64Array.from([-0.1, -0.1]), shape: [1, 2] },
      decoder: { delta: Float64Array.from([-0.2, -0.3]), shape: [1, 2] },
      cross: { delta: Float64Array.from([-0.05, 0]), shape: [1, 2] },
    },
  };
  const same = CURVE.map((p) => ({ ...p, output: { outputIds: REF, tokens: [] } }));
  for (const lang of ['zh', 'en']) {
    setLanguage(lang);
    const [never, group] = importanceSentences(importance, same);
    expect(never).toEqual({ kind: 'never', text: t('matter.text.never', { total: 10, output: 'a b c' }) });
    expect(group.kind).toBe('group');
    expect(group.text).toContain(t('matter.group.decoder'));
    expect(group.text).toContain(fixed(0.25));
    expect(group.text).toContain(
      t('matter.text.groupMedian', { group: t('matter.group.cross'), median: fixed(0.025) }),
    );
  }
});

test('an output that changes at the first point with heads off is said so, not “kept with 0 heads off”', () => {
  const importance = {
    reference: { outputIds: Int32Array.from(REF), text: 'ref', tokens: [], score: -3 },
    groups: { decoder: { delta: Float64Array.from([-1, -2]), shape: [1, 2] } },
  };
  const fragile = [CURVE[0], CURVE[3], CURVE[4]];
  for (const lang of ['en', 'zh']) {
    setLanguage(lang);
    const [first] = importanceSentences(importance, fragile);
    expect(first).toEqual({
      kind: 'fragile',
      text: t('matter.text.fragile', {
        n: 0,
        total: 10,
        share: percent(0),
        output: 'ref',
        changedAt: 6,
        changedShare: percent(0.6),
        changed: 'other',
      }),
    });
  }
});

test('the share said where the output changes is the heads off over all heads, not the curve’s step', () => {
  const importance = {
    reference: { outputIds: Int32Array.from(REF), text: 'ref', tokens: [], score: -3 },
    groups: { decoder: { delta: Float64Array.from([-1, -2, -3, -4, -5, -6, -7, -8]), shape: [2, 4] } },
  };
  // 8 heads: the 40 % step switches off round(3.2) = 3 of them.
  const curve = [
    point(0, 0, REF, 'ref'),
    point(2, 0.2, REF, 'ref'),
    point(3, 0.4, [9], 'other'),
    point(8, 1, [9], 'x'),
  ];
  for (const lang of ['en', 'zh']) {
    setLanguage(lang);
    const [kept] = importanceSentences(importance, curve);
    expect(kept.text).toContain(percent(3 / 8));
    expect(kept.text).toContain(percent(2 / 8));
    expect(kept.text).not.toContain(percent(0.4));
  }
});

test('English: one head off “is”, several “are”', () => {
  setLanguage('en');
  const say = (changedAt) =>
    t('matter.text.fragile', { output: 'a', changedAt, total: 8, changedShare: '', changed: 'b' });
  expect(say(1)).toContain('1 of the 8 heads is off');
  expect(say(2)).toContain('2 of the 8 heads are off');
  const raised = (raise) => t('matter.text.head', { head: 'h', drop: '1', median: '0', raise, count: 8 });
  expect(raised(1)).toContain('1 of 8 heads, switched off alone, raises it.');
  expect(raised(0)).toContain('0 of 8 heads, switched off alone, raise it.');
});
