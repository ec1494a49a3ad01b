// Any matrix of the pipeline (X, Q, K, V, scores, weights, concat, wO,
// output) as a grid of shaded cells with labelled rows and columns: signed
// values on a diverging scale around 0, weights on their head's ramp, −∞
// (masked scores) hatched, with its title and a legend of its colours (so an
// exported picture stands on its own). Hover, or focus and use the arrow keys,
// to read a value. In its scroll box the labels stay in view (lib/sticky.mjs).
// Rebuilt when the stage changes; a 48×64 wO is 3,072 cells.
import d3 from '../lib/d3.mjs';
import { UI } from '../lib/palette.mjs';
import { appendLabelLayers } from '../lib/sticky.mjs';
import { divergingScale, weightRamp } from '../lib/scales.mjs';
import { SVG_NS } from '../lib/dom.mjs';
import { appendHatch } from '../lib/hatch.mjs';
import { GridCursor } from '../lib/grid-cursor.mjs';
import { UI_FONTS, labelEm, shortLabel, styleTokenText } from '../lib/tokens.mjs';
import { t } from '../lib/i18n.mjs';
import { precise } from '../lib/format.mjs';

const LABEL_FONT = 9;
const LEGEND_H = 34;
const LEGEND_W = 120;
let instances = 0;

const format = (v) => (v === -Infinity ? t('matrix.masked') : precise(v));

/**
 * @param {{ title: string, values: ArrayLike<number>, rows: number, cols: number,
 *   rowLabels: { text: string, token?: object }[], colLabels: string[],
 *   weights?: string, readout: HTMLElement }} m
 *   weights: a head colour if the values are attention weights (0..1), else signed values
 * @returns {SVGSVGElement}
 */
export function matrixSvg({ title, values, rows, cols, rowLabels, colLabels, weights, readout }) {
  const id = ++instances;
  const cell = cols > 40 || rows > 40 ? 9 : cols > 20 ? 13 : 18;
  const rowW = Math.ceil(Math.max(...rowLabels.map((l) => labelEm(shortLabel(l.text, 16)) * 11))) + 8;
  const colH = Math.ceil(Math.max(8, ...colLabels.map((l) => labelEm(shortLabel(l, 18)) * LABEL_FONT))) + 6;
  const x0 = rowW;
  const y0 = 20 + colH;
  const width = Math.max(x0 + cols * cell + 4, x0 + LEGEND_W + 90, 200);
  const height = y0 + rows * cell + 4 + LEGEND_H;
  const finite = Array.from(values).filter(Number.isFinite);
  const maxAbs = d3.max(finite, Math.abs) || 1;
  const color = weights ? weightRamp(weights) : divergingScale(maxAbs);

  const svg = d3
    .create('svg')
    .attr('viewBox', `0 0 ${width} ${height}`)
    .attr('font-family', UI_FONTS)
    .attr('font-size', 11)
    .attr('tabindex', 0)
    .attr('role', 'img')
    .attr('aria-label', t('matrix.aria', { title, rows, cols }))
    .style('--natural-width', `${width}px`);
  const defs = svg.append('defs');
  const hatchId = `matrix-hatch-${id}`;
  appendHatch(defs, hatchId, { size: 4, strokeWidth: 1.2 });
  const cells = svg.append('g').node();
  const markLayer = svg.append('g');
  // Labels over the cells, kept in view when the matrix scrolls in its box.
  const { rowLayer, colLayer, corner } = appendLabelLayers(svg, { x0, y0, width, height, paper: UI.paper });
  corner.append('text').attr('y', 13).attr('font-weight', 600).text(`${title}  (${rows} × ${cols})`);
  legend(svg.append('g').attr('data-sticky', 'x'), {
    y: y0 + rows * cell + 8,
    x: x0,
    id,
    color,
    weights,
    maxAbs,
    defs,
  });

  const colG = colLayer.append('g').attr('font-size', LABEL_FONT).attr('fill', UI.axisLabel);
  colLabels.forEach((l, c) =>
    colG
      .append('text')
      .attr('transform', `translate(${x0 + c * cell + cell / 2 + 3},${y0 - 3}) rotate(-90)`)
      .text(shortLabel(l, 18))
      .append('title')
      .text(l),
  );
  const rowG = rowLayer.append('g');
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
  const mark = markLayer
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
      const column = colLabels[c] || t('matrix.column', { c });
      readout.textContent = t('matrix.readout', {
        title,
        row: rowLabels[r].text,
        col: column,
        value: format(values[r * cols + c]),
      });
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

/** The colours' legend: 0 … 1 for weights, −max … 0 … max for signed values. */
function legend(layer, { x, y, id, color, weights, maxAbs, defs }) {
  const gradientId = `matrix-ramp-${id}`;
  const gradient = defs.append('linearGradient').attr('id', gradientId);
  const [low, high] = weights ? [0, 1] : [-maxAbs, maxAbs];
  d3.range(0, 1.0001, 0.125).forEach((f) =>
    gradient
      .append('stop')
      .attr('offset', f)
      .attr('stop-color', color(low + f * (high - low))),
  );
  layer
    .append('rect')
    .attr('y', y - 4)
    .attr('width', x + LEGEND_W + 200)
    .attr('height', LEGEND_H)
    .attr('fill', UI.paper);
  const g = layer.append('g').attr('transform', `translate(${x},${y})`).attr('font-size', 9);
  g.append('rect')
    .attr('width', LEGEND_W)
    .attr('height', 8)
    .attr('fill', `url(#${gradientId})`)
    .attr('stroke', UI.legendOutline);
  const ticks = weights ? [0, 0.5, 1] : [-maxAbs, 0, maxAbs];
  ticks.forEach((v, i) =>
    g
      .append('text')
      .attr('x', (i * LEGEND_W) / 2)
      .attr('y', 19)
      .attr('text-anchor', 'middle')
      .text(precise(v, 3)),
  );
  g.append('text')
    .attr('x', LEGEND_W + 8)
    .attr('y', 8)
    .attr('fill', UI.muted)
    .text(t(weights ? 'matrix.legendWeight' : 'matrix.legendSigned'));
}
