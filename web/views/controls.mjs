// The toolbar: Encoder / Decoder / Cross / Free switch, the sharpness slider,
// and free mode's form (sentence, numHeads, dK, seed, causal). It reports
// what the user asks for; app.mjs decides what to recompute. The controls'
// limits come from the modules that define them.
import { MAX_SHARPNESS } from '../model/designed-heads.mjs';
import { MAX_HEADS, DK_CHOICES, MAX_TOKENS, MAX_TEXT, MAX_SEED } from '../model/free-mode.mjs';

export class Controls {
  /**
   * @param {Document} doc
   * @param {{ onMode: (mode: string) => void, onSharpness: (s: number) => void,
   *   onFree: (free: { text: string, numHeads: number, dK: number, seed: number, causal: boolean }) => void }} handlers
   */
  constructor(doc, { onMode, onSharpness, onFree }) {
    const $ = (id) => doc.getElementById(id);
    this.$ = $;
    this.modes = [...doc.querySelectorAll('input[name="mode"]')];
    for (const input of this.modes) input.addEventListener('change', () => input.checked && onMode(input.value));
    $('sharpness').max = String(MAX_SHARPNESS);
    $('sharpness').addEventListener('input', (e) => onSharpness(Number(e.target.value)));
    $('free-text').maxLength = MAX_TEXT;
    $('free-seed').max = String(MAX_SEED);
    $('free-heads').replaceChildren(...Array.from({ length: MAX_HEADS }, (_, i) => new Option(String(i + 1))));
    $('free-dk').replaceChildren(...DK_CHOICES.map((d) => new Option(String(d))));
    $('free').addEventListener('submit', (e) => {
      e.preventDefault();
      const seed = Number($('free-seed').value);
      onFree({
        text: $('free-text').value,
        numHeads: Number($('free-heads').value),
        dK: Number($('free-dk').value),
        seed: Number.isInteger(seed) && seed >= 0 && seed <= MAX_SEED ? seed : 0,
        causal: $('free-causal').checked,
      });
    });
  }

  /** Shows the state; in free mode also the tokens of the last run. */
  update(state, run) {
    const { $ } = this;
    for (const input of this.modes) input.checked = input.value === state.mode;
    const free = state.mode === 'free';
    $('free').hidden = !free;
    $('sharpness-box').hidden = free;
    $('sharpness').value = String(state.sharpness);
    $('sharpness-value').textContent = state.sharpness.toFixed(1);
    // Free mode's fields follow the state unless the user is editing them.
    if (!$('free').contains(document.activeElement)) {
      $('free-text').value = state.text;
      $('free-heads').value = String(state.numHeads);
      $('free-dk').value = String(state.dK);
      $('free-seed').value = String(state.seed);
      $('free-causal').checked = state.causal;
    }
    if (free && run?.mode === 'free') {
      const { dModel, numHeads, dK } = run.dims;
      $('free-tokens').textContent =
        `${run.rows} tokens: ${run.queryTokens.map((t) => t.text).join(' · ')}` +
        (run.spec.truncated ? ` (only the first ${MAX_TOKENS} are used)` : '') +
        ` — dModel = numHeads·dK = ${numHeads}·${dK} = ${dModel}, dV = dK, seed ${state.seed}.`;
    }
  }
}
