// The sentence with its word layer: characters grouped into words, each
// character with its position and role (the six 毒 differ only there), each
// word with a gloss; under it the English tokens with their positions. Static:
// drawn once from sentence.mjs.
import { TOKENS, WORDS, ENGLISH, TRANSLATION } from '../sentence.mjs';
import { el } from '../lib/dom.mjs';

const ROLE_SHORT = {
  coverb: 'cv',
  noun: 'n',
  verb: 'v',
  modifier: 'mod',
  punctuation: '',
  modal: 'aux',
  negation: 'neg',
  complement: 'res',
};

export function renderSentence(container) {
  const words = el('ol', { className: 'words' });
  words.setAttribute('aria-label', 'The sentence, word by word; each character with its position and role');
  WORDS.forEach((word, w) => {
    const chars = el('span', { className: 'chars' });
    TOKENS.forEach((t, i) => {
      if (t.word !== w) return;
      const c = el('span', { className: `char role-${t.role}` });
      c.title = `${i} ${t.char}: ${t.gloss}`;
      c.dataset.index = String(i);
      c.append(
        el('span', { className: 'glyph', textContent: t.char, lang: 'zh-Hans' }),
        el('span', { className: 'position', textContent: String(i) }),
        el('span', { className: 'role', textContent: ROLE_SHORT[t.role] }),
      );
      chars.append(c);
    });
    words.append(el('li', { className: 'word' }, chars, el('span', { className: 'gloss', textContent: word.gloss })));
  });
  const english = el('p', { className: 'english' });
  english.setAttribute('aria-label', `English translation: ${TRANSLATION}`);
  ENGLISH.forEach((t, i) => {
    const span = el('span', { className: 'en-token', textContent: t.text }, el('sub', { textContent: String(i) }));
    span.title = t.align.length ? `aligned to ${t.align.map((k) => `${TOKENS[k].char}${k}`).join(' ')}` : 'not aligned';
    english.append(span, ' ');
  });
  container.replaceChildren(words, english);
}
