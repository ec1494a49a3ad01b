// Head names and their display titles (model/head-names.mjs).
import { headName, headTitle } from '../../web/model/head-names.mjs';

test('numbered heads are head-0, head-1, …, titled "head 0", "head 1", …', () => {
  expect([0, 1, 12].map(headName)).toEqual(['head-0', 'head-1', 'head-12']);
  expect(headTitle('head-0')).toBe('head 0');
  expect(headTitle('head-12')).toBe('head 12');
});

test('named heads are titled "<name> head"', () => {
  expect(['role', 'long-distance', 'single', 'same-lemma'].map(headTitle)).toEqual([
    'role head',
    'long-distance head',
    'single head',
    'same-lemma head',
  ]);
});
