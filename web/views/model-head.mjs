// The real-model view's chosen head, large: its heatmap with the model's own
// tokens (views/heatmap.mjs), its scores beside the even-spread baseline, its
// weight where each designed head looks (model/real-article.mjs), and the
// three keys each focus token weighs most (model/real-model-scores.mjs). The
// heatmap shows the weights α_ij or, by the switch above it
// (views/measure-toggle.mjs), norm-weighted α_ij·‖f(x_j)‖ (a run with the
// engine's valueNorms; model/norm-weighted.mjs); the tables stay on weights.
import { captionedTable, el } from '../lib/dom.mjs';
import { t } from '../lib/i18n.mjs';
import { fixed } from '../lib/format.mjs';
import { tokenName } from '../lib/tokens.mjs';
import { SCORES, focusRows, headWeights, scoreApplies, topKeys } from '../model/real-model-scores.mjs';
import { evenWeights, layerRun, roleShare } from '../model/real-article.mjs';
import { keyNorms, largest, normWeighted } from '../model/norm-weighted.mjs';
import { Heatmap } from './heatmap.mjs';
import { MeasureToggle } from './measure-toggle.mjs';

export class ModelHead {
  #shown = '';
  /** The scores the shown head was drawn with: a new focus (or run) scores every head again, and redraws. */
  #scored = null;
  /** The last show()'s arguments, drawn again when the switch changes. */
  #last = null;

  /**
   * @param {{ heatmap: HTMLElement, scores: HTMLElement, whereTitle: HTMLElement, where: HTMLElement }} elements
   * @param {string} color the heatmap's colour
   */
  constructor(elements, color) {
    this.el = elements;
    this.color = color;
    this.toggle = new MeasureToggle(() => {
      this.forget();
      if (this.#last) this.show(...this.#last);
    });
    this.toggle.root.hidden = true;
  }

  /** The next show() draws even the head already shown (new numbers or a new language). */
  forget() {
    this.#shown = '';
  }

  clear() {
    this.forget();
    this.#last = null;
    this.toggle.root.hidden = true;
    this.el.heatmap.replaceChildren();
  }

  /**
   * Opens a head.
   * @param {{ tokens: string[], records: object[], attention: Float32Array, numHeads: number, causal: boolean,
   *   valueNorms?: { data: Float32Array, shape: number[] } }} run
   * @param {{ layer: number, head: number }} head
   * @param {{ heads: object[], baseline: object, focus: string, article?: { closest: object[] | null } }} scored
   *   every head's scores, the baseline, the focus token; the designed heads' scores of every head (views/real-article.mjs)
   */
  show(run, head, scored, view = layerRun(run, head.layer)) {
    const { heads, baseline, focus, article = { closest: null } } = scored;
    this.#last = [run, head, scored, view];
    this.toggle.root.hidden = !run.valueNorms;
    this.toggle.relabel();
    const measure = run.valueNorms ? this.toggle.measure : 'weight';
    const key = `${head.layer}.${head.head}.${view.rows}.${measure}`;
    if (key === this.#shown && heads === this.#scored) return;
    this.#shown = key;
    this.#scored = heads;
    const L = run.tokens.length;
    const weights = headWeights(run.attention, { numHeads: run.numHeads, length: L }, head.layer, head.head);
    // The map shows the layer view's tokens: all, or all but the special ones (their weights unchanged).
    const heatmap = new Heatmap({
      name: `layer-${head.layer}-head-${head.head}`,
      title: t('real.layerHead', head),
      description: t(measure === 'norm' ? 'measure.desc' : 'real.heatmap.desc', head),
      color: this.color,
      queryTokens: view.queryTokens,
      keyTokens: view.keyTokens,
      onSelect: (q) => heatmap.markRow(q),
    });
    const shown = view.heads[head.head].weights;
    if (measure === 'norm') {
      const values = normWeighted(shown, keyNorms(run.valueNorms, head.layer, head.head, view.positions));
      heatmap.update(values, { causal: run.causal, max: largest(values), label: t('measure.legend') });
    } else heatmap.update(shown, { causal: run.causal });
    heatmap.element.dataset.measure = measure;
    this.heatmap = heatmap;
    // The switch above the map, in its column.
    this.el.heatmap.replaceChildren(this.toggle.root, heatmap.element);
    const scores = heads.find((h) => h.layer === head.layer && h.head === head.head).scores;
    this.#drawScores(scores, baseline);
    if (article.closest) this.el.scores.append(this.#articleScores(run, head, weights, article.closest));
    this.#drawWhere(run, weights, focus);
  }

  /** This head's weight where each designed head looks, and its share to the 毒 of the same role. */
  #articleScores(run, head, weights, closest) {
    const table = el('table', { className: 'real-article-scores' });
    const header = table.createTHead().insertRow();
    for (const key of ['real.closest.designed', 'real.scores.head', 'real.scores.uniform'])
      header.append(el('th', { scope: 'col', textContent: t(key) }));
    const body = table.createTBody();
    for (const c of closest) {
      const row = body.insertRow();
      row.dataset.head = c.name;
      row.append(el('th', { scope: 'row', textContent: t(`head.title.${c.name}`) }));
      if (!c.rows) {
        const cell = row.insertCell();
        cell.colSpan = 2;
        cell.textContent = '—';
        continue;
      }
      const mine = c.heads.find((h) => h.layer === head.layer && h.head === head.head);
      row.insertCell().textContent = fixed(mine.score);
      row.insertCell().textContent = fixed(c.baseline);
    }
    const L = run.tokens.length;
    const share = roleShare(weights, L, run.article, run.causal);
    if (share) {
      const blind = roleShare(evenWeights(L, run.causal), L, run.article, run.causal);
      const row = body.insertRow();
      row.dataset.head = 'role-share';
      row.append(el('th', { scope: 'row', textContent: t('real.articleScores.roleShare') }));
      row.insertCell().textContent = fixed(share.share);
      row.insertCell().textContent = fixed(blind.share);
    }
    return captionedTable(t('real.articleScores.caption'), table);
  }

  #drawScores(scores, baseline) {
    const table = el('table', { className: 'real-scores-table' });
    const header = table.createTHead().insertRow();
    for (const key of ['real.scores.score', 'real.scores.head', 'real.scores.uniform'])
      header.append(el('th', { scope: 'col', textContent: t(key) }));
    const body = table.createTBody();
    for (const score of SCORES) {
      const row = body.insertRow();
      row.dataset.score = score;
      row.append(el('th', { scope: 'row', textContent: t(`real.score.${score}`) }));
      // No key of this kind in the sentence (GPT-2 has no special tokens): every head's 0 says nothing.
      if (!scoreApplies(baseline, score)) {
        const cell = row.insertCell();
        cell.colSpan = 2;
        cell.textContent = t('real.scores.none');
        continue;
      }
      row.insertCell().textContent = fixed(scores[score]);
      row.insertCell().textContent = fixed(baseline[score]);
    }
    this.el.scores.replaceChildren(captionedTable(t('real.scores.caption'), table));
  }

  /** Each focus row's three keys of highest weight in the head. */
  #drawWhere(run, weights, focus) {
    this.el.whereTitle.textContent = focus ? t('real.where', { token: focus }) : t('real.where.all');
    const table = el('table', { className: 'real-where-table' });
    const header = table.createTHead().insertRow();
    header.append(el('th', { scope: 'col', textContent: t('real.where.query') }));
    for (let n = 1; n <= 3; n++) header.append(el('th', { scope: 'col', textContent: t('real.where.top', { n }) }));
    const body = table.createTBody();
    const L = run.tokens.length;
    for (const q of focusRows(run.tokens, focus, run.special)) {
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
