// The page's default data: the annotation, exactly as written and internally
// consistent, and the X built from it.
import {
  TOKENS,
  WORDS,
  LINKS,
  ENGLISH,
  ROLES,
  SENTENCE,
  TRANSLATION,
  CLAUSES,
  WITH_VENOM,
} from '../../web/sentence.mjs';
import { chineseInput, englishInput, D_MODEL } from '../../web/model/features.mjs';

test('15 character tokens spell the sentence; the words cover them in order', () => {
  expect(SENTENCE).toBe('用毒毒毒蛇，毒蛇会不会被毒毒死');
  expect(TOKENS).toHaveLength(15);
  expect(WORDS.map((w) => w.text)).toEqual(['用', '毒', '毒', '毒蛇', '，', '毒蛇', '会不会', '被', '毒', '毒死']);
  const spelled = WORDS.map((_, w) =>
    TOKENS.filter((t) => t.word === w)
      .map((t) => t.char)
      .join(''),
  );
  expect(spelled).toEqual(WORDS.map((w) => w.text));
  expect(TOKENS.map((t) => t.word)).toEqual([...TOKENS.map((t) => t.word)].sort((a, b) => a - b));
});

test('the six 毒 have the annotated roles; every role is a known one', () => {
  const du = TOKENS.flatMap((t, i) => (t.char === '毒' ? [[i, t.role]] : []));
  expect(du).toEqual([
    [1, 'noun'],
    [2, 'verb'],
    [3, 'modifier'],
    [6, 'modifier'],
    [12, 'noun'],
    [13, 'verb'],
  ]);
  for (const t of TOKENS) expect(ROLES).toContain(t.role);
});

test('dependency heads are the annotated ones and form one tree under 毒2', () => {
  expect(TOKENS.map((t) => t.head)).toEqual([1, 2, null, 4, 2, 2, 7, 13, 13, 10, 13, 13, 13, 2, 13]);
  for (let i = 0; i < TOKENS.length; i++) {
    const seen = new Set();
    let j = i;
    while (TOKENS[j].head !== null) {
      expect(seen.has(j)).toBe(false); // no cycle
      seen.add(j);
      j = TOKENS[j].head;
    }
    expect(j).toBe(2);
  }
});

test('long-distance links go from a second mention back to a first mention of the same character and role', () => {
  expect(LINKS.map((l) => [l.from, l.to])).toEqual([
    [6, 3],
    [7, 4],
    [12, 1],
    [13, 2],
  ]);
  for (const { from, to } of LINKS) {
    expect(from).toBeGreaterThan(to);
    expect([TOKENS[from].char, TOKENS[from].role]).toEqual([TOKENS[to].char, TOKENS[to].role]);
  }
});

test('English tokens: the lexicon by word type, the alignment token by token, the clauses', () => {
  expect(ENGLISH.map((t) => t.text).join(' ')).toBe(TRANSLATION.replace('?', ' ?'));
  const byWord = Object.fromEntries(ENGLISH.filter((t) => t.lexicon.length).map((t) => [t.text, t.lexicon]));
  expect(byWord).toEqual({
    Will: [8, 9, 10],
    venomous: [3, 6],
    snake: [4, 7],
    be: [11],
    poisoned: [13],
    death: [14],
    venom: [1, 12],
    poison: [2],
    it: [4],
    with: [0],
  });
  expect(ENGLISH.filter((t) => !t.lexicon.length).map((t) => t.text)).toEqual(['a', 'to', 'by', 'if', 'we', '?']);
  // Token by token: "by venom" is the agent 毒12, "with venom" the instrument 毒1; every alignment is in the lexicon.
  expect([ENGLISH[9].align, ENGLISH[15].align]).toEqual([[12], [1]]);
  expect(WITH_VENOM).toBe(15);
  // 被毒毒死: "be poisoned to death", 毒13 → poisoned, 死14 → death.
  expect(ENGLISH.slice(4, 8).map((t) => [t.text, [...t.align]])).toEqual([
    ['be', [11]],
    ['poisoned', [13]],
    ['to', []],
    ['death', [14]],
  ]);
  for (const t of ENGLISH) for (const k of t.align) expect(t.lexicon).toContain(k);
  // Aligned tokens sit in the clause of what they translate.
  for (const t of ENGLISH) for (const k of t.align) expect(CLAUSES[k]).toBe(t.clause);
  expect(CLAUSES.map((c, i) => (c === null ? TOKENS[i].char : null)).filter(Boolean)).toEqual(['，']);
});

test('Chinese X: one-hot features, d_model wide; the root has no head feature; links on their mentions', () => {
  const { X, layout } = chineseInput();
  expect(layout.width).toBe(D_MODEL);
  const at = (i, block, index) => X[i * D_MODEL + layout.column(block, index)];
  const blockSum = (i, block) =>
    Array.from({ length: layout.size(block) }, (_, j) => at(i, block, j)).reduce((a, b) => a + b);
  TOKENS.forEach((t, i) => {
    expect([blockSum(i, 'char'), blockSum(i, 'position'), blockSum(i, 'word'), blockSum(i, 'role')]).toEqual([
      1, 1, 1, 1,
    ]);
    expect(at(i, 'position', i)).toBe(1);
    expect(blockSum(i, 'head')).toBe(t.head === null ? 0 : 1);
  });
  // Six 毒 share the character column and differ in position.
  const du = layout.column('char', 1);
  expect([1, 2, 3, 6, 12, 13].map((i) => X[i * D_MODEL + du])).toEqual([1, 1, 1, 1, 1, 1]);
  LINKS.forEach(({ from, to }, g) => {
    expect([at(from, 'link', g), at(to, 'first', g), at(to, 'link', g), at(from, 'first', g)]).toEqual([1, 1, 0, 0]);
  });
});

test('English X: lemma, position and lexicon features, d_model wide', () => {
  const { X, layout } = englishInput();
  expect(layout.width).toBe(D_MODEL);
  const lexicon = (i) => TOKENS.flatMap((_, k) => (X[i * D_MODEL + layout.column('lexicon', k)] ? [k] : []));
  ENGLISH.forEach((t, i) => expect(lexicon(i)).toEqual([...t.lexicon]));
  // poisoned and poison share a lemma column.
  const lemma = (i) =>
    layout.blockLabels('lemma').findIndex((_, j) => X[i * D_MODEL + layout.column('lemma', j)] === 1);
  expect([ENGLISH[5].text, ENGLISH[12].text]).toEqual(['poisoned', 'poison']);
  expect(lemma(5)).toBe(lemma(12));
});
