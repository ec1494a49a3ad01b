// "哪些头真正重要 / Which heads matter": for the loaded model and the text it
// ran on (a decoder's next token or short continuation, a BERT's [MASK] fill,
// a translation model's translation), the package's analysis
// (mha-wasm/analysis, in the engine's worker): headImportance (each head
// alone switched off, the reference's log-probability again), then
// pruningCurve in that order (heads off together, least important first, the
// output decoded again at each point). Drawn: one layer × head grid per
// attention group (a cell's colour and number: the change; a click shows the
// head in the views above), the curve as a chart and a table of outputs with
// the first change marked, and what the numbers say
// (model/head-importance-text.mjs), beside the page's own flag on whether the
// checkpoint is trained; then fewer heads (views/fewer-heads.mjs) and a
// clicked head's detail (views/head-detail.mjs), each run through #work.
// Cancellable; the section's inputs wait meanwhile.
import d3 from '../lib/d3.mjs';
import { captionedTable, el } from '../lib/dom.mjs';
import { fixed, percent } from '../lib/format.mjs';
import { t } from '../lib/i18n.mjs';
import { mountView } from '../lib/mount.mjs';
import { analysisEntry } from '../lib/package.mjs';
import { UI } from '../lib/palette.mjs';
import { divergingScale } from '../lib/scales.mjs';
import { importanceSentences, outputKept, outputText } from '../model/head-importance-text.mjs';
import { duEnglish, duSentence, firstDuChange } from '../model/du-english.mjs';
import { PruningChart } from './pruning-chart.mjs';
import { FewerHeads } from './fewer-heads.mjs';
import { HeadDetail } from './head-detail.mjs';
import { RolloutView } from './rollout-view.mjs';
import { LogitLensView } from './logit-lens-view.mjs';

const MARKUP = /* HTML */ `
  <h3 data-i18n="matter.title"></h3>
  <p class="explain" data-i18n-html="matter.explain"></p>
  <div class="bar matter-bar">
    <label class="matter-length" hidden
      ><span data-i18n="matter.length"></span>
      <select class="matter-length-select"></select
    ></label>
    <button type="button" class="matter-run" data-i18n="matter.run"></button>
    <button type="button" class="matter-cancel" data-i18n="matter.cancel" hidden></button>
  </div>
  <p class="matter-need help" data-i18n="matter.needMask" hidden></p>
  <p class="matter-status status" role="status"></p>
  <p class="matter-trust"></p>
  <div class="matter-results" hidden>
    <p class="matter-reference"></p>
    <ul class="matter-text"></ul>
    <div class="matter-grids"></div>
    <p class="matter-legend help"></p>
    <div class="matter-head"></div>
    <h4 data-i18n="matter.curve.title"></h4>
    <div class="bar matter-line-bar">
      <label
        ><span data-i18n="matter.curve.line"></span>
        <select class="matter-line"></select
      ></label>
    </div>
    <figure class="matter-chart"></figure>
    <div class="matter-table"></div>
    <div class="matter-few"></div>
    <div class="matter-rollout"></div>
  </div>
  <div class="matter-lens"></div>
`;

/** A decoder's reference: its next token, or a short greedy continuation. */
const CONTINUATIONS = [1, 4];
/** The page's flag on the checkpoint (real-article's first note, translation-notes' kind) → what is said here. */
const TRUST = { random: 'random', chance: 'random', unmeasured: 'unmeasured', predicts: 'trained' };

export class HeadsMatter {
  #model = null;
  /** What show() was given: { text, note, ready }. */
  #context = null;
  #busy = false;
  #enabled = true;
  #controller = null;
  #status = null;
  /** The last analysis: { text, options, importance, curve, kind, passes, ms }. */
  #result = null;
  #chart;
  #few;
  #detail;
  #rollout;
  #lens;

  /**
   * @param {HTMLElement} root the section's container (index.html's .heads-matter)
   * @param {{ onBusy: (busy: boolean) => void, onError: (key: string, error: unknown) => void,
   *   onChoose: (group: string, head: { layer: number, head: number }) => void, variant: () => string }} hooks
   */
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    this.el = mountView(root, MARKUP, {
      lengthRow: '.matter-length',
      length: '.matter-length-select',
      run: '.matter-run',
      cancel: '.matter-cancel',
      need: '.matter-need',
      status: '.matter-status',
      trust: '.matter-trust',
      results: '.matter-results',
      reference: '.matter-reference',
      text: '.matter-text',
      grids: '.matter-grids',
      legend: '.matter-legend',
      lineBar: '.matter-line-bar',
      line: '.matter-line',
      table: '.matter-table',
    });
    const $ = (selector) => root.querySelector(selector);
    this.#chart = new PruningChart($('.matter-chart'));
    const sub = { work: (task) => this.#work(task), context: () => this.#analysed() };
    this.#few = new FewerHeads($('.matter-few'), sub);
    this.#detail = new HeadDetail($('.matter-head'), sub);
    this.#rollout = new RolloutView($('.matter-rollout'), sub);
    // The logit lens needs no analysis first: the model and the text it ran on.
    this.#lens = new LogitLensView($('.matter-lens'), {
      work: (task) => this.#work(task, false),
      context: () => ({
        model: this.#model,
        text: this.#context.text,
        trust: TRUST[this.#context.note] ?? 'unmeasured',
      }),
    });
    this.el.run.addEventListener('click', () => this.#analyse());
    this.el.cancel.addEventListener('click', () => this.#controller?.abort());
    this.el.line.addEventListener('change', () => this.#drawCurve());
  }

  get busy() {
    return this.#busy;
  }

  /**
   * The model ran on `text`: `note` the page's flag on the checkpoint ('random', 'chance', 'unmeasured',
   * 'predicts'), `ready` whether there is a reference to score (a BERT needs a [MASK]). An analysis of another
   * model or text is forgotten.
   */
  show(model, { text, note, ready = true }) {
    if (model !== this.#model || text !== this.#context?.text) this.#lens.forget();
    if (model !== this.#model || text !== this.#result?.text) this.#forget();
    this.#model = model;
    this.#context = { text, note, ready };
    this.root.hidden = false;
    this.relabel();
  }

  /** No model to analyse (another kind, or a new one loading): a running analysis stops. */
  hide() {
    this.#controller?.abort();
    this.#model = this.#context = null;
    this.#forget();
    this.#lens.forget();
    this.root.hidden = true;
  }

  /** The section's other inputs are busy (or free again). */
  setEnabled(enabled) {
    this.#enabled = enabled;
    this.#writeControls();
  }

  relabel() {
    if (!this.#model) return;
    const { el: e } = this;
    const decoder = this.#model.config.kind === 'decoder';
    e.lengthRow.hidden = !decoder;
    const length = e.length.value || String(CONTINUATIONS[0]);
    e.length.replaceChildren(
      ...CONTINUATIONS.map((n) => new Option(n === 1 ? t('matter.length.next') : t('matter.length.n', { n }), n)),
    );
    e.length.value = length;
    e.need.hidden = this.#context.ready;
    const trust = TRUST[this.#context.note] ?? 'unmeasured';
    e.trust.textContent = t(`matter.trust.${trust}`);
    e.trust.className = `matter-trust ${trust === 'trained' ? 'caveat' : 'warning'}`;
    e.trust.dataset.trust = trust;
    if (this.#status) e.status.textContent = t(...this.#status);
    this.#writeControls();
    this.#lens.relabel(this.#model.config.kind);
    if (this.#result) {
      this.#draw();
      this.#few.relabel();
      this.#detail.relabel();
    }
  }

  #writeControls() {
    const { el: e } = this;
    const can = this.#enabled && !this.#busy && Boolean(this.#model) && this.#context?.ready;
    e.run.disabled = !can;
    e.length.disabled = !this.#enabled || this.#busy;
    e.line.disabled = this.#busy;
    e.cancel.hidden = !this.#busy;
    this.#few.setEnabled(this.#enabled && !this.#busy);
    this.#rollout.setEnabled(this.#enabled && !this.#busy);
    this.#lens.setEnabled(this.#enabled && !this.#busy && Boolean(this.#model));
  }

  #setStatus(key, params = {}) {
    this.#status = [key, params];
    this.el.status.textContent = t(key, params);
  }

  #forget() {
    this.#result = null;
    this.#status = null;
    this.el.status.textContent = '';
    this.el.results.hidden = true;
    this.#few.forget();
    this.#detail.forget();
    this.#rollout.forget();
    delete this.root.dataset.ready;
  }

  /** What the sub-views work on: the model and the last analysis' text, reference options and importance. */
  #analysed() {
    const { text, options, importance } = this.#result;
    return { model: this.#model, text, options, importance };
  }

  /**
   * Runs `task({ signal, onProgress })` after an analysis (unless `afterAnalysis` is false) as the section's work (busy, cancellable, its progress
   * shown): its result, or null when cancelled, failed or of a model no longer shown.
   */
  async #work(task, afterAnalysis = true) {
    const model = this.#model;
    const result = this.#result;
    if (!model || this.#busy || (afterAnalysis && !result)) return null;
    const controller = (this.#controller = new AbortController());
    const { signal } = controller;
    const onProgress = ({ phase, done, total }) => {
      if (model === this.#model) this.#setStatus(`matter.progress.${phase}`, { done, total });
    };
    this.#busy = true;
    this.#writeControls();
    this.hooks.onBusy(true);
    this.#setStatus('matter.progress.more');
    try {
      const out = await task({ signal, onProgress });
      if (model !== this.#model || result !== this.#result) return null;
      this.#setStatus('matter.ready');
      return out;
    } catch (error) {
      if (model !== this.#model) return null;
      if (signal.aborted) this.#setStatus('matter.cancelledMore');
      else {
        this.#status = null;
        this.el.status.textContent = '';
        this.hooks.onError('matter.error', error);
      }
      return null;
    } finally {
      if (this.#controller === controller) this.#controller = null;
      this.#busy = false;
      this.#writeControls();
      this.hooks.onBusy(false);
    }
  }

  async #analyse() {
    const model = this.#model;
    if (!model || this.#busy || !this.#context.ready) return;
    const { text } = this.#context;
    const options = model.config.kind === 'decoder' ? { newTokens: Number(this.el.length.value) } : {};
    const controller = (this.#controller = new AbortController());
    const { signal } = controller;
    const onProgress = ({ phase, done, total }) => {
      if (model === this.#model) this.#setStatus(`matter.progress.${phase}`, { done, total });
    };
    this.#forget();
    this.#busy = true;
    this.#writeControls();
    this.hooks.onBusy(true);
    this.#setStatus('matter.progress.start');
    try {
      const { headImportance, pruningCurve } = await analysisEntry();
      const importance = await headImportance(model, text, { ...options, signal, onProgress });
      const curve = await pruningCurve(model, text, { ...options, signal, onProgress, importance });
      const du = await duEnglish(model, text, importance.reference);
      if (model !== this.#model) return;
      const passes = importance.timing.passes + curve.timing.passes;
      const ms = importance.timing.totalMs + curve.timing.totalMs;
      this.#result = { text, options, importance, curve, du, kind: model.config.kind, passes, ms };
      this.#setStatus('matter.done', { passes, seconds: fixed(ms / 1000, 1), variant: this.hooks.variant() });
      this.el.line.value = 'all';
      this.#draw();
      this.root.dataset.ready = 'true';
    } catch (error) {
      if (signal.aborted) {
        if (model === this.#model) this.#setStatus('matter.cancelled');
      } else if (model === this.#model) {
        this.#status = null;
        this.el.status.textContent = '';
        this.hooks.onError('matter.error', error);
      }
    } finally {
      if (this.#controller === controller) this.#controller = null;
      this.#busy = false;
      this.#writeControls();
      this.hooks.onBusy(false);
    }
  }

  #draw() {
    const { importance, curve, kind } = this.#result;
    const { el: e } = this;
    this.#rollout.relabel(kind);
    const ref = importance.reference;
    e.reference.replaceChildren(
      t('matter.reference', { kind: t(`matter.ref.${kind}`), output: outputText(ref), score: fixed(ref.score) }),
    );
    const lines = Object.keys(curve.curves).filter((line) => line !== 'all' || Object.keys(curve.curves).length > 2);
    const line = lines.includes(e.line.value) ? e.line.value : lines.at(-1);
    e.line.replaceChildren(...lines.map((l) => new Option(t(`matter.group.${l}`), l)));
    e.line.value = line;
    e.lineBar.hidden = lines.length < 2;
    this.#drawGrids(importance);
    this.#drawCurve();
    e.results.hidden = false;
  }

  // One table per attention group: rows are layers, columns heads, each cell a button coloured by its delta.
  #drawGrids(importance) {
    const groups = Object.entries(importance.groups);
    const maxAbs = d3.max(groups, ([, g]) => d3.max(g.delta, Math.abs)) ?? 0;
    const scale = divergingScale(maxAbs);
    const ink = (fill) => (d3.lab(fill).l < 55 ? UI.paper : UI.ink);
    const figures = groups.map(([group, { delta, shape }]) => {
      const [layers, heads] = shape;
      const table = el('table', { className: 'matter-grid' });
      table.dataset.group = group;
      const header = table.createTHead().insertRow();
      header.append(el('td'));
      for (let head = 0; head < heads; head++)
        header.append(el('th', { scope: 'col', textContent: t('matter.grid.head', { head }) }));
      const body = table.createTBody();
      for (let layer = 0; layer < layers; layer++) {
        const row = body.insertRow();
        row.append(el('th', { scope: 'row', textContent: t('matter.grid.layer', { layer }) }));
        for (let head = 0; head < heads; head++) {
          const value = delta[layer * heads + head];
          const label = t('matter.grid.cell', { head: t('real.layerHead', { layer, head }), delta: fixed(value) });
          const button = el('button', { type: 'button', textContent: fixed(value, 2), title: label });
          button.setAttribute('aria-label', label);
          Object.assign(button.dataset, { group, layer, head, delta: String(value) });
          const fill = scale(value);
          button.style.background = fill;
          button.style.color = ink(fill);
          button.addEventListener('click', () => {
            this.hooks.onChoose(group, { layer, head });
            this.#detail.show({ group, layer, head });
          });
          row.insertCell().append(button);
        }
      }
      return captionedTable(t('matter.grid.caption', { group: t(`matter.group.${group}`) }), table);
    });
    this.el.grids.replaceChildren(...figures);
    const swatch = (value, key) => {
      const box = el('span', { className: 'matter-swatch' });
      box.style.background = scale(value);
      return el('span', {}, box, ` ${fixed(value)}: ${t(key)}`);
    };
    this.el.legend.replaceChildren(swatch(-maxAbs, 'matter.legend.helps'), ' ', swatch(maxAbs, 'matter.legend.hurts'));
  }

  // The line chosen: the chart, the sentences (its first change) and the table of outputs.
  #drawCurve() {
    if (!this.#result) return;
    const { importance, curve } = this.#result;
    const { el: e } = this;
    const line = e.line.value;
    const points = curve.curves[line];
    const { changed } = outputKept(points, importance.reference.outputIds);
    const duChanged = firstDuChange(points, importance.reference.outputIds, this.#result.du);
    const group = t(`matter.group.${line}`);
    this.#chart.update(points, changed, group, duChanged);
    const sentences = importanceSentences(importance, points);
    if (this.#result.du.length) sentences.push(duSentence(importance.reference, this.#result.du, points, duChanged));
    e.text.replaceChildren(
      ...sentences.map(({ kind, text }) => {
        const li = el('li', { textContent: text });
        li.dataset.kind = kind;
        return li;
      }),
    );
    const table = el('table', { className: 'matter-curve-table' });
    table.dataset.line = line;
    const header = table.createTHead().insertRow();
    for (const key of ['off', 'score', 'output'])
      header.append(el('th', { scope: 'col', textContent: t(`matter.table.${key}`) }));
    const body = table.createTBody();
    points.forEach((p, i) => {
      const row = body.insertRow();
      Object.assign(row.dataset, { fraction: p.fraction, headsOff: p.headsOff, score: String(p.score) });
      const off = row.insertCell();
      off.textContent = t('matter.table.count', { share: percent(p.fraction), n: p.headsOff });
      if (i === changed) {
        row.className = 'matter-changed';
        row.dataset.changed = 'true';
        off.append(el('strong', { textContent: ` · ${t('matter.table.changed')}` }));
      }
      if (i === duChanged) {
        row.dataset.duChanged = 'true';
        off.append(el('strong', { textContent: ` · ${t('matter.table.duChanged')}` }));
      }
      row.insertCell().textContent = fixed(p.score);
      const output = row.insertCell();
      output.translate = false;
      output.textContent = outputText(p.output);
      output.dataset.ids = Array.from(p.output.outputIds).join(' ');
    });
    e.table.replaceChildren(captionedTable(t('matter.table.caption', { group }), table));
  }
}
