// The formulas of multi-head attention, above the pipeline:
//   head_h = softmax(Q_h K_hᵀ / √d_k + M) · V_h,  Q_h = X W_Q^h, K_h = X W_K^h, V_h = X W_V^h
//   MultiHead(X) = Concat(head_1, …, head_H) · W_O
// with this run's sizes. Every term is a button for the pipeline stage that
// shows it; the stage shown is pressed. The bar is one Tab stop (arrow keys
// move between its terms, lib/roving.mjs).
import { roving } from '../lib/roving.mjs';
import { language, t } from '../lib/i18n.mjs';
import { precise } from '../lib/format.mjs';

const term = (stage, html) => `<button type="button" data-stage="${stage}" translate="no">${html}</button>`;

/** The formulas' markup for a run: code names and numbers only, the two labels in the page's language. */
function markup(run) {
  const { numHeads, dK, dV, dModel } = run.dims;
  const cross = run.mode === 'cross';
  const xq = cross ? 'X<sub>en</sub>' : 'X';
  const xkv = cross ? 'X<sub>zh</sub>' : 'X';
  const mask = run.causal ? ` ${term('masked', '+ M')}` : '';
  return `
    <p class="formula-line"><span class="formula-tag">${t('formula.perHead')}</span>
      ${term('head', 'head<sub>h</sub>')} = ${term('weights', 'softmax')}(${term(
        'scores',
        `Q<sub>h</sub>K<sub>h</sub><sup>T</sup> / √d<sub>k</sub>`,
      )}${mask}) · ${term('v', 'V<sub>h</sub>')}</p>
    <p class="formula-line"><span class="formula-tag"></span>
      ${term('q', `Q<sub>h</sub> = ${xq}W<sub>Q</sub><sup>h</sup>`)},
      ${term('k', `K<sub>h</sub> = ${xkv}W<sub>K</sub><sup>h</sup>`)},
      ${term('v', `V<sub>h</sub> = ${xkv}W<sub>V</sub><sup>h</sup>`)}, ${term('x', xq)}</p>
    <p class="formula-line"><span class="formula-tag">${t('formula.all')}</span>
      ${term('output', `MultiHead(${xq})`)} = ${term('concat', 'Concat(head<sub>1</sub>, …, head<sub>H</sub>)')} ·
      ${term('wo', 'W<sub>O</sub>')}</p>
    <p class="formula-dims" translate="no">H = ${numHeads} · d<sub>model</sub> = ${dModel} · d<sub>k</sub> = ${dK} · d<sub>v</sub> = ${dV} ·
      √d<sub>k</sub> = ${precise(Math.sqrt(dK), 4)}</p>`;
}

export class FormulaBar {
  #key = '';

  /**
   * @param {HTMLElement} container
   * @param {{ onStage: (stage: string) => void }} handlers
   */
  constructor(container, { onStage }) {
    this.container = container;
    container.setAttribute('role', 'toolbar');
    container.addEventListener('click', (e) => {
      const button = e.target.closest('button[data-stage]');
      if (button) onStage(button.dataset.stage);
    });
    this.refresh = roving(container, 'button', { orientation: 'both', preferred: '[aria-pressed="true"]' });
  }

  update(run, stage) {
    this.container.setAttribute('aria-label', t('formula.label'));
    const key = JSON.stringify([language(), run.mode, run.causal, run.dims]);
    if (key !== this.#key) {
      this.#key = key;
      this.container.innerHTML = markup(run);
    }
    for (const button of this.container.querySelectorAll('button'))
      button.setAttribute('aria-pressed', String(button.dataset.stage === stage));
    this.refresh();
  }
}
