// The "下一个词 / Next token" view's generation a step at a time
// (model/next-token-steps.mjs runs it through the model's KV cache): a
// prompt (the sentence, its first clause, or the text box's text), a button
// for one step and one for several, and, for the current step, the new
// token's attention over everything before it: a layer × head grid of strips
// (one row of weights per head, views/model-grid.mjs), the chosen head large
// with the tokens labelled (views/heatmap.mjs), the keys it weighs most, every
// head's numbers as a table, and the tokens most probable after it at the
// predictions' temperature. The step always takes the most probable token,
// so a run is the same at every temperature. Every number is the engine's.
// For a checkpoint with a chat template, a chat box (views/next-token-chat.mjs)
// whose reply tokens are drawn here as steps.
import { OKABE_ITO } from '../lib/palette.mjs';
import { captionedTable, el } from '../lib/dom.mjs';
import { fixed, percent } from '../lib/format.mjs';
import { t } from '../lib/i18n.mjs';
import { mountView } from '../lib/mount.mjs';
import { tokenName } from '../lib/tokens.mjs';
import { topTokens } from '../model/predictions.mjs';
import { headWeights, tokenRecords, topKeys } from '../model/real-model-scores.mjs';
import { PROMPTS, TokenSteps, promptText } from '../model/next-token-steps.mjs';
import { Heatmap } from './heatmap.mjs';
import { ModelGrid } from './model-grid.mjs';
import { pieceLabel, topTokenList } from './top-tokens.mjs';
import { ErrorBox, otherError } from './real-model-error.mjs';
import { ChatBox } from './next-token-chat.mjs';

/** The steps' controls, text and views; index.html holds the empty .next-steps. */
const MARKUP = /* HTML */ `
  <h4 data-i18n="next.title"></h4>
  <p class="help" data-i18n="next.help"></p>
  <div class="bar next-bar">
    <label
      ><span data-i18n="next.prompt"></span>
      <select id="next-prompt"></select
    ></label>
    <button id="next-step" type="button" data-i18n="next.step"></button>
    <label
      ><span data-i18n="next.count"></span> <input id="next-count" type="number" min="1" max="32" step="1" value="5"
    /></label>
    <button id="next-run" type="button" data-i18n="next.run"></button>
    <button id="next-reset" type="button" data-i18n="next.reset"></button>
  </div>
  <p id="next-status" class="status" role="status"></p>
  <div class="next-error error real-error" role="alert" hidden></div>
  <div class="next-chat"></div>
  <ol class="next-text" data-i18n-attr="aria-label:next.text.label"></ol>
  <div class="next-current" hidden>
    <p class="next-grid-caption explain"></p>
    <div class="real-grid-box">
      <div class="next-grid" role="group" data-i18n-attr="aria-label:next.grid.label"></div>
    </div>
    <div class="next-heatmap"></div>
    <p class="next-where"></p>
    <details class="numbers next-numbers">
      <summary data-i18n="next.numbers"></summary>
      <div class="next-table"></div>
    </details>
    <p class="next-after"></p>
    <div class="next-list"></div>
  </div>
`;

const COLOR = OKABE_ITO.blue;

export class NextTokenSteps {
  #model = null;
  #steps = null; // TokenSteps of the prompt shown
  #epoch = 0; // a new prompt or model: results of the steps before it are dropped
  #busy = false;
  #record = null; // the current step (TokenSteps.next()'s), or null before the first
  #status = ['next.idle', {}];
  #selected = { layer: 0, head: 0 };
  #grid;
  #error;
  #chat;
  #chatBusy = false; // a chat turn runs: the steps wait

  /**
   * @param {HTMLElement} root the .next-steps element of the predictions
   * @param {{ temperature: () => number, text: () => string }} hooks the predictions' temperature, the text box's text
   */
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    this.el = mountView(root, MARKUP, {
      prompt: '#next-prompt',
      step: '#next-step',
      count: '#next-count',
      run: '#next-run',
      reset: '#next-reset',
      status: '#next-status',
      text: '.next-text',
      current: '.next-current',
      gridCaption: '.next-grid-caption',
      grid: '.next-grid',
      numbers: '.next-numbers',
      table: '.next-table',
      heatmap: '.next-heatmap',
      where: '.next-where',
      after: '.next-after',
      list: '.next-list',
    });
    const $ = (selector) => root.querySelector(selector);
    const { el: e } = this;
    // A failed step in the reader's words, the engine's own text as a detail (views/real-model-error.mjs).
    this.#error = new ErrorBox($('.next-error'));
    this.#grid = new ModelGrid(
      { grid: e.grid, caption: e.gridCaption },
      {
        color: COLOR,
        onPreview: (h) => this.#drawHead(h),
        onLeave: () => this.#drawHead(this.#selected),
        onChoose: (h) => {
          this.#selected = h;
          this.#grid.markChosen(h);
          this.#drawHead(h);
        },
      },
    );
    e.prompt.addEventListener('change', () => this.#restart());
    e.reset.addEventListener('click', () => this.#restart());
    e.step.addEventListener('click', () => this.#advance(1));
    e.run.addEventListener('click', () => this.#advance(this.#count()));
    e.numbers.addEventListener('toggle', () => this.#drawTable());
    this.#chat = new ChatBox($('.next-chat'), {
      draw: (record) => this.#showChat(record),
      clear: () => this.#restart(),
      busy: (on) => {
        this.#chatBusy = on;
        this.#setEnabled();
      },
    });
  }

  /**
   * A decoder with its head's logits (the same one: its steps stay), or null to hide the view; `untrained`:
   * its predictions were measured no better than chance (the chat box says so).
   */
  show(model, { untrained = false } = {}) {
    if (model === this.#model) return;
    this.#model = model;
    this.root.hidden = !model;
    this.#restart();
    this.#chat.show(model, { untrained });
  }

  /** Writes every text again in the page's (new) language. */
  relabel() {
    const { prompt } = this.el;
    const value = prompt.value || PROMPTS[0];
    prompt.replaceChildren(...PROMPTS.map((p) => new Option(t(`next.prompt.${p}`), p)));
    prompt.value = value;
    this.#writeStatus();
    this.#error.relabel();
    this.#chat.relabel();
    if (this.#record) this.#draw();
  }

  /** The temperature changed: the probabilities shown follow it (the steps' choice does not). */
  redraw() {
    if (!this.#record) return;
    if (this.#status[0] === 'next.done' || this.#status[0] === 'next.chat') {
      this.#status = this.#doneStatus(this.#record);
      this.#writeStatus();
    }
    this.#drawList();
  }

  // Back to the prompt: nothing generated, the next step starts with it.
  #restart() {
    this.#epoch++;
    this.#record = null;
    this.#steps = null;
    this.#busy = false;
    this.#status = ['next.idle', {}];
    this.#error.hide();
    delete this.root.dataset.step;
    this.relabel();
    const { el: e } = this;
    e.current.hidden = true;
    e.heatmap.replaceChildren();
    e.table.replaceChildren();
    this.#grid.clear();
    this.#drawText(null);
    this.#setEnabled();
  }

  #count() {
    const { count } = this.el;
    const n = Math.round(Number(count.value));
    const clamped = Math.min(Number(count.max), Math.max(Number(count.min), Number.isFinite(n) ? n : 1));
    count.value = String(clamped);
    return clamped;
  }

  #setEnabled(ended = false) {
    const { el: e } = this;
    const off = !this.#model || this.#busy || this.#chatBusy;
    for (const control of [e.step, e.run, e.count]) control.disabled = off || ended;
    // A new prompt, or back to it, also stops a generation under way.
    e.prompt.disabled = e.reset.disabled = !this.#model || this.#chatBusy;
    this.#chat.hold(this.#busy);
  }

  /** A reply token of the chat, drawn as a step; the steps' own generation starts again from its prompt. */
  async #showChat(record) {
    this.#epoch++;
    this.#steps = null;
    this.#busy = false;
    this.#error.hide();
    this.#record = record;
    this.#status = this.#doneStatus(record);
    this.#writeStatus();
    await this.#draw();
  }

  #writeStatus() {
    const [key, params] = this.#status;
    this.el.status.textContent = t(key, params);
  }

  // `count` steps, each drawn as soon as it is computed; stops at the end of the text.
  async #advance(count) {
    const model = this.#model;
    if (!model || this.#busy || this.#chatBusy) return;
    const epoch = this.#epoch;
    this.#steps ??= new TokenSteps(model, promptText(this.el.prompt.value, this.hooks.text()));
    const steps = this.#steps;
    this.#busy = true;
    this.#error.hide();
    this.#setEnabled();
    let ended = false;
    try {
      for (let i = 0; i < count && !ended; i++) {
        this.#status = ['next.busy', { step: steps.steps + 1 }];
        this.#writeStatus();
        const start = performance.now();
        const record = await steps.next();
        if (epoch !== this.#epoch) return;
        if (record.ended) {
          ended = true;
          this.#status = this.#endStatus(record);
        } else {
          record.ms = performance.now() - start;
          this.#record = record;
          this.#status = this.#doneStatus(record);
          await this.#draw();
          if (epoch !== this.#epoch) return;
        }
        this.#writeStatus();
      }
    } catch (error) {
      if (epoch !== this.#epoch) return;
      this.#status = ['next.failed', {}];
      this.#error.show('next.error', otherError(error));
      this.#writeStatus();
    } finally {
      if (epoch === this.#epoch) {
        this.#busy = false;
        this.#setEnabled(ended);
      }
    }
  }

  #doneStatus(record) {
    const [{ probability }] = topTokens(record.from, 1, this.hooks.temperature());
    return [
      record.chat ? 'next.chat' : 'next.done',
      {
        step: record.step,
        before: record.tokens[record.position - 1],
        token: record.tokens[record.position],
        probability: percent(probability),
        temperature: fixed(this.hooks.temperature(), 1),
        ms: fixed(record.ms, 1),
      },
    ];
  }

  #endStatus(record) {
    if (record.ended === 'eos') return ['next.end.eos', { token: this.#model.pieces([record.id])[0] }];
    return ['next.end.length', { max: this.#model.config.maxLength }];
  }

  // The text so far: the prompt's tokens, then the generated ones, the current one marked (null: the prompt only).
  #drawText(record) {
    const { el: e } = this;
    if (!record) {
      e.text.replaceChildren();
      return;
    }
    const first = record.position - record.step + 1;
    e.text.replaceChildren(
      ...tokenRecords(record.tokens).map((token, i) => {
        const item = el('li', { translate: false, title: tokenName(token), textContent: pieceLabel(token.text) });
        if (token.lang) item.lang = token.lang;
        if (i >= first) item.className = i === record.position ? 'new current' : 'new';
        item.dataset.id = record.ids[i];
        return item;
      }),
    );
  }

  // The current step: its text, the grid of every head's row, the chosen head large, the next tokens.
  async #draw() {
    const record = this.#record;
    const { numLayers, numHeads } = this.#model.config;
    const keys = record.position + 1;
    const token = record.tokens[record.position];
    const run = { tokens: [token], keyTokens: record.tokens, attention: record.attention, numLayers, numHeads };
    const { el: e } = this;
    this.#drawText(record);
    e.current.hidden = false;
    this.#grid.clear();
    await this.#grid.draw(run, () => record === this.#record);
    if (record !== this.#record) return;
    const heads = [];
    for (let layer = 0; layer < numLayers; layer++)
      for (let head = 0; head < numHeads; head++) heads.push({ layer, head });
    if (this.#selected.layer >= numLayers || this.#selected.head >= numHeads) this.#selected = { layer: 0, head: 0 };
    this.#grid.arrange(run, heads, 'grid', this.#selected, (h) => {
      const [top] = topKeys(this.#weights(h), keys, 0, 1);
      return t('next.thumb', {
        ...h,
        token: tokenName({ text: record.tokens[top.k], index: top.k }),
        weight: fixed(top.weight),
      });
    });
    e.gridCaption.textContent = t('next.grid.caption', {
      token,
      position: record.position,
      keys,
      layers: numLayers,
      heads: numHeads,
    });
    this.#drawHead(this.#selected, true);
    this.#drawTable();
    this.#drawList();
    this.root.dataset.step = String(record.step); // drawn (the tests wait for it)
  }

  /** Head h's row of the current step: its weights over the positions up to the new token. */
  #weights(h) {
    const { numHeads } = this.#model.config;
    return headWeights(
      this.#record.attention,
      { numHeads, length: 1, keys: this.#record.position + 1 },
      h.layer,
      h.head,
    );
  }

  // A head large: the new token's row over the labelled tokens, and the keys it weighs most.
  #drawHead(h, force = false) {
    const record = this.#record;
    if (!record || !h) return;
    const { el: e } = this;
    const name = `next-layer-${h.layer}-head-${h.head}`;
    if (!force && e.heatmap.firstChild?.dataset.head === name) return;
    const records = tokenRecords(record.tokens);
    const token = record.tokens[record.position];
    const weights = this.#weights(h);
    const heatmap = new Heatmap({
      name,
      title: t('real.layerHead', h),
      description: t('next.heatmap.desc', { ...h, token }),
      color: COLOR,
      queryTokens: [records[record.position]],
      keyTokens: records,
    });
    heatmap.update(weights);
    e.heatmap.replaceChildren(heatmap.element);
    const top = topKeys(weights, record.position + 1, 0).map(({ k, weight }) =>
      t('next.where.key', { token: tokenName(records[k]), weight: fixed(weight) }),
    );
    e.where.textContent = t('next.where', { ...h, token, keys: top.join(t('list.join')) });
  }

  // Every head's row as numbers (built when the reader opens them).
  #drawTable() {
    const record = this.#record;
    const { el: e } = this;
    if (!record || !e.numbers.open) return;
    const { numLayers, numHeads } = this.#model.config;
    const records = tokenRecords(record.tokens);
    const table = el('table', { className: 'weights next-weights' });
    const header = table.createTHead().insertRow();
    header.append(el('td', { textContent: t('table.corner') }));
    for (const token of records)
      header.append(el('th', { scope: 'col', translate: false, textContent: tokenName(token) }));
    const body = table.createTBody();
    for (let layer = 0; layer < numLayers; layer++)
      for (let head = 0; head < numHeads; head++) {
        const row = body.insertRow();
        row.dataset.layer = layer;
        row.dataset.head = head;
        row.append(el('th', { scope: 'row', textContent: t('real.layerHead', { layer, head }) }));
        this.#weights({ layer, head }).forEach((w, k) => {
          const cell = row.insertCell();
          cell.dataset.k = k;
          cell.dataset.weight = String(w);
          cell.textContent = fixed(w);
        });
      }
    const token = tokenName(records[record.position]);
    e.table.replaceChildren(captionedTable(t('next.table.caption', { token }), table));
  }

  // The tokens most probable after the new one, at the predictions' temperature: the next step takes the first.
  #drawList() {
    const record = this.#record;
    const { el: e } = this;
    e.after.textContent = t('next.after', { token: record.tokens[record.position] });
    e.list.replaceChildren(topTokenList(record.logits, this.hooks.temperature(), (ids) => this.#model.pieces(ids)));
  }
}
