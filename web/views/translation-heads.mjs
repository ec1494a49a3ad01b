// The "switch heads off" controls of the real translation (views/translation.mjs):
// which heads of a translation model's encoder self-attention, decoder
// self-attention and cross-attention are kept — a layer × head table of
// checkboxes for one group (or for the three at once), and presets (every
// head; head h of every layer only). It holds the masks; the translation
// view asks it for the head mask to translate with and for how many heads
// each group keeps.
import { el } from '../lib/dom.mjs';
import { t } from '../lib/i18n.mjs';
import { ATTENTION_KINDS, groupDims, keepsAll, keptHeads, presetMask } from '../model/translation.mjs';

export class HeadSwitches {
  #config = null;
  #masks = null; // { encoder, decoder, cross }: [layers][heads] of 0/1

  /** @param {{ maskKind: HTMLSelectElement, maskPreset: HTMLSelectElement, mask: HTMLElement }} elements */
  constructor(elements) {
    this.el = elements;
    elements.maskKind.addEventListener('change', () => this.#draw());
    elements.maskPreset.addEventListener('change', () => this.#applyPreset());
    elements.mask.addEventListener('change', (event) => this.#toggle(event.target));
  }

  /** A translation model's config: every head of every group kept. */
  reset(config) {
    this.#config = config;
    this.#masks = Object.fromEntries(ATTENTION_KINDS.map((kind) => [kind, presetMask(groupDims(config, kind), 'all')]));
  }

  /** No translation model. */
  forget() {
    this.#config = null;
  }

  /** Writes the presets and the table again in the page's (new) language. */
  relabel() {
    this.#fillPresets();
    this.#draw();
  }

  /** The head masks to pass to generate()/run(): only the groups that switch a head off; null if none does. */
  headMask() {
    const mask = {};
    for (const kind of ATTENTION_KINDS) if (!keepsAll(this.#masks[kind])) mask[kind] = this.#masks[kind];
    return Object.keys(mask).length ? mask : null;
  }

  /** How many heads each group keeps, of how many: [{ kept, all }] in ATTENTION_KINDS' order. */
  kept() {
    return ATTENTION_KINDS.map((kind) => keptHeads(this.#masks[kind]));
  }

  #dims(kind) {
    return groupDims(this.#config, kind);
  }

  // The kinds the mask controls edit: one, or all three.
  #editing() {
    const kind = this.el.maskKind.value || 'all';
    return kind === 'all' ? ATTENTION_KINDS : [kind];
  }

  #fillPresets() {
    const { el: e } = this;
    const heads = Math.min(...this.#editing().map((k) => this.#dims(k).heads));
    const value = e.maskPreset.value;
    e.maskPreset.replaceChildren(
      new Option(t('mt.preset.custom'), 'custom'),
      new Option(t('mt.preset.all'), 'all'),
      ...Array.from({ length: heads }, (_, h) => new Option(t('mt.preset.only', { head: h }), `only:${h}`)),
    );
    e.maskPreset.value = [...e.maskPreset.options].some((o) => o.value === value) ? value : 'custom';
  }

  #applyPreset() {
    const value = this.el.maskPreset.value;
    if (value === 'custom') return;
    const preset = value === 'all' ? 'all' : { only: Number(value.split(':')[1]) };
    for (const kind of this.#editing()) this.#masks[kind] = presetMask(this.#dims(kind), preset);
    this.#draw();
  }

  // The checkboxes of the kind being edited (with 'all', those of the cross-attention stand for the three
  // when their sizes agree; else only the presets edit them).
  #draw() {
    if (!this.#config) return;
    const kinds = this.#editing();
    const [first] = kinds;
    const { layers, heads } = this.#dims(first);
    const same = kinds.every((k) => {
      const d = this.#dims(k);
      return d.layers === layers && d.heads === heads;
    });
    const table = el('table', { className: 'mt-mask-table' });
    const header = el('tr', {}, el('th', { scope: 'col', textContent: '' }));
    for (let h = 0; h < heads; h++) header.append(el('th', { scope: 'col', textContent: t('real.head', { head: h }) }));
    table.append(el('thead', {}, header));
    const body = el('tbody');
    for (let l = 0; l < layers; l++) {
      const row = el('tr', {}, el('th', { scope: 'row', textContent: t('real.layer', { layer: l }) }));
      for (let h = 0; h < heads; h++) {
        const on = kinds.every((k) => this.#masks[k][l]?.[h] === 1);
        const box = el('input', {
          type: 'checkbox',
          checked: on,
          disabled: !same,
          title: t('mt.heads.box', { layer: l, head: h }),
        });
        box.setAttribute('aria-label', t('mt.heads.box', { layer: l, head: h }));
        box.dataset.layer = l;
        box.dataset.head = h;
        row.append(el('td', {}, box));
      }
      body.append(row);
    }
    table.append(body);
    const counts = ATTENTION_KINDS.map((k) => ({ kind: k, ...keptHeads(this.#masks[k]) }));
    // Heads off in a group not on screen still go into the translation: said, not left unseen.
    const elsewhere = counts.filter((c) => !kinds.includes(c.kind) && c.kept < c.all);
    const warning = elsewhere.length
      ? [
          el('p', {
            className: 'help warning mt-mask-elsewhere',
            textContent: t('mt.heads.elsewhere', {
              kinds: elsewhere.map((c) => t(`mt.kind.${c.kind}`)).join(t('list.join')),
            }),
          }),
        ]
      : [];
    this.el.mask.replaceChildren(
      table,
      ...warning,
      el('p', {
        className: 'help',
        textContent: counts
          .map((c) => t('mt.heads.kept', { kind: t(`mt.kind.${c.kind}`), kept: c.kept, all: c.all }))
          .join(t('list.join')),
      }),
    );
  }

  #toggle(box) {
    if (box?.type !== 'checkbox') return;
    const l = Number(box.dataset.layer);
    const h = Number(box.dataset.head);
    for (const kind of this.#editing()) this.#masks[kind][l][h] = box.checked ? 1 : 0;
    this.el.maskPreset.value = 'custom';
    this.#draw();
  }
}
