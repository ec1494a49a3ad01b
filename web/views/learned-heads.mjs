// "Train it yourself": one run's learned heads on the example sentence, as
// heatmaps (rings on each 毒's two neighbours, the pair that decides its
// role) and in a head view of their own, with the run's result for each 毒.
// Its lock, lines and layout are its own state, not the page's URL.
import { headColor } from '../lib/palette.mjs';
import { thousands, fixed } from '../lib/format.mjs';
import { t } from '../lib/i18n.mjs';
import { toggledLock } from '../lib/hover-lock.mjs';
import { tokenName } from '../lib/tokens.mjs';
import { rowTops } from '../model/stats.mjs';
import { headName, headTitle } from '../model/head-names.mjs';
import { neighbourRings } from '../model/rings.mjs';
import { settingLabel } from '../model/train-options.mjs';
import { EXAMPLE_DU, EXAMPLE_TOKENS } from '../model/train-data.mjs';
import { heldOut } from '../model/corpus.mjs';
import { Heatmap } from './heatmap.mjs';
import { HeadView } from './head-view.mjs';

/** The example's tokens with their titles in the page's language. */
const exampleTokens = () =>
  EXAMPLE_TOKENS.map((u) => ({
    ...u,
    title:
      heldOut.tags[u.index] === 'other'
        ? t('train.token.other')
        : t('train.token.du', { tag: t(`tag.${heldOut.tags[u.index]}`) }),
  }));

export class LearnedHeads {
  #maps = [];
  #mapsKey = '';
  /** Whether a run has been shown (until then the caption says there is none yet). */
  #shown = false;
  /** As the page's head view's state, but for the chosen run. */
  #headState = { lock: null, lines: null, layout: 'rows' };

  /**
   * @param {{ form: HTMLElement, heads: HTMLElement, caption: HTMLElement }} boxes
   * @param {{ onChange: () => void }} handlers onChange: the view's own state changed (the owner redraws)
   */
  constructor({ form, heads, caption }, { onChange }) {
    Object.assign(this, { heads, caption, onChange });
    this.headView = new HeadView(
      form,
      {
        onLock: (lock) => this.#setHeadState({ lock }),
        onLines: (lines) => this.#setHeadState({ lines }),
        onLayout: (layout) => this.#setHeadState({ layout }),
      },
      { exportLabel: 'headView.exportLearned', layout: this.#headState.layout },
    );
    this.relabel();
  }

  /** The heatmaps are built again on the next update, in the page's (new) language. */
  relabel() {
    this.#mapsKey = '';
    if (!this.#shown) this.caption.textContent = t('train.heads.none');
  }

  /** A run's heads on the example sentence, as heatmaps and in the head view (nothing before its first evaluation). */
  update(run) {
    if (!run?.example) return;
    this.#shown = true;
    const key = `${run.setting.key}/${run.seed}`;
    if (key !== this.#mapsKey) {
      this.#mapsKey = key;
      this.#headState = { ...this.#headState, lock: null, lines: null };
      this.#maps = run.example.heads.map(
        (_, h) =>
          new Heatmap({
            name: headName(h),
            title: headTitle(headName(h)),
            description: '',
            color: headColor(headName(h), h), // the head's hue in the head view too
            queryTokens: exampleTokens(),
            keyTokens: exampleTokens(),
            onSelect: (q) =>
              this.#setHeadState({ lock: toggledLock(this.#headState.lock, { side: 'query', index: q }) }),
          }),
      );
      this.heads.replaceChildren(...this.#maps.map((m) => m.element));
    }
    const n = EXAMPLE_TOKENS.length;
    const lockedQuery = this.#headState.lock?.side === 'query' ? this.#headState.lock.index : null;
    run.example.heads.forEach((weights, h) => {
      const map = this.#maps[h];
      // Rings on each 毒's two neighbours, the pair that decides its role.
      map.update(weights, { rings: neighbourRings(rowTops(weights, n, n), EXAMPLE_DU) });
      map.markRow(lockedQuery);
      const looks = run.neighbours?.[h];
      map.element.querySelector('figcaption').textContent =
        t('train.heads.learned', { step: thousands(run.step) }) +
        (looks ? t('train.heads.looks', { left: fixed(looks.left, 2), right: fixed(looks.right, 2) }) : '');
    });
    const du = run.example.du.map((d) =>
      t('train.heads.du', {
        token: tokenName(EXAMPLE_TOKENS[d.position]),
        got: t(`tag.${d.got}`),
        mark: d.right ? ' ✓' : t('train.heads.wrong', { want: t(`tag.${d.want}`) }),
      }),
    );
    this.caption.textContent = t('train.heads.caption', {
      setting: settingLabel(run.setting),
      seed: run.seed,
      step: thousands(run.step),
      list: du.join(t('list.join')),
    });
    this.headView.update(
      {
        mode: 'trained',
        rows: n,
        cols: n,
        queryTokens: exampleTokens(),
        keyTokens: exampleTokens(),
        heads: run.example.heads.map((weights, h) => ({ name: headName(h), index: h, weights })),
        single: null,
      },
      this.#headState,
    );
  }

  #setHeadState(patch) {
    Object.assign(this.#headState, patch);
    this.onChange();
  }
}
