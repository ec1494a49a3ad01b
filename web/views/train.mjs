// "Train it yourself": the controls of the experiment (seeds, steps, 4 heads,
// MLP), the evidence as paired seeds (evidence-chart.mjs) with the runs
// whose heads collapsed (head-collapse.mjs), live loss and accuracy curves
// (curve-chart.mjs), the table of every run (runs-table.mjs), the text of what
// the runs showed, the learned heads of one run in the same heatmap and head
// view as the designed heads, and the median seed's heads beside the designed
// ones (train-bridge.mjs); above them, the grammar's rule table
// (rule-table.mjs). The experiment itself is model/train-runner.mjs; this view
// only starts and stops it and draws what it reports.
import d3 from '../lib/d3.mjs';
import { settingColor } from '../lib/palette.mjs';
import { percent, thousands, fixed } from '../lib/format.mjs';
import { t } from '../lib/i18n.mjs';
import {
  DEFAULT_OPTIONS,
  STEP_CHOICES,
  MAX_SEEDS,
  CHUNK_STEPS,
  EVAL_EVERY,
  settingsFor,
  settingLabel,
} from '../model/train-options.mjs';
import { buildData } from '../model/train-data.mjs';
import { runExperiment } from '../model/train-runner.mjs';
import { summarize } from '../model/train-stats.mjs';
import { describeResults } from '../model/train-text.mjs';
import { CurveChart } from './curve-chart.mjs';
import { EvidenceChart } from './evidence-chart.mjs';
import { HeadCollapse } from './head-collapse.mjs';
import { TrainBridge } from './train-bridge.mjs';
import { renderRuleNotes, renderRuleTable } from './rule-table.mjs';
import { runsTable } from './runs-table.mjs';
import { LearnedHeads } from './learned-heads.mjs';

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
  #settings = null;
  #reported = false;
  /** The status line's message and parameters, so that a change of language can write it again. */
  #status = ['train.status.waiting', {}];

  /**
   * @param {HTMLElement} section the #train section of index.html
   * @param {{ onError: (error: unknown) => void, onOptions?: (options: object) => void, options?: object,
   *   onSummary?: (summary: object[], experiment: { seeds: number, steps: number }) => void }} handlers
   *   options: the experiment's options to show first (DEFAULT_OPTIONS' fields); onOptions: called with them when
   *   the controls change; onSummary: called with the finished experiment's summary (train-stats.mjs), its seeds
   *   and steps
   */
  constructor(section, { onError, onOptions, onSummary, options = DEFAULT_OPTIONS }) {
    this.onError = onError;
    this.onSummary = onSummary;
    this.$ = (selector) => section.querySelector(selector);
    const $ = (selector) => section.querySelector(selector);
    this.el = {
      form: $('.train-controls'),
      seeds: $('#train-seeds'),
      steps: $('#train-steps'),
      fourHeads: $('#train-four'),
      mlp: $('#train-mlp'),
      start: $('#train-start'),
      work: $('#train-work'),
      status: $('#train-status'),
      legend: $('.train-legend'),
      text: $('.train-text'),
      runs: $('.train-runs'),
      setting: $('#train-setting'),
      seed: $('#train-seed'),
      heads: $('.train-heads'),
      headsCaption: $('.train-heads-caption'),
      chartsHelp: $('.train-charts-help'),
    };
    this.#writeChartsHelp();
    this.#watchRules(section);

    const { el } = this;
    el.seeds.max = String(MAX_SEEDS);
    el.seeds.value = String(options.seeds);
    el.steps.replaceChildren(...STEP_CHOICES.map((s) => new Option(thousands(s), String(s))));
    el.steps.value = String(options.steps);
    el.fourHeads.checked = options.fourHeads;
    el.mlp.checked = options.mlp;
    el.form.addEventListener('change', () => {
      const chosen = this.#options();
      onOptions?.(chosen);
      this.#showWork();
      // Until an experiment reports, the run choosers and the legend follow the controls.
      if (!this.#progress && !this.#controller) this.#fillChoosers(settingsFor(chosen), chosen.seeds);
    });
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
        label: 'chart.loss.label',
        caption: ['chart.loss.caption', { chunk: CHUNK_STEPS }],
        yLabel: 'chart.loss.y',
        log: true,
        format: fixed,
      }),
      accuracy: new CurveChart($('.train-accuracy'), {
        label: 'chart.accuracy.label',
        caption: ['chart.accuracy.caption', { every: EVAL_EVERY }],
        yLabel: 'chart.accuracy.y',
        format: percent,
      }),
    };
    this.evidence = new EvidenceChart($('.train-evidence'));
    this.collapse = new HeadCollapse($('.train-collapse'), { onShow: (key, seed) => this.#showRun(key, seed) });
    this.bridge = new TrainBridge($('.train-bridge'));
    // Before any training, the choosers already offer the runs that Train will make (none is empty).
    this.#fillChoosers(settingsFor(options), options.seeds);
    this.#showWork();
    this.learned = new LearnedHeads(
      { form: $('.train-head-view'), heads: $('.train-heads'), caption: $('.train-heads-caption') },
      { onChange: () => this.#schedule() },
    );
  }

  /** Beside Train: how many runs and training steps the controls ask for. */
  #showWork() {
    const { seeds, steps, fourHeads, mlp } = this.#options();
    const runs = settingsFor({ fourHeads, mlp }).length * seeds;
    this.el.work.textContent = t('train.work', { runs, steps: thousands(steps), total: thousands(runs * steps) });
  }

  /** Opens a run in the learned heads' view (the collapsed runs' buttons). */
  #showRun(key, seed) {
    const { setting, seed: seedChooser } = this.el;
    setting.value = key;
    seedChooser.value = String(seed);
    this.#schedule();
    setting.scrollIntoView({ block: 'start' });
    setting.focus({ preventScroll: true });
  }

  /**
   * Training can start. The trainer lives in its own build of the engine
   * (createAttention({ training: true })): it is loaded on the first Train, so
   * the page's first view loads only the inference build.
   * @param {() => Promise<object>} createEngine
   * @param {{ designed?: () => Promise<object> }} sources designed: the designed encoder heads' run (compute.mjs),
   *   which the bridge sets the learned heads beside
   */
  enable(createEngine, { designed } = {}) {
    this.#createEngine = createEngine;
    this.el.start.disabled = false;
    this.#setStatus('train.ready');
    designed?.()
      .then((run) => this.bridge.showDesigned(run))
      .catch(this.onError);
  }

  #setStatus(key, params = {}) {
    this.#status = [key, params];
    this.el.status.removeAttribute('data-i18n');
    this.el.status.textContent = t(key, params);
  }

  // The training corpus (buildData: about 0.2 s of a page's start-up here) is made when the section comes near the
  // viewport or an experiment starts, not while the page opens. The grammar's table is drawn at once; the numbers its
  // notes take from the data are '…' until then (data-stale): when they come, only the notes are written again.
  #dataset() {
    return (this.#data ??= buildData());
  }

  #watchRules(section) {
    renderRuleTable(this.$('.train-rules'));
    this.#renderRuleNotes();
    const observer = new IntersectionObserver(
      (entries) => {
        if (!entries.some((entry) => entry.isIntersecting)) return;
        observer.disconnect();
        this.#dataset();
        this.#renderRuleNotes();
      },
      { rootMargin: '400px 0px' },
    );
    observer.observe(section);
  }

  #renderRuleNotes() {
    const $ = this.$;
    renderRuleNotes({ note: $('.train-rules-note'), dataNote: $('.train-data-note') }, this.#data ?? null);
    if (this.#data) delete $('.train-rules').dataset.stale;
    else $('.train-rules').dataset.stale = 'true';
  }

  /** Writes everything the view wrote again, in the page's (new) language. */
  relabel() {
    renderRuleTable(this.$('.train-rules'));
    this.#renderRuleNotes();
    this.charts.loss.relabel();
    this.charts.accuracy.relabel();
    this.#writeChartsHelp(this.#progress ? [...new Set(this.#progress.runs.map((r) => r.setting))] : []);
    this.evidence.relabel();
    this.collapse.relabel();
    this.bridge.relabel();
    this.#showWork();
    const [key, params] = this.#status;
    this.el.status.textContent = t(key, params);
    this.el.start.textContent = t(this.#controller ? 'train.stop' : 'train.start');
    for (const option of this.el.setting.options) {
      const setting = this.#settings?.find((s) => s.key === option.value);
      if (setting) option.text = settingLabel(setting);
    }
    d3.select(this.el.legend)
      .selectAll('li span')
      .text((s) => settingLabel(s));
    this.learned.relabel();
    this.#schedule();
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
    this.#reported = false;
    this.#prepare(settings, seeds);
    this.evidence.pending(true);
    this.collapse.clear();
    this.bridge.clearLearned();
    el.start.textContent = t('train.stop');
    // The status changes several times a second while training: busy holds a screen reader's announcement until
    // the end.
    el.status.setAttribute('aria-busy', 'true');
    this.#running = (async () => {
      if (!this.#engine) {
        this.#setStatus('train.loading');
        this.#engine = await this.#createEngine();
      }
      if (controller.signal.aborted) return;
      this.#setStatus('train.starting', { n: settings.length * seeds });
      this.#startedAt = performance.now();
      await runExperiment(this.#engine, {
        settings,
        seeds,
        steps,
        data: this.#dataset(),
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
        el.start.textContent = t('train.start');
        el.status.removeAttribute('aria-busy');
        if (!this.#progress) this.#setStatus('train.stoppedBeforeFirst');
        if (!this.#progress?.done) this.evidence.pending(false);
        this.#schedule();
      });
    await this.#running;
  }

  /** New choosers and legend, and no text yet, for a new experiment. */
  #prepare(settings, seeds) {
    this.#fillChoosers(settings, seeds);
    this.el.text.replaceChildren();
  }

  /** The run choosers (setting, seed) and the charts' legend for these settings and seeds, keeping the choice. */
  #fillChoosers(settings, seeds) {
    const { el } = this;
    this.#settings = settings;
    const keep = el.setting.value;
    el.setting.replaceChildren(...settings.map((s) => new Option(settingLabel(s), s.key)));
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
        li.append('span').text((s) => settingLabel(s));
        return li;
      });
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
    this.#writeChartsHelp(settings);
    this.#renderStatus(progress);
    this.el.runs.replaceChildren(runsTable(progress, settings));
    this.#renderText(progress);
    const { setting, seed } = this.el;
    this.learned.update(progress.runs.find((r) => r.setting.key === setting.value && r.seed === Number(seed.value)));
  }

  // What the curves' lines are: the dashed MLP lines named only when an MLP was trained.
  #writeChartsHelp(settings = []) {
    const mlp = settings.some((s) => s.mlpHidden > 0);
    this.el.chartsHelp.textContent = t(mlp ? 'train.chartsHelp.mlp' : 'train.chartsHelp');
  }

  #renderStatus(progress) {
    const { runs, steps } = progress;
    const engine = this.#engine;
    const rate = Number.isFinite(progress.stepsPerSecond)
      ? t('train.rate', {
          rate: thousands(Math.round(progress.stepsPerSecond)),
          variant: engine.variant,
          threads: t('status.threads', { n: engine.threads }),
          steps: thousands(steps),
          seconds: fixed(steps / progress.stepsPerSecond, 1),
        })
      : '';
    const running = this.#controller !== null;
    const step = thousands(runs.at(-1).step);
    const seconds = fixed((this.#finishedAt - this.#startedAt) / 1000, 1);
    // Time left at the pace so far, evaluations included (the first report, at step 0, has no pace yet).
    const elapsed = (performance.now() - this.#startedAt) / 1000;
    const left =
      progress.stepsDone > 0
        ? t('train.left', {
            seconds: Math.ceil((elapsed / progress.stepsDone) * (progress.totalSteps - progress.stepsDone)),
          })
        : '';
    const [key, params] = running
      ? ['train.running', { runs: runs.length, step, steps: thousands(steps), left }]
      : progress.done
        ? ['train.done', { runs: runs.length, steps: thousands(steps), seconds }]
        : ['train.stoppedAt', { step, steps: thousands(steps) }];
    this.#status = [key, params];
    this.el.status.textContent = t(key, params) + rate;
  }

  #renderText(progress) {
    const summary = summarize(progress);
    const paragraphs = describeResults(summary, {
      steps: progress.steps,
      testSentences: this.#dataset().test.length,
      testDu: this.#dataset().testDu.length,
      neighbours: this.#dataset().neighbours,
    });
    const note = progress.done ? [] : [t(this.#controller ? 'train.text.pending' : 'train.text.stopped')];
    d3.select(this.el.text)
      .selectAll('p')
      .data(progress.done ? paragraphs : note)
      .join('p')
      .attr('data-i18n', null)
      .text((d) => d);
    if (progress.done && !this.#reported) {
      this.#reported = true;
      const { neighbours } = this.#dataset();
      this.evidence.update(summary, { ceiling: Math.max(neighbours.left, neighbours.right) });
      this.collapse.update(progress, summary);
      this.bridge.update(progress, summary);
      this.onSummary?.(summary, { seeds: Math.max(...progress.runs.map((r) => r.seed)), steps: progress.steps });
    }
  }
}
