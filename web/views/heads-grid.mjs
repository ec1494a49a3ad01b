// Every head of the current run side by side, one heatmap each (the single
// head last), with the annotation overlay (model/rings.mjs): a ring on each
// annotated target, solid where the head's top key hits it, dashed where it
// misses (free mode, with no annotation: the heads' top keys on the single
// head). The heatmap of the current head is the one the page exports.
import { Heatmap } from './heatmap.mjs';
import { headColor } from '../lib/palette.mjs';
import { allHeads } from '../model/compute.mjs';
import { headTitle } from '../model/head-names.mjs';
import { ringsFor } from '../model/rings.mjs';
import { language, t } from '../lib/i18n.mjs';

function describe(run, head) {
  if (head.name === 'single') return t('headInfo.single', { n: run.heads.length });
  if (run.mode === 'free') return t('headInfo.random', { dK: run.dims.dK });
  return t(`headInfo.${head.name}`);
}

export class HeadsGrid {
  #maps = new Map();
  #key = '';
  #building = null;

  /**
   * @param {HTMLElement} container
   * @param {{ onSelect: (head: string, q: number, k: number) => void }} handlers
   */
  constructor(container, { onSelect }) {
    this.container = container;
    this.onSelect = onSelect;
  }

  /** The heatmap element of a head (for export), if shown. */
  svgOf(name) {
    return this.#maps.get(name)?.svg;
  }

  /** Empties the grid (a sentence with nothing to compute): nothing stale stays on screen. */
  clear() {
    this.#key = '';
    this.#maps.clear();
    this.container.replaceChildren();
  }

  async #build(run, heads, key) {
    this.#maps.clear();
    this.container.replaceChildren();
    this.container.style.setProperty('--cells', String(run.cols));
    for (const head of heads) {
      if (this.#maps.size) await new Promise((resolve) => setTimeout(resolve, 0));
      if (key !== this.#key) return; // a newer run replaced this one meanwhile
      const map = new Heatmap({
        name: head.name,
        title: headTitle(head.name),
        description: describe(run, head),
        color: headColor(head.name, head.index),
        queryTokens: run.queryTokens,
        keyTokens: run.keyTokens,
        onSelect: (q, k) => this.onSelect(head.name, q, k),
      });
      this.#maps.set(head.name, map);
      this.container.append(map.element);
    }
  }

  /** Renders the run; new heatmaps are built one per task, so a big free-mode grid never blocks the page for long. */
  async update(run, state) {
    const heads = allHeads(run);
    const key = JSON.stringify([
      language(),
      run.mode,
      run.queryTokens.map((t) => t.text),
      run.keyTokens.map((t) => t.text),
      heads.map((h) => h.name),
    ]);
    if (key !== this.#key) {
      this.#key = key;
      this.#building = this.#build(run, heads, key);
    }
    // An update that arrives while the same grid is still being built waits for it.
    await this.#building;
    if (key !== this.#key) return; // a run of another shape came meanwhile; its update draws
    const lockedQuery = state.lock?.side === 'query' ? state.lock.index : null;
    for (const head of heads) {
      const map = this.#maps.get(head.name);
      map.update(head.weights, { causal: run.causal, rings: state.overlay ? ringsFor(run, head) : [] });
      map.markRow(lockedQuery);
      map.element.classList.toggle('current', head.name === state.head);
    }
  }
}
