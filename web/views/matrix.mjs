// Any matrix of the pipeline (X, Q, K, V, scores, weights, concat, wO,
// output) as a grid of shaded cells with labelled rows and columns: signed
// values on a diverging scale around 0, weights on their head's ramp, −∞
// (masked scores) hatched, with its title and a legend of its colours (so an
// exported picture stands on its own). Hover, or focus and use the arrow keys,
// to read a value. In its scroll box the labels stay in view (lib/sticky.mjs).
// Column labels come in tiers (lib/label-tiers.mjs): the head each column
// belongs to (Concat, wO, the output: a band in the head's colour, and a rule
// between heads), the block of features, then each column's value, turned
// 90°; a cell is never narrower than a label's line, so no two labels meet.
// The whole label is in each column's title and in the readout. Rebuilt when
// the stage changes; a 96×96 wO is 9,216 cells.
import d3 from '../lib/d3.mjs';
import { UI } from '../lib/palette.mjs';
import { appendLabelLayers } from '../lib/sticky.mjs';
import { divergingScale, weightRamp } from '../lib/scales.mjs';
import { SVG_NS } from '../lib/dom.mjs';
import { appendHatch } from '../lib/hatch.mjs';
import { GridCursor } from '../lib/grid-cursor.mjs';
import { UI_FONTS, isWide, labelEm, shortLabel, styleTokenText } from '../lib/tokens.mjs';
import { fitText, labelTiers, runs } from '../lib/label-tiers.mjs';
import { t } from '../lib/i18n.mjs';
import { precise } from '../lib/format.mjs';

const LABEL_FONT = 9;
/** The smallest cell: a label's line (LABEL_FONT) and a gap, so that neighbouring labels never overlap. */
const MIN_CELL = LABEL_FONT + 2;
/** A tier of bands above the column labels (heads, blocks), and the width of the rows' head bars. */
const BAND_H = 14;
const LEGEND_H = 34;
const LEGEND_W = 120;
let instances = 0;

const format = (v) => (v === -Infinity ? t('matrix.masked') : precise(v));

/** The head of each column or row ({ text, color } or null) as runs of consecutive ones. */
const headRuns = (heads) => (heads ? runs(heads, (h) => h?.text) : []);

/**
 * @param {{ title: string, values: ArrayLike<number>, rows: number, cols: number,
 *   rowLabels: { text: string, token?: object }[], colLabels: string[],
 *   colHeads?: ({ text: string, color: string } | null)[], rowHeads?: ({ text: string, color: string } | null)[],
 *   weights?: string, readout: HTMLElement }} m
 *   weights: a head colour if the values are attention weights (0..1), else signed values;
 *   colHeads, rowHeads: the head each column or row belongs to (its label then leaves the head out)
 * @returns {SVGSVGElement}
 */
export function matrixSvg({ title, values, rows, cols, rowLabels, colLabels, colHeads, rowHeads, weights, readout }) {
  const id = ++instances;
  const cell = cols > 40 || rows > 40 ? MIN_CELL : cols > 20 ? 13 : 18;
  const rowFont = Math.min(11, cell - 2);
  const { bands, leaves } = labelTiers(colLabels);
  const colHeadRuns = headRuns(colHeads);
  const rowHeadRuns = headRuns(rowHeads);
  const barW = rowHeadRuns.length ? BAND_H : 0;
  const rowW = barW + Math.ceil(Math.max(...rowLabels.map((l) => labelEm(shortLabel(l.text, 16)) * rowFont))) + 8;
  const headsY = 20;
  const bandsY = headsY + (colHeadRuns.length ? BAND_H : 0);
  const leavesY = bandsY + (bands.length ? BAND_H : 0);
  const leafH = Math.ceil(Math.max(8, ...leaves.map((l) => labelEm(shortLabel(l, 18)) * LABEL_FONT))) + 6;
  const x0 = rowW;
  const y0 = leavesY + leafH;
  // What a column or row is called in full, its head included: the titles and the readout.
  const full = (heads, i, label) => [heads?.[i]?.text, label].filter(Boolean).join('/');
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
  // The heads: a band in the head's colour over its columns.
  for (const { start, size, item } of colHeadRuns) {
    const band = colG.append('g').attr('class', 'head-band');
    const x = x0 + start * cell;
    band
      .append('rect')
      .attr('x', x)
      .attr('y', headsY + BAND_H - 5)
      .attr('width', size * cell - 1)
      .attr('height', 3)
      .attr('fill', item.color);
    band
      .append('text')
      .attr('x', x + 1)
      .attr('y', headsY + BAND_H - 7)
      .attr('font-weight', 600)
      .attr('fill', UI.ink)
      .text(fitText(item.text, size * cell - 2, LABEL_FONT, labelEm));
    band.append('title').text(item.text);
  }
  // The blocks: the block's name over a bracket that spans its columns.
  for (const { start, size, text } of bands) {
    const band = colG.append('g').attr('class', 'block-band');
    const x = x0 + start * cell;
    const width = size * cell - 1;
    band
      .append('path')
      .attr('d', `M${x + 0.5},${bandsY + BAND_H - 1}v-3h${width - 1}v3`)
      .attr('fill', 'none')
      .attr('stroke', UI.legendOutline);
    band
      .append('text')
      .attr('x', x + width / 2)
      .attr('y', bandsY + BAND_H - 6)
      .attr('text-anchor', 'middle')
      .text(fitText(text, width, LABEL_FONT, labelEm));
    band.append('title').text(text);
  }
  leaves.forEach((leaf, c) => {
    if (!leaf) return;
    const text = colG.append('text').attr('class', 'leaf');
    // One Chinese character stands upright (a column is as wide as it); anything longer is turned 90°.
    if ([...leaf].length === 1 && isWide(leaf))
      text
        .attr('x', x0 + c * cell + cell / 2)
        .attr('y', y0 - 3)
        .attr('text-anchor', 'middle');
    // Turned, centred on its column: its middle line on the column's middle.
    else
      text
        .attr('transform', `translate(${x0 + c * cell + cell / 2},${y0 - 3}) rotate(-90)`)
        .attr('dominant-baseline', 'central');
    text
      .text(shortLabel(leaf, 18))
      .append('title')
      .text(full(colHeads, c, colLabels[c]));
  });
  const rowG = rowLayer.append('g');
  // The rows' heads (wO's rows are Concat's columns): a bar in the head's colour beside its rows.
  for (const { start, size, item } of rowHeadRuns) {
    const bar = rowG.append('g').attr('class', 'head-band');
    bar
      .append('rect')
      .attr('x', 1)
      .attr('y', y0 + start * cell)
      .attr('width', 3)
      .attr('height', size * cell - 1)
      .attr('fill', item.color);
    bar
      .append('text')
      .attr('transform', `translate(5,${y0 + start * cell + 1}) rotate(90)`)
      .attr('font-size', LABEL_FONT)
      .attr('font-weight', 600)
      .text(fitText(item.text, size * cell - 2, LABEL_FONT, labelEm));
    bar.append('title').text(item.text);
  }
  rowLabels.forEach((l, r) => {
    const text = rowG
      .append('text')
      .attr('x', x0 - 4)
      .attr('y', y0 + r * cell + cell / 2 + rowFont / 3)
      .attr('text-anchor', 'end')
      .attr('font-size', rowFont)
      .text(shortLabel(l.text, 16));
    if (l.token) styleTokenText(text.node(), l.token);
    text.append('title').text(full(rowHeads, r, l.text));
  });
  // A rule between two heads' columns (or rows), over the cells.
  for (const { start } of colHeadRuns.slice(1))
    markLayer
      .append('line')
      .attr('x1', x0 + start * cell - 0.25)
      .attr('x2', x0 + start * cell - 0.25)
      .attr('y1', y0 - 2)
      .attr('y2', y0 + rows * cell)
      .attr('stroke', UI.ink)
      .attr('stroke-width', 1);
  for (const { start } of rowHeadRuns.slice(1))
    markLayer
      .append('line')
      .attr('x1', x0 - 2)
      .attr('x2', x0 + cols * cell)
      .attr('y1', y0 + start * cell - 0.25)
      .attr('y2', y0 + start * cell - 0.25)
      .attr('stroke', UI.ink)
      .attr('stroke-width', 1);
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
      const column = full(colHeads, c, colLabels[c]) || t('matrix.column', { c });
      readout.textContent = t('matrix.readout', {
        title,
        row: full(rowHeads, r, rowLabels[r].text),
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
