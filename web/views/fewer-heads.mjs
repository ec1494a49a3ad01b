// Fewer heads, in "Which heads matter" (views/heads-matter.mjs), after its
// analysis (Michel et al. 2019 §4): "one head per layer" — each layer reduced
// to its most important head (mha-wasm/analysis oneHeadPerLayer: the score
// with that layer alone reduced), then every layer at once (withHeadsOff with
// that mask: its score and re-decoded output); "only the most important head"
// — each group's single most important head alone (oneHeadPerLayer's single;
// an encoder-decoder's one head in each group at once: singleAll). One
// oneHeadPerLayer run serves both buttons. Every number in a data attribute.
import { captionedTable, el } from '../lib/dom.mjs';
import { fixed } from '../lib/format.mjs';
import { t } from '../lib/i18n.mjs';
import { mountView } from '../lib/mount.mjs';
import { analysisEntry } from '../lib/package.mjs';
import { outputText } from '../model/head-importance-text.mjs';
import { oneHeadMask, oneHeadSentence, singleSentences, verdict } from '../model/fewer-heads-text.mjs';

const MARKUP = /* HTML */ `
  <h4 data-i18n="matter.few.title"></h4>
  <p class="explain" data-i18n-html="matter.few.explain"></p>
  <div class="bar">
    <button type="button" class="matter-few-layers-run" data-i18n="matter.few.layersButton"></button>
    <button type="button" class="matter-few-single-run" data-i18n="matter.few.singleButton"></button>
  </div>
  <div class="matter-few-layers" hidden>
    <p class="matter-few-layers-text"></p>
    <div class="matter-few-layers-table"></div>
  </div>
  <ul class="matter-few-single" hidden></ul>
`;

export class FewerHeads {
  /** oneHeadPerLayer's result (one run per analysis). */
  #one = null;
  /** { one, off, mask }: every layer reduced at once (withHeadsOff). */
  #layers = null;
  #showSingle = false;

  /**
   * @param {HTMLElement} root
   * @param {{ work: (task: (control: object) => Promise<unknown>) => Promise<unknown>,
   *   context: () => { model: object, text: string, options: object, importance: object } }} hooks work runs a
   *   task as the section's (busy, cancellable; null when it did not finish); context is the last analysis'
   */
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    this.el = mountView(root, MARKUP, {
      layersRun: '.matter-few-layers-run',
      singleRun: '.matter-few-single-run',
      layers: '.matter-few-layers',
      layersText: '.matter-few-layers-text',
      layersTable: '.matter-few-layers-table',
      single: '.matter-few-single',
    });
    this.el.layersRun.addEventListener('click', () => this.#runLayers());
    this.el.singleRun.addEventListener('click', () => this.#runSingle());
  }

  setEnabled(enabled) {
    this.el.layersRun.disabled = this.el.singleRun.disabled = !enabled;
  }

  /** A new analysis (or none): the old results go. */
  forget() {
    this.#one = this.#layers = null;
    this.#showSingle = false;
    this.el.layers.hidden = this.el.single.hidden = true;
  }

  relabel() {
    if (this.#layers) this.#drawLayers();
    if (this.#showSingle) this.#drawSingle();
  }

  // oneHeadPerLayer once per analysis: both buttons read it.
  async #oneHead(control) {
    if (this.#one) return this.#one;
    const { model, text, options, importance } = this.hooks.context();
    const { oneHeadPerLayer } = await analysisEntry();
    this.#one = await oneHeadPerLayer(model, text, { ...options, ...control, importance });
    return this.#one;
  }

  async #runLayers() {
    const done = await this.hooks.work(async (control) => {
      const one = await this.#oneHead(control);
      const { model, text, options, importance } = this.hooks.context();
      const mask = oneHeadMask(one.layers, importance.groups);
      const { withHeadsOff } = await analysisEntry();
      // The reference given: the same ids as the analysis', not generated again.
      const reference = { outputIds: importance.reference.outputIds };
      const off = await withHeadsOff(model, text, { ...options, ...control, reference, headMask: mask });
      return { one, off, mask };
    });
    if (!done) return;
    this.#layers = done;
    this.#drawLayers();
  }

  async #runSingle() {
    if (!(await this.hooks.work((control) => this.#oneHead(control)))) return;
    this.#showSingle = true;
    this.#drawSingle();
  }

  #drawLayers() {
    const { one, off, mask } = this.#layers;
    const { el: e } = this;
    e.layersText.textContent = oneHeadSentence(off, mask);
    Object.assign(e.layersText.dataset, {
      score: String(off.score),
      ids: Array.from(off.output.outputIds).join(' '),
      verdict: verdict(off.output, off.reference),
    });
    const table = el('table', { className: 'matter-few-table' });
    const header = table.createTHead().insertRow();
    for (const key of ['group', 'layer', 'kept', 'score'])
      header.append(el('th', { scope: 'col', textContent: t(`matter.few.table.${key}`) }));
    const body = table.createTBody();
    for (const [group, layers] of Object.entries(one.layers))
      for (const { layer, head, score } of layers) {
        const row = body.insertRow();
        Object.assign(row.dataset, { group, layer, head, score: String(score) });
        row.insertCell().textContent = t(`matter.group.${group}`);
        row.insertCell().textContent = String(layer);
        row.insertCell().textContent = t('matter.grid.head', { head });
        row.insertCell().textContent = fixed(score);
      }
    e.layersTable.replaceChildren(
      captionedTable(t('matter.few.table.caption', { score: fixed(one.reference.score) }), table),
    );
    e.layers.hidden = false;
  }

  #drawSingle() {
    const one = this.#one;
    const sentences = singleSentences(one);
    const entries = [...Object.entries(one.single), ...(one.singleAll ? [['all', one.singleAll]] : [])];
    this.el.single.replaceChildren(
      ...entries.map(([group, s], i) => {
        const li = el('li', { textContent: sentences[i] });
        Object.assign(li.dataset, {
          group,
          score: String(s.score),
          ids: Array.from(s.output.outputIds).join(' '),
          output: outputText(s.output),
        });
        if (s.head !== undefined) Object.assign(li.dataset, { layer: s.layer, head: s.head });
        return li;
      }),
    );
    this.el.single.hidden = false;
  }
}
