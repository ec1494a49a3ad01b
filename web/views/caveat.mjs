// Beside the heads' first appearance: for the designed heads the blocks of
// columns of X, the ones a person annotated (✎) apart from the text itself
// (character, position), so that a reader sees where the heads' "findings"
// come from; for free mode's random heads, how near uniform they are as drawn
// and without the gain that sharpens them for the display (measured on the
// run); and, once this page has trained, its own measured numbers in the note.
import { el } from '../lib/dom.mjs';
import { t } from '../lib/i18n.mjs';
import { fixed } from '../lib/format.mjs';
import { ANNOTATED_BLOCKS } from '../model/features.mjs';
import { untrainedSpread } from '../model/free-mode.mjs';

function blockList(layout, title) {
  const used = layout.blocks.reduce((sum, b) => sum + b.size, 0);
  const items = layout.blocks.map(({ name, size }) => {
    const annotated = ANNOTATED_BLOCKS.includes(name);
    const text = t('xBlocks.block', { name: t(`block.${name}`), n: size });
    return el('li', { className: annotated ? 'annotated' : 'surface' }, annotated ? `✎ ${text}` : text);
  });
  if (used < layout.width)
    items.push(
      el('li', { className: 'unused' }, t('xBlocks.block', { name: t('block.unused'), n: layout.width - used })),
    );
  return el('div', { className: 'x-block-row' }, el('span', { className: 'x-title' }, title), el('ul', {}, ...items));
}

/** Free mode's random heads against an even spread, as drawn and without the gain; nothing for other runs. */
function renderUntrained(box, run) {
  if (!box) return;
  if (run?.mode !== 'free') {
    box.textContent = '';
    return;
  }
  const { gain, drawn, untrained } = untrainedSpread(run);
  box.textContent = t('caveat.untrained', { gain, drawn: fixed(drawn, 2), untrained: fixed(untrained, 2) });
}

/**
 * The X blocks of a designed run (nothing for free mode, whose X has no named
 * columns), and free mode's spread in the same note (.caveat-untrained).
 */
export function renderXBlocks(box, run) {
  renderUntrained(box.closest('.caveat')?.querySelector('.caveat-untrained'), run);
  const layouts = run?.spec.layouts;
  if (!layouts) {
    box.replaceChildren();
    return;
  }
  const rows = [];
  if (layouts.query === layouts.key)
    rows.push(blockList(layouts.query, t('xBlocks.self', { rows: run.rows, cols: layouts.query.width })));
  else {
    rows.push(blockList(layouts.query, t('xBlocks.queries', { rows: run.rows, cols: layouts.query.width })));
    rows.push(blockList(layouts.key, t('xBlocks.keys', { rows: run.cols, cols: layouts.key.width })));
  }
  const legend = el(
    'p',
    { className: 'x-legend' },
    el('span', { className: 'annotated' }, t('xBlocks.annotated')),
    ' ',
    el('span', { className: 'surface' }, t('xBlocks.surface')),
  );
  box.replaceChildren(...rows, legend);
}
