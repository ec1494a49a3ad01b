// The experiment's evidence as a paired dot plot: one row per seed, each
// setting's held-out accuracy a dot in its hue (1 head, 2 heads, 4 if
// trained), the seed's dots joined by a line, so that every pair is read
// without a mean in between; a vertical line per setting at its median, a
// dashed one at what the better neighbour alone allows, and the seeds whose
// heads did not divide the neighbours marked. The sentence under it is
// written from the same numbers (train-text.mjs headline). Every dot carries
// data-setting, data-seed and data-accuracy (unrounded). When the MLP
// variants were trained, their pairs follow in a block of their own rows
// (seed N + MLP, hollow dots), so the page's own MLP run is evidence too.
import d3 from '../lib/d3.mjs';
import { UI, settingColor } from '../lib/palette.mjs';
import { UI_FONTS, labelEm } from '../lib/tokens.mjs';
import { percent } from '../lib/format.mjs';
import { t } from '../lib/i18n.mjs';
import { settingLabel } from '../model/train-options.mjs';
import { collapsedSeeds, mlpEntries, plainEntries } from '../model/train-evidence.mjs';
import { headline } from '../model/train-text.mjs';

const WIDTH = 560;
const ROW = 22;
const MARGIN = { top: 46, right: 120, bottom: 40, left: 58 };
const EMPTY_HEIGHT = 90;
const FONT = 11;

export class EvidenceChart {
  /** The summary and context of the last update (null before any), so that relabel() can draw them again. */
  #shown = null;
  /** The message of the empty chart: nothing trained yet, training, or stopped. */
  #waiting = 'chart.placeholder';

  /** @param {HTMLElement} figure the <figure> the chart goes in */
  constructor(figure) {
    this.caption = d3.select(figure).append('figcaption');
    this.svg = d3
      .select(figure)
      .append('svg')
      .attr('font-family', UI_FONTS)
      .attr('font-size', FONT)
      .attr('role', 'img');
    this.summaryText = d3.select(figure).append('p').attr('class', 'evidence-summary');
    this.relabel();
  }

  /** Writes the chart's words in the page's language (again, after a change of language). */
  relabel() {
    this.caption.text(t('evidence.caption'));
    if (this.#shown) this.update(...this.#shown);
    else this.#placeholder();
  }

  /** An experiment is under way (running) or was stopped: the chart waits for finished runs. */
  pending(running) {
    this.#shown = null;
    this.#waiting = running ? 'evidence.pending' : 'evidence.stopped';
    this.#placeholder();
  }

  #placeholder() {
    const text = t(this.#waiting);
    this.svg.selectAll('*').remove();
    this.svg.attr('viewBox', `0 0 ${WIDTH} ${EMPTY_HEIGHT}`).attr('aria-label', t('evidence.empty', { text }));
    this.svg
      .append('text')
      .attr('class', 'placeholder')
      .attr('x', WIDTH / 2)
      .attr('y', EMPTY_HEIGHT / 2)
      .attr('text-anchor', 'middle')
      .attr('font-size', 13)
      .attr('fill', UI.muted)
      .text(text);
    this.summaryText.text('');
  }

  /**
   * @param {object[]} summary summarize()'s result (train-stats.mjs) of a finished experiment
   * @param {{ ceiling: number }} context ceiling: the share of 毒 the better neighbour alone gets right
   */
  update(summary, context) {
    this.#shown = [summary, context];
    // The plain pairs, then the MLP's: one block of rows each (one row per seed).
    const blocks = [plainEntries(summary), mlpEntries(summary)]
      .filter((list) => list.length)
      .map((list) => ({ entries: list, seeds: [...new Set(list.flatMap((s) => s.seeds))].sort((a, b) => a - b) }));
    const entries = blocks.flatMap((b) => b.entries);
    const svg = this.svg;
    if (!entries.length) {
      this.#placeholder();
      return;
    }
    svg.selectAll('*').remove();
    const rows = blocks.flatMap((block) => block.seeds.map((seed) => ({ block, seed })));
    const height = MARGIN.top + rows.length * ROW + MARGIN.bottom;
    const values = entries.flatMap((s) => s.accuracies);
    const low = Math.floor((Math.min(...values, context.ceiling) - 0.01) * 20) / 20;
    const x = d3.scaleLinear([Math.max(0, low), 1], [MARGIN.left, WIDTH - MARGIN.right]);
    const rowY = (i) => MARGIN.top + i * ROW + ROW / 2;
    const bottom = MARGIN.top + rows.length * ROW;
    // The rows a block spans, for its medians.
    const span = (block) => {
      const first = rows.findIndex((r) => r.block === block);
      return [rowY(first) - ROW / 2, rowY(first + block.seeds.length - 1) + ROW / 2];
    };
    const blockOf = (s) => blocks.find((b) => b.entries.includes(s));
    svg.attr('viewBox', `0 0 ${WIDTH} ${height}`);

    // Legend: one dot per setting with its median, and the dashed reference line.
    const legend = svg.append('g').attr('class', 'legend').attr('transform', 'translate(0,14)');
    let at = MARGIN.left;
    for (const s of entries) {
      const item = legend.append('g').attr('transform', `translate(${at},0)`);
      dot(item.append('circle').attr('r', 5).attr('cy', -4), s.setting);
      const text = t('evidence.legend', { setting: settingLabel(s.setting), median: percent(s.median) });
      item.append('text').attr('x', 9).attr('fill', UI.ink).text(text);
      // Measured from the text rather than from the layout, which a section not yet shown does not have.
      at += 24 + labelEm(text) * FONT;
    }
    const ref = legend.append('g').attr('transform', `translate(${MARGIN.left},18)`);
    ref
      .append('line')
      .attr('x1', 0)
      .attr('x2', 16)
      .attr('y1', -4)
      .attr('y2', -4)
      .attr('stroke', UI.muted)
      .attr('stroke-dasharray', '3 2');
    ref
      .append('text')
      .attr('x', 20)
      .attr('fill', UI.muted)
      .text(t('evidence.ceiling', { value: percent(context.ceiling) }));

    // d3's axis sets its own 10 px font: the chart's instead, readable when the chart shrinks on a phone.
    svg
      .append('g')
      .attr('transform', `translate(0,${bottom})`)
      .call(d3.axisBottom(x).ticks(6, '.0%'))
      .attr('font-size', null)
      .attr('font-family', null);
    svg
      .append('text')
      .attr('x', (MARGIN.left + WIDTH - MARGIN.right) / 2)
      .attr('y', height - 6)
      .attr('text-anchor', 'middle')
      .attr('fill', UI.muted)
      .text(t('evidence.x'));

    // The reference and the medians, under the dots.
    svg
      .append('line')
      .attr('class', 'ceiling')
      .attr('x1', x(context.ceiling))
      .attr('x2', x(context.ceiling))
      .attr('y1', MARGIN.top - 4)
      .attr('y2', bottom)
      .attr('stroke', UI.muted)
      .attr('stroke-dasharray', '3 2');
    for (const s of entries)
      svg
        .append('line')
        .attr('class', 'median')
        .attr('data-setting', s.setting.key)
        .attr('data-value', s.median)
        .attr('x1', x(s.median))
        .attr('x2', x(s.median))
        .attr('y1', span(blockOf(s))[0])
        .attr('y2', span(blockOf(s))[1])
        .attr('stroke', settingColor(s.setting.numHeads))
        .attr('stroke-width', 1.5)
        .attr('stroke-opacity', 0.6);

    const collapsed = new Map(
      entries.flatMap((s) => collapsedSeeds(s).seeds.map((c) => [`${s.setting.key}/${c.seed}`, s.setting])),
    );
    rows.forEach(({ block, seed }, index) => {
      const y = () => rowY(index);
      const mlp = block.entries[0].setting.mlpHidden > 0;
      const dots = block.entries.flatMap((s) => {
        const i = s.seeds.indexOf(seed);
        return i < 0 ? [] : [{ setting: s.setting, accuracy: s.accuracies[i] }];
      });
      const row = svg.append('g').attr('class', 'seed-row').attr('data-seed', seed).attr('data-mlp', String(mlp));
      const list = dots.map((d) => `${settingLabel(d.setting)} ${percent(d.accuracy)}`).join(t('list.join'));
      const lost = dots.filter((d) => collapsed.has(`${d.setting.key}/${seed}`));
      row
        .append('title')
        .text(
          t('evidence.row', { seed, list }) +
            (lost.length
              ? t('evidence.rowCollapsed', { setting: lost.map((d) => settingLabel(d.setting)).join(t('list.join')) })
              : ''),
        );
      row
        .append('text')
        .attr('x', MARGIN.left - 8)
        .attr('y', y() + 4)
        .attr('text-anchor', 'end')
        .attr('fill', UI.muted)
        .text(t(mlp ? 'evidence.seedMlp' : 'evidence.seed', { seed }));
      const [min, max] = d3.extent(dots, (d) => d.accuracy);
      row
        .append('line')
        .attr('class', 'pair')
        .attr('x1', x(min))
        .attr('x2', x(max))
        .attr('y1', y())
        .attr('y2', y())
        .attr('stroke', UI.controlBorder)
        .attr('stroke-width', 2);
      for (const d of dots) {
        const cx = x(d.accuracy);
        if (collapsed.has(`${d.setting.key}/${seed}`))
          row
            .append('circle')
            .attr('class', 'collapsed-ring')
            .attr('cx', cx)
            .attr('cy', y())
            .attr('r', 8.5)
            .attr('fill', 'none')
            .attr('stroke', UI.ink)
            .attr('stroke-width', 1.2);
        dot(
          row
            .append('circle')
            .attr('class', 'dot')
            .attr('data-setting', d.setting.key)
            .attr('data-seed', seed)
            .attr('data-accuracy', d.accuracy)
            .attr('cx', cx)
            .attr('cy', y())
            .attr('r', 5),
          d.setting,
        );
      }
      if (lost.length)
        row
          .append('text')
          .attr('class', 'collapsed-label')
          .attr('x', WIDTH - MARGIN.right + 10)
          .attr('y', y() + 4)
          .attr('fill', UI.ink)
          .text(t('evidence.collapsed'));
    });
    const sentence = headline(summary) ?? '';
    this.summaryText.text(sentence ? t('evidence.summary', { headline: sentence }) : '');
    svg.attr('aria-label', t('evidence.aria', { headline: sentence, seeds: blocks[0].seeds.length }));
  }
}

/** A setting's dot: filled in its hue, hollow (a ring in its hue) with an MLP. */
function dot(circle, setting) {
  const color = settingColor(setting.numHeads);
  return setting.mlpHidden
    ? circle.attr('fill', UI.paper).attr('stroke', color).attr('stroke-width', 2)
    : circle.attr('fill', color).attr('stroke', UI.paper);
}
