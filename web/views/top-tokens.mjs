// A row of a model's logits as the list the predictions show: the most
// probable tokens at a temperature (model/predictions.mjs topTokens), each
// with its bar and probability; every item carries data-id and
// data-probability (unrounded) so tests read what is shown. The next-token
// and fill-the-mask lists (views/predictions.mjs) and the step-by-step
// generation's (views/next-token-steps.mjs) are these.
import { el } from '../lib/dom.mjs';
import { percent } from '../lib/format.mjs';
import { escapeInvisible, topTokens } from '../model/predictions.mjs';

/** How many tokens a list shows. */
export const TOP = 8;

/** A model's piece as the lists write it: a space as ␣, a character with no glyph as its code (⟨U+000B⟩). */
export const pieceLabel = (piece) => escapeInvisible(piece).replace(/ /g, '␣');

/**
 * @param {Float32Array} row one position's logits
 * @param {number} temperature
 * @param {(ids: number[]) => string[]} pieces the model's readable pieces of ids
 * @returns {HTMLOListElement} <ol class="pred-tokens">
 */
export function topTokenList(row, temperature, pieces) {
  const items = topTokens(row, TOP, temperature).map(({ id, probability }) => {
    const bar = el('span', { className: 'pred-bar' });
    bar.style.setProperty('--share', String(probability));
    const item = el(
      'li',
      {},
      el('span', { className: 'pred-token', translate: false, textContent: pieceLabel(pieces([id])[0]) }),
      bar,
      el('span', { className: 'pred-probability', textContent: percent(probability) }),
    );
    item.dataset.id = id;
    item.dataset.probability = probability;
    return item;
  });
  return el('ol', { className: 'pred-tokens' }, ...items);
}
