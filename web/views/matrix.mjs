// Any matrix of the pipeline (X, Q, K, V, scores, weights, concat, wO,
// output) as a grid of shaded cells with labelled rows and columns: signed
// values on a diverging scale around 0, weights on their head's ramp, −∞
// (masked scores) hatched. Hover, or focus and use the arrow keys, to read a
// value. Rebuilt when the stage changes; a 48×64 wO is 3,072 cells.
import d3 from '../lib/d3.mjs';
import { UI } from '../lib/palette.mjs';
import { divergingScale, weightRamp } from '../lib/scales.mjs';
import { SVG_NS } from '../lib/dom.mjs';
import { appendHatch } from '../lib/hatch.mjs';
import { GridCursor } from '../lib/grid-cursor.mjs';
import { UI_FONTS, labelEm, shortLabel, styleTokenText } from '../lib/tokens.mjs';

const LABEL_FONT = 9;
let instances = 0;

const format = (v) => (v === -Infinity ? '−∞ (masked)' : Number.isInteger(v) ? String(v) : v.toPrecision(5));

/**
 * @param {{ title: string, values: ArrayLike<number>, rows: number, cols: number,
 *   rowLabels: { text: string, token?: object }[], colLabels: string[],
 *   weights?: string, readout: HTMLElement }} m
 *   weights: a head colour if the values are attention weights (0..1), else signed values
 * @returns {SVGSVGElement}
 */
export function matrixSvg({ title, values, rows, cols, rowLabels, colLabels, weights, readout }) {
  const cell = cols > 40 || rows > 40 ? 9 : cols > 20 ? 13 : 18;
  const rowW = Math.ceil(Math.max(...rowLabels.map((l) => labelEm(shortLabel(l.text, 16)) * 11))) + 8;
  const colH = Math.ceil(Math.max(8, ...colLabels.map((l) => labelEm(shortLabel(l, 18)) * LABEL_FONT))) + 6;
  const x0 = rowW;
  const y0 = 20 + colH;
  const width = Math.max(x0 + cols * cell + 4, 200);
  const height = y0 + rows * cell + 4;
  const finite = Array.from(values).filter(Number.isFinite);
  const color = weights ? weightRamp(weights) : divergingScale(d3.max(finite, Math.abs) ?? 1);

  const svg = d3
    .create('svg')
    .attr('viewBox', `0 0 ${width} ${height}`)
    .attr('font-family', UI_FONTS)
    .attr('font-size', 11)
    .attr('tabindex', 0)
    .attr('role', 'img')
    .attr('aria-label', `${title}: ${rows} × ${cols}. Arrow keys read a value.`)
    .style('--natural-width', `${width}px`);
  svg.append('text').attr('y', 13).attr('font-weight', 600).text(`${title}  (${rows} × ${cols})`);
  const hatchId = `matrix-hatch-${++instances}`;
  appendHatch(svg.append('defs'), hatchId, { size: 4, strokeWidth: 1.2 });

  const colG = svg.append('g').attr('font-size', LABEL_FONT).attr('fill', UI.axisLabel);
  colLabels.forEach((l, c) =>
    colG
      .append('text')
      .attr('transform', `translate(${x0 + c * cell + cell / 2 + 3},${y0 - 3}) rotate(-90)`)
      .text(shortLabel(l, 18))
      .append('title')
      .text(l),
  );
  const rowG = svg.append('g');
  rowLabels.forEach((l, r) => {
    const text = rowG
      .append('text')
      .attr('x', x0 - 4)
      .attr('y', y0 + r * cell + cell / 2 + 3.5)
      .attr('text-anchor', 'end')
      .attr('font-size', Math.min(11, cell))
      .text(shortLabel(l.text, 16));
    if (l.token) styleTokenText(text.node(), l.token);
  });
  const cells = svg.append('g').node();
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++) {
      const v = values[r * cols + c];
      const rect = document.createElementNS(SVG_NS, 'rect');
      rect.setAttribute('x', x0 + c * cell);
      rect.setAttribute('y', y0 + r * cell);
      rect.setAttribute('width', cell - 0.5);
      rect.setAttribute('height', cell - 0.5);
      rect.setAttribute('fill', v === -Infinity ? `url(#${hatchId})` : color(v));
      rect.dataset.r = r;
      rect.dataset.c = c;
      cells.append(rect);
    }
  const mark = svg
    .append('rect')
    .attr('width', cell + 1)
    .attr('height', cell + 1)
    .attr('fill', 'none')
    .attr('stroke', UI.ink)
    .attr('stroke-width', 1.5)
    .attr('display', 'none')
    .attr('pointer-events', 'none');

  // The cursor stays on the last cell read when the pointer or the focus leaves.
  const cursor = new GridCursor(rows, cols, {
    onMove: ({ row: r, col: c }) => {
      mark
        .attr('display', null)
        .attr('x', x0 + c * cell - 0.5)
        .attr('y', y0 + r * cell - 0.5);
      const column = colLabels[c] || `column ${c}`;
      readout.textContent = `${title} [${rowLabels[r].text}, ${column}] = ${format(values[r * cols + c])}`;
    },
  });
  const node = svg.node();
  node.addEventListener('pointermove', ({ target: { dataset } }) => {
    if (dataset?.r !== undefined) cursor.point({ row: Number(dataset.r), col: Number(dataset.c) });
  });
  node.addEventListener('focus', () => cursor.show());
  node.addEventListener('keydown', (e) => cursor.key(e.key) && e.preventDefault());
  return node;
}
