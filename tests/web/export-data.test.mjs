// Export of a head's weights: CSV and JSON hold exactly the engine's values.
import { headCsv, headJson } from '../../web/model/export-data.mjs';

const tokens = (texts) => texts.map((text, index) => ({ text, index }));
const weights = Float32Array.from([0.25, 0.75, 1 / 3, 2 / 3]);
const run = {
  mode: 'free',
  causal: false,
  rows: 2,
  cols: 2,
  dims: { dModel: 4, numHeads: 1, dK: 4, dV: 4 },
  queryTokens: tokens(['a,b', '毒']),
  keyTokens: tokens(['a,b', '毒']),
  heads: [{ name: 'head-0', weights }],
  single: null,
};

test('CSV: key tokens across, query tokens down, quoted where needed, values that read back exactly', () => {
  const csv = headCsv(run, 'head-0');
  expect(csv.startsWith('\ufeff')).toBe(true); // UTF-8 byte order mark, for Excel
  const lines = csv.slice(1).trimEnd().split('\r\n');
  expect(lines[0]).toBe('query \\ key,"a,b 0",毒 1');
  expect(lines[1].startsWith('"a,b 0",0.25,0.75')).toBe(true);
  const third = Number(lines[2].split(',')[1]);
  expect(Math.fround(third)).toBe(weights[2]);
  expect(() => headCsv(run, 'role')).toThrow(RangeError);
});

test('JSON: the head, shapes, tokens and the weights as rows', () => {
  const data = JSON.parse(headJson(run, 'head-0', { variant: 'simd' }));
  expect(data).toMatchObject({
    head: 'head-0',
    mode: 'free',
    numHeads: 1,
    variant: 'simd',
    queryTokens: ['a,b', '毒'],
  });
  expect(data.weights.flat().map(Math.fround)).toEqual(Array.from(weights));
});
