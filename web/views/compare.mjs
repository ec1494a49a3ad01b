// Single head vs the heads, row by row (model/head-comparison.mjs): what each
// head picks (its top keys), whether the single head's one softmax keeps that
// pick, how spread out each row is (entropy in bits), and the rows where the
// single head's top key is none of the heads' tops. Reads only the run.
import { headColor } from '../lib/palette.mjs';
import { el } from '../lib/dom.mjs';
import { plural } from '../lib/format.mjs';
import { tokenName } from '../lib/tokens.mjs';
import { headTitle } from '../model/head-names.mjs';
import { compareRows } from '../model/head-comparison.mjs';

const bits = (h) => `${h.toFixed(2)} bits`;
const keysText = (run, keys) => (keys.length ? keys.map((k) => tokenName(run.keyTokens[k])).join(', ') : '—');

export class CompareView {
  constructor(container) {
    this.container = container;
  }

  update(run) {
    if (!run.single) return; // app.mjs hides the section
    const rows = compareRows(run);
    const picks = rows.flatMap((r) => r.picks.filter((p) => p.tops.length));
    const kept = picks.filter((p) => p.kept).length;
    const none = rows.filter((r) => r.none);
    const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;

    const picked = (h) => h.entropy.filter((_, q) => h.tops[q].length);
    const split = rows.filter((r) => run.single.entropy[r.q] > 0.9);
    const names = (list) => list.map((r) => tokenName(r.token)).join(', ');
    const headEntropies = run.heads.map((h) => `${headTitle(h.name)} ${bits(mean(picked(h)))}`).join(', ');
    const summary = el(
      'p',
      { className: 'summary' },
      `The ${run.heads.length} heads make ${picks.length} picks ` +
        "(a row's top key, in the rows where a head has something to find). ",
      el('strong', {}, `The single head's top keeps ${kept} of them and drops ${picks.length - kept}`),
      ': one softmax per row cannot put most of its weight on several keys at once. ',
      `Mean entropy per row: ${headEntropies} (rows with a pick); `,
      `single head ${bits(mean(run.single.entropy))} (all rows). ` +
        'Adding scores does not make it flatter, it makes it choose',
      split.length
        ? `, and where two relations score the same it splits its weight: ${names(split)} (over 0.9 bits each). `
        : '. ',
      none.length
        ? `Its top key is none of the heads' tops in ${plural(none.length, 'row')}: ${names(none)} (highlighted).`
        : "Its top key is always one of the heads' tops here: adding the scores keeps each row's strongest relation " +
            'and loses the others. (With random heads, in Free mode, it often lands where no head looks.)',
    );

    const table = el('table', { className: 'compare' });
    table.createCaption().textContent =
      'Row by row: the single head’s top keys and entropy, and each head’s pick ' +
      '(✓ kept by the single head, ✗ dropped, with the weight the single head still gives it).';
    const head = table.createTHead().insertRow();
    head.append(
      el('th', { scope: 'col', textContent: 'query' }),
      el('th', { scope: 'col', textContent: 'single head: top · entropy' }),
    );
    for (const h of run.heads) {
      const th = el('th', { scope: 'col', textContent: headTitle(h.name) });
      th.style.setProperty('--head-color', headColor(h.name, h.index));
      head.append(th);
    }
    head.append(el('th', { scope: 'col', textContent: 'none of the heads’ tops?' }));
    const body = table.createTBody();
    for (const r of rows) {
      const tr = body.insertRow();
      tr.classList.toggle('none', r.none);
      const th = el('th', { scope: 'row', textContent: tokenName(r.token), title: r.token.title ?? '' });
      if (r.token.lang) th.lang = r.token.lang;
      tr.append(th, el('td', { textContent: `${keysText(run, r.singleTops)} · ${bits(run.single.entropy[r.q])}` }));
      for (const p of r.picks) {
        const td = el('td');
        if (!p.tops.length) td.append(el('span', { className: 'muted', textContent: 'uniform (nothing to find)' }));
        else
          td.append(
            el('span', {
              className: p.kept ? 'kept' : 'dropped',
              textContent: p.kept ? '✓ ' : '✗ ',
              ariaLabel: p.kept ? 'kept' : 'dropped',
            }),
            keysText(run, p.tops),
            el('span', { className: 'muted', textContent: ` · single ${p.singleWeight.toFixed(2)}` }),
          );
        tr.append(td);
      }
      tr.append(el('td', { textContent: r.none ? 'yes' : 'no' }));
    }
    const box = this.container.querySelector('.compare-body');
    box.replaceChildren(summary, el('div', { className: 'table-scroll' }, table));
  }
}
