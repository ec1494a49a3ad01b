// The toy grammar's rule table (left class × right class → a 毒's role), an
// example of every rule, what the table implies (one neighbour alone leaves
// the role open), and the experiment's data. The table and the notes' words
// need no data: drawn with the page, the notes' numbers as '…' until the
// experiment's data is made (views/train.mjs), when only the notes are
// written again (a note may wrap onto one more or one fewer line).
import d3 from '../lib/d3.mjs';
import { percent, thousands } from '../lib/format.mjs';
import { captionedTable } from '../lib/dom.mjs';
import { t } from '../lib/i18n.mjs';
import { ruleGrid } from '../model/rule-grid.mjs';
import { rules } from '../model/corpus.mjs';
import { TRAIN_CORPUS } from '../model/train-data.mjs';

/** A context class as the rule table shows it ('du' is 毒 itself). */
const className = (c) => t(`class.${c}`);
const roleName = (role) => t(`tag.${role}`);

/** A number the data gives, or the placeholder until it is made. */
const PENDING = '…';

/** The rule table and its examples into `box`: no data needed. */
export function renderRuleTable(box) {
  const grid = ruleGrid();
  const classHeader = (th, c) => {
    th.append('span').text(className(c));
    const members = c === 'du' ? [] : grid.members[c];
    if (members.length || c === 'edge')
      th.append('small')
        .attr('lang', 'zh-Hans')
        .text(c === 'edge' ? t('rules.edge') : members.join(' '));
  };
  const table = d3.create('table').attr('class', 'rule-table');
  const head = table.append('thead').append('tr');
  head.append('td').text(t('rules.corner'));
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
        .attr('title', rule ? t('rules.exampleTexts')[rules.indexOf(rule)] : null)
        .text(rule ? roleName(rule.role) : '—');
  });
  const examples = d3.create('details').attr('class', 'numbers');
  examples.append('summary').text(t('rules.examples'));
  const texts = t('rules.exampleTexts');
  examples
    .append('ul')
    .attr('class', 'rule-examples')
    .selectAll('li')
    .data(d3.merge(grid.cells).filter(Boolean))
    .join('li')
    .each(function (r) {
      // "毒毒毒: the middle 毒 poisons [2]": the Chinese example, marked as Chinese, then what it says.
      const [, chinese, rest] = /^([^:：]*)([\s\S]*)$/.exec(texts[rules.indexOf(r)]);
      const li = d3.select(this);
      li.append('span').text(
        t('rules.example', { left: className(r.left), right: className(r.right), role: roleName(r.role) }),
      );
      li.append('span').attr('lang', 'zh-Hans').text(chinese);
      li.append('span').text(rest);
    });
  box.replaceChildren(captionedTable(t('rules.caption'), table.node()), examples.node());
}

/**
 * What the table implies and the experiment's data, in two notes.
 * @param {{ note: HTMLElement, dataNote: HTMLElement }} boxes
 * @param {object | null} data the experiment's data (train-data.mjs buildData); null: not made yet
 */
export function renderRuleNotes({ note, dataNote }, data) {
  const grid = ruleGrid();
  const made = (value) => (data ? value() : PENDING);
  note.textContent = t('rules.note', {
    lefts: grid.ambiguousLefts,
    leftCount: grid.lefts.length,
    rights: grid.ambiguousRights,
    rightCount: grid.rights.length,
    left: made(() => percent(data.neighbours.left)),
    right: made(() => percent(data.neighbours.right)),
    both: made(() => percent(data.neighbours.both)),
  });
  dataNote.textContent = t('rules.data', {
    train: thousands(TRAIN_CORPUS.count),
    distinct: made(() => thousands(new Set(data.train.map((s) => s.tokens.join())).size)),
    seed: TRAIN_CORPUS.seed,
    test: made(() => data.test.length),
    testDu: made(() => thousands(data.testDu.length)),
  });
}
