// One head's attention weights as a heatmap: query tokens down, key tokens
// across, one cell per (query, key). The element carries data-head (the
// head's name) and every cell data-q, data-k and data-weight (the engine's
// value, unrounded), so tests and assistive technology read what is shown.
// Cells are made once; update() only changes their fill (as Inspectus does).
// Hover, or focus it and use the arrow keys, to read a value; click or Enter
// to select that cell (its query token in every view, its pair in the neuron
// view). A long sentence keeps readable cells and scrolls inside its box,
// with the token labels, title and legend kept in view (lib/sticky.mjs); the
// caption, readout and table stay outside the box.
import d3 from '../lib/d3.mjs';
import { UI } from '../lib/palette.mjs';
import { weightRamp } from '../lib/scales.mjs';
import { SVG_NS } from '../lib/dom.mjs';
import { appendHatch } from '../lib/hatch.mjs';
import { GridCursor } from '../lib/grid-cursor.mjs';
import {
  UI_FONTS,
  isWide,
  labelEm,
  roleTag,
  shortLabel,
  styleTokenText,
  tokenName,
  tokenNumber,
} from '../lib/tokens.mjs';
import { appendLabelLayers, stickLabels } from '../lib/sticky.mjs';
import { t } from '../lib/i18n.mjs';
import { precise } from '../lib/format.mjs';
import { weightsTable } from './data-table.mjs';

const CELL = 22;
const FONT = 12;
const INDEX_FONT = 8;
const TITLE_H = 22;
const LEGEND_H = 50;
let instances = 0;

/** Whether a column label stands upright: one wide (CJK) character, which fits a cell's width. */
const upright = (text) => isWide(text) && [...text].length === 1;

/** Width (in px at font size FONT) of a token label with its number and a 毒's role. */
const labelWidth = (t) =>
  labelEm(shortLabel(t.text)) * FONT + labelEm(tokenNumber(t) + roleTag(t)) * INDEX_FONT * 0.95 + 4;

function appendLabel(parent, token, attrs) {
  const text = parent.append('text').attr('class', 'token-label').attr('translate', 'no');
  for (const [k, v] of Object.entries(attrs)) text.attr(k, v);
  styleTokenText(text.node(), token);
  text.append('tspan').text(shortLabel(token.text));
  text.append('tspan').attr('font-size', INDEX_FONT).attr('fill', UI.muted).attr('dx', 1).text(tokenNumber(token));
  const tag = roleTag(token);
  if (tag)
    text
      .append('tspan')
      .attr('class', `role-tag role-${token.duRole}`)
      .attr('font-size', INDEX_FONT)
      .attr('dx', 2)
      .text(tag);
  text.append('title').text(token.title ? `${tokenName(token)}: ${token.title}` : tokenName(token));
  return text;
}

export class Heatmap {
  #cells;
  #weights = null;
  #causal = false;
  #cursor;
  #geometry;
  #stick;

  /**
   * @param {{ name: string, title: string, description: string, color: string,
   *   queryTokens: object[], keyTokens: object[], onSelect?: (q: number, k: number) => void }} options
   */
  constructor({ name, title, description, color, queryTokens, keyTokens, onSelect }) {
    const id = `heatmap-${++instances}`;
    Object.assign(this, { name, title, queryTokens, keyTokens, onSelect, ramp: weightRamp(color) });
    const rows = queryTokens.length;
    const cols = keyTokens.length;
    const rowLabelW = Math.ceil(Math.max(...queryTokens.map(labelWidth))) + 8;
    const colLabelH = Math.ceil(
      Math.max(...keyTokens.map((t) => (upright(t.text) ? (roleTag(t) ? 40 : 30) : labelWidth(t) + 8))),
    );
    const x0 = rowLabelW;
    const y0 = TITLE_H + colLabelH;
    const width = Math.max(x0 + cols * CELL + 6, 230);
    const height = y0 + rows * CELL + LEGEND_H;
    this.#geometry = { x0, y0 };

    const figure = d3.create('figure').attr('class', 'heatmap').attr('data-head', name);
    figure.append('figcaption').attr('id', `${id}-caption`).text(description);
    const box = figure.append('div').attr('class', 'map-scroll');
    const svg = box
      .append('svg')
      .attr('viewBox', `0 0 ${width} ${height}`)
      .attr('font-family', UI_FONTS)
      .attr('font-size', FONT)
      .attr('tabindex', 0)
      .attr('role', 'img')
      .attr('aria-label', t('heatmap.aria', { title, rows, cols }))
      .attr('aria-describedby', `${id}-readout`)
      .style('--natural-width', `${width}px`);
    this.svg = svg.node();

    const defs = svg.append('defs');
    this.hatchId = `${id}-masked`;
    appendHatch(defs, this.hatchId, { size: 5, strokeWidth: 1.5 });
    // Layers, bottom to top: cells, marks, then the labels that stay in view when the map scrolls.
    const cellsLayer = svg.append('g').attr('class', 'cells');
    const marks = svg.append('g');
    const { rowLayer, colLayer, corner } = appendLabelLayers(svg, { x0, y0, width, height, paper: UI.paper });
    corner.append('text').attr('x', 0).attr('y', 15).attr('font-weight', 700).attr('font-size', 14).text(title);
    const legendLayer = svg.append('g').attr('data-sticky', 'x');

    // Column labels: one CJK character upright (char over index); longer pieces and other scripts turned 90°.
    const colLabels = colLayer.append('g').attr('class', 'col-labels');
    keyTokens.forEach((u, k) => {
      const cx = x0 + k * CELL + CELL / 2;
      if (upright(u.text)) {
        // Upright: the character, its number under it, a 毒's role under that.
        const tagged = Boolean(roleTag(u));
        const text = appendLabel(colLabels, u, { x: cx, y: y0 - (tagged ? 24 : 14), 'text-anchor': 'middle' });
        text
          .selectAll('tspan')
          .filter((_, i) => i > 0)
          .attr('x', cx)
          .attr('dy', 10)
          .attr('dx', null);
      } else appendLabel(colLabels, u, { transform: `translate(${cx + 4},${y0 - 4}) rotate(-90)` });
    });
    const rowLabels = rowLayer.append('g').attr('class', 'row-labels');
    queryTokens.forEach((u, q) =>
      appendLabel(rowLabels, u, { x: x0 - 5, y: y0 + q * CELL + CELL / 2 + 4, 'text-anchor': 'end' }),
    );
    this.rowLabels = rowLabels.selectAll('text').nodes();
    this.colLabels = colLabels.selectAll('text').nodes();

    // Plain DOM calls for the cells: a 40×40 map has 1,600 of them, and d3's
    // per-element chains made building it a long task.
    const cells = cellsLayer.node();
    this.#cells = d3.range(rows).map((q) =>
      d3.range(cols).map((k) => {
        const rect = document.createElementNS(SVG_NS, 'rect');
        rect.setAttribute('x', x0 + k * CELL);
        rect.setAttribute('y', y0 + q * CELL);
        rect.setAttribute('width', CELL - 1);
        rect.setAttribute('height', CELL - 1);
        rect.dataset.q = q;
        rect.dataset.k = k;
        cells.append(rect);
        return rect;
      }),
    );
    this.rowMark = marks
      .append('rect')
      .attr('class', 'row-mark')
      .attr('x', x0 - 1)
      .attr('width', cols * CELL + 1)
      .attr('height', CELL + 1)
      .attr('fill', 'none')
      .attr('stroke', UI.ink)
      .attr('stroke-width', 1.5)
      .attr('stroke-dasharray', '4 2')
      .attr('display', 'none')
      .node();
    this.rings = marks.append('g').attr('class', 'rings').attr('pointer-events', 'none');
    this.cursorMark = marks
      .append('rect')
      .attr('class', 'cursor')
      .attr('width', CELL + 1)
      .attr('height', CELL + 1)
      .attr('fill', 'none')
      .attr('stroke', UI.ink)
      .attr('stroke-width', 2)
      .attr('display', 'none')
      .attr('pointer-events', 'none')
      .node();
    this.#legend(legendLayer, y0 + rows * CELL + 12);
    this.#stick = stickLabels(box.node());

    const readout = figure
      .append('p')
      .attr('class', 'readout')
      .attr('id', `${id}-readout`)
      .attr('aria-live', 'polite')
      .text(t('readout.heatmap'));
    this.readout = readout.node();
    const details = figure.append('details').attr('class', 'numbers');
    details.append('summary').text(t('heatmap.table'));
    this.tableBox = details.append('div').attr('class', 'table-scroll').node();
    this.details = details.node();
    this.details.addEventListener('toggle', () => this.#renderTable());
    this.element = figure.node();
    this.#listen();
  }

  #legend(layer, y) {
    const gradientId = `${this.hatchId}-ramp`;
    const gradient = d3.select(this.svg).select('defs').append('linearGradient').attr('id', gradientId);
    d3.range(0, 1.0001, 0.125).forEach((t) =>
      gradient.append('stop').attr('offset', t).attr('stop-color', this.ramp(t)),
    );
    layer
      .append('rect')
      .attr('y', y - 6)
      .attr('width', this.#geometry.x0 + 240)
      .attr('height', LEGEND_H - 6)
      .attr('fill', UI.paper);
    const legend = layer.append('g').attr('class', 'legend').attr('transform', `translate(${this.#geometry.x0},${y})`);
    legend
      .append('rect')
      .attr('width', 120)
      .attr('height', 9)
      .attr('fill', `url(#${gradientId})`)
      .attr('stroke', UI.legendOutline);
    this.legendTicks = [0, 0.5, 1].map((t) =>
      legend
        .append('text')
        .attr('x', t * 120)
        .attr('y', 21)
        .attr('font-size', 9)
        .attr('text-anchor', 'middle')
        .text(t),
    );
    this.legendLabel = legend
      .append('text')
      .attr('x', 128)
      .attr('y', 8)
      .attr('font-size', 9)
      .attr('fill', UI.muted)
      .text(t('heatmap.weight'));
    this.maskLegend = legend.append('g').attr('transform', 'translate(0,26)').attr('display', 'none');
  }

  /** Pointer and keyboard: a cell's row is its query, its column its key (GridCursor). */
  #listen() {
    const { svg } = this;
    const cursor = new GridCursor(this.queryTokens.length, this.keyTokens.length, {
      onMove: (cell) => this.#point(cell),
      onSelect: ({ row, col }) => this.onSelect?.(row, col),
    });
    this.#cursor = cursor;
    const cellOf = ({ dataset }) =>
      dataset?.q === undefined ? null : { row: Number(dataset.q), col: Number(dataset.k) };
    svg.addEventListener('pointermove', (e) => cursor.point(cellOf(e.target)));
    svg.addEventListener('pointerleave', () => cursor.point(null));
    svg.addEventListener('click', (e) => {
      const cell = cellOf(e.target);
      if (cell) this.onSelect?.(cell.row, cell.col);
    });
    svg.addEventListener('focus', () => cursor.show());
    svg.addEventListener('blur', () => cursor.point(null));
    svg.addEventListener('keydown', (e) => cursor.key(e.key) && e.preventDefault());
  }

  /** Marks the cell under the cursor and reads its weight out (null: none). */
  #point(cell) {
    this.rowLabels.forEach((t, q) => t.classList.toggle('hot', cell?.row === q));
    this.colLabels.forEach((t, k) => t.classList.toggle('hot', cell?.col === k));
    if (!cell || !this.#weights) {
      this.cursorMark.setAttribute('display', 'none');
      return;
    }
    const { row: q, col: k } = cell;
    const { x0, y0 } = this.#geometry;
    this.cursorMark.setAttribute('x', x0 + k * CELL - 1);
    this.cursorMark.setAttribute('y', y0 + q * CELL - 1);
    this.cursorMark.setAttribute('display', 'inline');
    const w = this.#weights[q * this.keyTokens.length + k];
    const masked = this.#causal && k > q;
    this.readout.textContent = t('heatmap.readout', {
      title: this.title,
      query: tokenName(this.queryTokens[q]),
      key: tokenName(this.keyTokens[k]),
      value: masked ? t('heatmap.maskedValue') : precise(w),
    });
  }

  /**
   * Shows a head's weights.
   * @param {Float32Array} weights row-major [query, key], the engine's
   * @param {{ causal?: boolean, max?: number, label?: string,
   *   rings?: { q: number, k: number, color: string, r: number, dashed: boolean }[] }} [options]
   *   rings: ground-truth markers drawn over cells (r: radius as a fraction of a cell); max: the value drawn
   *   darkest (1 for weights; another measure's largest), label: the legend's name of the values
   */
  update(weights, { causal = false, rings = [], max = 1, label = t('heatmap.weight') } = {}) {
    this.#weights = weights;
    this.#causal = causal;
    const cols = this.keyTokens.length;
    const top = max > 0 ? max : 1;
    this.legendTicks.forEach((tick, i) => tick.text(top === 1 ? i / 2 : precise((top * i) / 2, 3)));
    this.legendLabel.text(label);
    this.#cells.forEach((row, q) =>
      row.forEach((rect, k) => {
        const w = weights[q * cols + k];
        rect.dataset.weight = String(w);
        const masked = causal && k > q;
        rect.setAttribute('fill', masked ? `url(#${this.hatchId})` : this.ramp(w / top));
        rect.toggleAttribute('data-masked', masked);
      }),
    );
    this.#drawMaskLegend(causal);
    const { x0, y0 } = this.#geometry;
    d3.select(this.rings.node())
      .selectAll('circle')
      .data(rings)
      .join('circle')
      .attr('cx', (d) => x0 + d.k * CELL + (CELL - 1) / 2)
      .attr('cy', (d) => y0 + d.q * CELL + (CELL - 1) / 2)
      .attr('r', (d) => d.r * CELL)
      .attr('fill', 'none')
      .attr('stroke', (d) => d.color)
      .attr('stroke-width', 1.6)
      .attr('stroke-dasharray', (d) => (d.dashed ? '2.5 2' : null));
    if (this.#cursor.cell) this.#point(this.#cursor.cell);
    if (this.details.open) this.#renderTable();
    this.#stick();
  }

  #drawMaskLegend(causal) {
    const g = this.maskLegend;
    g.attr('display', causal ? null : 'none');
    if (!causal || g.selectAll('*').size() > 0) return;
    g.append('rect')
      .attr('y', -1)
      .attr('width', 9)
      .attr('height', 9)
      .attr('fill', `url(#${this.hatchId})`)
      .attr('stroke', UI.legendOutline);
    g.append('text').attr('x', 13).attr('y', 7).attr('font-size', 9).attr('fill', UI.muted).text(t('heatmap.masked'));
  }

  /** Outlines query row q in this map (null: none). */
  markRow(q) {
    const show = q !== null && q >= 0 && q < this.queryTokens.length;
    this.rowMark.setAttribute('display', show ? 'inline' : 'none');
    if (show) this.rowMark.setAttribute('y', this.#geometry.y0 + q * CELL - 1);
    this.rowLabels.forEach((t, i) => t.classList.toggle('locked', show && i === q));
  }

  #renderTable() {
    if (!this.details.open || !this.#weights) return;
    this.tableBox.replaceChildren(
      weightsTable({
        caption: t('heatmap.tableCaption', { title: this.title }),
        queryTokens: this.queryTokens,
        keyTokens: this.keyTokens,
        weights: this.#weights,
        causal: this.#causal,
      }),
    );
  }
}
