// The table of every training run, grouped by setting, each group headed by
// its median and mean ± SD: held-out 毒 accuracy, the role each run gives each 毒 of the
// example sentence, and where its heads look (left neighbour, right
// neighbour, the 毒 itself: the numbers the text's head collapse is read from).
import d3 from '../lib/d3.mjs';
import { settingColor } from '../lib/palette.mjs';
import { percent, fixed } from '../lib/format.mjs';
import { captionedTable } from '../lib/dom.mjs';
import { t } from '../lib/i18n.mjs';
import { settingLabel } from '../model/train-options.mjs';
import { tokenName } from '../lib/tokens.mjs';
import { heldOut } from '../model/corpus.mjs';
import { EXAMPLE_DU, EXAMPLE_TOKENS } from '../model/train-data.mjs';
import { percentMeanSd } from '../model/train-text.mjs';
import { median } from '../model/train-stats.mjs';

/** Each head's mean weight on a 毒's left / right neighbour / itself: "0.31 / 0.40 / 0.20", "h0 … · h1 …". */
const neighboursText = (neighbours) =>
  neighbours
    .map(
      (h, i) =>
        `${neighbours.length > 1 ? `h${i} ` : ''}${fixed(h.left, 2)} / ${fixed(h.right, 2)} / ${fixed(h.self, 2)}`,
    )
    .join(' · ');

/**
 * @param {object} progress runExperiment's progress (train-runner.mjs)
 * @param {object[]} settings the settings shown, in order
 * @returns {HTMLElement} the table in its scroll box, its caption outside
 */
export function runsTable(progress, settings) {
  const table = d3.create('table').attr('class', 'train-table');
  const head = table.append('thead').append('tr');
  head.append('th').attr('scope', 'col').text(t('runs.run'));
  head.append('th').attr('scope', 'col').text(t('runs.heldOut'));
  for (const p of EXAMPLE_DU)
    head
      .append('th')
      .attr('scope', 'col')
      .attr('lang', 'zh-Hans')
      .attr('title', `${tokenName(EXAMPLE_TOKENS[p])}: ${t(`tag.${heldOut.tags[p]}`)}`)
      .call((th) => th.append('span').text(tokenName(EXAMPLE_TOKENS[p])))
      .call((th) =>
        th
          .append('small')
          .attr('lang', null)
          .text(t(`tag.${heldOut.tags[p]}`)),
      );
  head.append('th').attr('scope', 'col').text(t('runs.allSix'));
  head.append('th').attr('scope', 'col').text(t('runs.neighbours'));
  const columns = EXAMPLE_DU.length + 4;
  for (const setting of settings) {
    const runs = progress.runs.filter((r) => r.setting === setting);
    const latest = runs.map((r) => r.accuracy.at(-1)?.value).filter((v) => v !== undefined);
    const allRight = runs.filter((r) => r.example?.allRight).length;
    const body = table.append('tbody');
    body
      .append('tr')
      .attr('class', 'setting-row')
      .append('th')
      .attr('colspan', columns)
      .attr('scope', 'colgroup')
      .style('--setting-color', settingColor(setting.numHeads))
      .text(
        t('runs.setting', {
          setting: settingLabel(setting),
          median: latest.length ? percent(median(latest)) : '—',
          accuracy: latest.length ? percentMeanSd(latest) : '—',
          right: allRight,
          runs: runs.length,
        }),
      );
    for (const run of runs) {
      const tr = body.append('tr');
      tr.append('th')
        .attr('scope', 'row')
        .text(t('runs.seed', { seed: run.seed }));
      tr.append('td').text(run.accuracy.length ? percent(run.accuracy.at(-1).value) : '—');
      for (const d of run.example?.du ?? [])
        tr.append('td')
          .attr('class', d.right ? 'kept' : 'dropped')
          .text(d.right ? '✓' : `✗ ${t(`tag.${d.got}`)}`)
          .attr('aria-label', d.right ? t('runs.right') : t('runs.wrong', { got: t(`tag.${d.got}`) }));
      if (!run.example) tr.append('td').attr('colspan', EXAMPLE_DU.length).text('—');
      tr.append('td').text(run.example ? t(run.example.allRight ? 'common.yes' : 'common.no') : '—');
      tr.append('td').text(run.neighbours ? neighboursText(run.neighbours) : '—');
    }
  }
  return captionedTable(t('runs.caption'), table.node());
}
