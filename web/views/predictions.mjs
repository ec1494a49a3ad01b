// The real-model view's predictions, from the model's own logits of the run
// it shows (model/predictions.mjs computes the probabilities):
// - "下一个词 / Next token" for a decoder: the most probable tokens after the
//   text at a temperature the reader sets, and a button that appends the most
//   probable one and runs the whole text again (the heads below show the new
//   token's attention over everything before it); under it, the generation a
//   step at a time through the model's KV cache (views/next-token-steps.mjs);
// - "填空 / Fill the mask" for a BERT with its masked-LM head: the most
//   probable tokens at each [MASK] of the text, and a button that masks a 毒.
import { el } from '../lib/dom.mjs';
import { fixed } from '../lib/format.mjs';
import { t } from '../lib/i18n.mjs';
import { appendRefusal, positionsOf, topTokens } from '../model/predictions.mjs';
import { NextTokenSteps } from './next-token-steps.mjs';
import { pieceLabel, topTokenList } from './top-tokens.mjs';

export class PredictionsView {
  #run = null; // { kind, logits, vocab, inputIds, tokens, maskId, pieces(ids), decode(ids), model }
  #temperature = 1;
  #steps;
  /** Why the last click appended nothing: [key, params], or null. */
  #refused = null;

  /**
   * @param {HTMLElement} root the .real-predictions element of the real-model section
   * @param {{ append: (text: string) => void, mask: () => void, text: () => string }} hooks
   *   what the buttons do to the section's text box (then it runs again); its text (a prompt of the steps)
   */
  constructor(root, hooks) {
    const $ = (selector) => root.querySelector(selector);
    this.root = root;
    this.hooks = hooks;
    this.el = {
      title: $('.pred-title'),
      help: $('.pred-help'),
      temperature: $('#pred-temperature'),
      temperatureValue: $('.pred-temperature-value'),
      temperatureRow: $('.pred-temperature'),
      list: $('.pred-list'),
      action: $('#pred-action'),
      note: $('.pred-note'),
      caveat: $('.pred-caveat'),
    };
    this.#steps = new NextTokenSteps($('.next-steps'), { temperature: () => this.#temperature, text: hooks.text });
    this.el.temperature.addEventListener('input', () => {
      this.#temperature = Number(this.el.temperature.value);
      this.#refused = null;
      this.#draw();
      this.#steps.redraw();
    });
    this.el.action.addEventListener('click', () => this.#act());
  }

  /**
   * A run with logits: `kind` 'decoder' (the next token after the last
   * position) or 'masked' (each [MASK] position, `maskId`); null hides the view.
   */
  show(run) {
    this.#run = run;
    this.#refused = null;
    this.root.hidden = !run;
    if (run) this.#draw();
    this.#steps.show(run?.kind === 'decoder' ? run.model : null, { untrained: Boolean(run?.untrained) });
  }

  relabel() {
    if (this.#run) this.#draw();
    this.#steps.relabel();
  }

  #rows() {
    const run = this.#run;
    if (run.kind === 'decoder') return [{ position: run.inputIds.length - 1 }];
    return positionsOf(run.inputIds, run.maskId).map((position) => ({ position }));
  }

  #draw() {
    const run = this.#run;
    const { el: e } = this;
    const decoder = run.kind === 'decoder';
    e.title.textContent = t(decoder ? 'pred.next.title' : 'pred.mask.title');
    e.help.textContent = t(decoder ? 'pred.next.help' : 'pred.mask.help');
    e.temperatureRow.hidden = !decoder;
    // A checkpoint whose predictions of the text were measured no better than chance (the notes above say how):
    // its probabilities are no finding about the language, however confident.
    e.caveat.hidden = !run.untrained;
    e.caveat.textContent = run.untrained ? t('pred.caveat') : '';
    e.temperatureValue.textContent = fixed(this.#temperature, 1);
    e.action.textContent = t(decoder ? 'pred.next.append' : 'pred.mask.du');
    e.note.hidden = !this.#refused;
    e.note.textContent = this.#refused ? t(...this.#refused) : '';
    const temperature = decoder ? this.#temperature : 1;
    const rows = this.#rows();
    e.list.replaceChildren(
      ...(rows.length
        ? rows.map(({ position }) => {
            const row = run.logits.subarray(position * run.vocab, (position + 1) * run.vocab);
            const list = topTokenList(row, temperature, run.pieces);
            list.dataset.position = position;
            const label = decoder
              ? t('pred.next.after', { token: run.tokens[position] })
              : t('pred.mask.at', { position });
            return el('li', {}, el('p', { textContent: label }), list);
          })
        : [el('li', { textContent: t('pred.mask.none') })]),
    );
  }

  // The button: append the most probable next token (its text), or mask a 毒 of the sentence. Its text is
  // what it adds to the whole sequence's decoding, as the tokenizer decodes it: a SentencePiece "▁there"
  // after "time," is " there" (decoded alone, its space would be dropped), a byte piece completes its character.
  async #act() {
    const run = this.#run;
    if (!run) return;
    if (run.kind === 'decoder') {
      const row = run.logits.subarray((run.inputIds.length - 1) * run.vocab, run.inputIds.length * run.vocab);
      const [best] = topTokens(row, 1, this.#temperature);
      const ids = Array.from(run.inputIds);
      const [before, after] = await Promise.all([run.decode(ids), run.decode([...ids, best.id])]);
      const added = after.slice(commonPrefix(before, after));
      // A token that adds nothing visible (a control character) or half a character is not appended silently:
      // the note says what it is, its code shown.
      const refusal = appendRefusal(added);
      if (refusal) {
        this.#refused = [`pred.next.refused.${refusal}`, { token: pieceLabel(run.pieces([best.id])[0]) }];
        this.#draw();
        return;
      }
      this.hooks.append(added);
    } else {
      this.hooks.mask();
    }
  }
}

/** How many characters `a` and `b` have in common from the start. */
function commonPrefix(a, b) {
  let n = 0;
  while (n < a.length && a[n] === b[n]) n++;
  return n;
}
