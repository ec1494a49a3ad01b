// The sentence with its word layer: characters grouped into words, each
// character with its position and role (the six 毒 differ only there), each
// word with a gloss; under it the English tokens with their positions. Drawn
// from sentence.mjs, again when the language changes.
import { TOKENS, WORDS, ENGLISH } from '../sentence.mjs';
import { el } from '../lib/dom.mjs';
import { t } from '../lib/i18n.mjs';

export function renderSentence(container) {
  const words = el('ol', { className: 'words' });
  words.setAttribute('aria-label', t('sentence.words'));
  const wordGlosses = t('gloss.words');
  const tokenGlosses = t('gloss.tokens');
  WORDS.forEach((word, w) => {
    const chars = el('span', { className: 'chars' });
    TOKENS.forEach((u, i) => {
      if (u.word !== w) return;
      const c = el('span', { className: `char role-${u.role}` });
      c.title = t('sentence.charTitle', { i, char: u.char, gloss: tokenGlosses[i] });
      c.dataset.index = String(i);
      c.append(
        el('span', { className: 'glyph', textContent: u.char, lang: 'zh-Hans' }),
        el('span', { className: 'position', textContent: String(i) }),
        el('span', { className: 'role', textContent: t(`roleShort.${u.role}`) }),
      );
      chars.append(c);
    });
    words.append(
      el('li', { className: 'word' }, chars, el('span', { className: 'gloss', textContent: wordGlosses[w] })),
    );
  });
  // The translation is data: English on every page, marked as such.
  const english = el('p', { className: 'english' }, el('span', { className: 'muted' }, t('sentence.translation')), ' ');
  ENGLISH.forEach((u, i) => {
    const span = el('span', { className: 'en-token', textContent: u.text, lang: 'en', translate: false });
    span.append(el('sub', { textContent: String(i) }));
    span.title = u.align.length
      ? t('sentence.aligned', { list: u.align.map((k) => `${TOKENS[k].char}${k}`).join(' ') })
      : t('sentence.notAligned');
    english.append(span, ' ');
  });
  container.replaceChildren(words, english);
}
