// "Train it yourself": the controls of the experiment (seeds, steps, 4 heads,
// MLP), live loss and accuracy curves (curve-chart.mjs), the table of every
// run (runs-table.mjs), the text of what the runs showed, and the learned
// heads of one run in the same heatmap and head view as the designed heads;
// above them, the grammar's rule table (rule-table.mjs). The experiment itself
// is model/train-runner.mjs; this view only starts and stops it and draws what
// it reports.
import d3 from '../lib/d3.mjs';
import { headColor, settingColor } from '../lib/palette.mjs';
import { fillNumbers } from '../lib/dom.mjs';
import { percent, plural, thousands } from '../lib/format.mjs';
import { toggledLock } from '../lib/hover-lock.mjs';
import { tokenName } from '../lib/tokens.mjs';
import { rowTops } from '../model/stats.mjs';
import { headName, headTitle } from '../model/head-names.mjs';
import { neighbourRings } from '../model/rings.mjs';
import {
  D_MODEL,
  MLP_HIDDEN,
  DEFAULT_OPTIONS,
  STEP_CHOICES,
  MAX_SEEDS,
  CHUNK_STEPS,
  EVAL_EVERY,
  settingsFor,
} from '../model/train-options.mjs';
import { buildData, EXAMPLE_DU, EXAMPLE_TOKENS } from '../model/train-data.mjs';
import { runExperiment } from '../model/train-runner.mjs';
import { summarize } from '../model/train-stats.mjs';
import { describeResults } from '../model/train-text.mjs';
import { CurveChart } from './curve-chart.mjs';
import { renderRules } from './rule-table.mjs';
import { runsTable } from './runs-table.mjs';
import { Heatmap } from './heatmap.mjs';
import { HeadView } from './head-view.mjs';

export class TrainView {
  #createEngine = null;
  #engine = null;
  #data;
  #controller = null;
  #running = Promise.resolve();
  #progress = null;
  #startedAt = 0;
  #finishedAt = 0;
  #frame = 0;
  #maps = [];
  #mapsKey = '';
  /** The learned head view's own state (not in the URL): as the page's head view, but for the chosen run. */
  #headState = { lock: null, lines: null, layout: 'rows' };

  /**
   * @param {HTMLElement} section the #train section of index.html
   * @param {{ onError: (error: unknown) => void, onOptions?: (options: object) => void, options?: object }} handlers
   *   options: the experiment's options to show first (DEFAULT_OPTIONS' fields); onOptions: called with them when
   *   the controls change
   */
  constructor(section, { onError, onOptions, options = DEFAULT_OPTIONS }) {
    this.onError = onError;
    const $ = (selector) => section.querySelector(selector);
    this.el = {
      form: $('.train-controls'),
      seeds: $('#train-seeds'),
      steps: $('#train-steps'),
      fourHeads: $('#train-four'),
      mlp: $('#train-mlp'),
      start: $('#train-start'),
      status: $('#train-status'),
      legend: $('.train-legend'),
      text: $('.train-text'),
      runs: $('.train-runs'),
      setting: $('#train-setting'),
      seed: $('#train-seed'),
      heads: $('.train-heads'),
      headsCaption: $('.train-heads-caption'),
    };
    fillNumbers(section, {
      'train-width': D_MODEL,
      'train-width-2': D_MODEL / 2,
      'train-width-4': D_MODEL / 4,
      'mlp-hidden': MLP_HIDDEN,
    });
    this.#data = buildData();
    renderRules(
      { table: $('.train-rules'), note: $('.train-rules-note'), dataNote: $('.train-data-note') },
      this.#data,
    );

    const { el } = this;
    el.seeds.max = String(MAX_SEEDS);
    el.seeds.value = String(options.seeds);
    el.steps.replaceChildren(...STEP_CHOICES.map((s) => new Option(thousands(s), String(s))));
    el.steps.value = String(options.steps);
    el.fourHeads.checked = options.fourHeads;
    el.mlp.checked = options.mlp;
    el.form.addEventListener('change', () => onOptions?.(this.#options()));
    el.start.disabled = true;
    el.form.addEventListener('submit', (e) => {
      e.preventDefault();
      if (this.#controller) this.#controller.abort();
      else this.#start().catch(onError);
    });
    el.setting.addEventListener('change', () => this.#schedule());
    el.seed.addEventListener('change', () => this.#schedule());

    this.charts = {
      loss: new CurveChart($('.train-loss'), {
        label: 'Training loss',
        caption: `Training loss (each batch's cross-entropy, averaged over ${CHUNK_STEPS} steps)`,
        yLabel: 'loss (log scale)',
        log: true,
        format: (v) => v.toFixed(3),
      }),
      accuracy: new CurveChart($('.train-accuracy'), {
        label: 'Held-out 毒 accuracy',
        caption: `Accuracy on the held-out sentences' 毒 (every ${EVAL_EVERY} steps)`,
        yLabel: '毒 right',
        format: percent,
      }),
    };
    this.headView = new HeadView(
      $('.train-head-view'),
      {
        onLock: (lock) => this.#setHeadState({ lock }),
        onLines: (lines) => this.#setHeadState({ lines }),
        onLayout: (layout) => this.#setHeadState({ layout }),
      },
      { exportLabel: 'Export the learned head view' },
    );
  }

  /**
   * Training can start. The trainer lives in its own build of the engine
   * (createAttention({ training: true })): it is loaded on the first Train, so
   * the page's first view loads only the inference build.
   * @param {() => Promise<object>} createEngine
   */
  enable(createEngine) {
    this.#createEngine = createEngine;
    this.el.start.disabled = false;
    this.el.status.textContent =
      'Ready. The first Train loads the engine’s build with the trainer; everything then trains here, in your browser.';
  }

  /** The controls' options, the seed count clamped to 1 … MAX_SEEDS. */
  #options() {
    const { el } = this;
    const seeds = Math.min(MAX_SEEDS, Math.max(1, Math.round(Number(el.seeds.value)) || DEFAULT_OPTIONS.seeds));
    return { seeds, steps: Number(el.steps.value), fourHeads: el.fourHeads.checked, mlp: el.mlp.checked };
  }

  /**
   * Starts an experiment with the controls' options; a run under way is
   * stopped first (its trainers are freed as it ends).
   */
  async #start() {
    this.#controller?.abort();
    await this.#running;
    const { el } = this;
    const { seeds, steps, fourHeads, mlp } = this.#options();
    el.seeds.value = String(seeds);
    const settings = settingsFor({ fourHeads, mlp });
    const controller = new AbortController();
    this.#controller = controller;
    this.#progress = null;
    this.#prepare(settings, seeds);
    el.start.textContent = 'Stop';
    // The status changes several times a second while training: busy holds a screen reader's announcement until
    // the end.
    el.status.setAttribute('aria-busy', 'true');
    this.#running = (async () => {
      if (!this.#engine) {
        el.status.textContent = 'Loading the engine’s build with the trainer…';
        this.#engine = await this.#createEngine();
      }
      if (controller.signal.aborted) return;
      el.status.textContent = `Starting ${plural(settings.length * seeds, 'run')}…`;
      this.#startedAt = performance.now();
      await runExperiment(this.#engine, {
        settings,
        seeds,
        steps,
        data: this.#data,
        signal: controller.signal,
        onProgress: (progress) => {
          this.#progress = progress;
          this.#schedule();
        },
      });
    })()
      .catch((error) => {
        if (error?.name !== 'AbortError') this.onError(error);
      })
      .finally(() => {
        this.#finishedAt = performance.now();
        this.#controller = null;
        el.start.textContent = 'Train';
        el.status.removeAttribute('aria-busy');
        if (!this.#progress) el.status.textContent = 'Stopped before the first step.';
        this.#schedule();
      });
    await this.#running;
  }

  /** New choosers and an empty legend for a new experiment. */
  #prepare(settings, seeds) {
    const { el } = this;
    const keep = el.setting.value;
    el.setting.replaceChildren(...settings.map((s) => new Option(s.label, s.key)));
    if (settings.some((s) => s.key === keep)) el.setting.value = keep;
    const keepSeed = Math.min(Number(el.seed.value) || 1, seeds);
    el.seed.replaceChildren(...d3.range(1, seeds + 1).map((s) => new Option(String(s))));
    el.seed.value = String(keepSeed);
    d3.select(el.legend)
      .selectAll('li')
      .data(settings, (s) => s.key)
      .join((enter) => {
        const li = enter.append('li');
        li.append('svg')
          .attr('width', 28)
          .attr('height', 10)
          .attr('aria-hidden', 'true')
          .append('line')
          .attr('x1', 1)
          .attr('x2', 27)
          .attr('y1', 5)
          .attr('y2', 5)
          .attr('stroke-width', 2.6)
          .attr('stroke', (s) => settingColor(s.numHeads))
          .attr('stroke-dasharray', (s) => (s.mlpHidden ? '5 3' : null));
        li.append('span').text((s) => s.label);
        return li;
      });
    el.text.replaceChildren();
  }

  /** Redraws on the next frame; progress reports that come faster are folded into it. */
  #schedule() {
    if (this.#frame) return;
    this.#frame = requestAnimationFrame(() => {
      this.#frame = 0;
      this.#render();
    });
  }

  #render() {
    const progress = this.#progress;
    if (!progress) return;
    const settings = [...new Map(progress.runs.map((r) => [r.setting.key, r.setting])).values()];
    const series = (pick) =>
      settings.map((setting) => ({
        setting,
        seeds: progress.runs.filter((r) => r.setting === setting).map((r) => ({ seed: r.seed, points: pick(r) })),
      }));
    this.charts.loss.update(
      progress.steps,
      series((r) => r.loss),
    );
    this.charts.accuracy.update(
      progress.steps,
      series((r) => r.accuracy),
    );
    this.#renderStatus(progress);
    this.el.runs.replaceChildren(runsTable(progress, settings));
    this.#renderText(progress);
    this.#renderHeads(progress);
  }

  #renderStatus(progress) {
    const { runs, steps } = progress;
    const engine = this.#engine;
    const rate = Number.isFinite(progress.stepsPerSecond)
      ? ` · ${thousands(Math.round(progress.stepsPerSecond))} steps/s of training on ${engine.variant} with ` +
        `${plural(engine.threads, 'thread')}: one run of ${thousands(steps)} steps takes ` +
        `${(steps / progress.stepsPerSecond).toFixed(1)} s`
      : '';
    const running = this.#controller !== null;
    const step = runs.at(-1).step;
    const seconds = ((this.#finishedAt - this.#startedAt) / 1000).toFixed(1);
    const what = running
      ? `Training ${plural(runs.length, 'run')} side by side: step ${thousands(step)} of ${thousands(steps)}`
      : progress.done
        ? `Done: ${plural(runs.length, 'run')} × ${thousands(steps)} steps in ${seconds} s, evaluations included`
        : `Stopped at step ${thousands(step)} of ${thousands(steps)}`;
    this.el.status.textContent = what + rate;
  }

  #renderText(progress) {
    const summary = summarize(progress);
    const paragraphs = describeResults(summary, {
      steps: progress.steps,
      testSentences: this.#data.test.length,
      testDu: this.#data.testDu.length,
      neighbours: this.#data.neighbours,
    });
    const note = progress.done
      ? []
      : [
          this.#controller
            ? 'What the runs showed appears here when they finish.'
            : 'Stopped before the end: no result to report. Train again to finish a run.',
        ];
    d3.select(this.el.text)
      .selectAll('p')
      .data(progress.done ? paragraphs : note)
      .join('p')
      .text((d) => d);
  }

  /** The chosen run's heads on the example sentence, as heatmaps and in the head view. */
  #renderHeads(progress) {
    const { el } = this;
    const run = progress.runs.find((r) => r.setting.key === el.setting.value && r.seed === Number(el.seed.value));
    if (!run?.example) return;
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
            queryTokens: EXAMPLE_TOKENS,
            keyTokens: EXAMPLE_TOKENS,
            onSelect: (q) =>
              this.#setHeadState({ lock: toggledLock(this.#headState.lock, { side: 'query', index: q }) }),
          }),
      );
      el.heads.replaceChildren(...this.#maps.map((m) => m.element));
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
        `Learned, at step ${thousands(run.step)}.` +
        (looks
          ? ` Over the test set's 毒: ${looks.left.toFixed(2)} on the left neighbour, ` +
            `${looks.right.toFixed(2)} on the right.`
          : '');
    });
    const du = run.example.du.map(
      (d) => `${tokenName(EXAMPLE_TOKENS[d.position])} ${d.got}${d.right ? ' ✓' : ` ✗ (${d.want})`}`,
    );
    el.headsCaption.textContent =
      `${run.setting.label}, seed ${run.seed}, at step ${thousands(run.step)}: the example sentence, which it never ` +
      `trained on, through this run's model. Its 毒: ${du.join(', ')}.`;
    this.headView.update(
      {
        mode: 'trained',
        rows: n,
        cols: n,
        queryTokens: EXAMPLE_TOKENS,
        keyTokens: EXAMPLE_TOKENS,
        heads: run.example.heads.map((weights, h) => ({ name: headName(h), index: h, weights })),
        single: null,
      },
      this.#headState,
    );
  }

  #setHeadState(patch) {
    Object.assign(this.#headState, patch);
    this.#schedule();
  }
}
