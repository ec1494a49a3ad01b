// The page's state ↔ URL: a link reproduces the view; bad values fall back.
import { parseState, formatState, readLink, DEFAULTS } from '../../web/state.mjs';

test('the defaults make an empty query string and back', () => {
  expect(formatState(DEFAULTS)).toBe('');
  expect(parseState('')).toEqual(DEFAULTS);
});

test('every field round-trips', () => {
  const state = {
    ...DEFAULTS,
    lang: 'zh',
    mode: 'free',
    sharpness: 9.5,
    head: 'head-2',
    lines: ['head-0', 'single'],
    lock: { side: 'key', index: 13 },
    layout: 'rows',
    overlay: false,
    stage: 'concat',
    pair: { q: 7, k: 12 },
    text: '毒蛇 & snakes, 100%',
    dModel: 48,
    numHeads: 6,
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
      '&heads=0&dmodel=7&seed=-1&causal=yes&lines=a b&train=5x1234&lang=fr&pair=q1',
  );
  expect(state).toEqual(DEFAULTS);
  for (const train of ['0x3000', '21x3000', '5x3000-mlp-4', '5x', 'x3000', '5x3000-8'])
    expect(parseState(`?train=${train}`).train).toEqual(DEFAULTS.train);
  expect(parseState('?train=2x1500-mlp').train).toEqual({ seeds: 2, steps: 1500, fourHeads: false, mlp: true });
  expect(parseState('?mode=cross&sharpness=abc').mode).toBe('cross');
});

test('a link says which of its parameters it cannot use', () => {
  const { state, problems } = readLink('?mode=free&heads=0&lang=fr&dk=8&text=hi');
  expect(state).toMatchObject({ mode: 'free', text: 'hi', numHeads: DEFAULTS.numHeads, lang: '' });
  expect(problems).toEqual([
    { param: 'dk', value: '8' },
    { param: 'lang', value: 'fr' },
    { param: 'heads', value: '0' },
  ]);
  expect(readLink('?mode=free&text=').problems).toEqual([]); // an empty sentence is a state; the page says so in place
});

test('heads that do not divide d_model: the largest count below that does, and the link says so', () => {
  const { state, problems } = readLink('?mode=free&dmodel=12&heads=8');
  expect([state.dModel, state.numHeads]).toEqual([12, 6]);
  expect(problems).toEqual([{ param: 'heads', heads: 8, dModel: 12, used: 6 }]);
});
