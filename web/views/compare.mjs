// Single head vs the heads, row by row (model/head-comparison.mjs): what each
// head picks (its top keys), whether the single head's one softmax keeps that
// pick, how spread out each row is (entropy in bits), and the rows where the
// single head's top key is none of the heads' tops. Reads only the run.
import { headColor } from '../lib/palette.mjs';
import { captionedTable, el } from '../lib/dom.mjs';
import { t } from '../lib/i18n.mjs';
import { fixed } from '../lib/format.mjs';
import { tokenName } from '../lib/tokens.mjs';
import { headTitle } from '../model/head-names.mjs';
import { compareRows, compareSummary } from '../model/head-comparison.mjs';

const bits = (h) => t('compare.bits', { h: fixed(h, 2) });
const keysText = (run, keys) => (keys.length ? keys.map((k) => tokenName(run.keyTokens[k])).join(t('list.join')) : '—');

export class CompareView {
  constructor(container) {
    this.container = container;
  }

  update(run) {
    if (!run.single) return; // app.mjs hides the section
    const rows = compareRows(run);
    const s = compareSummary(run, rows);
    const names = (list) => list.map((r) => tokenName(r.token)).join(t('list.join'));
    const headEntropies = s.headBits
      .map(({ head, bits: b }) => `${headTitle(head.name)} ${b === null ? '—' : bits(b)}`)
      .join(t('list.join'));
    // No row of any head prefers a key (every score equal: sharpness 0): nothing is kept or dropped, so say that.
    const summary = s.flat
      ? el(
          'p',
          { className: 'summary' },
          t('compare.flat', { single: bits(s.singleBits) }),
          run.mode === 'free' ? '' : t('compare.flat.sharpness'),
        )
      : el(
          'p',
          { className: 'summary' },
          t('compare.picks', { heads: run.heads.length, picks: s.picks }),
          el('strong', {}, t('compare.kept', { kept: s.kept, dropped: s.picks - s.kept })),
          t('compare.why'),
          t('compare.entropy', { heads: headEntropies, single: bits(s.singleBits) }),
          t('compare.choose'),
          s.split.length ? t('compare.split', { names: names(s.split) }) : t('compare.stop'),
          s.none.length ? t('compare.none', { n: s.none.length, names: names(s.none) }) : t('compare.always'),
          run.mode === 'free' ? '' : t('compare.construction'),
        );

    const table = el('table', { className: 'compare' });
    const head = table.createTHead().insertRow();
    head.append(
      el('th', { scope: 'col', textContent: t('compare.th.query') }),
      el('th', { scope: 'col', textContent: t('compare.th.single') }),
    );
    for (const h of run.heads) {
      const th = el('th', { scope: 'col', textContent: headTitle(h.name) });
      th.style.setProperty('--head-color', headColor(h.name, h.index));
      head.append(th);
    }
    head.append(el('th', { scope: 'col', textContent: t('compare.th.none') }));
    const body = table.createTBody();
    for (const r of rows) {
      const tr = body.insertRow();
      tr.classList.toggle('none', r.none);
      const th = el('th', { scope: 'row', textContent: tokenName(r.token), title: r.token.title ?? '' });
      if (r.token.lang) th.lang = r.token.lang;
      th.translate = false;
      tr.append(th, el('td', { textContent: `${keysText(run, r.singleTops)} · ${bits(run.single.entropy[r.q])}` }));
      for (const p of r.picks) {
        const td = el('td');
        // An even row: "nothing to find" only where the head has no target in it; else it found none (sharpness 0).
        const target = p.head.targets?.[r.q]?.keys.length > 0;
        if (!p.tops.length)
          td.append(el('span', { className: 'muted', textContent: t(target ? 'compare.flatRow' : 'compare.uniform') }));
        else
          td.append(
            el('span', {
              className: p.kept ? 'kept' : 'dropped',
              textContent: p.kept ? '✓ ' : '✗ ',
              ariaLabel: t(p.kept ? 'compare.keptMark' : 'compare.droppedMark'),
            }),
            keysText(run, p.tops),
            el('span', {
              className: 'muted',
              textContent: t('compare.singleWeight', { w: fixed(p.singleWeight, 2) }),
            }),
          );
        tr.append(td);
      }
      tr.append(el('td', { textContent: t(r.none ? 'common.yes' : 'common.no') }));
    }
    const box = this.container.querySelector('.compare-body');
    box.replaceChildren(summary, captionedTable(t('compare.caption'), table));
  }
}
