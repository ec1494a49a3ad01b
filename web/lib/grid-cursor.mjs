// The keyboard cursor of a grid of cells (a heatmap, a matrix): the arrow keys
// move it one cell, clamped to the grid, starting from the top-left cell;
// Enter or Space selects the cell under it. No DOM: a view feeds it key names
// and draws the cell it reports.

const MOVES = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

export class GridCursor {
  /** The current cell, { row, col }, or null (none: the next key starts from the top-left cell). */
  cell = null;

  /**
   * @param {number} rows
   * @param {number} cols
   * @param {{ onMove: (cell: { row: number, col: number } | null) => void,
   *   onSelect?: (cell: { row: number, col: number }) => void }} handlers onMove: after every change of the cell
   */
  constructor(rows, cols, { onMove, onSelect }) {
    Object.assign(this, { rows, cols, onMove, onSelect });
  }

  /** Puts the cursor on a cell (a pointer over it), or removes it (null). */
  point(cell) {
    this.cell = cell;
    this.onMove(cell);
  }

  /** Shows the cursor where it was, or on the top-left cell (the grid got the keyboard focus). */
  show() {
    this.point(this.cell ?? { row: 0, col: 0 });
  }

  /**
   * Handles a key (KeyboardEvent.key). Returns true if the key was the cursor's
   * (the view then prevents the key's default action, such as scrolling).
   */
  key(key) {
    const { row, col } = this.cell ?? { row: 0, col: 0 };
    const move = MOVES[key];
    if (move) {
      const clamp = (v, n) => Math.max(0, Math.min(n - 1, v));
      this.point({ row: clamp(row + move[0], this.rows), col: clamp(col + move[1], this.cols) });
      return true;
    }
    if ((key === 'Enter' || key === ' ') && this.onSelect) {
      this.onSelect({ row, col });
      return true;
    }
    return false;
  }
}
