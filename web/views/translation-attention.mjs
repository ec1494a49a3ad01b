// The attention of one translation (views/translation.mjs runs it): the
// cross-attention, the encoder's self-attention or the decoder's masked
// self-attention of generate()'s result, as a layer × head grid of thumbnails
// (views/model-grid.mjs) and one head, a layer's mean or every head's mean
// large (views/heatmap.mjs); and, for the page's sentence, where each English
// token looks among the six 毒 (model/translation.mjs computes it). The
// heatmap shows the weights or, by the switch above it
// (views/measure-toggle.mjs), norm-weighted attention α·‖f(x)‖ (the run's
// headOutputs; model/norm-weighted.mjs).
import { OKABE_ITO } from '../lib/palette.mjs';
import { captionedTable, el } from '../lib/dom.mjs';
import { fixed } from '../lib/format.mjs';
import { t } from '../lib/i18n.mjs';
import { tokenRecords } from '../model/real-model-scores.mjs';
import { articleMap, articleRecords } from '../model/real-article.mjs';
import {
  ATTENTION_GROUPS,
  crossWeights,
  duCharacters,
  duReadings,
  pieceText,
  sourceSpans,
  specialFlags,
} from '../model/translation.mjs';
import { normWeightedMap, largest } from '../model/norm-weighted.mjs';
import { Heatmap } from './heatmap.mjs';
import { MeasureToggle } from './measure-toggle.mjs';
import { ModelGrid } from './model-grid.mjs';

const COLOR = OKABE_ITO.green;

export class TranslationAttention {
  #grid;
  #which = 'mean';
  /** The run shown: { text, generated } (see show). */
  #shown = null;
  #specialTokens = [];

  /**
   * @param {{ group: HTMLSelectElement, which: HTMLSelectElement, gridCaption: HTMLElement, grid: HTMLElement,
   *   heatmap: HTMLElement, du: HTMLElement }} elements
   */
  constructor(elements) {
    this.el = elements;
    this.#grid = new ModelGrid(
      { grid: elements.grid, caption: elements.gridCaption },
      {
        color: COLOR,
        onPreview: (h) => this.#drawHeatmap(h),
        onLeave: () => this.#drawHeatmap(this.#which),
        onChoose: (h) => this.#choose(h),
      },
    );
    elements.group.addEventListener('change', () => {
      this.#which = 'mean';
      this.#draw();
    });
    elements.which.addEventListener('change', () => this.#choose(this.#parseWhich(elements.which.value)));
    this.toggle = new MeasureToggle(() => this.#drawHeatmap(this.#which));
  }

  /** Writes the groups' names in the page's (new) language. */
  relabel() {
    this.toggle.relabel();
    const shown = this.el.group.value || 'cross';
    this.el.group.replaceChildren(...ATTENTION_GROUPS.map((g) => new Option(t(`mt.group.${g}`), g)));
    this.el.group.value = shown;
  }

  /**
   * Draws the attention of a translation: `run.text` the sentence translated,
   * `run.generated` generate()'s result (with its attentions); `specialTokens`
   * the model's ([{ id }]). null forgets the last one.
   */
  show(run, specialTokens = []) {
    this.#shown = run;
    this.#specialTokens = specialTokens;
    this.#draw();
  }

  /** Opens one head of a group ('encoder', 'decoder', 'cross'): the grid of its group, the head large. */
  showHead(group, head) {
    this.el.group.value = group;
    this.#which = { layer: head.layer, head: head.head };
    this.#draw();
  }

  /** Empties the grid, the heatmap and the 毒 table (what is shown stays, for the choices). */
  clear() {
    this.el.heatmap.replaceChildren();
    this.el.du.replaceChildren();
    this.#grid.clear();
  }

  // The group shown ('cross', 'encoder', 'decoder') as the grid and heatmap take it: rows, keys, weights.
  #group() {
    const g = this.#shown.generated;
    const group = this.el.group.value || 'cross';
    const source = g.inputTokens; // the encoder's pieces (with </s>)
    // A decoder row is the query of the step that chose the next token: it is labelled with that token.
    const produced = g.tokens.slice(1);
    const attention = g.attentions[group];
    const [layers, heads] = attention.shape;
    const rows = group === 'encoder' ? source : produced;
    const keys = group === 'cross' ? source : group === 'encoder' ? source : g.decoderTokens;
    // The source pieces in the article's terms (the sentence's numbers, each 毒 its role), for the page's sentence.
    const map = articleMap(source, g.inputSpecial, this.#shown.text);
    const sourceRecords = articleRecords(source.map(pieceText), map, t('gloss.tokens'));
    const records = (list) => (list === source ? sourceRecords : tokenRecords(list.map(pieceText)));
    return {
      group,
      attention,
      layers,
      heads,
      rows: rows.map(pieceText),
      keys: keys.map(pieceText),
      rowRecords: records(rows),
      keyRecords: records(keys),
      causal: group === 'decoder',
    };
  }

  #draw() {
    if (!this.#shown) return;
    const { el: e } = this;
    const view = this.#group();
    const which = e.which;
    which.replaceChildren(
      new Option(t('mt.which.mean'), 'mean'),
      ...Array.from({ length: view.layers }, (_, l) => new Option(t('mt.which.layer', { layer: l }), `layer:${l}`)),
      ...Array.from({ length: view.layers * view.heads }, (_, i) => {
        const layer = Math.floor(i / view.heads);
        const head = i % view.heads;
        return new Option(t('real.layerHead', { layer, head }), `head:${layer}:${head}`);
      }),
    );
    which.value = this.#whichValue(this.#which);
    const run = {
      tokens: view.rows,
      keyTokens: view.keys,
      attention: view.attention.data,
      numLayers: view.layers,
      numHeads: view.heads,
    };
    this.#grid.clear();
    const shown = this.#shown;
    this.#grid
      .draw(run, () => shown === this.#shown)
      .then((done) => {
        if (!done) return;
        const heads = [];
        for (let layer = 0; layer < view.layers; layer++)
          for (let head = 0; head < view.heads; head++) heads.push({ layer, head });
        const selected = typeof this.#which === 'object' && this.#which.head !== 'mean' ? this.#which : null;
        this.#grid.arrange(run, heads, 'grid', selected, (h) => t('real.layerHead', h));
        e.gridCaption.textContent = t(`mt.grid.${view.group}`, { layers: view.layers, heads: view.heads });
      });
    this.#drawHeatmap(this.#which);
    this.#drawDu();
  }

  #whichValue(which) {
    if (which === 'mean') return 'mean';
    return which.head === 'mean' ? `layer:${which.layer}` : `head:${which.layer}:${which.head}`;
  }

  #parseWhich(value) {
    const [what, a, b] = value.split(':');
    if (what === 'layer') return { layer: Number(a), head: 'mean' };
    if (what === 'head') return { layer: Number(a), head: Number(b) };
    return 'mean';
  }

  #choose(which) {
    this.#which = which;
    this.el.which.value = this.#whichValue(which);
    this.#grid.markChosen(typeof which === 'object' && which.head !== 'mean' ? which : null);
    this.#drawHeatmap(which);
    this.#drawDu();
  }

  #title(which) {
    if (which === 'mean') return t('mt.which.mean');
    return which.head === 'mean' ? t('mt.which.layer', { layer: which.layer }) : t('real.layerHead', which);
  }

  #drawHeatmap(which) {
    if (!this.#shown) return;
    const view = this.#group();
    const norms = this.#shown.headOutputs?.[view.group]?.valueNorms;
    const measure = norms ? this.toggle.measure : 'weight';
    const heatmap = new Heatmap({
      name: `mt-${view.group}-${this.#whichValue(which).replaceAll(':', '-')}`,
      title: `${t(`mt.group.${view.group}`)} · ${this.#title(which)}`,
      description: measure === 'norm' ? t('measure.descMean') : t(`mt.heatmap.${view.group}`),
      color: COLOR,
      queryTokens: view.rowRecords,
      keyTokens: view.keyRecords,
      onSelect: (q) => heatmap.markRow(q),
    });
    if (measure === 'norm') {
      const values = normWeightedMap(view.attention, norms, which);
      heatmap.update(values, { causal: view.causal, max: largest(values), label: t('measure.legend') });
    } else heatmap.update(crossWeights(view.attention, which), { causal: view.causal });
    heatmap.element.dataset.measure = measure;
    this.toggle.root.hidden = !norms;
    this.el.heatmap.replaceChildren(this.toggle.root, heatmap.element);
  }

  // Where each English token looks among the six 毒 (the page's sentence only), for the head(s) shown.
  #drawDu() {
    const { el: e } = this;
    const g = this.#shown.generated;
    const dus = duCharacters(this.#shown.text);
    if (!dus.length) {
      e.du.replaceChildren(el('p', { className: 'help', textContent: t('mt.du.other') }));
      return;
    }
    const spans = sourceSpans(g.inputTokens, g.inputSpecial, this.#shown.text);
    const weights = crossWeights(g.attentions.cross, this.#which);
    const produced = g.tokens.slice(1);
    const special = specialFlags(this.#specialTokens, g.outputIds.subarray(1));
    const readings = duReadings(weights, produced, special, spans, dus);
    const table = el('table', { className: 'mt-du-table' });
    const head = el('tr', {}, el('th', { scope: 'col', textContent: t('mt.du.token') }));
    for (const d of dus)
      head.append(
        el('th', { scope: 'col', textContent: t('mt.du.char', { index: d.index, role: t(`role.${d.role}`) }) }),
      );
    head.append(el('th', { scope: 'col', textContent: t('mt.du.most') }));
    const body = el('tbody');
    readings.forEach((r) => {
      if (!r.weights.length) return;
      const row = el('tr', {}, el('th', { scope: 'row', translate: false, textContent: pieceText(r.token) }));
      for (const d of r.weights) row.append(el('td', { textContent: fixed(d.weight, 2) }));
      row.append(
        el('td', {
          textContent: r.best
            ? t('mt.du.char', { index: r.best.index, role: t(`role.${r.best.role}`) })
            : t('mt.du.none'),
        }),
      );
      body.append(row);
    });
    table.append(el('thead', {}, head), body);
    e.du.replaceChildren(captionedTable(t('mt.du.caption', { which: this.#title(this.#which) }), table));
  }
}
