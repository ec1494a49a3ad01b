// The logit lens in "Which heads matter" (views/heads-matter.mjs), for a
// decoder and a translation model's decoder: mha-wasm/analysis logitLens on
// the section's text (a translation model: its greedy translation fed back to
// the decoder), at a position the reader picks (default the last). One table
// — a row per layer (0: the embeddings; the last: the model's own logits),
// the top tokens with their probabilities, and the rank of the model's final
// prediction — then what it says (model/logit-lens-text.mjs). Each cell's
// numbers in data-* for the e2e test. An encoder has no lens: hidden.
import { captionedTable, el } from '../lib/dom.mjs';
import { percent } from '../lib/format.mjs';
import { t, translateDom } from '../lib/i18n.mjs';
import { analysisEntry } from '../lib/package.mjs';
import { lensSentences, lensToken } from '../model/logit-lens-text.mjs';

const MARKUP = /* HTML */ `
  <h4 data-i18n="lens.title"></h4>
  <p class="explain" data-i18n-html="lens.explain"></p>
  <div class="bar">
    <button type="button" class="lens-run" data-i18n="lens.run"></button>
    <label class="lens-position-row" hidden
      ><span data-i18n="lens.position"></span>
      <select class="lens-position"></select
    ></label>
  </div>
  <p class="lens-trust warning" data-i18n="lens.trust" hidden></p>
  <ul class="lens-text"></ul>
  <div class="lens-table"></div>
`;

/** The top tokens a row shows. */
export const LENS_TOP_K = 5;

export class LogitLensView {
  /** logitLens' result shown, and the input it read. */
  #lens = null;
  #input = null;

  /** @param {HTMLElement} root @param {{ work: Function, context: Function }} hooks as RolloutView's, context's text and trust */
  constructor(root, hooks) {
    root.innerHTML = MARKUP;
    translateDom(root);
    this.root = root;
    this.hooks = hooks;
    const $ = (selector) => root.querySelector(selector);
    this.el = {
      run: $('.lens-run'),
      positionRow: $('.lens-position-row'),
      position: $('.lens-position'),
      trust: $('.lens-trust'),
      text: $('.lens-text'),
      table: $('.lens-table'),
    };
    this.el.run.addEventListener('click', () => this.#run());
    this.el.position.addEventListener('change', () => this.#run(Number(this.el.position.value)));
  }

  setEnabled(enabled) {
    this.el.run.disabled = this.el.position.disabled = !enabled;
  }

  forget() {
    this.#lens = this.#input = null;
    this.el.positionRow.hidden = this.el.trust.hidden = true;
    this.el.text.replaceChildren();
    this.el.table.replaceChildren();
    delete this.root.dataset.ready;
  }

  /** Shown for a decoder and an encoder-decoder; the table again in the page's language. */
  relabel(kind) {
    this.root.hidden = kind === 'encoder';
    if (this.#lens) this.#draw();
  }

  async #run(position) {
    const done = await this.hooks.work(async ({ signal, onProgress }) => {
      const { model, text } = this.hooks.context();
      // A translation's decoder ids, once read, stay the same whichever position is picked.
      const input = this.#input ?? text;
      const { logitLens } = await analysisEntry();
      return logitLens(model, input, { position, topK: LENS_TOP_K, signal, onProgress });
    });
    if (!done) return;
    this.#lens = done;
    if (!this.#input) {
      const { model, text } = this.hooks.context();
      this.#input = model.config.kind === 'encoder-decoder' ? { text, decoderInputIds: done.decoderInputIds } : text;
    }
    this.#draw();
    this.root.dataset.ready = 'true';
  }

  #draw() {
    const lens = this.#lens;
    const { el: e } = this;
    const tokens = lens.decoderTokens ?? lens.tokens;
    e.position.replaceChildren(...tokens.map((token, i) => new Option(`${i} ${lensToken({ token })}`, i)));
    e.position.value = String(lens.position);
    e.positionRow.hidden = false;
    e.trust.hidden = this.hooks.context().trust === 'trained';
    e.text.replaceChildren(...lensSentences(lens).map((text) => el('li', { textContent: text })));
    const table = el('table', { className: 'lens-grid' });
    Object.assign(table.dataset, { position: lens.position, finalId: lens.finalTop.id });
    const header = table.createTHead().insertRow();
    for (const key of ['layer', 'top', 'rank'])
      header.append(
        el('th', { scope: 'col', textContent: t(`lens.table.${key}`, { token: lensToken(lens.finalTop) }) }),
      );
    const body = table.createTBody();
    const last = lens.layers.length - 1;
    for (const layer of lens.layers) {
      const row = body.insertRow();
      Object.assign(row.dataset, {
        layer: layer.layer,
        rank: layer.finalTop.rank,
        probability: layer.finalTop.probability,
      });
      const name =
        layer.layer === 0 ? 'lens.table.embeddings' : layer.layer === last ? 'lens.table.last' : 'lens.table.n';
      row.append(el('th', { scope: 'row', textContent: t(name, { layer: layer.layer }) }));
      const top = row.insertCell();
      top.className = 'lens-top';
      top.translate = false;
      for (const x of layer.top) {
        const chip = el('span', { className: 'lens-chip', textContent: `${lensToken(x)} ${percent(x.probability)}` });
        Object.assign(chip.dataset, { id: x.id, probability: x.probability });
        if (x.id === lens.finalTop.id) chip.classList.add('lens-final');
        top.append(chip, ' ');
      }
      row.insertCell().textContent = t('lens.table.rankOf', {
        rank: layer.finalTop.rank,
        probability: percent(layer.finalTop.probability),
      });
    }
    const caption = t('lens.table.caption', {
      position: lens.position,
      token: lensToken({ token: lens.token }),
      n: LENS_TOP_K,
    });
    e.table.replaceChildren(captionedTable(caption, table));
  }
}
