// "Train it yourself": the rule table of the toy grammar, the controls of the
// experiment (seeds, steps, 4 heads, MLP), live loss and accuracy curves with
// every seed's line, a table of every run (accuracy, each 毒 of the example
// sentence, where its heads look), the text of what the runs showed, and the
// learned heads of one run in the same heatmap and head view as the designed
// heads. The experiment itself is model/train-experiment.mjs; this view only
// starts and stops it and draws what it reports.
import d3 from '../lib/d3.mjs';
import { UI_FONTS, tokenName } from '../lib/tokens.mjs';
import { headColor } from '../lib/colors.mjs';
import { heldOut } from '../model/corpus.mjs';
import { rowTops } from '../model/stats.mjs';
import {
  buildData, settingsFor, runExperiment, summarize, describeResults, percent, percentMeanSd, ruleGrid, duPositions,
  DEFAULT_OPTIONS, STEP_CHOICES, MAX_SEEDS, TRAIN_CORPUS, CHUNK_STEPS, EVAL_EVERY,
} from '../model/train-experiment.mjs';
import { Heatmap } from './heatmap.mjs';
import { HeadView } from './head-view.mjs';
import { headTitle } from './heads-grid.mjs';

// One hue per head count (Okabe & Ito's, as lib/colors.mjs: purple is the
// single head's there too); the MLP variant of a setting is drawn dashed.
const SETTING_COLORS = { 1: '#CC79A7', 2: '#0072B2', 4: '#009E73' };
const settingColor = (setting) => SETTING_COLORS[setting.numHeads];

const EXAMPLE_TOKENS = heldOut.tokens.map((text, index) => ({
  text,
  index,
  lang: 'zh-Hans',
  title: heldOut.tags[index] === 'other' ? 'not a 毒' : `${heldOut.tags[index]} (by the rule table)`,
}));
const EXAMPLE_DU = duPositions(heldOut.tokens);
/** A context class as the rule table shows it ('du' is 毒 itself). */
const className = (c) => (c === 'du' ? '毒' : c);

const thousands = (n) => n.toLocaleString('en');
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * A line chart of one quantity over training steps: one thin line per seed,
 * a thick line for the mean of the seeds, one colour per setting. Every path
 * carries data-setting, data-seed ("mean" for the mean) and data-points.
 */
class CurveChart {
  static WIDTH = 460;
  static HEIGHT = 250;
  static MARGIN = { top: 12, right: 14, bottom: 36, left: 50 };

  /** @param {{ label: string, caption: string, yLabel: string, log?: boolean, format: (v: number) => string }} options */
  constructor(figure, { label, caption, yLabel, log = false, format }) {
    const { WIDTH, HEIGHT, MARGIN } = CurveChart;
    Object.assign(this, { label, log, format });
    d3.select(figure).append('figcaption').text(caption);
    const svg = d3.select(figure).append('svg')
      .attr('viewBox', `0 0 ${WIDTH} ${HEIGHT}`).attr('font-family', UI_FONTS).attr('font-size', 11)
      .attr('role', 'img').attr('aria-label', `${label}: no training yet`);
    this.svg = svg;
    this.xAxis = svg.append('g').attr('transform', `translate(0,${HEIGHT - MARGIN.bottom})`);
    this.yAxis = svg.append('g').attr('transform', `translate(${MARGIN.left},0)`);
    svg.append('text').attr('x', (WIDTH + MARGIN.left) / 2).attr('y', HEIGHT - 4).attr('text-anchor', 'middle').attr('fill', '#5b5b66').text('training step');
    svg.append('text').attr('transform', `translate(12,${(HEIGHT - MARGIN.bottom) / 2}) rotate(-90)`).attr('text-anchor', 'middle').attr('fill', '#5b5b66').text(yLabel);
    this.lines = svg.append('g').attr('class', 'curves').attr('fill', 'none');
  }

  /**
   * @param {number} steps the x axis's end
   * @param {{ setting: object, seeds: { seed: number, points: { step: number, value: number }[] }[] }[]} series
   */
  update(steps, series) {
    const { WIDTH, HEIGHT, MARGIN } = CurveChart;
    const values = series.flatMap((s) => s.seeds.flatMap((l) => l.points.map((p) => p.value)));
    const x = d3.scaleLinear([0, steps], [MARGIN.left, WIDTH - MARGIN.right]);
    const [low, high] = values.length ? d3.extent(values) : [0, 1];
    const y = this.log
      ? // Clamped: a loss under the floor of 10⁻⁴ runs along the axis instead of out of the chart.
        d3.scaleLog([Math.max(1e-4, low * 0.8), Math.max(high * 1.25, low * 2)], [HEIGHT - MARGIN.bottom, MARGIN.top]).clamp(true)
      : d3.scaleLinear([Math.min(0.5, Math.floor(low * 10) / 10), 1], [HEIGHT - MARGIN.bottom, MARGIN.top]);
    this.xAxis.call(d3.axisBottom(x).ticks(5, ',d'));
    this.yAxis.call(d3.axisLeft(y).ticks(5, this.log ? '~g' : '.0%'));

    // The mean over seeds at each point that every seed has reached (the runs advance together).
    const mean = (s) => {
      const n = d3.min(s.seeds, (l) => l.points.length) ?? 0;
      return d3.range(n).map((i) => ({ step: s.seeds[0].points[i].step, value: d3.mean(s.seeds, (l) => l.points[i].value) }));
    };
    const paths = series.flatMap((s) => [
      ...s.seeds.map((l) => ({ setting: s.setting, seed: String(l.seed), points: l.points })),
      { setting: s.setting, seed: 'mean', points: mean(s) },
    ]);
    const line = d3.line((p) => x(p.step), (p) => y(p.value));
    this.lines
      .selectAll('path')
      .data(paths, (d) => `${d.setting.key}/${d.seed}`)
      .join((enter) => enter.append('path').call((p) => p.append('title')))
      .attr('data-setting', (d) => d.setting.key)
      .attr('data-seed', (d) => d.seed)
      .attr('data-points', (d) => d.points.length)
      .attr('d', (d) => (d.points.length ? line(d.points) : null))
      .attr('stroke', (d) => settingColor(d.setting))
      .attr('stroke-width', (d) => (d.seed === 'mean' ? 2.6 : 1))
      .attr('stroke-opacity', (d) => (d.seed === 'mean' ? 1 : 0.55))
      .attr('stroke-dasharray', (d) => (d.setting.mlpHidden ? '5 3' : null))
      .select('title')
      .text((d) => `${d.setting.label}, ${d.seed === 'mean' ? 'mean of the seeds' : `seed ${d.seed}`}: ${d.points.length ? this.format(d.points.at(-1).value) : '—'}`);
    // Means on top of the seeds' lines.
    this.lines.selectAll('path[data-seed="mean"]').raise();
    this.svg.attr(
      'aria-label',
      `${this.label}, latest mean per setting: ${series.map((s) => `${s.setting.label} ${mean(s).length ? this.format(mean(s).at(-1).value) : '—'}`).join(', ')}. The table below lists every run.`,
    );
  }
}

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
   *   options: the experiment's options to show first (DEFAULT_OPTIONS' fields); onOptions: called with them when the controls change
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
    this.#data = buildData();
    this.#renderRules($('.train-rules'), $('.train-rules-note'), $('.train-data-note'));

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
        label: 'Training loss', caption: `Training loss (each batch's cross-entropy, averaged over ${CHUNK_STEPS} steps)`,
        yLabel: 'loss (log scale)', log: true, format: (v) => v.toFixed(3),
      }),
      accuracy: new CurveChart($('.train-accuracy'), {
        label: 'Held-out 毒 accuracy', caption: `Accuracy on the held-out sentences' 毒 (every ${EVAL_EVERY} steps)`, yLabel: '毒 right', format: percent,
      }),
    };
    this.headView = new HeadView($('.train-head-view'), {
      onLock: (lock) => this.#setHeadState({ lock }),
      onLines: (lines) => this.#setHeadState({ lines }),
      onLayout: (layout) => this.#setHeadState({ layout }),
    }, { exportLabel: 'Export the learned head view' });
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
    this.el.status.textContent = 'Ready. The first Train loads the engine’s build with the trainer; everything then trains here, in your browser.';
  }

  /** The controls' options, the seed count clamped to 1 … MAX_SEEDS. */
  #options() {
    const { el } = this;
    const seeds = Math.min(MAX_SEEDS, Math.max(1, Math.round(Number(el.seeds.value)) || DEFAULT_OPTIONS.seeds));
    return { seeds, steps: Number(el.steps.value), fourHeads: el.fourHeads.checked, mlp: el.mlp.checked };
  }

  /** Starts an experiment with the controls' options; a run under way is stopped first (trainers are freed as it ends). */
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
    // The status changes several times a second while training: busy holds a screen reader's announcement until the end.
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
        settings, seeds, steps, data: this.#data, signal: controller.signal,
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
        li.append('svg').attr('width', 28).attr('height', 10).attr('aria-hidden', 'true')
          .append('line').attr('x1', 1).attr('x2', 27).attr('y1', 5).attr('y2', 5).attr('stroke-width', 2.6)
          .attr('stroke', settingColor).attr('stroke-dasharray', (s) => (s.mlpHidden ? '5 3' : null));
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
    const series = (pick) => settings.map((setting) => ({
      setting,
      seeds: progress.runs.filter((r) => r.setting === setting).map((r) => ({ seed: r.seed, points: pick(r) })),
    }));
    this.charts.loss.update(progress.steps, series((r) => r.loss));
    this.charts.accuracy.update(progress.steps, series((r) => r.accuracy));
    this.#renderStatus(progress);
    this.#renderRuns(progress, settings);
    this.#renderText(progress);
    this.#renderHeads(progress);
  }

  #renderStatus(progress) {
    const { runs, steps } = progress;
    const engine = this.#engine;
    const rate = Number.isFinite(progress.stepsPerSecond)
      ? ` · ${thousands(Math.round(progress.stepsPerSecond))} steps/s of training on ${engine.variant} with ${plural(engine.threads, 'thread')}: one run of ${thousands(steps)} steps takes ${(steps / progress.stepsPerSecond).toFixed(1)} s`
      : '';
    const running = this.#controller !== null;
    const step = runs.at(-1).step;
    const what = running
      ? `Training ${plural(runs.length, 'run')} side by side: step ${thousands(step)} of ${thousands(steps)}`
      : progress.done
        ? `Done: ${plural(runs.length, 'run')} × ${thousands(steps)} steps in ${((this.#finishedAt - this.#startedAt) / 1000).toFixed(1)} s, evaluations included`
        : `Stopped at step ${thousands(step)} of ${thousands(steps)}`;
    this.el.status.textContent = what + rate;
  }

  /** The table of every run, grouped by setting, each group headed by its mean ± SD. */
  #renderRuns(progress, settings) {
    const table = d3.create('table').attr('class', 'train-table');
    table.append('caption').text(
      'Every run. Held-out 毒 accuracy: the latest evaluation (final once done). The example sentence: the role the run gives each 毒 ' +
        '(✓ right; ✗ and what it said instead). Neighbour weight: each head’s mean attention from a 毒 to its left / right neighbour over the test set (at the end).',
    );
    const head = table.append('thead').append('tr');
    head.append('th').attr('scope', 'col').text('run');
    head.append('th').attr('scope', 'col').text('held-out 毒');
    for (const p of EXAMPLE_DU)
      head.append('th').attr('scope', 'col').attr('lang', 'zh-Hans').attr('title', `${tokenName(EXAMPLE_TOKENS[p])}: ${heldOut.tags[p]}`)
        .call((th) => th.append('span').text(tokenName(EXAMPLE_TOKENS[p])))
        .call((th) => th.append('small').attr('lang', 'en').text(heldOut.tags[p]));
    head.append('th').attr('scope', 'col').text('all six');
    head.append('th').attr('scope', 'col').text('neighbour weight (left / right)');
    const columns = EXAMPLE_DU.length + 4;
    for (const setting of settings) {
      const runs = progress.runs.filter((r) => r.setting === setting);
      const latest = runs.map((r) => r.accuracy.at(-1)?.value).filter((v) => v !== undefined);
      const body = table.append('tbody');
      body.append('tr').attr('class', 'setting-row').append('th').attr('colspan', columns).attr('scope', 'colgroup')
        .style('--setting-color', settingColor(setting))
        .text(`${setting.label}: ${latest.length ? percentMeanSd(latest) : '—'}` +
          ` · all six 毒 of the example right in ${runs.filter((r) => r.example?.allRight).length} of ${runs.length}`);
      for (const run of runs) {
        const tr = body.append('tr');
        tr.append('th').attr('scope', 'row').text(`seed ${run.seed}`);
        tr.append('td').text(run.accuracy.length ? percent(run.accuracy.at(-1).value) : '—');
        for (const d of run.example?.du ?? [])
          tr.append('td').attr('class', d.right ? 'kept' : 'dropped').text(d.right ? '✓' : `✗ ${d.got}`)
            .attr('aria-label', d.right ? 'right' : `wrong: ${d.got}`);
        if (!run.example) tr.append('td').attr('colspan', EXAMPLE_DU.length).text('—');
        tr.append('td').text(run.example ? (run.example.allRight ? 'yes' : 'no') : '—');
        tr.append('td').text(run.neighbours ? run.neighbours.map((h, i) => `${run.neighbours.length > 1 ? `h${i} ` : ''}${h.left.toFixed(2)} / ${h.right.toFixed(2)}`).join(' · ') : '—');
      }
    }
    this.el.runs.replaceChildren(table.node());
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
      : [this.#controller ? 'What the runs showed appears here when they finish.' : 'Stopped before the end: no result to report. Train again to finish a run.'];
    d3.select(this.el.text).selectAll('p').data(progress.done ? paragraphs : note).join('p').text((d) => d);
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
      this.#maps = run.example.heads.map((_, h) => new Heatmap({
        name: `head-${h}`,
        title: headTitle(`head-${h}`),
        description: '',
        color: headColor(`head-${h}`, h), // the head's hue in the head view too
        queryTokens: EXAMPLE_TOKENS,
        keyTokens: EXAMPLE_TOKENS,
        onSelect: (q) => {
          const same = this.#headState.lock?.side === 'query' && this.#headState.lock.index === q;
          this.#setHeadState({ lock: same ? null : { side: 'query', index: q } });
        },
      }));
      el.heads.replaceChildren(...this.#maps.map((m) => m.element));
    }
    const n = EXAMPLE_TOKENS.length;
    const lockedQuery = this.#headState.lock?.side === 'query' ? this.#headState.lock.index : null;
    run.example.heads.forEach((weights, h) => {
      const map = this.#maps[h];
      // Rings on each 毒's two neighbours, the pair that decides its role: solid where the row's top key is that neighbour.
      const tops = rowTops(weights, n, n);
      const rings = EXAMPLE_DU.flatMap((q) => [q - 1, q + 1].map((k) => ({ q, k, color: '#1b1b1f', r: 0.36, dashed: !tops[q].includes(k) })));
      map.update(weights, { rings });
      map.markRow(lockedQuery);
      const looks = run.neighbours?.[h];
      map.element.querySelector('figcaption').textContent =
        `Learned, at step ${thousands(run.step)}.` +
        (looks ? ` Over the test set's 毒: ${looks.left.toFixed(2)} on the left neighbour, ${looks.right.toFixed(2)} on the right.` : '');
    });
    el.headsCaption.textContent =
      `${run.setting.label}, seed ${run.seed}, at step ${thousands(run.step)}: the example sentence, which it never trained on, through this run's model. ` +
      `Its 毒: ${run.example.du.map((d) => `${tokenName(EXAMPLE_TOKENS[d.position])} ${d.got}${d.right ? ' ✓' : ` ✗ (${d.want})`}`).join(', ')}.`;
    this.headView.update(
      {
        mode: 'trained',
        rows: n,
        cols: n,
        queryTokens: EXAMPLE_TOKENS,
        keyTokens: EXAMPLE_TOKENS,
        heads: run.example.heads.map((weights, h) => ({ name: `head-${h}`, index: h, weights })),
        single: null,
      },
      this.#headState,
    );
  }

  #setHeadState(patch) {
    Object.assign(this.#headState, patch);
    this.#schedule();
  }

  /** The rule table (left class × right class → role), what it implies, and the data. */
  #renderRules(box, note, dataNote) {
    const grid = ruleGrid();
    const classHeader = (th, c) => {
      th.append('span').text(className(c));
      const members = c === 'du' ? [] : grid.members[c];
      if (members.length || c === 'edge')
        th.append('small').attr('lang', 'zh-Hans').text(c === 'edge' ? '， start, end' : members.join(' '));
    };
    const table = d3.create('table').attr('class', 'rule-table');
    table.append('caption').text('A 毒’s role from the classes of its two neighbours: left (rows) and right (columns); — : no sentence puts a 毒 there.');
    const head = table.append('thead').append('tr');
    head.append('td').text('left ↓ right →');
    for (const right of grid.rights) head.append('th').attr('scope', 'col').call((th) => classHeader(th, right));
    const body = table.append('tbody');
    grid.lefts.forEach((left, i) => {
      const tr = body.append('tr');
      tr.append('th').attr('scope', 'row').call((th) => classHeader(th, left));
      for (const rule of grid.cells[i])
        tr.append('td').attr('class', rule ? `role-${rule.role}` : 'muted').attr('title', rule?.example ?? null).text(rule?.role ?? '—');
    });
    const examples = d3.create('details').attr('class', 'numbers');
    examples.append('summary').text('An example of every rule');
    examples.append('ul').attr('class', 'rule-examples').selectAll('li').data(d3.merge(grid.cells).filter(Boolean)).join('li')
      .text((r) => `${className(r.left)} · 毒 · ${className(r.right)} → ${r.role}: ${r.example}`);
    box.replaceChildren(table.node(), examples.node());

    const { left, right, both } = this.#data.neighbours;
    note.textContent =
      `Knowing only the left neighbour’s class leaves two roles open in ${grid.ambiguousLefts} of ${grid.lefts.length} rows; ` +
      `knowing only the right one’s, in ${grid.ambiguousRights} of ${grid.rights.length} columns; the two together always decide. ` +
      `On the test set below, the best guess from the left character alone gets ${percent(left)} of the 毒 right, from the right character alone ` +
      `${percent(right)}, from both ${percent(both)}.`;
    const distinct = new Set(this.#data.train.map((s) => s.tokens.join())).size;
    dataNote.textContent =
      `Training set: ${thousands(TRAIN_CORPUS.count)} generated sentences (${thousands(distinct)} different ones; seed ${TRAIN_CORPUS.seed}). ` +
      `Test set: ${this.#data.test.length} other generated sentences with ${thousands(this.#data.testDu.length)} 毒, none of them in the training set. ` +
      'The example sentence is in neither: the generator never produces it, so every 毒 in it is a test.';
  }
}
