// "Real model" (真实模型): a Hugging Face checkpoint that the reader drops or
// picks, loaded by the engine (engine.loadModel, in its Worker; the files are
// read in the browser and never leave it), run on the sentence, and shown as
// bertviz's model view: every layer × head as a thumbnail, drawn as ImageData
// into a <canvas> (lib/attention-image.mjs), so a 12 × 12 model's 144 heads
// draw at once; hover a thumbnail to preview it, click (or Enter) to choose
// it, and the chosen head opens in the page's heatmap (views/heatmap.mjs)
// with the model's own tokens. The scores (model/real-model-scores.mjs) sort
// the heads and say, from the numbers only, where the focus token (the six
// 毒) looks. Its choices (head, order) are reported to the page's URL state.
import d3 from '../lib/d3.mjs';
import { OKABE_ITO } from '../lib/palette.mjs';
import { weightRamp } from '../lib/scales.mjs';
import { colourTable, weightPixels } from '../lib/attention-image.mjs';
import { captionedTable, el } from '../lib/dom.mjs';
import { roving } from '../lib/roving.mjs';
import { t } from '../lib/i18n.mjs';
import { tokenName } from '../lib/tokens.mjs';
import { tokenLanguage } from '../model/tokenize.mjs';
import { SENTENCE } from '../sentence.mjs';
import { formatBytes, pickModelFiles, totalBytes } from '../model/real-model-files.mjs';
import {
  ORDERS,
  SCORES,
  allHeadScores,
  baseText,
  focusRows,
  headWeights,
  isSpecial,
  rankHeads,
  repeatedTokens,
  scoreSummary,
  topKeys,
  uniformScores,
} from '../model/real-model-scores.mjs';
import { Heatmap } from './heatmap.mjs';

/** The longest sentence the text box takes (the model's positions are checked by the engine). */
export const MAX_TEXT = 200;
/** Folders deeper than this inside a dropped folder are not read (a dropped parent of many models). */
const MAX_DEPTH = 4;
const COLOR = OKABE_ITO.blue;
const PREVIEW_MS = 90;

const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));
const fixed = (x) => x.toFixed(3);

/** The page's token records ({ text, index, lang }) for the heatmap, from the model's readable pieces. */
function tokenRecords(tokens) {
  return tokens.map((text, index) => {
    let lang;
    try {
      lang = tokenLanguage(baseText(text));
    } catch {
      lang = undefined;
    }
    return { text, index, lang, title: '' };
  });
}

/** A file entry's File, whatever the browser's callback style. */
const fileOf = (entry) => new Promise((resolve, reject) => entry.file(resolve, reject));
const readBatch = (reader) => new Promise((resolve, reject) => reader.readEntries(resolve, reject));

/** Every file under a dropped entry: [{ path, size, file }], hidden files and folders left out. */
async function walk(entry, prefix, out, depth = 0) {
  if (entry.name.startsWith('.')) return;
  if (entry.isFile) {
    const file = await fileOf(entry);
    out.push({ path: `${prefix}${file.name}`, size: file.size, file });
  } else if (entry.isDirectory && depth < MAX_DEPTH) {
    const reader = entry.createReader();
    for (let batch = await readBatch(reader); batch.length; batch = await readBatch(reader))
      for (const child of batch) await walk(child, `${prefix}${entry.name}/`, out, depth + 1);
  }
}

/** The files of a drop: folders walked (webkitGetAsEntry), else the plain file list. */
async function droppedFiles(transfer) {
  // The entries must be taken while the drop event runs; reading them may wait.
  const entries = [...(transfer.items ?? [])]
    .filter((item) => item.kind === 'file')
    .map((item) => item.webkitGetAsEntry?.())
    .filter(Boolean);
  if (!entries.length) return [...transfer.files].map((file) => ({ path: file.name, size: file.size, file }));
  const out = [];
  for (const entry of entries) await walk(entry, '', out);
  return out;
}

export class RealModelView {
  #engine = null;
  #model = null;
  #busy = false;
  /** The last run: { tokens, records, attention, numLayers, numHeads, causal, ms } or null. */
  #run = null;
  #focus = null;
  #heads = [];
  #baseline = null;
  #canvases = new Map();
  #heatmap = null;
  #shown = '';
  #previewTimer = 0;
  #table = null;
  #refreshRoving = () => {};
  /** The status line's message and parameters, so that a change of language can write it again. */
  #status = ['real.waiting', {}];
  #loadedNote = null;

  /**
   * @param {HTMLElement} section the #real-model section of index.html
   * @param {{ head?: { layer: number, head: number } | null, order?: string,
   *   onChange?: (patch: { realHead?: object, realOrder?: string }) => void }} options
   *   head, order: the choice to show first (from the link); onChange: called when the reader changes them
   */
  constructor(section, { head = null, order = 'grid', onChange = () => {} } = {}) {
    const $ = (selector) => section.querySelector(selector);
    this.section = section;
    this.onChange = onChange;
    this.selected = head;
    this.order = ORDERS.includes(order) ? order : 'grid';
    this.el = {
      drop: $('.real-drop'),
      folder: $('#real-folder'),
      files: $('#real-files'),
      progressBox: $('.real-progress'),
      progress: $('#real-progress'),
      progressText: $('#real-progress-text'),
      status: $('#real-status'),
      forward: $('#real-forward'),
      error: $('#real-error'),
      form: $('#real-run'),
      text: $('#real-text'),
      submit: $('#real-run button[type="submit"]'),
      tokens: $('.real-tokens'),
      body: $('.real-body'),
      order: $('#real-order'),
      focus: $('#real-focus'),
      help: $('.real-help'),
      summary: $('.real-summary'),
      gridCaption: $('.real-grid-caption'),
      grid: $('.real-grid'),
      heatmap: $('.real-heatmap'),
      scores: $('.real-scores'),
      whereTitle: $('.real-where-title'),
      where: $('.real-where'),
    };
    const { el: e } = this;
    e.text.maxLength = MAX_TEXT;
    e.text.value = SENTENCE;
    this.#setInputs(false);
    this.#writeStatus();
    this.#listen();
  }

  #listen() {
    const { el: e } = this;
    for (const input of [e.folder, e.files])
      input.addEventListener('change', () => {
        const entries = [...input.files].map((file) => ({
          path: file.webkitRelativePath || file.name,
          size: file.size,
          file,
        }));
        input.value = '';
        this.#load(entries);
      });
    const hasFiles = (event) => [...(event.dataTransfer?.types ?? [])].includes('Files');
    this.section.addEventListener('dragover', (event) => {
      if (!hasFiles(event)) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = this.#engine && !this.#busy ? 'copy' : 'none';
      e.drop.classList.add('over');
    });
    this.section.addEventListener('dragleave', (event) => {
      if (!this.section.contains(event.relatedTarget)) e.drop.classList.remove('over');
    });
    this.section.addEventListener('drop', (event) => {
      if (!hasFiles(event)) return;
      event.preventDefault();
      e.drop.classList.remove('over');
      if (!this.#engine || this.#busy) return;
      droppedFiles(event.dataTransfer).then(
        (entries) => this.#load(entries),
        (error) => this.#showError('real.error.load', error),
      );
    });
    e.form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.#compute();
    });
    e.order.addEventListener('change', () => {
      this.order = e.order.value;
      this.onChange({ realOrder: this.order });
      this.#drawSummary();
      this.#arrangeGrid();
    });
    e.focus.addEventListener('change', () => {
      this.#focus = e.focus.value;
      this.#score();
      this.#drawAll();
    });
    // Hover previews a head, leaving the grid shows the chosen one again; click or Enter chooses.
    e.grid.addEventListener('pointerover', (event) => {
      const button = event.target.closest?.('.thumb');
      if (!button) return;
      clearTimeout(this.#previewTimer);
      this.#previewTimer = setTimeout(() => this.#showHead(this.#headOf(button)), PREVIEW_MS);
    });
    e.grid.addEventListener('pointerleave', () => {
      clearTimeout(this.#previewTimer);
      this.#showHead(this.selected);
    });
    e.grid.addEventListener('click', (event) => {
      const button = event.target.closest?.('.thumb');
      if (!button) return;
      clearTimeout(this.#previewTimer);
      this.#choose(this.#headOf(button));
    });
    this.#refreshRoving = roving(e.grid, '.thumb', { preferred: '.thumb[aria-pressed="true"]' });
  }

  #headOf(button) {
    return { layer: Number(button.dataset.layer), head: Number(button.dataset.head) };
  }

  /** The engine is ready: loading is possible from now on. */
  enable(engine) {
    this.#engine = engine;
    this.#status = ['real.none', {}];
    this.#writeStatus();
    this.#setInputs(true);
  }

  /** Writes every text again in the page's (new) language. */
  relabel() {
    this.#writeStatus();
    if (this.#loadedNote) this.#writeForward();
    if (this.#run) {
      this.#shown = '';
      this.#drawAll();
    }
  }

  #setInputs(enabled) {
    const { el: e } = this;
    e.folder.disabled = !enabled;
    e.files.disabled = !enabled;
    e.drop.classList.toggle('disabled', !enabled);
    e.text.disabled = !enabled || !this.#model;
    e.submit.disabled = !enabled || !this.#model;
  }

  #writeStatus() {
    const [key, params] = this.#status;
    this.el.status.textContent = t(key, params);
  }

  #showError(key, error) {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    this.el.error.textContent = t(key, { message });
    this.el.error.hidden = false;
  }

  /** Loads the checkpoint among the entries ([{ path, size, file }]); the previous model is freed first. */
  async #load(entries) {
    if (this.#busy || !this.#engine) return;
    const { el: e } = this;
    e.error.hidden = true;
    if (!entries.length) {
      this.#showError('real.error.load', new Error(t('real.error.noFiles')));
      return;
    }
    const { files } = pickModelFiles(entries);
    this.#busy = true;
    this.#setInputs(false);
    this.#clear();
    const old = this.#model;
    this.#model = null;
    old?.dispose();
    e.progress.value = 0;
    e.progress.max = 1;
    e.progressText.textContent = '';
    e.progressBox.hidden = false;
    this.#status = ['real.reading', { count: files.length }];
    this.#writeStatus();
    let frame = 0;
    let last = null;
    const onProgress = (p) => {
      last = p;
      if (frame) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        e.progress.max = last.totalBytes || 1;
        e.progress.value = last.loadedBytes;
        e.progressText.textContent = t('real.progress', {
          file: last.file,
          loaded: formatBytes(last.loadedBytes),
          total: formatBytes(last.totalBytes),
        });
      });
    };
    const start = performance.now();
    try {
      const model = await this.#engine.loadModel(
        files.map((f) => f.file),
        { onProgress },
      );
      cancelAnimationFrame(frame);
      this.#model = model;
      const { modelType, numLayers, numHeads, hiddenSize, vocabSize } = model.config;
      this.#status = [
        'real.loaded',
        {
          type: modelType,
          layers: numLayers,
          heads: numHeads,
          hidden: hiddenSize,
          vocab: vocabSize,
          files: files.length,
          bytes: formatBytes(totalBytes(files)),
          ms: Math.round(performance.now() - start),
        },
      ];
      e.progress.value = e.progress.max;
    } catch (error) {
      cancelAnimationFrame(frame);
      this.#status = ['real.none', {}];
      this.#showError('real.error.load', error);
    } finally {
      e.progressBox.hidden = true;
      this.#busy = false;
      this.#writeStatus();
      this.#setInputs(true);
    }
    if (this.#model) await this.#compute();
  }

  /** Empties the view (a new model is loading): nothing of the previous model stays on screen. */
  #clear() {
    this.#run = null;
    this.#loadedNote = null;
    this.#canvases.clear();
    this.#heatmap = null;
    this.#shown = '';
    this.el.body.hidden = true;
    this.el.tokens.replaceChildren();
    this.el.forward.textContent = '';
    this.el.grid.replaceChildren();
    this.el.heatmap.replaceChildren();
    delete this.section.dataset.ready;
  }

  /** Runs the model on the text box's sentence and draws it. */
  async #compute() {
    const model = this.#model;
    if (!model || this.#busy) return;
    const { el: e } = this;
    this.#busy = true;
    this.#setInputs(false);
    delete this.section.dataset.ready;
    try {
      const start = performance.now();
      const result = await model.run(e.text.value, { returnAttention: true });
      const ms = performance.now() - start;
      if (model !== this.#model) return; // another model was loaded meanwhile
      const { numLayers, numHeads, modelType } = model.config;
      this.#run = {
        tokens: result.tokens,
        records: tokenRecords(result.tokens),
        attention: result.attention,
        numLayers,
        numHeads,
        causal: modelType === 'gpt2',
        ms,
      };
      e.error.hidden = true;
      this.#loadedNote = { tokens: result.tokens.length, ms };
      this.#writeForward();
      const repeated = repeatedTokens(result.tokens);
      if (this.#focus === null || (this.#focus !== '' && !repeated.some((r) => r.text === this.#focus)))
        this.#focus = repeated[0]?.text ?? '';
      this.#score();
      const { selected } = this;
      if (!selected || selected.layer >= numLayers || selected.head >= numHeads)
        this.selected = { ...rankHeads(this.#heads, 'same')[0] };
      this.selected = { layer: this.selected.layer, head: this.selected.head };
      this.#shown = '';
      this.#canvases.clear();
      e.body.hidden = false;
      await this.#drawAll();
      this.section.dataset.ready = 'true';
    } catch (error) {
      this.#showError('real.error.run', error);
    } finally {
      this.#busy = false;
      this.#setInputs(true);
    }
  }

  #writeForward() {
    const engine = this.#engine;
    this.el.forward.textContent = t('real.forward', {
      tokens: this.#loadedNote.tokens,
      ms: this.#loadedNote.ms.toFixed(1),
      variant: engine.variant,
      build: t(`status.build.${engine.variant}`),
      threads: t('status.threads', { n: engine.threads }),
    });
  }

  /** The scores of every head for the current focus, and the even-spread baseline. */
  #score() {
    const run = this.#run;
    if (!run) return;
    const rows = focusRows(run.tokens, this.#focus);
    this.#heads = allHeadScores(run, rows);
    this.#baseline = uniformScores(run.tokens, rows, run.causal);
  }

  async #drawAll() {
    if (!this.#run) return;
    this.#drawTokens();
    this.#drawControls();
    this.#drawSummary();
    await this.#drawGrid();
    this.#showHead(this.selected);
  }

  #drawTokens() {
    const run = this.#run;
    const list = el('ol', { className: 'real-token-list' });
    for (const token of run.records) {
      const item = el('li', { translate: false, title: tokenName(token) }, token.text.replace(/ /g, '␣'));
      if (token.lang) item.lang = token.lang;
      if (isSpecial(token.text)) item.className = 'special';
      list.append(item);
    }
    this.el.tokens.replaceChildren(el('p', { textContent: t('real.tokens', { n: run.tokens.length }) }), list);
  }

  #drawControls() {
    const { el: e } = this;
    e.order.replaceChildren(
      ...ORDERS.map(
        (o) => new Option(o === 'grid' ? t('real.order.grid') : t('real.order.by', { score: t(`real.score.${o}`) }), o),
      ),
    );
    e.order.value = this.order;
    const repeated = repeatedTokens(this.#run.tokens);
    e.focus.replaceChildren(
      ...repeated.map((r) => new Option(t('real.focus.token', { token: r.text, count: r.count }), r.text)),
      new Option(t('real.focus.all'), ''),
    );
    e.focus.value = this.#focus;
    const special = [...new Set(this.#run.tokens.filter(isSpecial))];
    e.help.textContent = t('real.score.help', {
      special: special.length ? special.join(t('list.join')) : t('real.special.none'),
    });
  }

  /** One line per score, from the numbers: the highest head, the median, the baseline and how many exceed it. */
  #drawSummary() {
    const items = SCORES.map((score) => {
      const s = scoreSummary(this.#heads, score, this.#baseline);
      const params = {
        score: t(`real.score.${score}`),
        layer: s.best.layer,
        head: s.best.head,
        value: fixed(s.best.scores[score]),
        median: fixed(s.median),
        count: s.count,
        baseline: fixed(s.baseline),
        above: s.aboveTwice,
      };
      const li = el('li', {
        textContent: t(s.aboveTwice === null ? 'real.summary.noBaseline' : 'real.summary', params),
      });
      li.dataset.score = score;
      li.classList.toggle('current', score === this.order);
      return li;
    });
    this.el.summary.replaceChildren(...items);
  }

  /** The thumbnails: a canvas per head, its weights as ImageData (one pixel per cell), built a layer per task. */
  async #drawGrid() {
    const run = this.#run;
    const L = run.tokens.length;
    const table = (this.#table ??= colourTable(weightRamp(COLOR), (c) => d3.rgb(c)));
    const dims = { numHeads: run.numHeads, length: L };
    for (let layer = 0; layer < run.numLayers; layer++) {
      for (let head = 0; head < run.numHeads; head++) {
        const key = `${layer}.${head}`;
        let button = this.#canvases.get(key);
        if (!button) {
          const canvas = el('canvas', { width: L, height: L });
          button = el(
            'button',
            { type: 'button', className: 'thumb' },
            canvas,
            el('span', { className: 'thumb-label' }),
          );
          button.dataset.layer = layer;
          button.dataset.head = head;
          this.#canvases.set(key, button);
        }
        const canvas = button.querySelector('canvas');
        const pixels = weightPixels(headWeights(run.attention, dims, layer, head), L, table);
        canvas.getContext('2d').putImageData(new ImageData(pixels, L, L), 0, 0);
      }
      if (run.numLayers * run.numHeads * L * L > 200_000) await nextTask();
      if (run !== this.#run) return;
    }
    this.#arrangeGrid();
  }

  /** Places the thumbnails in the current order, with their labels and titles. */
  #arrangeGrid() {
    const run = this.#run;
    if (!run) return;
    const { el: e } = this;
    const sorted = this.order !== 'grid';
    const score = sorted ? this.order : 'same';
    const byKey = new Map(this.#heads.map((h) => [`${h.layer}.${h.head}`, h]));
    const label = (h) =>
      t('real.thumb.title', {
        layer: h.layer,
        head: h.head,
        score: t(`real.score.${score}`),
        value: fixed(h.scores[score]),
      });
    const children = [];
    const place = (h) => {
      const button = this.#canvases.get(`${h.layer}.${h.head}`);
      button.title = label(h);
      button.setAttribute('aria-label', label(h));
      button.querySelector('.thumb-label').textContent = sorted
        ? `${t('real.layerHead', { layer: h.layer, head: h.head })} · ${fixed(h.scores[score])}`
        : '';
      children.push(button);
    };
    e.grid.classList.toggle('sorted', sorted);
    e.grid.style.setProperty('--heads', String(run.numHeads));
    if (sorted) rankHeads(this.#heads, score).forEach(place);
    else {
      children.push(el('span', { className: 'corner' }));
      for (let head = 0; head < run.numHeads; head++)
        children.push(el('span', { className: 'col-head', textContent: t('real.head', { head }) }));
      for (let layer = 0; layer < run.numLayers; layer++) {
        children.push(el('span', { className: 'row-head', textContent: t('real.layer', { layer }) }));
        for (let head = 0; head < run.numHeads; head++) place(byKey.get(`${layer}.${head}`));
      }
    }
    e.grid.replaceChildren(...children);
    e.gridCaption.textContent = t('real.grid.caption', { layers: run.numLayers, heads: run.numHeads });
    this.#markChosen();
  }

  #markChosen() {
    for (const [key, button] of this.#canvases)
      button.setAttribute('aria-pressed', String(key === `${this.selected?.layer}.${this.selected?.head}`));
    this.#refreshRoving();
  }

  #choose(head) {
    this.selected = head;
    this.onChange({ realHead: head });
    this.#markChosen();
    this.#showHead(head);
  }

  /** Opens a head large: the heatmap with the model's tokens, its scores, and where each focus token looks. */
  #showHead(head) {
    const run = this.#run;
    if (!run || !head) return;
    const key = `${head.layer}.${head.head}`;
    if (key === this.#shown) return;
    this.#shown = key;
    const L = run.tokens.length;
    const weights = headWeights(run.attention, { numHeads: run.numHeads, length: L }, head.layer, head.head);
    const title = t('real.layerHead', head);
    this.#heatmap = new Heatmap({
      name: `layer-${head.layer}-head-${head.head}`,
      title,
      description: t('real.heatmap.desc', head),
      color: COLOR,
      queryTokens: run.records,
      keyTokens: run.records,
      onSelect: (q) => this.#heatmap.markRow(q),
    });
    this.#heatmap.update(weights, { causal: run.causal });
    this.el.heatmap.replaceChildren(this.#heatmap.element);
    this.#drawScores(head);
    this.#drawWhere(weights);
  }

  #drawScores(head) {
    const scores = this.#heads.find((h) => h.layer === head.layer && h.head === head.head).scores;
    const table = el('table', { className: 'real-scores-table' });
    const header = table.createTHead().insertRow();
    for (const key of ['real.scores.score', 'real.scores.head', 'real.scores.uniform'])
      header.append(el('th', { scope: 'col', textContent: t(key) }));
    const body = table.createTBody();
    for (const score of SCORES) {
      const row = body.insertRow();
      row.dataset.score = score;
      row.append(el('th', { scope: 'row', textContent: t(`real.score.${score}`) }));
      row.insertCell().textContent = fixed(scores[score]);
      row.insertCell().textContent = fixed(this.#baseline[score]);
    }
    this.el.scores.replaceChildren(captionedTable(t('real.scores.caption'), table));
  }

  /** Each focus row's three keys of highest weight in the chosen head. */
  #drawWhere(weights) {
    const run = this.#run;
    const focus = this.#focus;
    this.el.whereTitle.textContent = focus ? t('real.where', { token: focus }) : t('real.where.all');
    const table = el('table', { className: 'real-where-table' });
    const header = table.createTHead().insertRow();
    header.append(el('th', { scope: 'col', textContent: t('real.where.query') }));
    for (let n = 1; n <= 3; n++) header.append(el('th', { scope: 'col', textContent: t('real.where.top', { n }) }));
    const body = table.createTBody();
    const L = run.tokens.length;
    for (const q of focusRows(run.tokens, focus)) {
      const row = body.insertRow();
      row.dataset.q = q;
      row.append(el('th', { scope: 'row', translate: false, textContent: tokenName(run.records[q]) }));
      for (const { k, weight } of topKeys(weights, L, q)) {
        const cell = row.insertCell();
        cell.translate = false;
        cell.dataset.k = k;
        cell.dataset.weight = String(weight);
        cell.textContent = `${tokenName(run.records[k])} · ${fixed(weight)}`;
      }
    }
    this.el.where.replaceChildren(captionedTable(t('real.where.caption'), table));
  }
}
