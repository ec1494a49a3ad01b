// The keyboard cursor of the heatmaps and the pipeline's matrices
// (lib/grid-cursor.mjs): arrow keys move it one cell, clamped to the grid,
// from the top-left cell when there is none yet; Enter and Space select.
import { GridCursor } from '../../web/lib/grid-cursor.mjs';

/** A 3 × 4 grid that records every move and selection. */
function grid({ select = true } = {}) {
  const log = { moves: [], selected: [] };
  const cursor = new GridCursor(3, 4, {
    onMove: (cell) => log.moves.push(cell),
    onSelect: select ? (cell) => log.selected.push(cell) : undefined,
  });
  return { cursor, log };
}

test('arrow keys move one cell, starting from the top-left cell', () => {
  const { cursor, log } = grid();
  expect(cursor.key('ArrowRight')).toBe(true);
  expect(cursor.key('ArrowDown')).toBe(true);
  expect(cursor.key('ArrowRight')).toBe(true);
  expect(cursor.key('ArrowUp')).toBe(true);
  expect(cursor.key('ArrowLeft')).toBe(true);
  expect(log.moves).toEqual([
    { row: 0, col: 1 },
    { row: 1, col: 1 },
    { row: 1, col: 2 },
    { row: 0, col: 2 },
    { row: 0, col: 1 },
  ]);
  expect(cursor.cell).toEqual({ row: 0, col: 1 });
});

test('the cursor stays inside the grid', () => {
  const { cursor } = grid();
  for (let i = 0; i < 6; i++) cursor.key('ArrowDown');
  for (let i = 0; i < 6; i++) cursor.key('ArrowRight');
  expect(cursor.cell).toEqual({ row: 2, col: 3 });
  for (let i = 0; i < 6; i++) cursor.key('ArrowUp');
  for (let i = 0; i < 6; i++) cursor.key('ArrowLeft');
  expect(cursor.cell).toEqual({ row: 0, col: 0 });
});

test('Enter and Space select the cell under the cursor (the top-left one if none); other keys are not its own', () => {
  const { cursor, log } = grid();
  expect(cursor.key('Enter')).toBe(true);
  cursor.point({ row: 2, col: 1 });
  expect(cursor.key(' ')).toBe(true);
  expect(log.selected).toEqual([
    { row: 0, col: 0 },
    { row: 2, col: 1 },
  ]);
  expect(cursor.key('a')).toBe(false);
  expect(cursor.key('Tab')).toBe(false);
  expect(cursor.cell).toEqual({ row: 2, col: 1 });
});

test('without a select handler Enter is not the cursor’s key', () => {
  const { cursor, log } = grid({ select: false });
  expect(cursor.key('Enter')).toBe(false);
  expect(log.moves).toEqual([]);
});

test('the pointer sets or clears the cell; focus shows it where it was, or on the top-left cell', () => {
  const { cursor, log } = grid();
  cursor.show();
  cursor.point({ row: 1, col: 3 });
  cursor.show();
  cursor.point(null);
  expect(cursor.cell).toBe(null);
  cursor.key('ArrowDown'); // from the top-left cell again
  expect(log.moves).toEqual([{ row: 0, col: 0 }, { row: 1, col: 3 }, { row: 1, col: 3 }, null, { row: 1, col: 0 }]);
});
