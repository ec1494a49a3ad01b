// From the article's heads to the trained ones: the designed role,
// dependency and long-distance heads (the engine's run of the encoder spec at
// the page's default sharpness) beside the heads that the median two-head
// seed learned, on the example sentence, as small maps; the learned ones
// named by where they look over the test set ("left", "right"), and the
// caption written from the run's numbers. Before the first finished
// experiment only the designed heads are there.
import { headColor } from '../lib/palette.mjs';
import { percent } from '../lib/format.mjs';
import { el } from '../lib/dom.mjs';
import { t } from '../lib/i18n.mjs';
import { headName, headTitle } from '../model/head-names.mjs';
import { settingLabel } from '../model/train-options.mjs';
import { EXAMPLE_DU, EXAMPLE_TOKENS } from '../model/train-data.mjs';
import { plainEntries, medianSeed, sideHeads, focusedHeads } from '../model/train-evidence.mjs';
import { headFocusText } from '../model/train-text.mjs';
import { splitsNeighbours } from '../model/train-stats.mjs';
import { miniMap } from './mini-map.mjs';

/** The designed heads the training task is set against, in the article's order. */
const DESIGNED = Object.freeze(['role', 'dependency', 'long-distance']);

export class TrainBridge {
  #designed = null;
  #learned = null;

  /** @param {HTMLElement} box the .train-bridge box: .bridge-designed, .bridge-learned, .bridge-caption inside */
  constructor(box) {
    const $ = (selector) => box.querySelector(selector);
    Object.assign(this, {
      designedBox: $('.bridge-designed'),
      learnedBox: $('.bridge-learned'),
      caption: $('.bridge-caption'),
    });
    this.relabel();
  }

  relabel() {
    this.#drawDesigned();
    this.#drawLearned();
  }

  /** The designed encoder heads, from a run of compute.mjs (runSpec of encoderSpec()). */
  showDesigned(run) {
    this.#designed = run;
    this.#drawDesigned();
  }

  /** No learned heads (a new experiment under way). */
  clearLearned() {
    this.#learned = null;
    this.#drawLearned();
  }

  /**
   * @param {object} progress runExperiment's finished progress
   * @param {object[]} summary summarize(progress)
   */
  update(progress, summary) {
    this.#learned = [progress, summary];
    this.#drawLearned();
  }

  #drawDesigned() {
    const run = this.#designed;
    if (!run) {
      this.designedBox.replaceChildren(el('p', { className: 'help', textContent: t('bridge.designedWaiting') }));
      return;
    }
    const maps = DESIGNED.map((name) => {
      const head = run.heads.find((h) => h.name === name);
      return miniMap({
        name,
        title: headTitle(name),
        caption: t(`bridge.designed.${name}`),
        color: headColor(name),
        weights: head.weights,
        tokens: run.queryTokens,
        marked: EXAMPLE_DU,
      });
    });
    this.designedBox.replaceChildren(...maps);
  }

  #drawLearned() {
    const entry = this.#learned && plainEntries(this.#learned[1]).find((s) => s.setting.numHeads === 2);
    if (!entry) {
      this.learnedBox.replaceChildren(el('p', { className: 'help', textContent: t('bridge.waiting') }));
      this.caption.textContent = '';
      return;
    }
    const [progress] = this.#learned;
    const seed = medianSeed(entry);
    const i = entry.seeds.indexOf(seed);
    const run = progress.runs.find((r) => r.setting.key === entry.setting.key && r.seed === seed);
    const neighbours = entry.neighbours[i];
    const heads = focusedHeads(neighbours);
    const sides = sideHeads(neighbours);
    const split = splitsNeighbours(neighbours);
    // Divided: the left head, then the right one; otherwise every head in its order, named by where it looks.
    const shown = split ? [heads[sides.left], heads[sides.right]] : heads;
    const maps = shown.map((h) =>
      miniMap({
        name: headName(h.index),
        title: t('bridge.learnedTitle', { focus: t(`bridge.focus.${h.focus}`), head: headTitle(headName(h.index)) }),
        caption: t('collapse.head', { focus: t(`focus.${h.focus}`), weight: h.weight.toFixed(2) }),
        color: headColor(headName(h.index), h.index),
        weights: run.example.heads[h.index],
        tokens: EXAMPLE_TOKENS,
        marked: EXAMPLE_DU,
      }),
    );
    this.learnedBox.replaceChildren(...maps);
    this.caption.textContent = t(split ? 'bridge.caption' : 'bridge.captionNotDivided', {
      setting: settingLabel(entry.setting),
      seed,
      n: entry.seeds.length,
      accuracy: percent(entry.accuracies[i]),
      heads: heads.map(headFocusText).join(t('list.join')),
    });
  }
}
