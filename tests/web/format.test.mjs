// Numbers in the page's text (lib/format.mjs).
import { plural, thousands, percent, fixed, precise } from '../../web/lib/format.mjs';

test('plural, thousands, percent', () => {
  expect([plural(1, 'run'), plural(0, 'run'), plural(3, 'engine call')]).toEqual(['1 run', '0 runs', '3 engine calls']);
  expect([thousands(500), thousands(3000), thousands(1234567)]).toEqual(['500', '3,000', '1,234,567']);
  expect([percent(0.931), percent(1), percent(0)]).toEqual(['93.1 %', '100.0 %', '0.0 %']);
});

test('fixed: a fixed count of decimals, 3 unless told', () => {
  expect([fixed(0.12345), fixed(2), fixed(-0.0004), fixed(1.26, 1), fixed(2.4, 0)]).toEqual([
    '0.123',
    '2.000',
    '-0.000',
    '1.3',
    '2',
  ]);
});

test('precise: significant digits (5 unless told), integers exactly', () => {
  expect([precise(0.123456789), precise(1234.5678), precise(3), precise(-12), precise(0)]).toEqual([
    '0.12346',
    '1234.6',
    '3',
    '-12',
    '0',
  ]);
  expect([precise(0.123456789, 3), precise(1e-7, 3), precise(100000.5, 3)]).toEqual(['0.123', '1.00e-7', '1.00e+5']);
});
