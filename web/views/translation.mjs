// "Real translation" (真实翻译): a translation model (an encoder-decoder such
// as Helsinki-NLP/opus-mt-zh-en) loaded in the real-model view translates the
// sentence in the page (model.generate in the engine's Worker: greedy or beam
// search, the English appearing token by token), and shows
// - the cross-attention as an alignment: for each English token, where each
//   head of each layer looks among the Chinese pieces (a layer × head grid of
//   thumbnails, views/model-grid.mjs; one head, a layer's mean or every head's
//   mean large, views/heatmap.mjs), and which of the six 毒 it weighs most
//   (model/translation.mjs);
// - the encoder's self-attention and the decoder's masked self-attention of
//   the same run, in the same grid and heatmap;
// - heads switched off (per head and layer, or presets: keep head h only) and
//   the sentence translated again, with both scores and how the alignment of
//   the first translation's words moved.
// Every number is the engine's; the text says what is model and what is not.
import { OKABE_ITO } from '../lib/palette.mjs';
import { captionedTable, el } from '../lib/dom.mjs';
import { fixed } from '../lib/format.mjs';
import { t } from '../lib/i18n.mjs';
import { tokenRecords } from '../model/real-model-scores.mjs';
import { articleMap, articleRecords } from '../model/real-article.mjs';
import {
  crossWeights,
  duCharacters,
  duReadings,
  keepsAll,
  keptHeads,
  pieceText,
  presetMask,
  sequenceLogProb,
  sourceSpans,
  topPieceChanges,
} from '../model/translation.mjs';
import { Heatmap } from './heatmap.mjs';
import { ModelGrid } from './model-grid.mjs';

const COLOR = OKABE_ITO.green;
const BEAMS = [1, 2, 4, 6];
const KINDS = ['cross', 'encoder', 'decoder'];
const MASK_KINDS = ['all', ...KINDS];

/** The pieces of a decoded sequence as text: ▁ is a space. */
const joinPieces = (pieces) => pieces.join('').replaceAll('▁', ' ').trim();

export class TranslationView {
  #model = null;
  #busy = false;
  /** The last translation with every head: { text, input, generated, forced } (see #translate). */
  #base = null;
  /** What the attention views show: the last translation, or the one with heads off. */
  #shown = null;
  #masks = null; // { encoder, decoder, cross }: [layers][heads] of 0/1
  #grid;
  #which = 'mean';
  #status = null;

  /**
   * @param {HTMLElement} root the .mt element of the real-model section
   * @param {{ text: () => string, onBusy: (busy: boolean) => void, onError: (key: string, error: unknown) => void }} hooks
   *   the sentence to translate (the section's text box), and what the section does while busy or on an error
   */
  constructor(root, hooks) {
    const $ = (selector) => root.querySelector(selector);
    this.root = root;
    this.hooks = hooks;
    this.el = {
      form: $('#mt-run'),
      beams: $('#mt-beams'),
      output: $('.mt-output'),
      status: $('#mt-status'),
      candidates: $('.mt-candidates'),
      maskKind: $('#mt-mask-kind'),
      maskPreset: $('#mt-mask-preset'),
      maskRun: $('#mt-mask-run'),
      mask: $('.mt-mask'),
      compare: $('.mt-compare'),
      kind: $('#mt-kind'),
      which: $('#mt-which'),
      gridCaption: $('.mt-grid-caption'),
      grid: $('.mt-grid'),
      heatmap: $('.mt-heatmap'),
      du: $('.mt-du'),
    };
    this.#grid = new ModelGrid(
      { grid: this.el.grid, caption: this.el.gridCaption },
      {
        color: COLOR,
        onPreview: (h) => this.#drawHeatmap(h),
        onLeave: () => this.#drawHeatmap(this.#which),
        onChoose: (h) => this.#choose(h),
      },
    );
    const { el: e } = this;
    e.form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.translate(this.hooks.text());
    });
    e.maskKind.addEventListener('change', () => this.#drawMask());
    e.maskPreset.addEventListener('change', () => this.#applyPreset());
    e.mask.addEventListener('change', (event) => this.#toggle(event.target));
    e.maskRun.addEventListener('click', () => this.#translateMasked());
    e.kind.addEventListener('change', () => {
      this.#which = 'mean';
      this.#drawAttention();
    });
    e.which.addEventListener('change', () => this.#choose(this.#parseWhich(e.which.value)));
  }

  /** A translation model was loaded: the controls for its sizes; nothing translated yet. */
  show(model) {
    if (model === this.#model) return; // the same model: its masks and results stay
    this.#model = model;
    this.#base = this.#shown = null;
    const c = model.config;
    this.#masks = {
      encoder: presetMask({ layers: c.numLayers, heads: c.numHeads }, 'all'),
      decoder: presetMask({ layers: c.decoderLayers, heads: c.decoderHeads }, 'all'),
      cross: presetMask({ layers: c.decoderLayers, heads: c.decoderHeads }, 'all'),
    };
    this.root.hidden = false;
    this.#clearResults();
    this.relabel();
    this.#setEnabled(true);
  }

  /** No translation model (another kind, or none). */
  hide() {
    this.#model = null;
    this.#base = this.#shown = null;
    this.root.hidden = true;
    this.#clearResults();
  }

  get busy() {
    return this.#busy;
  }

  /** Writes every text again in the page's (new) language. */
  relabel() {
    if (!this.#model) return;
    const { el: e } = this;
    const beams = e.beams.value || '4';
    e.beams.replaceChildren(
      ...BEAMS.map((n) => new Option(n === 1 ? t('mt.beams.greedy') : t('mt.beams.n', { n }), String(n))),
    );
    e.beams.value = beams;
    const kind = e.maskKind.value || 'all';
    e.maskKind.replaceChildren(...MASK_KINDS.map((k) => new Option(t(`mt.kind.${k}`), k)));
    e.maskKind.value = kind;
    const view = e.kind.value || 'cross';
    e.kind.replaceChildren(...KINDS.map((k) => new Option(t(`mt.kind.${k}`), k)));
    e.kind.value = view;
    this.#fillPresets();
    this.#drawMask();
    this.#writeStatus();
    if (this.#shown) {
      this.#writeResult();
      this.#drawAttention();
    }
  }

  #setEnabled(enabled) {
    for (const control of [this.el.beams, this.el.maskRun, this.el.form.querySelector('button')])
      control.disabled = !enabled || !this.#model;
  }

  #clearResults() {
    const { el: e } = this;
    e.output.textContent = '';
    e.candidates.replaceChildren();
    e.compare.textContent = '';
    e.heatmap.replaceChildren();
    e.du.replaceChildren();
    this.#grid.clear();
    this.#status = null;
    e.status.textContent = '';
    delete this.root.dataset.ready;
  }

  #writeStatus() {
    if (this.#status) this.el.status.textContent = t(this.#status[0], this.#status[1]);
  }

  /**
   * Translates `text` with every head, the English growing as each token is
   * decided; then draws its attention.
   */
  async translate(text) {
    const model = this.#model;
    if (!model || this.#busy) return;
    this.#clearResults();
    const run = await this.#generate(text, null);
    if (!run || model !== this.#model) return;
    this.#base = this.#shown = run;
    this.#writeResult();
    this.#drawAttention();
    this.root.dataset.ready = 'true';
  }

  // One generation (heads off as `masks` says, or all), shown as it grows:
  // { text, masks, generated (generate()'s result), ms }, or null after an error.
  async #generate(text, masks) {
    const model = this.#model;
    const { el: e } = this;
    this.#busy = true;
    this.#setEnabled(false);
    this.hooks.onBusy(true);
    const numBeams = Number(e.beams.value) || 4;
    this.#status = ['mt.translating', { beams: numBeams }];
    this.#writeStatus();
    try {
      const start = performance.now();
      const generated = await model.generate(text, {
        numBeams,
        numReturnSequences: numBeams,
        returnAttention: true,
        ...(masks && { headMask: masks }),
        onToken: ({ tokens }) => {
          if (model === this.#model) e.output.textContent = joinPieces(tokens.slice(1));
        },
      });
      const ms = performance.now() - start;
      return { text, masks, generated, ms };
    } catch (error) {
      this.hooks.onError('mt.error', error);
      return null;
    } finally {
      this.#busy = false;
      this.#setEnabled(true);
      this.hooks.onBusy(false);
    }
  }

  /** The translation, its score and its candidates; with heads off, the comparison with every head. */
  #writeResult() {
    const run = this.#shown;
    const g = run.generated;
    const { el: e } = this;
    e.output.textContent = g.text ?? joinPieces(g.tokens.slice(1));
    this.#status = [
      'mt.done',
      {
        tokens: g.outputIds.length - 1,
        ms: fixed(run.ms, 0),
        score: fixed(g.score, 3),
        search: g.candidates.length > 1 ? t('mt.search.beam', { n: g.candidates.length }) : t('mt.search.greedy'),
      },
    ];
    this.#writeStatus();
    e.candidates.replaceChildren(
      ...(g.candidates.length > 1
        ? g.candidates.map((c, i) =>
            el('li', { textContent: t('mt.candidate', { i: i + 1, text: c.text ?? '', score: fixed(c.score, 3) }) }),
          )
        : []),
    );
  }

  // ---- Switching heads off ------------------------------------------------

  #dims(kind) {
    const c = this.#model.config;
    return kind === 'encoder'
      ? { layers: c.numLayers, heads: c.numHeads }
      : { layers: c.decoderLayers, heads: c.decoderHeads };
  }

  // The kinds the mask controls edit: one, or all three.
  #editing() {
    const kind = this.el.maskKind.value || 'all';
    return kind === 'all' ? KINDS : [kind];
  }

  #fillPresets() {
    const { el: e } = this;
    const heads = Math.min(...this.#editing().map((k) => this.#dims(k).heads));
    const value = e.maskPreset.value;
    e.maskPreset.replaceChildren(
      new Option(t('mt.preset.custom'), 'custom'),
      new Option(t('mt.preset.all'), 'all'),
      ...Array.from({ length: heads }, (_, h) => new Option(t('mt.preset.only', { head: h }), `only:${h}`)),
    );
    e.maskPreset.value = [...e.maskPreset.options].some((o) => o.value === value) ? value : 'custom';
  }

  #applyPreset() {
    const value = this.el.maskPreset.value;
    if (value === 'custom') return;
    const preset = value === 'all' ? 'all' : { only: Number(value.split(':')[1]) };
    for (const kind of this.#editing()) this.#masks[kind] = presetMask(this.#dims(kind), preset);
    this.#drawMask();
  }

  // The checkboxes of the kind being edited (with 'all', those of the cross-attention stand for the three
  // when their sizes agree; else only the presets edit them).
  #drawMask() {
    if (!this.#model) return;
    const { el: e } = this;
    const kinds = this.#editing();
    const [first] = kinds;
    const { layers, heads } = this.#dims(first);
    const same = kinds.every((k) => {
      const d = this.#dims(k);
      return d.layers === layers && d.heads === heads;
    });
    const table = el('table', { className: 'mt-mask-table' });
    const header = el('tr', {}, el('th', { scope: 'col', textContent: '' }));
    for (let h = 0; h < heads; h++) header.append(el('th', { scope: 'col', textContent: t('real.head', { head: h }) }));
    table.append(el('thead', {}, header));
    const body = el('tbody');
    for (let l = 0; l < layers; l++) {
      const row = el('tr', {}, el('th', { scope: 'row', textContent: t('real.layer', { layer: l }) }));
      for (let h = 0; h < heads; h++) {
        const on = kinds.every((k) => this.#masks[k][l]?.[h] === 1);
        const box = el('input', {
          type: 'checkbox',
          checked: on,
          disabled: !same,
          title: t('mt.heads.box', { layer: l, head: h }),
        });
        box.setAttribute('aria-label', t('mt.heads.box', { layer: l, head: h }));
        box.dataset.layer = l;
        box.dataset.head = h;
        row.append(el('td', {}, box));
      }
      body.append(row);
    }
    table.append(body);
    const counts = KINDS.map((k) => ({ kind: k, ...keptHeads(this.#masks[k]) }));
    e.mask.replaceChildren(
      table,
      el('p', {
        className: 'help',
        textContent: counts
          .map((c) => t('mt.heads.kept', { kind: t(`mt.kind.${c.kind}`), kept: c.kept, all: c.all }))
          .join(t('list.join')),
      }),
    );
  }

  #toggle(box) {
    if (box?.type !== 'checkbox') return;
    const l = Number(box.dataset.layer);
    const h = Number(box.dataset.head);
    for (const kind of this.#editing()) this.#masks[kind][l][h] = box.checked ? 1 : 0;
    this.el.maskPreset.value = 'custom';
    this.#drawMask();
  }

  // The head masks to pass: only the kinds that switch a head off.
  #headMask() {
    const mask = {};
    for (const kind of KINDS) if (!keepsAll(this.#masks[kind])) mask[kind] = this.#masks[kind];
    return Object.keys(mask).length ? mask : null;
  }

  /** Translates again with the heads switched off, and compares with the translation with every head. */
  async #translateMasked() {
    const model = this.#model;
    if (!model || this.#busy) return;
    const text = this.hooks.text();
    if (!this.#base || this.#base.text !== text) await this.translate(text);
    if (!this.#base || model !== this.#model) return;
    const masks = this.#headMask();
    const run = await this.#generate(text, masks);
    if (!run || model !== this.#model) return;
    this.#shown = run;
    this.#writeResult();
    this.#drawAttention();
    await this.#compare(run);
  }

  // The first translation's words under these heads (teacher-forced): its log-probability, and how many of its
  // words now look mostly at another piece.
  async #compare(run) {
    const base = this.#base.generated;
    const ids = base.outputIds;
    const forced = await this.#model.run(
      { inputIds: base.inputIds, decoderInputIds: ids.subarray(0, ids.length - 1) },
      { returnLogits: true, ...(run.masks && { headMask: run.masks }) },
    );
    const vocab = this.#model.config.vocabSize;
    const S = base.inputIds.length;
    const special = this.#specialOf(base.decoderInputIds);
    const moved = topPieceChanges(
      crossWeights(base.attentions.cross, 'mean'),
      crossWeights(forced.attentions.cross, 'mean'),
      S,
      special,
    );
    const all = this.#model.config;
    const kept = KINDS.map((k) => keptHeads(this.#masks[k]));
    this.el.compare.textContent = t('mt.compare', {
      kept: kept.reduce((n, k) => n + k.kept, 0),
      all: kept.reduce((n, k) => n + k.all, 0),
      before: this.#base.generated.text ?? '',
      after: run.generated.text ?? '',
      same: run.generated.text === this.#base.generated.text ? t('mt.compare.same') : t('mt.compare.different'),
      logp: fixed(sequenceLogProb(forced.logits, vocab, ids), 3),
      logpAll: fixed(sequenceLogProb(this.#base.forcedLogits ?? (await this.#baseLogits()), vocab, ids), 3),
      moved: moved.changed,
      words: moved.rows.length,
      layers: all.decoderLayers,
    });
  }

  // The first translation's own logits with every head (for its log-probability), computed once.
  async #baseLogits() {
    const g = this.#base.generated;
    const ids = g.outputIds;
    const r = await this.#model.run(
      { inputIds: g.inputIds, decoderInputIds: ids.subarray(0, ids.length - 1) },
      { returnAttention: false, returnLogits: true },
    );
    this.#base.forcedLogits = r.logits;
    return r.logits;
  }

  #specialOf(ids) {
    const special = new Set(this.#model.specialTokens.map((s) => s.id));
    return Array.from(ids, (id) => (special.has(id) ? 1 : 0));
  }

  // ---- The attention views ------------------------------------------------

  // The group shown ('cross', 'encoder', 'decoder') as the grid and heatmap take it: rows, keys, weights.
  #group() {
    const g = this.#shown.generated;
    const kind = this.el.kind.value || 'cross';
    const source = g.inputTokens; // the encoder's pieces (with </s>)
    // A decoder row is the query of the step that chose the next token: it is labelled with that token.
    const produced = g.tokens.slice(1);
    const group = g.attentions[kind];
    const [layers, heads] = group.shape;
    const rows = kind === 'encoder' ? source : produced;
    const keys = kind === 'cross' ? source : kind === 'encoder' ? source : g.decoderTokens;
    // The source pieces in the article's terms (the sentence's numbers, each 毒 its role), for the page's sentence.
    const map = articleMap(source, g.inputSpecial, this.#shown.text);
    const sourceRecords = articleRecords(source.map(pieceText), map, t('gloss.tokens'));
    const records = (list) => (list === source ? sourceRecords : tokenRecords(list.map(pieceText)));
    return {
      kind,
      group,
      layers,
      heads,
      rows: rows.map(pieceText),
      keys: keys.map(pieceText),
      rowRecords: records(rows),
      keyRecords: records(keys),
      causal: kind === 'decoder',
    };
  }

  #drawAttention() {
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
      attention: view.group.data,
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
        e.gridCaption.textContent = t(`mt.grid.${view.kind}`, { layers: view.layers, heads: view.heads });
      });
    this.#drawHeatmap(this.#which);
    this.#drawDu();
  }

  #whichValue(which) {
    if (which === 'mean') return 'mean';
    return which.head === 'mean' ? `layer:${which.layer}` : `head:${which.layer}:${which.head}`;
  }

  #parseWhich(value) {
    const [kind, a, b] = value.split(':');
    if (kind === 'layer') return { layer: Number(a), head: 'mean' };
    if (kind === 'head') return { layer: Number(a), head: Number(b) };
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
    const weights = crossWeights(view.group, which);
    const heatmap = new Heatmap({
      name: `mt-${view.kind}-${this.#whichValue(which).replaceAll(':', '-')}`,
      title: `${t(`mt.kind.${view.kind}`)} · ${this.#title(which)}`,
      description: t(`mt.heatmap.${view.kind}`),
      color: COLOR,
      queryTokens: view.rowRecords,
      keyTokens: view.keyRecords,
      onSelect: (q) => heatmap.markRow(q),
    });
    heatmap.update(weights, { causal: view.causal });
    this.el.heatmap.replaceChildren(heatmap.element);
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
    const special = this.#specialOf(g.outputIds.subarray(1));
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
