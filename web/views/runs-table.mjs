// The table of every training run, grouped by setting, each group headed by
// its mean ± SD: held-out 毒 accuracy, the role each run gives each 毒 of the
// example sentence, and where its heads look.
import d3 from '../lib/d3.mjs';
import { settingColor } from '../lib/palette.mjs';
import { percent } from '../lib/format.mjs';
import { tokenName } from '../lib/tokens.mjs';
import { heldOut } from '../model/corpus.mjs';
import { EXAMPLE_DU, EXAMPLE_TOKENS } from '../model/train-data.mjs';
import { percentMeanSd } from '../model/train-text.mjs';

/** Each head's mean weight on a 毒's left / right neighbour: "0.31 / 0.40", or "h0 … · h1 …" for several heads. */
const neighboursText = (neighbours) =>
  neighbours
    .map((h, i) => `${neighbours.length > 1 ? `h${i} ` : ''}${h.left.toFixed(2)} / ${h.right.toFixed(2)}`)
    .join(' · ');

/**
 * @param {object} progress runExperiment's progress (train-runner.mjs)
 * @param {object[]} settings the settings shown, in order
 * @returns {HTMLTableElement}
 */
export function runsTable(progress, settings) {
  const table = d3.create('table').attr('class', 'train-table');
  table
    .append('caption')
    .text(
      'Every run. Held-out 毒 accuracy: the latest evaluation (final once done). ' +
        'The example sentence: the role the run gives each 毒 (✓ right; ✗ and what it said instead). ' +
        'Neighbour weight: each head’s mean attention from a 毒 to its left / right neighbour over the test set ' +
        '(at the end).',
    );
  const head = table.append('thead').append('tr');
  head.append('th').attr('scope', 'col').text('run');
  head.append('th').attr('scope', 'col').text('held-out 毒');
  for (const p of EXAMPLE_DU)
    head
      .append('th')
      .attr('scope', 'col')
      .attr('lang', 'zh-Hans')
      .attr('title', `${tokenName(EXAMPLE_TOKENS[p])}: ${heldOut.tags[p]}`)
      .call((th) => th.append('span').text(tokenName(EXAMPLE_TOKENS[p])))
      .call((th) => th.append('small').attr('lang', 'en').text(heldOut.tags[p]));
  head.append('th').attr('scope', 'col').text('all six');
  head.append('th').attr('scope', 'col').text('neighbour weight (left / right)');
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
        `${setting.label}: ${latest.length ? percentMeanSd(latest) : '—'}` +
          ` · all six 毒 of the example right in ${allRight} of ${runs.length}`,
      );
    for (const run of runs) {
      const tr = body.append('tr');
      tr.append('th').attr('scope', 'row').text(`seed ${run.seed}`);
      tr.append('td').text(run.accuracy.length ? percent(run.accuracy.at(-1).value) : '—');
      for (const d of run.example?.du ?? [])
        tr.append('td')
          .attr('class', d.right ? 'kept' : 'dropped')
          .text(d.right ? '✓' : `✗ ${d.got}`)
          .attr('aria-label', d.right ? 'right' : `wrong: ${d.got}`);
      if (!run.example) tr.append('td').attr('colspan', EXAMPLE_DU.length).text('—');
      tr.append('td').text(run.example ? (run.example.allRight ? 'yes' : 'no') : '—');
      tr.append('td').text(run.neighbours ? neighboursText(run.neighbours) : '—');
    }
  }
  return table.node();
}
