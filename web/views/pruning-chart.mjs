// The pruning curve of "Which heads matter" (views/heads-matter.mjs): the
// share of heads switched off (least important first) → the reference's
// log-probability, one point per step of pruningCurve (mha-wasm/analysis),
// and the first point whose re-decoded output differs from the reference
// marked by a dashed rule and a ring (and, for a translation of the page's
// sentence, the first whose 毒's English differs: model/du-english.mjs).
// Every point carries its numbers (data-fraction, data-heads-off, data-score)
// and a title.
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
const DU = UI.inkSoft;
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
   * @param {number} [duChanged] the first point whose output differs at the 毒's English (-1 or none: not marked)
   */
  update(points, changed, group, duChanged = -1) {
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
    // The first change, and (a translation of the page's sentence) the first change of the 毒's English: each a
    // dashed rule at its share and a ring, labelled: the first at the top, the second at the foot of its rule.
    const marks = [
      { key: 'output', at: points[changed], label: t('matter.curve.first'), color: CHANGED, dash: '4 3', row: 0 },
      { key: 'du', at: points[duChanged], label: t('matter.curve.du'), color: DU, dash: '1 3', row: 1 },
    ].filter((m) => m.at);
    this.rule
      .selectAll('g')
      .data(marks, (m) => m.key)
      .join((enter) => {
        const g = enter.append('g');
        g.append('line');
        g.append('circle').attr('fill', 'none').attr('stroke-width', 2);
        g.append('text').attr('font-size', 11);
        return g;
      })
      .attr('data-mark', (m) => m.key)
      .each(function draw(m) {
        const g = d3.select(this);
        const cx = x(m.at.fraction);
        g.select('line')
          .attr('stroke', m.color)
          .attr('stroke-dasharray', m.dash)
          .attr('x1', cx)
          .attr('x2', cx)
          .attr('y1', MARGIN.top)
          .attr('y2', HEIGHT - MARGIN.bottom);
        g.select('circle')
          .attr('stroke', m.color)
          .attr('cx', cx)
          .attr('cy', y(m.at.score))
          .attr('r', RADIUS * (2.2 + m.row));
        // The label on the side of the rule with more room.
        const left = m.at.fraction > 0.5;
        g.select('text')
          .attr('fill', m.color)
          .attr('x', cx + (left ? -4 : 4))
          .attr('y', m.row ? HEIGHT - MARGIN.bottom - 6 : MARGIN.top + 10)
          .attr('text-anchor', left ? 'end' : 'start')
          .text(m.label);
      });
    this.svg.attr(
      'aria-label',
      t('matter.curve.aria', { group, first: fixed(points[0].score), last: fixed(points.at(-1).score) }),
    );
  }
}
