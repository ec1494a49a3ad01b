// A line chart of one quantity over training steps: one thin line per seed,
// a thick line for the mean of the seeds, one colour per setting (its MLP
// variant dashed). Every path carries data-setting, data-seed ("mean" for the
// mean) and data-points. Before its first data, it says that nothing has been
// trained yet.
import d3 from '../lib/d3.mjs';
import { UI, settingColor } from '../lib/palette.mjs';
import { UI_FONTS } from '../lib/tokens.mjs';
import { t } from '../lib/i18n.mjs';
import { settingLabel } from '../model/train-options.mjs';

const WIDTH = 460;
const HEIGHT = 250;
const MARGIN = { top: 12, right: 14, bottom: 36, left: 50 };
/** Past this many seed lines the seeds' lines are drawn faint, under the means. */
export const MANY_LINES = 20;
const SEED_OPACITY = 0.55;
const SEED_OPACITY_MANY = 0.18;

/** The mean over seeds at each point that every seed has reached (the runs advance together). */
function meanLine(s) {
  const n = d3.min(s.seeds, (l) => l.points.length) ?? 0;
  return d3
    .range(n)
    .map((i) => ({ step: s.seeds[0].points[i].step, value: d3.mean(s.seeds, (l) => l.points[i].value) }));
}

export class CurveChart {
  /**
   * @param {HTMLElement} figure the <figure> the chart goes in
   * @param {{ label: string, caption: [string, object], yLabel: string, log?: boolean,
   *   format: (v: number) => string }} options message keys (caption: a key and its parameters)
   */
  constructor(figure, { label, caption, yLabel, log = false, format }) {
    Object.assign(this, { labelKey: label, captionKey: caption, yLabelKey: yLabel, log, format });
    this.caption = d3.select(figure).append('figcaption');
    const svg = d3
      .select(figure)
      .append('svg')
      .attr('viewBox', `0 0 ${WIDTH} ${HEIGHT}`)
      .attr('font-family', UI_FONTS)
      .attr('font-size', 11)
      .attr('role', 'img');
    this.svg = svg;
    this.xAxis = svg.append('g').attr('transform', `translate(0,${HEIGHT - MARGIN.bottom})`);
    this.yAxis = svg.append('g').attr('transform', `translate(${MARGIN.left},0)`);
    svg
      .append('text')
      .attr('x', (WIDTH + MARGIN.left) / 2)
      .attr('y', HEIGHT - 4)
      .attr('text-anchor', 'middle')
      .attr('fill', UI.muted)
      .attr('class', 'x-label');
    svg
      .append('text')
      .attr('transform', `translate(12,${(HEIGHT - MARGIN.bottom) / 2}) rotate(-90)`)
      .attr('text-anchor', 'middle')
      .attr('fill', UI.muted)
      .attr('class', 'y-label');
    this.lines = svg.append('g').attr('class', 'curves').attr('fill', 'none');
    // Until the first report, the empty chart says why it is empty.
    this.placeholder = svg
      .append('text')
      .attr('class', 'placeholder')
      .attr('x', (WIDTH + MARGIN.left - MARGIN.right) / 2)
      .attr('y', (HEIGHT - MARGIN.bottom + MARGIN.top) / 2)
      .attr('text-anchor', 'middle')
      .attr('font-size', 13)
      .attr('fill', UI.muted);
    this.relabel();
  }

  /** Writes the chart's words in the page's language (again, after a change of language). */
  relabel() {
    this.label = t(this.labelKey);
    this.caption.text(t(...this.captionKey));
    this.svg.select('.x-label').text(t('chart.x'));
    this.svg.select('.y-label').text(t(this.yLabelKey));
    this.placeholder.text(t('chart.placeholder'));
    if (this.series) this.update(this.steps, this.series);
    else this.svg.attr('aria-label', t('chart.empty', { label: this.label }));
  }

  /**
   * @param {number} steps the x axis's end
   * @param {{ setting: object, seeds: { seed: number, points: { step: number, value: number }[] }[] }[]} series
   */
  update(steps, series) {
    Object.assign(this, { steps, series });
    this.placeholder.attr('display', 'none');
    const values = series.flatMap((s) => s.seeds.flatMap((l) => l.points.map((p) => p.value)));
    const x = d3.scaleLinear([0, steps], [MARGIN.left, WIDTH - MARGIN.right]);
    const [low, high] = values.length ? d3.extent(values) : [0, 1];
    const yRange = [HEIGHT - MARGIN.bottom, MARGIN.top];
    const y = this.log
      ? // Clamped: a loss under the floor of 10⁻⁴ runs along the axis instead of out of the chart.
        d3.scaleLog([Math.max(1e-4, low * 0.8), Math.max(high * 1.25, low * 2)], yRange).clamp(true)
      : d3.scaleLinear([Math.min(0.5, Math.floor(low * 10) / 10), 1], yRange);
    this.xAxis.call(d3.axisBottom(x).ticks(5, ',d'));
    this.yAxis.call(d3.axisLeft(y).ticks(5, this.log ? '~g' : '.0%'));

    const paths = series.flatMap((s) => [
      ...s.seeds.map((l) => ({ setting: s.setting, seed: String(l.seed), points: l.points })),
      { setting: s.setting, seed: 'mean', points: meanLine(s) },
    ]);
    // Forty seed lines (4 settings × 10 seeds) at full strength hide the means: past MANY_LINES they are faint.
    const many = paths.length - series.length > MANY_LINES;
    const line = d3.line(
      (p) => x(p.step),
      (p) => y(p.value),
    );
    const latest = (points) => (points.length ? this.format(points.at(-1).value) : '—');
    this.lines
      .selectAll('path')
      .data(paths, (d) => `${d.setting.key}/${d.seed}`)
      .join((enter) => enter.append('path').call((p) => p.append('title')))
      .attr('data-setting', (d) => d.setting.key)
      .attr('data-seed', (d) => d.seed)
      .attr('data-points', (d) => d.points.length)
      .attr('d', (d) => (d.points.length ? line(d.points) : null))
      .attr('stroke', (d) => settingColor(d.setting.numHeads))
      .attr('stroke-width', (d) => (d.seed === 'mean' ? 2.6 : many ? 0.75 : 1))
      .attr('stroke-opacity', (d) => (d.seed === 'mean' ? 1 : many ? SEED_OPACITY_MANY : SEED_OPACITY))
      .attr('stroke-dasharray', (d) => (d.setting.mlpHidden ? '5 3' : null))
      .select('title')
      .text((d) =>
        t('chart.line', {
          setting: settingLabel(d.setting),
          which: d.seed === 'mean' ? t('chart.mean') : t('chart.seed', { seed: d.seed }),
          latest: latest(d.points),
        }),
      );
    // Means on top of the seeds' lines.
    this.lines.selectAll('path[data-seed="mean"]').raise();
    const means = series.map((s) => `${settingLabel(s.setting)} ${latest(meanLine(s))}`).join(t('list.join'));
    this.svg.attr('aria-label', t('chart.aria', { label: this.label, means }));
  }
}
