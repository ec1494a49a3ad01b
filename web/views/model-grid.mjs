// The real-model view's grid of heads (bertviz's model view): every layer ×
// head as a thumbnail, drawn as ImageData into a <canvas>
// (lib/attention-image.mjs), so a 12 × 12 model's 144 heads draw at once.
// Hover a thumbnail to preview it, click (or Enter) to choose it; the grid
// is one Tab stop with arrow keys inside (lib/roving.mjs). Laid out by
// layer and head, or sorted by one of the scores of model/real-model-scores.mjs,
// whose summary (the best head per score) summaryItems writes.
import d3 from '../lib/d3.mjs';
import { weightRamp } from '../lib/scales.mjs';
import { colourTable, weightPixels } from '../lib/attention-image.mjs';
import { el } from '../lib/dom.mjs';
import { roving } from '../lib/roving.mjs';
import { t } from '../lib/i18n.mjs';
import { fixed } from '../lib/format.mjs';
import { SCORES, headWeights, rankHeads, scoreSummary } from '../model/real-model-scores.mjs';

const PREVIEW_MS = 90;
/** Above this many weight cells, the thumbnails are drawn a layer per task so the page stays responsive. */
const CELLS_PER_TASK = 200_000;

const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));
const keyOf = (h) => `${h.layer}.${h.head}`;
const headOf = (button) => ({ layer: Number(button.dataset.layer), head: Number(button.dataset.head) });

/**
 * One line per score, from the numbers: the highest head, the median, the
 * baseline and how many heads reach the bar that stands out from it (twice
 * it, or halfway to 1 where twice is out of reach); a score the sentence has
 * no key for says so instead of naming a "best" head at 0.
 */
export function summaryItems(heads, baseline, order) {
  return SCORES.map((score) => {
    const s = scoreSummary(heads, score, baseline);
    const name = t(`real.score.${score}`);
    const text = s.applies
      ? t('real.summary', {
          score: name,
          layer: s.best.layer,
          head: s.best.head,
          value: fixed(s.best.scores[score]),
          median: fixed(s.median),
          count: s.count,
          baseline: fixed(s.baseline),
          rule: s.bar.rule,
          twice: fixed(2 * s.baseline),
          threshold: fixed(s.bar.threshold),
          above: s.bar.count,
        })
      : t('real.summary.noBaseline', { score: name });
    const li = el('li', { textContent: text });
    li.dataset.score = score;
    li.classList.toggle('current', score === order);
    return li;
  });
}

export class ModelGrid {
  #canvases = new Map();
  #table;
  #previewTimer = 0;
  #refreshRoving;

  /**
   * @param {{ grid: HTMLElement, caption: HTMLElement }} elements the grid and its caption
   * @param {{ color: string, onPreview: (head: object) => void, onLeave: () => void,
   *   onChoose: (head: object) => void }} options the thumbnails' colour; what hover, leaving and a choice do
   */
  constructor({ grid, caption }, { color, onPreview, onLeave, onChoose }) {
    this.grid = grid;
    this.caption = caption;
    this.#table = colourTable(weightRamp(color), (c) => d3.rgb(c));
    grid.addEventListener('pointerover', (event) => {
      const button = event.target.closest?.('.thumb');
      if (!button) return;
      clearTimeout(this.#previewTimer);
      this.#previewTimer = setTimeout(() => onPreview(headOf(button)), PREVIEW_MS);
    });
    grid.addEventListener('pointerleave', () => {
      clearTimeout(this.#previewTimer);
      onLeave();
    });
    grid.addEventListener('click', (event) => {
      const button = event.target.closest?.('.thumb');
      if (!button) return;
      clearTimeout(this.#previewTimer);
      onChoose(headOf(button));
    });
    this.#refreshRoving = roving(grid, '.thumb', { preferred: '.thumb[aria-pressed="true"]' });
  }

  /** Forgets every thumbnail (a new model or a new run). */
  clear() {
    this.#canvases.clear();
    this.grid.replaceChildren();
  }

  /**
   * Draws every head's weights into its thumbnail, a layer per task for large runs.
   * @param {{ tokens: string[], attention: Float32Array, numLayers: number, numHeads: number,
   *   keyTokens?: string[] }} run keyTokens: the keys when they are not the queries (cross-attention)
   * @param {() => boolean} current false once a newer run replaced this one
   * @returns {Promise<boolean>} false when drawing stopped because the run was replaced
   */
  async draw(run, current) {
    const L = run.tokens.length;
    const K = (run.keyTokens ?? run.tokens).length;
    const dims = { numHeads: run.numHeads, length: L, keys: K };
    for (let layer = 0; layer < run.numLayers; layer++) {
      for (let head = 0; head < run.numHeads; head++) {
        const canvas = this.#button({ layer, head }).querySelector('canvas');
        canvas.width = K;
        canvas.height = L;
        const pixels = weightPixels(headWeights(run.attention, dims, layer, head), L, this.#table, K);
        canvas.getContext('2d').putImageData(new ImageData(pixels, K, L), 0, 0);
      }
      if (run.numLayers * run.numHeads * L * K > CELLS_PER_TASK) await nextTask();
      if (!current()) return false;
    }
    return true;
  }

  #button(h) {
    let button = this.#canvases.get(keyOf(h));
    if (!button) {
      button = el(
        'button',
        { type: 'button', className: 'thumb' },
        el('canvas'),
        el('span', { className: 'thumb-label' }),
      );
      button.dataset.layer = h.layer;
      button.dataset.head = h.head;
      this.#canvases.set(keyOf(h), button);
    }
    return button;
  }

  /**
   * Places the thumbnails in an order, with their labels and titles.
   * @param {{ numLayers: number, numHeads: number }} run
   * @param {object[]} heads every head's scores (model/real-model-scores.mjs allHeadScores)
   * @param {string} order 'grid' or the score to sort by
   * @param {{ layer: number, head: number } | null} selected the chosen head
   * @param {(head: object) => string} [title] each thumbnail's title (default: its layer, head and score)
   */
  arrange(run, heads, order, selected, title) {
    const sorted = order !== 'grid';
    const score = sorted ? order : 'same';
    const label =
      title ??
      ((h) =>
        t('real.thumb.title', {
          layer: h.layer,
          head: h.head,
          score: t(`real.score.${score}`),
          value: fixed(h.scores[score]),
        }));
    const children = [];
    const place = (h) => {
      const button = this.#button(h);
      button.title = label(h);
      button.setAttribute('aria-label', label(h));
      button.querySelector('.thumb-label').textContent = sorted
        ? `${t('real.layerHead', { layer: h.layer, head: h.head })} · ${fixed(h.scores[score])}`
        : '';
      children.push(button);
    };
    this.grid.classList.toggle('sorted', sorted);
    this.grid.style.setProperty('--heads', String(run.numHeads));
    if (sorted) rankHeads(heads, score).forEach(place);
    else {
      const byKey = new Map(heads.map((h) => [keyOf(h), h]));
      children.push(el('span', { className: 'corner' }));
      for (let head = 0; head < run.numHeads; head++)
        children.push(el('span', { className: 'col-head', textContent: t('real.head', { head }) }));
      for (let layer = 0; layer < run.numLayers; layer++) {
        children.push(el('span', { className: 'row-head', textContent: t('real.layer', { layer }) }));
        for (let head = 0; head < run.numHeads; head++) place(byKey.get(keyOf({ layer, head })));
      }
    }
    this.grid.replaceChildren(...children);
    this.caption.textContent = t('real.grid.caption', { layers: run.numLayers, heads: run.numHeads });
    this.markChosen(selected);
  }

  /** Marks the chosen head's thumbnail as pressed (and the grid's Tab stop). */
  markChosen(selected) {
    const chosen = selected ? keyOf(selected) : '';
    for (const [key, button] of this.#canvases) button.setAttribute('aria-pressed', String(key === chosen));
    this.#refreshRoving();
  }
}
