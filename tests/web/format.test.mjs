// Numbers in the page's English text (lib/format.mjs).
import { plural, thousands, percent } from '../../web/lib/format.mjs';

test('plural, thousands, percent', () => {
  expect([plural(1, 'run'), plural(0, 'run'), plural(3, 'engine call')]).toEqual(['1 run', '0 runs', '3 engine calls']);
  expect([thousands(500), thousands(3000), thousands(1234567)]).toEqual(['500', '3,000', '1,234,567']);
  expect([percent(0.931), percent(1), percent(0)]).toEqual(['93.1 %', '100.0 %', '0.0 %']);
});
