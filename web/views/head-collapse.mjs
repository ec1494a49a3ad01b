// Where a seed lost a head: every run of several heads whose heads did not
// divide the two neighbours between them (model/train-evidence.mjs
// collapsedSeeds), shown rather than left out: its heads on the example
// sentence as small maps, where each looks over the test set, and a button
// that opens the run in the learned heads' full view. The box (and the
// markup's explanation of head collapse in it) stays hidden while the
// experiment has no such run.
import { headColor } from '../lib/palette.mjs';
import { percent } from '../lib/format.mjs';
import { el } from '../lib/dom.mjs';
import { t } from '../lib/i18n.mjs';
import { headName, headTitle } from '../model/head-names.mjs';
import { settingLabel } from '../model/train-options.mjs';
import { EXAMPLE_DU, EXAMPLE_TOKENS } from '../model/train-data.mjs';
import { plainEntries, collapsedSeeds } from '../model/train-evidence.mjs';
import { headFocusText } from '../model/train-text.mjs';
import { miniMap } from './mini-map.mjs';

export class HeadCollapse {
  /** The progress and summary shown (null: none), for relabel(). */
  #shown = null;

  /**
   * @param {HTMLElement} box the .train-collapse box, with a .collapse-runs list inside
   * @param {{ onShow: (settingKey: string, seed: number) => void }} handlers onShow: open that run below
   */
  constructor(box, { onShow }) {
    Object.assign(this, { box, onShow, list: box.querySelector('.collapse-runs') });
    this.clear();
  }

  clear() {
    this.#shown = null;
    this.box.hidden = true;
    this.list.replaceChildren();
  }

  relabel() {
    if (this.#shown) this.update(...this.#shown);
  }

  /**
   * @param {object} progress runExperiment's finished progress (its runs hold the example's attention)
   * @param {object[]} summary summarize(progress)
   */
  update(progress, summary) {
    this.#shown = [progress, summary];
    const groups = plainEntries(summary).flatMap((entry) =>
      collapsedSeeds(entry).seeds.map((c) => {
        const run = progress.runs.find((r) => r.setting.key === entry.setting.key && r.seed === c.seed);
        const maps = c.heads.map((h) =>
          miniMap({
            name: headName(h.index),
            title: headTitle(headName(h.index)),
            caption: t('collapse.head', { focus: t(`focus.${h.focus}`), weight: h.weight.toFixed(2) }),
            color: headColor(headName(h.index), h.index),
            weights: run.example.heads[h.index],
            tokens: EXAMPLE_TOKENS,
            marked: EXAMPLE_DU,
          }),
        );
        const show = el('button', {
          type: 'button',
          textContent: t('collapse.show', { setting: settingLabel(entry.setting), seed: c.seed }),
        });
        show.addEventListener('click', () => this.onShow(entry.setting.key, c.seed));
        const caption = t('collapse.caption', {
          setting: settingLabel(entry.setting),
          seed: c.seed,
          accuracy: percent(c.accuracy),
          heads: c.heads.map(headFocusText).join(t('list.join')),
        });
        const group = el(
          'div',
          { className: 'collapse-run' },
          el('p', { className: 'readout', textContent: caption }),
          el('div', { className: 'mini-maps' }, ...maps),
          show,
        );
        group.dataset.setting = entry.setting.key;
        group.dataset.seed = String(c.seed);
        return group;
      }),
    );
    this.list.replaceChildren(...groups);
    this.box.hidden = groups.length === 0;
  }
}
