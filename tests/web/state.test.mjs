// The page's state ↔ URL: a link reproduces the view; bad values fall back.
import { parseState, formatState, DEFAULTS } from '../../web/state.mjs';

test('the defaults make an empty query string and back', () => {
  expect(formatState(DEFAULTS)).toBe('');
  expect(parseState('')).toEqual(DEFAULTS);
});

test('every field round-trips', () => {
  const state = {
    ...DEFAULTS,
    mode: 'free',
    sharpness: 9.5,
    head: 'head-2',
    lines: ['head-0', 'single'],
    lock: { side: 'key', index: 13 },
    layout: 'rows',
    overlay: false,
    stage: 'concat',
    text: '毒蛇 & snakes, 100%',
    numHeads: 3,
    dK: 16,
    seed: 4294967295,
    causal: true,
    train: { seeds: 10, steps: 500, fourHeads: true, mlp: true },
  };
  const search = formatState(state);
  expect(parseState(search)).toEqual(state);
  expect(new URLSearchParams(search).get('text')).toBe('毒蛇 & snakes, 100%');
});

test('invalid values take their defaults, one by one', () => {
  const state = parseState(
    '?mode=bogus&sharpness=99&head=Role!&lock=x3&layout=diagonal&overlay=2&stage=nope' +
      '&heads=0&dk=3&seed=-1&causal=yes&lines=a b&train=5x1234',
  );
  expect(state).toEqual(DEFAULTS);
  for (const train of ['0x3000', '11x3000', '5x3000-mlp-4', '5x', 'x3000', '5x3000-8'])
    expect(parseState(`?train=${train}`).train).toEqual(DEFAULTS.train);
  expect(parseState('?train=2x1500-mlp').train).toEqual({ seeds: 2, steps: 1500, fourHeads: false, mlp: true });
  expect(parseState('?mode=cross&sharpness=abc').mode).toBe('cross');
});
