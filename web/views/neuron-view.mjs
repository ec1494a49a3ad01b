// The neuron view (model/neuron.mjs): for one query–key pair of one head, the
// vectors q and k and their element-wise product q⊙k as three rows of
// shaded cells (one column per dimension of d_k) with the legend of their
// colours (brown negative, white 0, purple positive), then the sum, the score and
// the weight written out, and the query's whole row of weights, in which a
// click or the arrow keys choose the key. Every number carries its value in
// data-value, as the engine gave it or as computed from the engine's q and k.
import d3 from '../lib/d3.mjs';
import { UI, headColor } from '../lib/palette.mjs';
import { divergingScale, weightRamp } from '../lib/scales.mjs';
import { SVG_NS, captionedTable, el } from '../lib/dom.mjs';
import { GridCursor } from '../lib/grid-cursor.mjs';
import { nextIndex } from '../lib/roving.mjs';
import { stickLabels } from '../lib/sticky.mjs';
import { t } from '../lib/i18n.mjs';
import { precise } from '../lib/format.mjs';
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
import { headTitle } from '../model/head-names.mjs';
import { featureLabel } from '../model/feature-labels.mjs';
import { neuronHead, neuronPair, pairFor } from '../model/neuron.mjs';

const CELL = 18;
const COLUMN_FONT = 9;

/**
 * What the cells' colours mean: the diverging scale every row of q, k and q⊙k is drawn with, from its
 * negative end through 0 to its positive end; each row is scaled to its own largest |value|.
 */
function colourLegend() {
  const color = divergingScale(1);
  const swatch = (value, text) => {
    const span = el('span', { className: 'swatch' });
    span.style.background = color(value);
    span.dataset.value = String(value);
    return el('span', { className: 'legend-item' }, span, text);
  };
  return el(
    'p',
    { className: 'neuron-legend help' },
    swatch(-1, t('neuron.legend.negative')),
    swatch(0, '0'),
    swatch(1, t('neuron.legend.positive')),
    el('span', { textContent: t('neuron.legend.scale') }),
  );
}

/** The menus of head, query and key, and the body the view draws into, appended to the view's container. */
function appendControls(container) {
  const bar = el('div', { className: 'bar' });
  for (const name of ['head', 'query', 'key']) {
    // data-i18n: a change of language writes the label again (lib/i18n.mjs translateDom).
    const label = el('span', { textContent: t(`neuron.${name}`) });
    label.dataset.i18n = `neuron.${name}`;
    bar.append(el('label', {}, label, ' ', el('select', { className: `neuron-${name}` })));
  }
  container.append(bar, el('div', { className: 'neuron-body' }));
}

export class NeuronView {
  /**
   * @param {HTMLElement} section #neuron
   * @param {{ onHead: (name: string) => void, onPair: (pair: { q: number, k: number }) => void }} handlers
   */
  constructor(section, { onHead, onPair }) {
    appendControls(section);
    this.$ = (s) => section.querySelector(s);
    this.body = this.$('.neuron-body');
    this.onPair = onPair;
    this.$('select.neuron-head').addEventListener('change', (e) => onHead(e.target.value));
    this.$('select.neuron-query').addEventListener('change', (e) => onPair({ q: Number(e.target.value), k: null }));
    this.$('select.neuron-key').addEventListener('change', (e) =>
      onPair({ q: Number(this.$('select.neuron-query').value), k: Number(e.target.value) }),
    );
  }

  #fill(select, options, value) {
    const key = options.map((o) => `${o.value}:${o.text}`).join();
    if (select.dataset.options !== key) {
      select.replaceChildren(...options.map((o) => new Option(o.text, o.value)));
      select.dataset.options = key;
    }
    select.value = String(value);
  }

  update(run, state) {
    if (!run.projections || !run.scores) {
      this.body.replaceChildren(el('p', { className: 'explain', textContent: t('neuron.none') }));
      return;
    }
    const h = neuronHead(run, state.head);
    const head = run.heads[h];
    const { q, k } = pairFor(run, h, state.pair);
    const n = neuronPair(run, h, q, k);
    const option = (u) => ({ value: u.index, text: tokenName(u) });
    this.#fill(
      this.$('select.neuron-head'),
      run.heads.map((x) => ({ value: x.name, text: headTitle(x.name) })),
      head.name,
    );
    this.#fill(this.$('select.neuron-query'), run.queryTokens.map(option), q);
    this.#fill(this.$('select.neuron-key'), run.keyTokens.map(option), k);

    const queryName = tokenName(run.queryTokens[q]);
    const keyName = tokenName(run.keyTokens[k]);
    const pairText = t('neuron.pair', { head: headTitle(head.name), query: queryName, key: keyName });
    const vectors = el('div', { className: 'neuron-scroll' }, this.#vectors(n, { queryName, keyName, pairText }));
    stickLabels(vectors)();
    const readout = el('p', { className: 'readout neuron-readout', ariaLive: 'polite', textContent: t('neuron.hint') });
    this.readout = readout;

    const steps = el('ol', { className: 'neuron-steps' });
    const step = (name, value, text) => {
      const li = el('li', { textContent: text });
      li.dataset.step = name;
      li.dataset.value = String(value);
      steps.append(li);
    };
    const nonzero = n.product.filter((v) => v !== 0).length;
    step(
      'dot',
      n.dot,
      t('neuron.dot', { dot: precise(n.dot), nonzero: t('neuron.nonzero', { n: nonzero, dK: n.dK }) }),
    );
    if (n.masked) step('score', -Infinity, t('neuron.maskedScore'));
    else
      step(
        'score',
        n.score,
        // A real model's scores are computed here from its q and k (it returns weights, not scores).
        t(run.scoresFrom === 'queryKey' ? 'neuron.score.real' : 'neuron.score', {
          dot: precise(n.dot),
          dK: n.dK,
          score: precise(n.score),
          engineScore: precise(n.engineScore),
        }),
      );
    steps.lastChild.dataset.engineScore = String(n.engineScore);
    step(
      'weight',
      n.weight,
      run.scoresFrom === 'queryKey'
        ? t('neuron.weight.real', { weight: precise(n.weight), softmax: precise(n.softmaxWeight) })
        : t('neuron.weight', { weight: precise(n.weight) }),
    );
    steps.lastChild.dataset.softmax = String(n.softmaxWeight);

    const strip = this.#rowStrip(run, h, q, k, headColor(head.name, h));
    this.body.replaceChildren(
      el('p', { className: 'neuron-pair', textContent: pairText }),
      vectors,
      colourLegend(),
      readout,
      steps,
      el('p', { className: 'neuron-row-title', textContent: t('neuron.rowTitle', { token: queryName }) }),
      strip,
      this.#table(n),
    );
  }

  /** q, k and q⊙k as three rows of cells; hover or arrow keys read a column. */
  #vectors(n, { queryName, keyName, pairText }) {
    const { dK } = n;
    // Above the cells, what each column of the head's Q reads (the feature names of the designed heads).
    const columnLabels = n.qLabels.map((l) => shortLabel(featureLabel(l) || '', 16));
    const labelsH = columnLabels.some(Boolean)
      ? Math.ceil(Math.max(...columnLabels.map((l) => labelEm(l) * COLUMN_FONT))) + 8
      : 0;
    const top = 24 + labelsH;
    // One scale per row: wQ carries the sharpness and √d_k, so q is far larger than k.
    const scale = (values) => divergingScale(d3.max(values, Math.abs) || 1);
    const rows = [
      { id: 'q', label: t('neuron.q', { token: queryName }), values: n.q, color: scale(n.q) },
      { id: 'k', label: t('neuron.k', { token: keyName }), values: n.k, color: scale(n.k) },
      { id: 'product', label: t('neuron.product'), values: n.product, color: scale(n.product) },
    ];
    const LABEL_W = Math.ceil(Math.max(80, ...rows.map((r) => labelEm(r.label) * 11))) + 12;
    const width = LABEL_W + dK * CELL + 4;
    const height = top + 3 * (CELL + 6) + 4;
    const svg = d3
      .create('svg')
      .attr('class', 'neuron-vectors')
      .attr('viewBox', `0 0 ${width} ${height}`)
      .attr('font-family', UI_FONTS)
      .attr('font-size', 11)
      .attr('tabindex', 0)
      .attr('role', 'img')
      .attr('aria-label', t('neuron.aria', { pair: pairText }))
      .style('--natural-width', `${width}px`);
    const cells = svg.append('g');
    const mark = svg.append('rect').attr('fill', 'none').attr('stroke', UI.ink).attr('stroke-width', 1.5);
    mark
      .attr('display', 'none')
      .attr('width', CELL + 1)
      .attr('height', 3 * (CELL + 6) - 5);
    const labels = svg.append('g').attr('data-sticky', 'x');
    labels.append('rect').attr('width', LABEL_W).attr('height', height).attr('fill', UI.paper);
    labels.append('text').attr('y', 14).attr('font-weight', 600).text(`d_k = ${dK}`);
    const columns = svg.append('g').attr('font-size', COLUMN_FONT).attr('fill', UI.axisLabel);
    columnLabels.forEach((label, i) =>
      columns
        .append('text')
        .attr('transform', `translate(${LABEL_W + i * CELL + CELL / 2 + 3},${top - 4}) rotate(-90)`)
        .text(label),
    );
    rows.forEach((row, r) => {
      const y = top + r * (CELL + 6);
      labels
        .append('text')
        .attr('x', LABEL_W - 6)
        .attr('y', y + CELL / 2 + 4)
        .attr('text-anchor', 'end')
        .text(row.label);
      row.values.forEach((v, i) => {
        const rect = document.createElementNS(SVG_NS, 'rect');
        for (const [a, value] of [
          ['x', LABEL_W + i * CELL],
          ['y', y],
          ['width', CELL - 1],
          ['height', CELL],
          ['fill', row.color(v)],
        ])
          rect.setAttribute(a, value);
        Object.assign(rect.dataset, { row: row.id, i: String(i), value: String(v) });
        cells.node().append(rect);
      });
    });
    const cursor = new GridCursor(1, dK, {
      onMove: (cell) => {
        if (!cell) return;
        const i = cell.col;
        mark
          .attr('display', null)
          .attr('x', LABEL_W + i * CELL - 1)
          .attr('y', top - 1);
        const label = [n.qLabels[i], n.kLabels[i]].filter(Boolean).map(featureLabel).join(' · ');
        this.readout.textContent = ['q', 'k', 'q⊙k']
          .map((name, r) => t('neuron.readout', { row: name, i, label, value: precise(rows[r].values[i]) }))
          .join(' · ');
      },
    });
    const node = svg.node();
    node.addEventListener('pointermove', ({ target }) => {
      if (target.dataset?.i !== undefined) cursor.point({ row: 0, col: Number(target.dataset.i) });
    });
    node.addEventListener('focus', () => cursor.show());
    node.addEventListener('keydown', (e) => cursor.key(e.key) && e.preventDefault());
    return node;
  }

  /** The query's row of weights over every key; the chosen key outlined; click or arrow keys choose. */
  #rowStrip(run, h, q, k, color) {
    const cols = run.cols;
    const ramp = weightRamp(color);
    const labelH = run.keyTokens.every((u) => isWide(u.text)) ? (run.keyTokens.some((u) => roleTag(u)) ? 44 : 34) : 76;
    const width = cols * 24 + 4;
    const height = 24 + labelH;
    const svg = d3
      .create('svg')
      .attr('class', 'neuron-row')
      .attr('viewBox', `0 0 ${width} ${height}`)
      .attr('font-family', UI_FONTS)
      .attr('font-size', 11)
      .attr('tabindex', 0)
      .attr('role', 'img')
      .attr('aria-label', t('neuron.rowAria', { token: tokenName(run.queryTokens[q]) }))
      .style('--natural-width', `${width}px`);
    run.keyTokens.forEach((u, j) => {
      const w = run.heads[h].weights[q * cols + j];
      const masked = run.causal && j > q;
      svg
        .append('rect')
        .attr('x', j * 24 + 2)
        .attr('y', 2)
        .attr('width', 22)
        .attr('height', 20)
        .attr('fill', masked ? UI.hatchGround : ramp(w))
        .attr('stroke', j === k ? UI.ink : 'none')
        .attr('stroke-width', 2)
        .attr('data-k', j)
        .attr('data-weight', w)
        .style('cursor', 'pointer');
      const text = svg.append('text').attr('translate', 'no');
      const x = j * 24 + 13;
      if (isWide(u.text)) text.attr('x', x).attr('y', 38).attr('text-anchor', 'middle');
      else text.attr('transform', `translate(${x + 4},${28}) rotate(90)`);
      styleTokenText(text.node(), u);
      text.append('tspan').text(shortLabel(u.text, 8));
      // Its number (the real view's: the sentence's) and a 毒's role (lib/tokens.mjs).
      const index = text.append('tspan').attr('font-size', 8).attr('fill', UI.muted).text(tokenNumber(u));
      const tag = roleTag(u);
      const role = tag ? text.append('tspan').attr('class', 'role-tag').attr('font-size', 8).text(tag) : null;
      if (isWide(u.text)) {
        index.attr('x', x).attr('dy', 11);
        role?.attr('x', x).attr('dy', 10);
      } else {
        index.attr('dx', 2);
        role?.attr('dx', 2);
      }
    });
    const node = svg.node();
    const choose = (j) => this.onPair({ q, k: j });
    node.addEventListener('click', ({ target }) => target.dataset?.k !== undefined && choose(Number(target.dataset.k)));
    // The strip is one Tab stop; the arrow keys, Home and End move the chosen key (lib/roving.mjs).
    node.addEventListener('keydown', (e) => {
      const j = nextIndex(e.key, k, cols, 'horizontal');
      if (j === null) return;
      e.preventDefault();
      if (j !== k) {
        this.refocusStrip = true;
        choose(j);
      }
    });
    if (this.refocusStrip) {
      this.refocusStrip = false;
      queueMicrotask(() => node.focus());
    }
    const j = k;
    const readout = t('neuron.rowReadout', {
      token: tokenName(run.keyTokens[j]),
      score: run.causal && j > q ? '−∞' : precise(run.scores[h * run.rows * cols + q * cols + j]),
      weight: precise(run.heads[h].weights[q * cols + j]),
    });
    return el('div', { className: 'neuron-scroll' }, node, el('p', { className: 'readout', textContent: readout }));
  }

  /** Every dimension's q, k and product as a table, for reading and copying. */
  #table(n) {
    const details = el('details', { className: 'numbers' }, el('summary', { textContent: t('heatmap.table') }));
    const table = el('table', { className: 'neuron-table' });
    const head = table.createTHead().insertRow();
    for (const text of ['i', 'Q', 'K', 'q', 'k', 'q⊙k'])
      head.append(el('th', { scope: 'col', textContent: text, translate: false }));
    const body = table.createTBody();
    n.product.forEach((p, i) => {
      const tr = body.insertRow();
      tr.append(
        el('th', { scope: 'row', textContent: String(i) }),
        el('td', { textContent: featureLabel(n.qLabels[i]) || '—' }),
        el('td', { textContent: featureLabel(n.kLabels[i]) || '—' }),
        el('td', { textContent: precise(n.q[i]) }),
        el('td', { textContent: precise(n.k[i]) }),
        el('td', { textContent: precise(p) }),
      );
    });
    details.append(captionedTable(t('neuron.tableCaption'), table));
    return details;
  }
}
