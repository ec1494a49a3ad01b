// The head view people know from bertviz: query tokens on one side, key
// tokens on the other, a line from query to key for each head, its opacity
// the weight and its colour the head's. Hover (or focus) a token to keep only
// its lines; click it (or Enter) to lock that choice, click again (or Escape)
// to unlock (lib/hover-lock.mjs). The drawing is one Tab stop: the arrow keys
// move between tokens along a side and across to the other side. "columns"
// puts the two sides left and right as bertviz does; "rows" puts them above
// and below, which reads better for CJK sentences. Each side is named
// (queries, keys) above its column or beside its row. The drawing carries its
// title and a legend of the heads, so an exported picture stands on its own.
import d3 from '../lib/d3.mjs';
import { UI, headColor } from '../lib/palette.mjs';
import { SVG_NS } from '../lib/dom.mjs';
import { HoverLock } from '../lib/hover-lock.mjs';
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
import { downloadPng, downloadSvg } from '../lib/download.mjs';
import { language, t, translateDom } from '../lib/i18n.mjs';
import { nextIndex, roving } from '../lib/roving.mjs';
import { allHeads } from '../model/compute.mjs';
import { headTitle } from '../model/head-names.mjs';

const FONT = 13;
const STEP = 24; // distance between neighbouring tokens
const GAP = 170; // distance between the two sides
const MIN_WEIGHT = 0.01; // lighter lines are invisible anyway; leaving them out keeps the SVG small
const TITLE_H = 22; // the title above the drawing
const LEGEND_H = 22; // a row of the heads' legend below it
const SIDE_H = 18; // columns: the sides' names above the two columns
const SIDE_W = 44; // rows: the sides' names left of the two rows

/**
 * The bar of controls and the drawing area every head view has; the layout's radio for `layout` checked.
 * Radios of one name form one group per form (or per document outside any): a bar outside a form is a form
 * of its own, so that two head views' layout radios never uncheck each other.
 */
function appendControls(container, exportLabel, layout) {
  const bar = document.createElement(container.closest('form') ? 'div' : 'form');
  bar.className = 'bar';
  bar.addEventListener('submit', (e) => e.preventDefault());
  bar.innerHTML = `
    <fieldset class="head-toggles"><legend data-i18n="headView.heads"></legend></fieldset>
    <fieldset class="layout-choice">
      <legend data-i18n="headView.layout"></legend>
      <label><input type="radio" name="layout" value="columns" /> <span data-i18n="headView.columns"></span></label>
      <label><input type="radio" name="layout" value="rows" /> <span data-i18n="headView.rows"></span></label>
    </fieldset>
    <span class="export" role="group" data-i18n-attr="aria-label:${exportLabel}">
      <button type="button" class="export-svg">SVG</button>
      <button type="button" class="export-png">PNG</button>
    </span>`;
  translateDom(bar);
  bar.querySelector(`input[name="layout"][value="${layout}"]`).checked = true;
  const box = document.createElement('div');
  box.className = 'head-view-svg';
  container.append(bar, box);
  roving(bar.querySelector('.export'), 'button', { orientation: 'horizontal' });
}

export class HeadView {
  #selection = new HoverLock();
  #run = null;
  #key = '';

  /**
   * @param {HTMLElement} container the view appends its controls (head toggles, layout, export) and its drawing to it
   * @param {{ onLock: (token: object | null) => void, onLines: (names: string[]) => void,
   *   onLayout: (layout: string) => void }} handlers
   * @param {{ exportLabel?: string, layout?: 'columns' | 'rows' }} options exportLabel: the message key of the
   *   export buttons' group's name; layout: the layout checked until the first update
   */
  constructor(container, handlers, { exportLabel = 'headView.export', layout = 'columns' } = {}) {
    this.container = container;
    this.handlers = handlers;
    appendControls(container, exportLabel, layout);
    this.toggles = container.querySelector('.head-toggles');
    this.refreshToggles = roving(this.toggles, 'input', { orientation: 'both' });
    this.box = container.querySelector('.head-view-svg');
    for (const input of container.querySelectorAll('input[name="layout"]'))
      input.addEventListener('change', () => input.checked && handlers.onLayout(input.value));
    container
      .querySelector('.export-svg')
      .addEventListener('click', () => this.svg && downloadSvg(this.svg, this.#fileName('svg')));
    container
      .querySelector('.export-png')
      .addEventListener('click', () => this.svg && downloadPng(this.svg, this.#fileName('png')));
  }

  #fileName(ext) {
    return `mha-${this.#run.mode}-head-view.${ext}`;
  }

  /** Names of the heads drawn: state.lines, or every head but the single one. */
  #visible(run, state) {
    const names = allHeads(run).map((h) => h.name);
    return state.lines ? names.filter((n) => state.lines.includes(n)) : run.heads.map((h) => h.name);
  }

  update(run, state) {
    this.#run = run;
    this.#selection.locked = state.lock;
    for (const input of this.container.querySelectorAll('input[name="layout"]'))
      input.checked = input.value === state.layout;
    const key = JSON.stringify([
      language(),
      run.mode,
      run.queryTokens.map((t) => t.text),
      run.keyTokens.map((t) => t.text),
      allHeads(run).map((h) => h.name),
      state.layout,
    ]);
    if (key !== this.#key) {
      this.#key = key;
      this.#build(run, state.layout);
    }
    const visible = this.#visible(run, state);
    this.toggles.querySelectorAll('input').forEach((input) => (input.checked = visible.includes(input.value)));
    this.#drawLines(run, visible);
    this.#applySelection();
  }

  #build(run, layout) {
    // Head toggles: one checkbox per head, with its colour.
    this.toggles.replaceChildren(
      ...allHeads(run).map((h) => {
        const label = document.createElement('label');
        label.className = 'toggle';
        label.style.setProperty('--head-color', headColor(h.name, h.index));
        const input = Object.assign(document.createElement('input'), { type: 'checkbox', value: h.name });
        input.addEventListener('change', () =>
          this.handlers.onLines([...this.toggles.querySelectorAll('input:checked')].map((i) => i.value)),
        );
        label.append(input, headTitle(h.name));
        return label;
      }),
    );
    this.refreshToggles();

    const extent = (tokens) =>
      Math.max(
        ...tokens.map((t) => labelEm(shortLabel(t.text)) * FONT + labelEm(tokenNumber(t) + roleTag(t)) * 8 + 4),
      ) + 10;
    const sides = { query: run.queryTokens, key: run.keyTokens };
    const n = Math.max(run.queryTokens.length, run.keyTokens.length);
    const columns = layout === 'columns';
    // In rows, a CJK label is one upright character; other labels stand turned 90°.
    const rowsLabel = (tokens) =>
      tokens.every((t) => isWide(t.text)) ? (tokens.some((t) => roleTag(t)) ? 40 : 30) : extent(tokens);
    const qSize = columns ? extent(sides.query) : rowsLabel(sides.query);
    const kSize = columns ? extent(sides.key) : rowsLabel(sides.key);
    const along = n * STEP + 8;
    const across = qSize + GAP + kSize;
    // Where the drawing starts: below the title, and the sides' names above it (columns) or left of it (rows).
    const [left, top] = columns ? [0, TITLE_H + SIDE_H] : [SIDE_W, TITLE_H];
    const [width, drawingHeight] = columns ? [across, along] : [left + along, across];
    const heads = allHeads(run);
    const perRow = Math.max(1, Math.floor(width / 150));
    const legendRows = Math.ceil((heads.length + 1) / perRow);
    const height = top + drawingHeight + legendRows * LEGEND_H + 4;
    this.geometry = { columns, qSize, kSize };

    const svg = d3
      .create('svg')
      .attr('viewBox', `0 0 ${width} ${height}`)
      .attr('font-family', UI_FONTS)
      .attr('font-size', FONT)
      .attr('role', 'group')
      .attr('aria-label', t('headView.aria'))
      .style('--natural-width', `${width}px`);
    svg.append('text').attr('y', 15).attr('font-weight', 700).attr('font-size', 14).text(t('headView.title'));
    this.#legend(svg, heads, top + drawingHeight + 4, perRow);
    this.#sideNames(svg, { columns, qSize, kSize, top });
    const drawing = svg.append('g').attr('transform', `translate(${left},${top})`);
    this.lines = drawing.append('g').attr('class', 'lines');
    for (const [side, tokens] of Object.entries(sides)) {
      const g = drawing.append('g').attr('class', `tokens ${side}`);
      tokens.forEach((u, i) => {
        const token = g
          .append('g')
          .attr('class', 'token')
          .attr('data-side', side)
          .attr('data-index', i)
          .attr('tabindex', side === 'query' && i === 0 ? 0 : -1)
          .attr('role', 'button')
          .attr('aria-pressed', 'false')
          .attr('aria-label', t('headView.token', { side: t(`side.${side}`), token: tokenName(u) }));
        const p = this.#position(side, i);
        const upright = !columns && isWide(u.text);
        const size = side === 'query' ? qSize : kSize;
        const box = columns
          ? { x: side === 'query' ? 0 : p.x, y: p.y - STEP / 2, width: size, height: STEP }
          : { x: p.x - STEP / 2, y: side === 'query' ? 0 : p.y, width: STEP, height: size };
        token
          .append('rect')
          .attr('class', 'hit')
          .attr('rx', 3)
          .attr('fill', 'transparent')
          .attr('x', box.x)
          .attr('y', box.y)
          .attr('width', box.width)
          .attr('height', box.height);
        // Turned 90° (rows, non-CJK), "start" runs the text up from the anchor and "end" down.
        const anchor = columns
          ? side === 'query'
            ? 'end'
            : 'start'
          : upright
            ? 'middle'
            : side === 'query'
              ? 'start'
              : 'end';
        const text = token.append('text').attr('text-anchor', anchor).attr('translate', 'no');
        if (columns) text.attr('x', side === 'query' ? p.x - 6 : p.x + 6).attr('y', p.y + 4.5);
        // Upright, a 毒's role under its number: the query's label starts a line higher to keep clear of the lines.
        else if (upright) text.attr('x', p.x).attr('y', side === 'query' ? p.y - (roleTag(u) ? 19 : 10) : p.y + 20);
        else text.attr('transform', `translate(${p.x + 4.5},${side === 'query' ? p.y - 6 : p.y + 6}) rotate(-90)`);
        styleTokenText(text.node(), u);
        text.append('tspan').text(shortLabel(u.text));
        // Its number (the real view's: the sentence's), and a 毒's role (lib/tokens.mjs).
        text.append('tspan').attr('font-size', 8).attr('fill', UI.muted).attr('dx', 1).text(tokenNumber(u));
        const tag = roleTag(u);
        if (tag) text.append('tspan').attr('class', 'role-tag').attr('font-size', 8).attr('dx', 2).text(tag);
        if (upright)
          text
            .selectAll('tspan')
            .filter((_, i) => i > 0)
            .attr('x', p.x)
            .attr('dy', 9)
            .attr('dx', null);
        this.#listenToken(token.node(), { side, index: i });
      });
    }
    this.svg = svg.node();
    this.lineMap = new Map();
    this.box.replaceChildren(this.svg);
  }

  /** "queries" and "keys": above their columns, or left of their rows (level with each row's labels). */
  #sideNames(svg, { columns, qSize, kSize, top }) {
    const g = svg.append('g').attr('class', 'side-names').attr('font-size', 12).attr('font-weight', 600);
    const names = { query: t('headView.queries'), key: t('headView.keys') };
    const place = columns
      ? {
          query: { x: qSize - 6, y: top - 5, anchor: 'end' },
          key: { x: qSize + GAP + 6, y: top - 5, anchor: 'start' },
        }
      : {
          query: { x: 0, y: top + qSize / 2 + 4, anchor: 'start' },
          key: { x: 0, y: top + qSize + GAP + kSize / 2 + 4, anchor: 'start' },
        };
    for (const [side, { x, y, anchor }] of Object.entries(place))
      g.append('text')
        .attr('data-side', side)
        .attr('x', x)
        .attr('y', y)
        .attr('text-anchor', anchor)
        .attr('fill', UI.muted)
        .text(names[side]);
  }

  /** The heads' colours and what a line's opacity means, under the drawing. */
  #legend(svg, heads, y, perRow) {
    const legend = svg.append('g').attr('class', 'legend').attr('font-size', 11);
    const items = [...heads.map((h) => ({ text: headTitle(h.name), color: headColor(h.name, h.index) })), null];
    items.forEach((item, i) => {
      const g = legend
        .append('g')
        .attr('transform', `translate(${(i % perRow) * 150},${y + Math.floor(i / perRow) * LEGEND_H})`);
      if (item) {
        // A swatch rather than a line: the drawing's lines are the weights (tests count them).
        g.append('rect').attr('y', 6).attr('width', 18).attr('height', 4).attr('fill', item.color);
        g.append('text').attr('x', 24).attr('y', 12).text(item.text);
      } else g.append('text').attr('y', 12).attr('fill', UI.muted).text(t('headView.legend'));
    });
  }

  /** Where a side's token i meets its lines. */
  #position(side, i) {
    const { columns, qSize } = this.geometry;
    const along = 4 + i * STEP + STEP / 2;
    const across = side === 'query' ? qSize : qSize + GAP;
    return columns ? { x: across, y: along } : { x: along, y: across };
  }

  /**
   * Pointer and focus hover a token; click, Enter or Space toggle its lock;
   * Escape unlocks. The arrow keys move the focus: along a side, and across to
   * the other side's token at the same place.
   */
  #listenToken(node, token) {
    const toggleLock = () => this.handlers.onLock(this.#selection.toggled(token));
    node.addEventListener('pointerenter', () => this.#setHover(token));
    node.addEventListener('pointerleave', () => this.#setHover(null));
    node.addEventListener('focus', () => this.#setHover(token));
    node.addEventListener('blur', () => this.#setHover(null));
    node.addEventListener('click', toggleLock);
    node.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        toggleLock();
      } else if (e.key === 'Escape') this.handlers.onLock(null);
      else if (this.#move(token, e.key)) e.preventDefault();
    });
  }

  /**
   * Moves the focus from token by a key: along its side as lib/roving.mjs's
   * nextIndex does (the arrows along the side, Home, End), or across to the
   * other side's token at the same place; true if the key was one of these.
   */
  #move({ side, index }, key) {
    const { columns } = this.geometry;
    const across = columns ? ['ArrowLeft', 'ArrowRight'] : ['ArrowUp', 'ArrowDown'];
    const other = side === 'query' ? 'key' : 'query';
    const count = (s) => this.svg.querySelectorAll(`.token[data-side="${s}"]`).length;
    const along = nextIndex(key, index, count(side), columns ? 'vertical' : 'horizontal');
    const target =
      along !== null
        ? { side, index: along }
        : across.includes(key)
          ? { side: other, index: Math.min(count(other) - 1, index) }
          : null;
    if (!target) return false;
    const node = this.svg.querySelector(`.token[data-side="${target.side}"][data-index="${target.index}"]`);
    for (const n of this.svg.querySelectorAll('.token')) n.setAttribute('tabindex', n === node ? '0' : '-1');
    node.focus();
    return true;
  }

  #setHover(token) {
    this.#selection.hovered = token;
    this.#applySelection();
  }

  #drawLines(run, visible) {
    // Lines are kept by (head, query, key) and only their opacity changes on a
    // recompute; plain DOM calls, since free mode can draw over 10,000 of them.
    const seen = new Set();
    const group = this.lines.node();
    for (const head of allHeads(run)) {
      if (!visible.includes(head.name)) continue;
      const color = headColor(head.name, head.index);
      for (let q = 0; q < run.rows; q++)
        for (let k = 0; k < run.cols; k++) {
          const w = head.weights[q * run.cols + k];
          if (w < MIN_WEIGHT) continue;
          const key = `${head.name}/${q}/${k}`;
          seen.add(key);
          let line = this.lineMap.get(key);
          if (!line) {
            line = document.createElementNS(SVG_NS, 'line');
            const a = this.#position('query', q);
            const b = this.#position('key', k);
            for (const [name, value] of [
              ['x1', a.x],
              ['y1', a.y],
              ['x2', b.x],
              ['y2', b.y],
              ['stroke', color],
              ['stroke-width', 2],
              ['stroke-linecap', 'round'],
            ])
              line.setAttribute(name, value);
            Object.assign(line.dataset, { headName: head.name, q, k });
            this.lineMap.set(key, line);
            group.append(line);
          }
          line.setAttribute('stroke-opacity', w);
          line.dataset.weight = w;
        }
    }
    for (const [key, line] of this.lineMap)
      if (!seen.has(key)) {
        line.remove();
        this.lineMap.delete(key);
      }
  }

  /** Only the focused token's lines show (the hovered one, else the locked one); with neither, every line. */
  #applySelection() {
    if (!this.svg) return;
    const focused = this.#selection.focused;
    this.svg.classList.toggle('focused', Boolean(focused));
    const end = focused?.side === 'key' ? 'k' : 'q';
    for (const line of this.lines.node().children)
      line.classList.toggle('on', Boolean(focused) && Number(line.dataset[end]) === focused.index);
    for (const node of this.svg.querySelectorAll('.token')) {
      const token = { side: node.dataset.side, index: Number(node.dataset.index) };
      node.classList.toggle('hot', this.#selection.isFocused(token));
      node.setAttribute('aria-pressed', String(this.#selection.isLocked(token)));
    }
  }
}
