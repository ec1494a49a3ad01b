// The sentence with its word layer: characters grouped into words, each
// character with its position and role (the six 毒 differ only there), each
// word with a gloss; under it the English tokens with their positions. Static:
// drawn once from sentence.mjs.
import { TOKENS, WORDS, ENGLISH, TRANSLATION } from '../sentence.mjs';

const ROLE_SHORT = { coverb: 'cv', noun: 'n', verb: 'v', modifier: 'mod', punctuation: '', modal: 'aux', negation: 'neg', complement: 'res' };

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

export function renderSentence(container) {
  const words = el('ol', 'words');
  words.setAttribute('aria-label', 'The sentence, word by word; each character with its position and role');
  WORDS.forEach((word, w) => {
    const li = el('li', 'word');
    const chars = el('span', 'chars');
    TOKENS.forEach((t, i) => {
      if (t.word !== w) return;
      const c = el('span', `char role-${t.role}`);
      c.title = `${i} ${t.char}: ${t.gloss}`;
      c.dataset.index = String(i);
      const glyph = el('span', 'glyph', t.char);
      glyph.lang = 'zh-Hans';
      c.append(glyph, el('span', 'position', String(i)), el('span', 'role', ROLE_SHORT[t.role]));
      chars.append(c);
    });
    li.append(chars, el('span', 'gloss', word.gloss));
    words.append(li);
  });
  const english = el('p', 'english');
  english.setAttribute('aria-label', `English translation: ${TRANSLATION}`);
  ENGLISH.forEach((t, i) => {
    const span = el('span', 'en-token', t.text);
    span.append(el('sub', '', String(i)));
    span.title = t.align.length ? `aligned to ${t.align.map((k) => `${TOKENS[k].char}${k}`).join(' ')}` : 'not aligned';
    english.append(span, ' ');
  });
  container.replaceChildren(words, english);
}
