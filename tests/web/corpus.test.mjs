// The toy grammar's corpus: seeded, tagged by the rule table, one
// neighbour never enough and both always enough, and the example sentence held out.
import {
  tagSet,
  vocabulary,
  classOf,
  rules,
  transitions,
  roleAt,
  tagTokens,
  heldOut,
  generateCorpus,
  neighbourAccuracy,
  MIN_LENGTH,
  MAX_LENGTH,
  MIN_DU,
  MAX_RUN,
} from '../../web/model/corpus.mjs';
import { TOKENS, SENTENCE } from '../../web/sentence.mjs';

// One 10,000-sentence corpus (~1 s) for every statistical test.
const corpus = generateCorpus({ seed: 1, count: 10000 });

test('the same seed gives the same corpus; another seed another one', () => {
  expect(generateCorpus({ seed: 1, count: 200 })).toEqual(corpus.slice(0, 200));
  expect(generateCorpus({ seed: 2, count: 200 })).not.toEqual(corpus.slice(0, 200));
  expect(generateCorpus({ seed: 1, count: 0 })).toEqual([]);
  expect(() => generateCorpus({ seed: 1, count: 1.5 })).toThrow(RangeError);
});

test('one neighbour alone is not enough, both are: the measured bands', () => {
  const { left, right, both, count } = neighbourAccuracy(corpus);
  // Measured with seed 1: left 78.08 %, right 82.74 %, both 100 %, over 33,088 毒.
  expect(count).toBeGreaterThan(30000);
  expect(left).toBeGreaterThanOrEqual(0.75);
  expect(left).toBeLessThanOrEqual(0.83);
  expect(right).toBeGreaterThanOrEqual(0.8);
  expect(right).toBeLessThanOrEqual(0.88);
  expect(both).toBe(1);
});

test('neighbourAccuracy counts the majority role of each context', () => {
  const tiny = [
    { tokens: ['用', '毒', '蛇'], tags: ['other', 'modifier', 'other'] },
    { tokens: ['用', '毒', '毒'], tags: ['other', 'noun', 'verb'] },
  ];
  // Left: 用 → {modifier, noun} gets 1 of 2, 毒 → verb 1 of 1. Right: 蛇, 毒, </s> each right.
  expect(neighbourAccuracy(tiny)).toEqual({ left: 2 / 3, right: 1, both: 1, count: 3 });
});

test('the example sentence is tagged from sentence.mjs and right by the both-neighbour rule', () => {
  expect(heldOut.tokens.join('')).toBe(SENTENCE);
  const du = heldOut.tokens.flatMap((t, i) => (t === '毒' ? [[i, heldOut.tags[i]]] : []));
  expect(du).toEqual([
    [1, 'noun'],
    [2, 'verb'],
    [3, 'modifier'],
    [6, 'modifier'],
    [12, 'noun'],
    [13, 'verb'],
  ]);
  expect(du.map(([i]) => TOKENS[i].role)).toEqual(du.map(([, role]) => role));
  expect(tagTokens(heldOut.tokens)).toEqual([...heldOut.tags]);
});

test('the example is a sentence the chain could propose, and is never generated', () => {
  // Every move of the example has weight, every character is in the vocabulary
  // and its length is allowed: only the explicit exclusion keeps it out.
  const states = ['start', ...heldOut.tokens.map((t) => (t === '，' ? 'comma' : classOf[t])), 'end'];
  for (let i = 1; i < states.length; i++) expect(transitions[states[i - 1]][states[i]]).toBeGreaterThan(0);
  expect(heldOut.tokens.length).toBeLessThanOrEqual(MAX_LENGTH);
  expect(SENTENCE).not.toContain('毒'.repeat(MAX_RUN + 1));
  expect(heldOut.tokens.every((t, i) => i === 0 || t === '毒' || t !== heldOut.tokens[i - 1])).toBe(true);
  for (const seed of [1, 2, 3]) {
    const texts = new Set((seed === 1 ? corpus : generateCorpus({ seed, count: 10000 })).map((s) => s.tokens.join('')));
    expect(texts.has(SENTENCE)).toBe(false);
  }
});

test('the rule table: one role per cell, every role used, each side ambiguous alone', () => {
  const cells = new Set(rules.map((r) => `${r.left}|${r.right}`));
  expect(cells.size).toBe(rules.length);
  for (const r of rules) {
    expect(['noun', 'verb', 'modifier']).toContain(r.role);
    expect(r.example.length).toBeGreaterThan(0);
  }
  const rolesBy = (side, value) => new Set(rules.filter((r) => r[side] === value).map((r) => r.role));
  // The context classes that occur on each side with more than one role.
  const mixed = (side) => [...new Set(rules.map((r) => r[side]))].filter((c) => rolesBy(side, c).size > 1);
  expect(mixed('left').sort()).toEqual(['du', 'edge', 'marker', 'noun']);
  expect(mixed('right').sort()).toEqual(['du', 'edge', 'noun']);
  expect(new Set(rules.map((r) => r.role)).size).toBe(3);
});

test('every token is in the vocabulary, every tag in the tag set and as the rule table says', () => {
  const cellOf = (tokens, i) => `${classOf[tokens[i - 1]] ?? 'edge'}|${classOf[tokens[i + 1]] ?? 'edge'}`;
  const used = new Set();
  const wrong = []; // collected, not asserted per token: 90,000 expects take seconds
  for (const { tokens, tags } of corpus) {
    if (tags.length !== tokens.length) wrong.push(tokens.join(''));
    tokens.forEach((t, i) => {
      if (!vocabulary.includes(t) || !tagSet.includes(tags[i])) wrong.push(`${tokens.join('')} @${i}`);
      if (t !== '毒') {
        if (tags[i] !== 'other') wrong.push(`${tokens.join('')} @${i}`);
      } else {
        used.add(cellOf(tokens, i));
        if (
          tags[i] !== roleAt(tokens, i) ||
          !rules.some((r) => `${r.left}|${r.right}` === cellOf(tokens, i) && r.role === tags[i])
        ) {
          wrong.push(`${tokens.join('')} @${i}`);
        }
      }
    });
  }
  expect(wrong).toEqual([]);
  // Every cell of the table turns up, so the table on the page is the corpus's.
  expect([...used].sort()).toEqual(rules.map((r) => `${r.left}|${r.right}`).sort());
  expect(new Set(corpus.flatMap((s) => s.tokens))).toEqual(new Set(vocabulary));
});

test('lengths, 毒 per sentence and runs of 毒 are as promised', () => {
  const lengths = corpus.map((s) => s.tokens.length);
  const counts = new Map();
  for (const n of lengths) counts.set(n, (counts.get(n) ?? 0) + 1);
  for (let n = MIN_LENGTH; n <= MAX_LENGTH; n++) expect(counts.get(n)).toBeGreaterThan(100);
  expect(Math.min(...lengths)).toBe(MIN_LENGTH);
  expect(Math.max(...lengths)).toBe(MAX_LENGTH);
  const mean = lengths.reduce((a, b) => a + b, 0) / lengths.length;
  expect(mean).toBeGreaterThan(7);
  expect(mean).toBeLessThan(10);
  const texts = corpus.map((s) => s.tokens.join(''));
  for (const text of texts) {
    expect([...text].filter((t) => t === '毒').length).toBeGreaterThanOrEqual(MIN_DU);
    expect(text).not.toContain('毒'.repeat(MAX_RUN + 1));
  }
  // Runs are common: a 毒 whose neighbour is a 毒 is what the grammar is about.
  expect(texts.filter((t) => t.includes('毒毒')).length).toBeGreaterThan(corpus.length / 2);
  expect(texts.filter((t) => t.includes('毒毒毒')).length).toBeGreaterThan(corpus.length / 20);
});
