// Attention rollout in "Which heads matter" (views/heads-matter.mjs): Abnar &
// Zuidema 2020 by mha-wasm/analysis attentionRollout on the analysis' text —
// per layer 0.5·A + 0.5·I, A the layer's attention averaged over its heads,
// multiplied through the layers; row i after layer l says how much of each
// token reaches position i. Rolled: an encoder's or a decoder's
// self-attention; an encoder-decoder's encoder and its decoder's
// self-attention (over the analysis' reference translation), never the
// cross-attention — said on the page. One heatmap (views/heatmap.mjs) of the
// group and layer chosen; each cell's value in data-weight.
import { el } from '../lib/dom.mjs';
import { OKABE_ITO } from '../lib/palette.mjs';
import { t } from '../lib/i18n.mjs';
import { mountView } from '../lib/mount.mjs';
import { analysisEntry } from '../lib/package.mjs';
import { tokenRecords } from '../model/real-model-scores.mjs';
import { Heatmap } from './heatmap.mjs';

const MARKUP = /* HTML */ `
  <h4 data-i18n="matter.rollout.title"></h4>
  <p class="explain" data-i18n-html="matter.rollout.explain"></p>
  <p class="matter-rollout-rolled"></p>
  <div class="bar">
    <button type="button" class="matter-rollout-run" data-i18n="matter.rollout.run"></button>
    <label class="matter-rollout-group-row" hidden
      ><span data-i18n="matter.rollout.group"></span>
      <select class="matter-rollout-group"></select
    ></label>
    <label class="matter-rollout-layer-row" hidden
      ><span data-i18n="matter.rollout.layer"></span>
      <select class="matter-rollout-layer"></select
    ></label>
  </div>
  <div class="matter-rollout-map"></div>
`;

export class RolloutView {
  /** attentionRollout's result for the analysis shown. */
  #rollout = null;

  /** @param {HTMLElement} root @param {{ work: Function, context: Function }} hooks as FewerHeads' */
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    this.el = mountView(root, MARKUP, {
      rolled: '.matter-rollout-rolled',
      run: '.matter-rollout-run',
      groupRow: '.matter-rollout-group-row',
      group: '.matter-rollout-group',
      layerRow: '.matter-rollout-layer-row',
      layer: '.matter-rollout-layer',
      map: '.matter-rollout-map',
    });
    this.el.run.addEventListener('click', () => this.#run());
    this.el.group.addEventListener('change', () => {
      this.el.layer.value = '';
      this.#draw();
    });
    this.el.layer.addEventListener('change', () => this.#draw());
  }

  setEnabled(enabled) {
    this.el.run.disabled = !enabled;
  }

  forget() {
    this.#rollout = null;
    this.el.groupRow.hidden = this.el.layerRow.hidden = true;
    this.el.map.replaceChildren();
  }

  /** What is rolled, for the model's kind; the map again in the page's language. */
  relabel(kind) {
    this.el.rolled.textContent = t(`matter.rollout.rolled.${kind}`);
    if (this.#rollout) this.#draw();
  }

  async #run() {
    const done = await this.hooks.work(async ({ signal, onProgress }) => {
      const { model, text, importance } = this.hooks.context();
      const input =
        model.config.kind === 'encoder-decoder' ? { text, decoderInputIds: importance.reference.outputIds } : text;
      const { attentionRollout } = await analysisEntry();
      return attentionRollout(model, input, { signal, onProgress });
    });
    if (!done) return;
    this.#rollout = done;
    this.el.layer.value = '';
    this.#draw();
  }

  #draw() {
    const r = this.#rollout;
    const { el: e } = this;
    const groups = Object.keys(r.groups);
    const group = groups.includes(e.group.value) ? e.group.value : groups[0];
    e.group.replaceChildren(...groups.map((g) => new Option(t(`matter.group.${g}`), g)));
    e.group.value = group;
    e.groupRow.hidden = groups.length < 2;
    const { data, shape } = r.groups[group];
    const [layers, L] = shape;
    const layer = e.layer.value === '' ? layers - 1 : Math.min(Number(e.layer.value), layers - 1);
    e.layer.replaceChildren(
      ...Array.from({ length: layers }, (_, l) => new Option(t('matter.rollout.after', { layer: l }), l)),
    );
    e.layer.value = String(layer);
    e.layerRow.hidden = false;
    const tokens = tokenRecords(group === 'decoder' && r.decoderTokens ? r.decoderTokens : r.tokens);
    const heatmap = new Heatmap({
      name: `rollout-${group}-${layer}`,
      title: t('matter.rollout.mapTitle', { group: t(`matter.group.${group}`), layer }),
      description: t('matter.rollout.desc', { layer }),
      color: OKABE_ITO.purple,
      queryTokens: tokens,
      keyTokens: tokens,
      onSelect: (q) => heatmap.markRow(q),
    });
    heatmap.update(data.subarray(layer * L * L, (layer + 1) * L * L), {
      causal: group === 'decoder',
      label: t('matter.rollout.legend'),
    });
    Object.assign(heatmap.element.dataset, { group, layer });
    e.map.replaceChildren(el('div', { className: 'matter-rollout-figure' }, heatmap.element));
  }
}
