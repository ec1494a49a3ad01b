// The toy grammar's rule table (left class × right class → a 毒's role), an
// example of every rule, what the table implies (one neighbour alone leaves
// the role open), and the experiment's data. Static: drawn once.
import d3 from '../lib/d3.mjs';
import { percent, thousands } from '../lib/format.mjs';
import { ruleGrid } from '../model/rule-grid.mjs';
import { TRAIN_CORPUS } from '../model/train-data.mjs';

/** A context class as the rule table shows it ('du' is 毒 itself). */
const className = (c) => (c === 'du' ? '毒' : c);

/**
 * @param {{ table: HTMLElement, note: HTMLElement, dataNote: HTMLElement }} boxes
 * @param {object} data the experiment's data (train-data.mjs buildData)
 */
export function renderRules({ table: box, note, dataNote }, data) {
  const grid = ruleGrid();
  const classHeader = (th, c) => {
    th.append('span').text(className(c));
    const members = c === 'du' ? [] : grid.members[c];
    if (members.length || c === 'edge')
      th.append('small')
        .attr('lang', 'zh-Hans')
        .text(c === 'edge' ? '， start, end' : members.join(' '));
  };
  const table = d3.create('table').attr('class', 'rule-table');
  table
    .append('caption')
    .text(
      'A 毒’s role from the classes of its two neighbours: left (rows) and right (columns); ' +
        '— : no sentence puts a 毒 there.',
    );
  const head = table.append('thead').append('tr');
  head.append('td').text('left ↓ right →');
  for (const right of grid.rights)
    head
      .append('th')
      .attr('scope', 'col')
      .call((th) => classHeader(th, right));
  const body = table.append('tbody');
  grid.lefts.forEach((left, i) => {
    const tr = body.append('tr');
    tr.append('th')
      .attr('scope', 'row')
      .call((th) => classHeader(th, left));
    for (const rule of grid.cells[i])
      tr.append('td')
        .attr('class', rule ? `role-${rule.role}` : 'muted')
        .attr('title', rule?.example ?? null)
        .text(rule?.role ?? '—');
  });
  const examples = d3.create('details').attr('class', 'numbers');
  examples.append('summary').text('An example of every rule');
  examples
    .append('ul')
    .attr('class', 'rule-examples')
    .selectAll('li')
    .data(d3.merge(grid.cells).filter(Boolean))
    .join('li')
    .text((r) => `${className(r.left)} · 毒 · ${className(r.right)} → ${r.role}: ${r.example}`);
  box.replaceChildren(table.node(), examples.node());

  const { left, right, both } = data.neighbours;
  note.textContent =
    `Knowing only the left neighbour’s class leaves two roles open in ${grid.ambiguousLefts} of ` +
    `${grid.lefts.length} rows; knowing only the right one’s, in ${grid.ambiguousRights} of ${grid.rights.length} ` +
    'columns; the two together always decide. On the test set below, the best guess from the left character alone ' +
    `gets ${percent(left)} of the 毒 right, from the right character alone ${percent(right)}, ` +
    `from both ${percent(both)}.`;
  const distinct = new Set(data.train.map((s) => s.tokens.join())).size;
  dataNote.textContent =
    `Training set: ${thousands(TRAIN_CORPUS.count)} generated sentences (${thousands(distinct)} different ones; ` +
    `seed ${TRAIN_CORPUS.seed}). Test set: ${data.test.length} other generated sentences with ` +
    `${thousands(data.testDu.length)} 毒, none of them in the training set. ` +
    'The example sentence is in neither: the generator never produces it, so every 毒 in it is a test.';
}
