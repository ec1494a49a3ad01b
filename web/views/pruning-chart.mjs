// The pruning curve of "Which heads matter" (views/heads-matter.mjs): the
// share of heads switched off (least important first) → the reference's
// log-probability, one point per step of pruningCurve (mha-wasm/analysis),
// and the first point whose re-decoded output differs from the reference
// marked by a dashed rule and a ring. Every point carries its numbers
// (data-fraction, data-heads-off, data-score) and a title.
import d3 from '../lib/d3.mjs';
import { OKABE_ITO, UI } from '../lib/palette.mjs';
import { UI_FONTS } from '../lib/tokens.mjs';
import { fixed, percent } from '../lib/format.mjs';
import { t } from '../lib/i18n.mjs';

const WIDTH = 420;
const HEIGHT = 230;
const MARGIN = { top: 16, right: 24, bottom: 38, left: 54 };
const COLOR = OKABE_ITO.blue;
const CHANGED = OKABE_ITO.vermillion;
const RADIUS = 3.5;

export class PruningChart {
  /** @param {HTMLElement} figure the <figure> the chart is drawn in */
  constructor(figure) {
    this.svg = d3
      .select(figure)
      .append('svg')
      .attr('viewBox', `0 0 ${WIDTH} ${HEIGHT}`)
      .attr('font-family', UI_FONTS)
      .attr('font-size', 13)
      .attr('role', 'img');
    const svg = this.svg;
    this.xAxis = svg.append('g').attr('transform', `translate(0,${HEIGHT - MARGIN.bottom})`);
    this.yAxis = svg.append('g').attr('transform', `translate(${MARGIN.left},0)`);
    this.xLabel = svg
      .append('text')
      .attr('x', (WIDTH + MARGIN.left - MARGIN.right) / 2)
      .attr('y', HEIGHT - 4)
      .attr('text-anchor', 'middle')
      .attr('fill', UI.muted);
    this.yLabel = svg
      .append('text')
      .attr('transform', `translate(13,${(HEIGHT - MARGIN.bottom + MARGIN.top) / 2}) rotate(-90)`)
      .attr('text-anchor', 'middle')
      .attr('fill', UI.muted);
    this.rule = svg.append('g').attr('class', 'pruning-changed');
    this.path = svg.append('path').attr('fill', 'none').attr('stroke', COLOR).attr('stroke-width', 2);
    this.points = svg.append('g').attr('class', 'pruning-points');
  }

  /**
   * Draws one line of a pruning curve.
   * @param {{ fraction: number, headsOff: number, score: number }[]} points
   * @param {number} changed the first point whose output differs from the reference (-1: none)
   * @param {string} group the line's name, for the chart's label
   */
  update(points, changed, group) {
    const x = d3.scaleLinear([0, 1], [MARGIN.left, WIDTH - MARGIN.right]);
    const [low, high] = d3.extent(points, (p) => p.score);
    const pad = (high - low) * 0.08 || 1;
    const y = d3.scaleLinear([low - pad, high + pad], [HEIGHT - MARGIN.bottom, MARGIN.top]).nice();
    // d3's axes set their own 10 px font: the chart's instead, readable when the chart shrinks on a phone.
    for (const [axis, scale] of [
      [this.xAxis, d3.axisBottom(x).ticks(5, '.0%')],
      [this.yAxis, d3.axisLeft(y).ticks(5)],
    ])
      axis.call(scale).attr('font-size', null).attr('font-family', null);
    this.xLabel.text(t('matter.curve.x'));
    this.yLabel.text(t('matter.curve.y'));
    this.path.attr(
      'd',
      d3.line(
        (p) => x(p.fraction),
        (p) => y(p.score),
      )(points),
    );
    this.points
      .selectAll('circle')
      .data(points)
      .join((enter) => enter.append('circle').call((c) => c.append('title')))
      .attr('cx', (p) => x(p.fraction))
      .attr('cy', (p) => y(p.score))
      .attr('r', RADIUS)
      .attr('fill', (p, i) => (i === changed ? CHANGED : COLOR))
      .attr('data-fraction', (p) => p.fraction)
      .attr('data-heads-off', (p) => p.headsOff)
      .attr('data-score', (p) => p.score)
      .attr('data-changed', (p, i) => (i === changed ? 'true' : null))
      .select('title')
      .text((p) => `${percent(p.fraction)} (${p.headsOff}): ${fixed(p.score)}`);
    // The first change: a dashed rule at its share and a ring, labelled.
    const at = points[changed];
    this.rule
      .selectAll('g')
      .data(at ? [at] : [])
      .join((enter) => {
        const g = enter.append('g');
        g.append('line').attr('stroke', CHANGED).attr('stroke-dasharray', '4 3');
        g.append('circle').attr('fill', 'none').attr('stroke', CHANGED).attr('stroke-width', 2);
        g.append('text').attr('fill', CHANGED).attr('font-size', 11);
        return g;
      })
      .call((g) => {
        g.select('line')
          .attr('x1', x(at?.fraction ?? 0))
          .attr('x2', x(at?.fraction ?? 0))
          .attr('y1', MARGIN.top)
          .attr('y2', HEIGHT - MARGIN.bottom);
        g.select('circle')
          .attr('cx', x(at?.fraction ?? 0))
          .attr('cy', y(at?.score ?? 0))
          .attr('r', RADIUS * 2.2);
        // The label on the side of the rule with more room.
        const left = (at?.fraction ?? 0) > 0.5;
        g.select('text')
          .attr('x', x(at?.fraction ?? 0) + (left ? -4 : 4))
          .attr('y', MARGIN.top + 10)
          .attr('text-anchor', left ? 'end' : 'start')
          .text(t('matter.curve.first'));
      });
    this.svg.attr(
      'aria-label',
      t('matter.curve.aria', { group, first: fixed(points[0].score), last: fixed(points.at(-1).score) }),
    );
  }
}
