// One head of "Which heads matter" (views/heads-matter.mjs), once its grid
// cell is clicked: what it writes (Kobayashi et al. 2020: ‖f_h(x_j)‖, token
// j's value through the head's part of W_O, from run() with
// returnHeadOutputs, one run per analysis) and the output without it
// (mha-wasm/analysis withHeadsOff with that head alone off: its score and the
// translation, continuation or fill re-decoded). Numbers in data attributes.
import { captionedTable, el } from '../lib/dom.mjs';
import { fixed } from '../lib/format.mjs';
import { t } from '../lib/i18n.mjs';
import { analysisEntry } from '../lib/package.mjs';
import { headOffMask, headOffSentence, headWrites, verdict, writesSentence } from '../model/fewer-heads-text.mjs';

export class HeadDetail {
  /** run() with returnHeadOutputs over the analysis' text (and an encoder-decoder's reference translation). */
  #run = null;
  /** { head: { group, layer, head }, off }: the head shown. */
  #shown = null;
  #asked = null;

  /**
   * @param {HTMLElement} root
   * @param {{ work: (task: (control: object) => Promise<unknown>) => Promise<unknown>,
   *   context: () => { model: object, text: string, options: object, importance: object } }} hooks as FewerHeads'
   */
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    root.hidden = true;
  }

  forget() {
    this.#run = this.#shown = this.#asked = null;
    this.root.hidden = true;
    this.root.replaceChildren();
  }

  relabel() {
    if (this.#shown) this.#draw();
  }

  /** Shows `head` ({ group, layer, head }): one run with the head outputs (once), one withHeadsOff. */
  async show(head) {
    this.#asked = head;
    const done = await this.hooks.work(async (control) => {
      const { model, text, options, importance } = this.hooks.context();
      const kind = model.config.kind;
      this.#run ??= await model.run(
        kind === 'encoder-decoder' ? { text, decoderInputIds: importance.reference.outputIds } : text,
        { returnAttention: false, returnHeadOutputs: true },
      );
      const { withHeadsOff } = await analysisEntry();
      const reference = { outputIds: importance.reference.outputIds };
      const headMask = headOffMask(importance.groups, head);
      return withHeadsOff(model, text, { ...options, ...control, reference, headMask });
    });
    if (!done || this.#asked !== head) return;
    this.#shown = { head, off: done };
    this.#draw();
  }

  #draw() {
    const { head, off } = this.#shown;
    const rows = headWrites(this.#run, head);
    const title = t('matter.head.title', {
      head: t('real.layerHead', head),
      group: t(`matter.group.${head.group}`),
    });
    const offLine = el('p', { className: 'matter-head-off', textContent: headOffSentence(off, head) });
    Object.assign(offLine.dataset, {
      delta: String(off.delta),
      score: String(off.score),
      ids: Array.from(off.output.outputIds).join(' '),
      verdict: verdict(off.output, off.reference),
    });
    const max = Math.max(...rows.map((r) => r.norm)) || 1;
    const table = el('table', { className: 'matter-writes' });
    const header = table.createTHead().insertRow();
    for (const key of ['position', 'token', 'norm'])
      header.append(el('th', { scope: 'col', textContent: t(`matter.head.table.${key}`) }));
    const body = table.createTBody();
    for (const { position, token, norm } of rows) {
      const row = body.insertRow();
      Object.assign(row.dataset, { position, norm: String(norm) });
      row.insertCell().textContent = String(position);
      const cell = row.insertCell();
      cell.translate = false;
      cell.textContent = token;
      const bar = el('span', { className: 'matter-bar-fill' });
      bar.style.width = `${(100 * norm) / max}%`;
      row.insertCell().append(el('span', { className: 'matter-bar-value', textContent: fixed(norm) }), bar);
    }
    this.root.replaceChildren(
      el('h4', { textContent: title }),
      offLine,
      el('p', { className: 'help', innerHTML: t('matter.head.writesWhy') }),
      el('p', { className: 'matter-writes-text', textContent: writesSentence(rows) }),
      captionedTable(t('matter.head.table.caption'), table),
    );
    Object.assign(this.root.dataset, { group: head.group, layer: head.layer, head: head.head });
    this.root.hidden = false;
  }
}
