// What the real-model view (views/real-model.mjs) writes around the heads for
// a run: the model's tokens, the order and focus menus, and the scores' help
// naming the run's special tokens.
import { el } from '../lib/dom.mjs';
import { t } from '../lib/i18n.mjs';
import { tokenName } from '../lib/tokens.mjs';
import { ORDERS, repeatedTokens, scoreApplies } from '../model/real-model-scores.mjs';

/** The run's tokens as a list (spaces shown as ␣, special tokens marked), after a line with their count. */
export function tokenList(run) {
  const list = el('ol', { className: 'real-token-list' });
  for (const token of run.records) {
    const item = el('li', { translate: false, title: tokenName(token) }, token.text.replace(/ /g, '␣'));
    if (token.lang) item.lang = token.lang;
    if (run.special[token.index]) item.className = 'special';
    list.append(item);
  }
  return [el('p', { textContent: t('real.tokens', { n: run.tokens.length }) }), list];
}

/**
 * Fills the order menu (`order` chosen; a score that does not apply to the
 * sentence, scoreApplies of the `baseline`, cannot be chosen: every head
 * would tie at 0), the focus menu (the run's repeated tokens, then all;
 * `focus` chosen) and the help that names the special tokens.
 * @param {{ order: HTMLSelectElement, focus: HTMLSelectElement, help: HTMLElement }} e
 */
export function fillControls(e, run, { order, focus, baseline }) {
  e.order.replaceChildren(
    ...ORDERS.map((o) => {
      const option = new Option(
        o === 'grid' ? t('real.order.grid') : t('real.order.by', { score: t(`real.score.${o}`) }),
        o,
      );
      option.disabled = o !== 'grid' && !scoreApplies(baseline, o);
      return option;
    }),
  );
  e.order.value = order;
  const repeated = repeatedTokens(run.tokens, run.special);
  e.focus.replaceChildren(
    ...repeated.map((r) => new Option(t('real.focus.token', { token: r.text, count: r.count }), r.text)),
    new Option(t('real.focus.all'), ''),
  );
  e.focus.value = focus;
  const special = [...new Set(run.tokens.filter((_, i) => run.special[i]))];
  e.help.textContent = t('real.score.help', {
    special: special.length ? special.join(t('list.join')) : t('real.special.none'),
  });
}
