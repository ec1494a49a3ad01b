// The names of X's, Q's, K's and V's columns as the page shows them. The code
// names a column "block:value", a head's column "head/block:value"
// (layout.mjs); English shows these names as they are, Chinese translates the
// block, the role values and the head. Pure.
import { language, t } from '../lib/i18n.mjs';
import { ROLES } from '../sentence.mjs';

const BLOCKS = new Set(['char', 'position', 'word', 'role', 'head', 'link', 'first', 'lemma', 'lexicon', 'clause']);

/** A column's label in the page's language ("" stays "": an unused column). */
export function featureLabel(label) {
  if (!label || language() === 'en') return label;
  if (label === 'unused') return t('block.unused');
  const slash = label.indexOf('/');
  const head = slash >= 0 ? label.slice(0, slash) : '';
  const rest = slash >= 0 ? label.slice(slash + 1) : label;
  const colon = rest.indexOf(':');
  const block = colon >= 0 ? rest.slice(0, colon) : rest;
  const value = colon >= 0 ? rest.slice(colon + 1) : '';
  let text = rest;
  if (BLOCKS.has(block)) {
    const shownValue = block === 'role' && ROLES.includes(value) ? t(`role.${value}`) : value;
    text = colon >= 0 ? `${t(`block.${block}`)}:${shownValue}` : t(`block.${block}`);
  }
  if (!head) return text;
  const title = head.startsWith('head-') ? t('head.numbered', { n: head.slice(5) }) : t(`head.title.${head}`);
  return `${title}/${text}`;
}
