// Hover wins, click locks (lib/hover-lock.mjs), as the head views use it: the
// focused token is the hovered one, else the locked one; a click on the locked
// token unlocks it, on another token locks that one.
import { HoverLock, sameToken, toggledLock } from '../../web/lib/hover-lock.mjs';

const query2 = { side: 'query', index: 2 };
const key2 = { side: 'key', index: 2 };
const query5 = { side: 'query', index: 5 };

test('a token is the same token only with the same side and index', () => {
  expect(sameToken(query2, { side: 'query', index: 2 })).toBe(true);
  expect(sameToken(query2, key2)).toBe(false);
  expect(sameToken(query2, query5)).toBe(false);
  expect(sameToken(query2, null)).toBe(false);
  expect(sameToken(null, null)).toBe(false);
});

test('with neither hover nor lock nothing is focused', () => {
  const selection = new HoverLock();
  expect(selection.focused).toBe(null);
  expect(selection.isFocused(query2)).toBe(false);
  expect(selection.isLocked(query2)).toBe(false);
});

test('the hovered token wins over the locked one; when the hover ends, the lock shows again', () => {
  const selection = new HoverLock();
  selection.locked = query2;
  expect(selection.focused).toEqual(query2);
  selection.hovered = key2;
  expect(selection.focused).toEqual(key2);
  expect([selection.isFocused(key2), selection.isFocused(query2)]).toEqual([true, false]);
  expect([selection.isLocked(query2), selection.isLocked(key2)]).toEqual([true, false]);
  selection.hovered = null;
  expect(selection.focused).toEqual(query2);
});

test('a click on the locked token unlocks it; on any other token it locks that one', () => {
  const selection = new HoverLock();
  expect(selection.toggled(query2)).toEqual(query2);
  selection.locked = query2;
  expect(selection.toggled({ side: 'query', index: 2 })).toBe(null);
  expect(selection.toggled(key2)).toEqual(key2);
  expect(selection.toggled(query5)).toEqual(query5);
  expect(toggledLock(null, query5)).toEqual(query5);
  expect(toggledLock(query5, query5)).toBe(null);
});
