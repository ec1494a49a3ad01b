// The switch above a real model's heatmap between its attention weights
// (α_ij) and norm-weighted attention (α_ij·‖f(x_j)‖, Kobayashi et al. 2020;
// model/norm-weighted.mjs), with the one-line reason. Reports the choice.
import { el } from '../lib/dom.mjs';
import { t } from '../lib/i18n.mjs';

export const MEASURES = ['weight', 'norm'];
let toggles = 0;

export class MeasureToggle {
  #measure = 'weight';

  /** @param {(measure: string) => void} onChange */
  constructor(onChange) {
    const name = `measure-${++toggles}`;
    this.inputs = MEASURES.map((measure) =>
      el('input', { type: 'radio', name, value: measure, checked: measure === 'weight' }),
    );
    this.labels = this.inputs.map((input) => el('label', {}, input, ' ', el('span')));
    this.legend = el('legend');
    this.why = el('p', { className: 'help measure-why' });
    this.root = el('fieldset', { className: 'measure-toggle' }, this.legend, ...this.labels, this.why);
    for (const input of this.inputs)
      input.addEventListener('change', () => {
        this.#measure = input.value;
        onChange(input.value);
      });
    this.relabel();
  }

  get measure() {
    return this.#measure;
  }

  relabel() {
    this.legend.textContent = t('measure.label');
    this.labels.forEach((label, i) => (label.lastChild.textContent = t(`measure.${MEASURES[i]}`)));
    // A catalogue string (names marked for the language check), never user text.
    this.why.innerHTML = t('measure.why');
  }
}
