// The real-model view's tools for the chosen head, the ones the designed heads
// have: its layer's head view (views/head-view.mjs), its neuron view on the
// model's own queries and keys (views/neuron-view.mjs on model/real-article.mjs's
// neuronRun), the special tokens hidden from its pictures and exports, and
// the export of its numbers (CSV, JSON: the engine's float32 weights in full)
// and of its map (PNG). views/real-model.mjs owns the run and the choice of head.
import { fixed } from '../lib/format.mjs';
import { t } from '../lib/i18n.mjs';
import { downloadPng, downloadText } from '../lib/download.mjs';
import { layerRun, neuronRun } from '../model/real-article.mjs';
import { headCsv, headJson } from '../model/export-data.mjs';
import { headName } from '../model/head-names.mjs';
import { HeadView } from './head-view.mjs';
import { NeuronView } from './neuron-view.mjs';

export class HeadTools {
  #run = null;
  #head = null;
  /** The head view's state: the heads drawn (null: the chosen one), a locked token, the layout. */
  #lines = { lines: null, lock: null, layout: 'rows' };
  /** The neuron view's query–key pair (null: the view's default). */
  #pair = null;
  #hideSpecial = false;
  /** neuronRun of the chosen head's layer, kept while the run and layer stay (its scores are L² · numHeads · dK). */
  #neuronRun = null;
  #headView;
  #neuron;

  /**
   * @param {HTMLElement} section the #real-model section
   * @param {{ onChoose: (head: { layer: number, head: number }) => void, onHide: () => void,
   *   onLock: (query: number | null) => void, heatmapSvg: () => SVGSVGElement | null,
   *   about: () => { model: string, variant: string } }} hooks
   *   onChoose: the neuron view's head menu chose a head; onHide: the special tokens were hidden or shown
   *   (the chosen head's map is drawn again); onLock: a token locked in the head view (its row marked in the
   *   map); heatmapSvg: the map, for PNG; about: the model's type and the engine's build, for the files
   */
  constructor(section, hooks) {
    const $ = (selector) => section.querySelector(selector);
    this.hooks = hooks;
    this.el = {
      hideSpecial: $('#real-hide-special'),
      hiddenNote: $('.real-hidden-note'),
      headViewTitle: $('.real-head-view-title'),
      neuronTitle: $('.real-neuron-title'),
    };
    this.#headView = new HeadView(
      $('.real-head-view'),
      {
        onLock: (lock) => {
          this.#lines.lock = lock;
          hooks.onLock(lock?.side === 'query' ? lock.index : null);
          this.#drawLines();
        },
        onLines: (lines) => {
          this.#lines.lines = lines;
          this.#drawLines();
        },
        onLayout: (layout) => {
          this.#lines.layout = layout;
          this.#drawLines();
        },
      },
      { exportLabel: 'real.headView.export', layout: this.#lines.layout },
    );
    this.#neuron = new NeuronView($('.real-neuron'), {
      onHead: (name) => hooks.onChoose({ layer: this.#head.layer, head: Number(name.replace(/^head-/, '')) }),
      onPair: (pair) => {
        this.#pair = pair;
        this.#drawNeuron();
      },
    });
    this.el.hideSpecial.addEventListener('change', () => {
      this.#hideSpecial = this.el.hideSpecial.checked;
      this.#lines.lock = null;
      hooks.onHide();
      this.#drawLines();
    });
    for (const format of ['csv', 'json', 'png'])
      $(`#real-export-${format}`).addEventListener('click', () => this.#export(format));
  }

  /** A new model: nothing of the previous one's choices stays. */
  reset() {
    this.#run = null;
    this.#neuronRun = null;
    this.#lines = { ...this.#lines, lines: null, lock: null };
    this.#pair = null;
  }

  /** The chosen head's layer as the map, the lines and the export show it: all tokens, or all but the special ones. */
  layerView(run, layer) {
    return layerRun(run, layer, { hideSpecial: this.#hideSpecial });
  }

  /**
   * Draws the tools for `head` of `run` (a new run, a new head, or the same again in a new language).
   * Another head starts the lines and the neuron view's pair afresh.
   */
  draw(run, head) {
    if (this.#head && (head.layer !== this.#head.layer || head.head !== this.#head.head)) {
      this.#lines = { ...this.#lines, lines: null, lock: null };
      this.#pair = null;
    }
    if (run !== this.#run || head.layer !== this.#head?.layer) this.#neuronRun = null;
    this.#run = run;
    this.#head = head;
    // Nothing to hide in a sentence without special tokens (GPT-2's).
    this.el.hideSpecial.disabled = !Array.from(run.special).some(Boolean);
    this.#drawLines();
    this.#drawNeuron();
  }

  /** The head view of the chosen head's layer, its lines drawn (the other heads a checkbox away). */
  #drawLines() {
    const run = this.#run;
    const head = this.#head;
    if (!run) return;
    const view = this.layerView(run, head.layer);
    this.el.headViewTitle.textContent = t('real.headView.title', { layer: head.layer });
    this.#lines.lines ??= [headName(head.head)];
    this.#headView.update(view, this.#lines);
    const note = this.el.hiddenNote;
    note.hidden = !this.#hideSpecial;
    if (this.#hideSpecial) note.textContent = t('real.hideSpecial.note', { hidden: fixed(view.hiddenWeight) });
  }

  /** The neuron view of the chosen head: q, k, q⊙k and q·k for its query–key pair. */
  #drawNeuron() {
    const run = this.#run;
    const head = this.#head;
    if (!run) return;
    this.el.neuronTitle.textContent = t('real.neuron.title', head);
    this.#neuronRun ??= neuronRun(run, head.layer) ?? {};
    this.#neuron.update(this.#neuronRun, { head: headName(head.head), pair: this.#pair });
  }

  #export(format) {
    const run = this.#run;
    const head = this.#head;
    if (!run) return;
    const view = this.layerView(run, head.layer);
    const { model, variant } = this.hooks.about();
    const file = `mha-${model}-layer-${head.layer}-head-${head.head}${this.#hideSpecial ? '-no-special' : ''}.${format}`;
    const name = headName(head.head);
    if (format === 'csv') downloadText(headCsv(view, name, { corner: t('export.corner') }), file, 'text/csv');
    else if (format === 'json') {
      const about = { model, layer: head.layer, headIndex: head.head, specialHidden: this.#hideSpecial, variant };
      downloadText(headJson(view, name, about), file, 'application/json');
    } else {
      const svg = this.hooks.heatmapSvg();
      if (svg) downloadPng(svg, file);
    }
  }
}
