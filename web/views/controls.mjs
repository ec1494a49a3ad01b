// The toolbar: the language switch, Encoder / Decoder / Cross / Free, the
// sharpness slider, and free mode's form (sentence, d_model, heads, seed,
// causal). d_model is the user's and stays put; the heads' menu offers the
// counts that divide it, and the form shows d_k = d_v = d_model / heads as
// they change; a change of either recomputes at once, as the slider does. It
// reports what the user asks for; app.mjs decides what to recompute. The
// controls' limits come from the modules that define them.
import { MAX_SHARPNESS } from '../model/designed-heads.mjs';
import { D_MODEL_CHOICES, MAX_TOKENS, MAX_TEXT, MAX_SEED, headChoices, fitHeads } from '../model/free-mode.mjs';
import { language, t } from '../lib/i18n.mjs';
import { fixed } from '../lib/format.mjs';

export class Controls {
  /**
   * @param {Document} doc
   * @param {{ onLanguage: (lang: string) => void, onMode: (mode: string) => void,
   *   onSharpness: (s: number) => void, onFree: (free: { text: string, dModel: number, numHeads: number,
   *   seed: number, causal: boolean }) => void }} handlers
   */
  constructor(doc, { onLanguage, onMode, onSharpness, onFree }) {
    const $ = (id) => doc.getElementById(id);
    this.$ = $;
    this.doc = doc;
    this.modes = [...doc.querySelectorAll('input[name="mode"]')];
    for (const input of this.modes) input.addEventListener('change', () => input.checked && onMode(input.value));
    this.languages = [...doc.querySelectorAll('input[name="lang"]')];
    for (const input of this.languages)
      input.addEventListener('change', () => input.checked && onLanguage(input.value));
    $('sharpness').max = String(MAX_SHARPNESS);
    $('sharpness').addEventListener('input', (e) => onSharpness(Number(e.target.value)));
    $('free-text').maxLength = MAX_TEXT;
    $('free-seed').max = String(MAX_SEED);
    $('free-dmodel').replaceChildren(...D_MODEL_CHOICES.map((d) => new Option(String(d))));
    // d_model and heads recompute at once, as the sharpness does; the sentence and the seed wait for Compute.
    $('free-dmodel').addEventListener('change', () => {
      this.#fillHeads();
      onFree(this.#free());
    });
    $('free-heads').addEventListener('change', () => {
      this.#showWidth();
      onFree(this.#free());
    });
    $('free').addEventListener('submit', (e) => {
      e.preventDefault();
      onFree(this.#free());
    });
  }

  /** What free mode's form asks for (a seed out of range: 0). */
  #free() {
    const { $ } = this;
    const seed = Number($('free-seed').value);
    return {
      text: $('free-text').value,
      dModel: Number($('free-dmodel').value),
      numHeads: Number($('free-heads').value),
      seed: Number.isInteger(seed) && seed >= 0 && seed <= MAX_SEED ? seed : 0,
      causal: $('free-causal').checked,
    };
  }

  /** The heads' menu for the chosen d_model, keeping the count if it still divides it (else the nearest below). */
  #fillHeads(wanted = Number(this.$('free-heads').value) || 1) {
    const dModel = Number(this.$('free-dmodel').value);
    const select = this.$('free-heads');
    const choices = headChoices(dModel);
    if (select.dataset.options !== choices.join()) select.replaceChildren(...choices.map((h) => new Option(String(h))));
    select.dataset.options = choices.join();
    select.value = String(fitHeads(dModel, wanted));
    this.#showWidth();
  }

  #showWidth() {
    const dModel = Number(this.$('free-dmodel').value);
    const h = Number(this.$('free-heads').value);
    this.$('free-dk').textContent = t('free.dk', { dModel, h, dK: dModel / h });
  }

  /** Shows the state; in free mode also the tokens of the last run (null: none, the sentence is empty). */
  update(state, run) {
    const { $ } = this;
    for (const input of this.modes) input.checked = input.value === state.mode;
    for (const input of this.languages) input.checked = input.value === language();
    const free = state.mode === 'free';
    $('free').hidden = !free;
    $('sharpness-box').hidden = free;
    $('sharpness').value = String(state.sharpness);
    $('sharpness-value').textContent = fixed(state.sharpness, 1);
    // Free mode's fields follow the state unless the user is editing them.
    if (!$('free').contains(this.doc.activeElement)) {
      $('free-text').value = state.text;
      $('free-dmodel').value = String(state.dModel);
      this.#fillHeads(state.numHeads);
      $('free-seed').value = String(state.seed);
      $('free-causal').checked = state.causal;
    } else this.#showWidth();
    if (!free) return;
    if (run?.mode !== 'free') {
      $('free-tokens').textContent = '';
      return;
    }
    const { dModel, numHeads, dK } = run.dims;
    $('free-tokens').textContent =
      t('free.tokens', { n: run.rows, list: run.queryTokens.map((u) => u.text).join(' · ') }) +
      (run.spec.truncated ? t('free.truncated', { max: MAX_TOKENS }) : '') +
      t('free.dims', { dModel, h: numHeads, dK, seed: state.seed });
  }
}
