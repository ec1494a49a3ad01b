// One Tab stop per widget: where the arrow keys, Home and End move (lib/roving.mjs).
import { nextIndex } from '../../web/lib/roving.mjs';

test('arrows move one item, clamped at the ends; Home and End jump', () => {
  expect(['ArrowRight', 'ArrowLeft', 'Home', 'End'].map((k) => nextIndex(k, 2, 5, 'horizontal'))).toEqual([3, 1, 0, 4]);
  expect([nextIndex('ArrowRight', 4, 5), nextIndex('ArrowLeft', 0, 5)]).toEqual([4, 0]);
});

test('the orientation decides which arrows move; other keys are not the widget’s', () => {
  expect(nextIndex('ArrowDown', 1, 3, 'horizontal')).toBeNull();
  expect(nextIndex('ArrowDown', 1, 3, 'vertical')).toBe(2);
  expect(nextIndex('ArrowUp', 1, 3, 'both')).toBe(0);
  expect(nextIndex('Enter', 1, 3)).toBeNull();
  expect(nextIndex('ArrowRight', 0, 0)).toBeNull();
});
