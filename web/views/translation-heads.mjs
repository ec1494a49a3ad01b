// The "switch heads off" controls of the real translation (views/translation.mjs):
// which heads of a translation model's encoder self-attention, decoder
// self-attention and cross-attention are kept — a layer × head table of
// checkboxes for one group (or for the three at once), and presets (every
// head; head h of every layer only). It holds the masks; the translation
// view asks it for the head mask to translate with and for how many heads
// each group keeps.
import { el } from '../lib/dom.mjs';
import { t } from '../lib/i18n.mjs';
import { ATTENTION_GROUPS, groupDims, keepsAll, keptHeads, presetMask } from '../model/translation.mjs';

export class HeadSwitches {
  #config = null;
  #masks = null; // { encoder, decoder, cross }: [layers][heads] of 0/1

  /** @param {{ maskGroup: HTMLSelectElement, maskPreset: HTMLSelectElement, mask: HTMLElement }} elements */
  constructor(elements) {
    this.el = elements;
    elements.maskGroup.addEventListener('change', () => this.#draw());
    elements.maskPreset.addEventListener('change', () => this.#applyPreset());
    elements.mask.addEventListener('change', (event) => this.#toggle(event.target));
  }

  /** A translation model's config: every head of every group kept. */
  reset(config) {
    this.#config = config;
    this.#masks = Object.fromEntries(
      ATTENTION_GROUPS.map((group) => [group, presetMask(groupDims(config, group), 'all')]),
    );
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
    for (const group of ATTENTION_GROUPS) if (!keepsAll(this.#masks[group])) mask[group] = this.#masks[group];
    return Object.keys(mask).length ? mask : null;
  }

  /** How many heads each group keeps, of how many: [{ kept, all }] in ATTENTION_GROUPS' order. */
  kept() {
    return ATTENTION_GROUPS.map((group) => keptHeads(this.#masks[group]));
  }

  #dims(group) {
    return groupDims(this.#config, group);
  }

  // The groups the mask controls edit: one, or all three.
  #editing() {
    const group = this.el.maskGroup.value || 'all';
    return group === 'all' ? ATTENTION_GROUPS : [group];
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
    for (const group of this.#editing()) this.#masks[group] = presetMask(this.#dims(group), preset);
    this.#draw();
  }

  // The checkboxes of the group being edited (with 'all', those of the cross-attention stand for the three
  // when their sizes agree; else only the presets edit them).
  #draw() {
    if (!this.#config) return;
    const groups = this.#editing();
    const [first] = groups;
    const { layers, heads } = this.#dims(first);
    const same = groups.every((k) => {
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
        const on = groups.every((k) => this.#masks[k][l]?.[h] === 1);
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
    const counts = ATTENTION_GROUPS.map((g) => ({ group: g, ...keptHeads(this.#masks[g]) }));
    // Heads off in a group not on screen still go into the translation: said, not left unseen.
    const elsewhere = counts.filter((c) => !groups.includes(c.group) && c.kept < c.all);
    const warning = elsewhere.length
      ? [
          el('p', {
            className: 'help warning mt-mask-elsewhere',
            textContent: t('mt.heads.elsewhere', {
              groups: elsewhere.map((c) => t(`mt.group.${c.group}`)).join(t('list.join')),
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
          .map((c) => t('mt.heads.kept', { group: t(`mt.group.${c.group}`), kept: c.kept, all: c.all }))
          .join(t('list.join')),
      }),
    );
  }

  #toggle(box) {
    if (box?.type !== 'checkbox') return;
    const l = Number(box.dataset.layer);
    const h = Number(box.dataset.head);
    for (const group of this.#editing()) this.#masks[group][l][h] = box.checked ? 1 : 0;
    this.el.maskPreset.value = 'custom';
    this.#draw();
  }
}
