// The toy grammar for the learned heads ("Train it yourself"): short sentences around 毒
// in which each 毒's role (noun / verb / modifier) is fixed by its two
// neighbours together, while either neighbour alone leaves it ambiguous. A
// single softmax has to split itself between left and right to get every 毒
// right; two heads can each look one way. Pure: no DOM, seeded, Node and browsers.
//
// The grammar is data: a class for every character (classOf), the rule table
// (rules: left class × right class → role), and a Markov chain over classes
// (transitions) that proposes sentences. A proposal is kept only if every 毒 in
// it sits in a cell of the table (that is what makes the grammar, not the
// chain, decide what is a sentence), so the table is the whole truth about
// roles: the tags are read off it, and "both neighbours" is right by construction.
import { TOKENS } from '../sentence.mjs';
import { mulberry32 } from './random.mjs';

/** The 毒 roles, then the tag of every other token. */
export const tagSet = Object.freeze(['noun', 'verb', 'modifier', 'other']);

/**
 * Every character a sentence can contain, and its context class. Mostly the
 * example sentence's own characters; 狗 人 (nouns), 要 (modal) and 了 (result)
 * are added so that a class is more than one memorisable character.
 * 'du' is 毒 itself (a neighbour of a 毒 can be a 毒: 毒毒毒). 'edge' is a
 * clause boundary: the sentence's start and end count as edge too.
 */
export const classOf = Object.freeze({
  毒: 'du',
  用: 'marker', // coverbs: introduce a noun phrase (instrument, agent)
  被: 'marker',
  蛇: 'noun',
  狗: 'noun',
  人: 'noun',
  会: 'modal', // modals and negation: a verb follows
  不: 'modal',
  要: 'modal',
  死: 'result', // complements: the result of the verb before them
  了: 'result',
  '，': 'edge',
});

export const vocabulary = Object.freeze(Object.keys(classOf));

/** The class of the token at i, with the sentence's ends as 'edge'. */
const classAt = (tokens, i) => (i < 0 || i >= tokens.length ? 'edge' : classOf[tokens[i]]);

/**
 * The rule table: a 毒 between a left-class and a right-class token has this
 * role. Cells not listed are ungrammatical (no sentence puts a 毒 there).
 * Every row but modal's and every column but result's and modal's holds two
 * roles, so neither side alone settles a 毒; the pair always does.
 * The example's six 毒 use rules marked [1] [2] [3] [6] [12] [13].
 */
export const rules = Object.freeze(
  [
    ['edge', 'noun', 'modifier', '毒蛇会不会…: a venomous snake opens the clause [6]'],
    ['edge', 'du', 'noun', '毒毒死了狗: the poison (subject) poisons'],
    ['edge', 'result', 'verb', '毒死了蛇: (someone) poisoned the snake to death'],
    ['edge', 'modal', 'noun', '毒会不会毒死人: will the poison kill people'],
    ['marker', 'noun', 'modifier', '用毒蛇 / 被毒蛇: with / by a venomous snake'],
    ['marker', 'du', 'noun', '用毒毒… / 被毒毒死: poison is the instrument or agent [1] [12]'],
    ['marker', 'result', 'verb', '被毒死: poisoned to death (被 as passive marker)'],
    ['du', 'noun', 'modifier', '毒毒蛇: poison the venomous snake [3]'],
    ['du', 'du', 'verb', '毒毒毒: the middle 毒 poisons [2]'],
    ['du', 'result', 'verb', '毒毒死: poison poisons to death [13]'],
    ['du', 'edge', 'verb', '用毒毒: poison (it) with poison'],
    ['noun', 'noun', 'verb', '蛇毒狗: the snake poisons the dog'],
    ['noun', 'du', 'noun', '蛇毒毒死人: snake venom poisons people to death'],
    ['noun', 'result', 'verb', '蛇毒死了人: the snake poisoned people to death'],
    ['noun', 'modal', 'noun', '蛇毒会不会…: will snake venom…'],
    ['noun', 'edge', 'noun', '用蛇毒: with snake venom'],
    ['modal', 'noun', 'verb', '会毒蛇: will poison the snake'],
    ['modal', 'du', 'verb', '要毒毒蛇: wants to poison the venomous snake'],
    ['modal', 'result', 'verb', '会毒死: will poison to death'],
    ['modal', 'edge', 'verb', '会不会毒: will it poison'],
  ].map(([left, right, role, example]) => Object.freeze({ left, right, role, example })),
);

const ROLE_OF = new Map(rules.map((r) => [`${r.left}|${r.right}`, r.role]));

/** The role the table gives a 毒 at i, or undefined where no rule applies. */
export function roleAt(tokens, i) {
  return ROLE_OF.get(`${classAt(tokens, i - 1)}|${classAt(tokens, i + 1)}`);
}

/** Tags for any token list; null if some 毒 sits in no rule's cell. */
export function tagTokens(tokens) {
  const tags = tokens.map((t, i) => (t === '毒' ? roleAt(tokens, i) : 'other'));
  return tags.includes(undefined) ? null : tags;
}

/**
 * Weights of the chain that proposes sentences: from a class (or 'start'),
 * which class comes next ('comma' is ， and 'end' ends the sentence). It only
 * shapes how often each cell of the table is used. These weights put the
 * one-sided accuracies near the pilot's 79 % left and 84 % right, so that the
 * page's runs face the pilot's task: on 10,000 sentences, seeds 1, 2, 3, 7, 42,
 * neighbourAccuracy gives left 78.1–78.5 %, right 82.7–83.1 %, both 100 %
 * (seed 1: 78.08 %, 82.74 %, over 33,088 毒). Moves that read badly in any
 * reading (死毒, 用会, ，， …) have no weight.
 */
export const transitions = Object.freeze({
  start: Object.freeze({ du: 1, noun: 2, marker: 4, modal: 1 }),
  comma: Object.freeze({ du: 3, noun: 6, marker: 8, modal: 0.5 }),
  marker: Object.freeze({ du: 4, noun: 1 }),
  du: Object.freeze({ du: 4, noun: 1.5, result: 1, modal: 1, comma: 1, end: 2 }),
  noun: Object.freeze({ du: 1, modal: 2, marker: 2, result: 1, comma: 4, end: 0.5 }),
  modal: Object.freeze({ modal: 0.5, du: 0.5, marker: 1 }),
  result: Object.freeze({ result: 1, noun: 2, comma: 2, end: 0.5 }),
});

const WORDS_OF = Object.freeze(
  Object.fromEntries(
    ['du', 'marker', 'noun', 'modal', 'result'].map((c) => [c, vocabulary.filter((w) => classOf[w] === c)]),
  ),
);

/**
 * Sentence lengths. Up to 15 so that the 15-token example lies inside the
 * training distribution of lengths and positions (a model trained on shorter
 * sentences has never used positions 12–14, sinusoidal codes or not).
 */
export const MIN_LENGTH = 5;
export const MAX_LENGTH = 15;
/** "Several 毒": fewer and most sentences would teach one cell only. */
export const MIN_DU = 2;
/** The longest run of 毒, as in the example's 毒毒毒: longer runs read as noise. */
export const MAX_RUN = 3;

/** The example sentence, tagged from web/sentence.mjs. Never generated: it is the test. */
export const heldOut = Object.freeze({
  tokens: Object.freeze(TOKENS.map((t) => t.char)),
  tags: Object.freeze(TOKENS.map((t) => (t.char === '毒' ? t.role : 'other'))),
});
const HELD_OUT_TEXT = heldOut.tokens.join('');

function pick(random, weights) {
  const entries = Object.entries(weights); // insertion order: fixed, so a seed gives one corpus
  let u = random() * entries.reduce((s, [, w]) => s + w, 0);
  for (const [key, w] of entries) if ((u -= w) < 0) return key;
  return entries[entries.length - 1][0]; // u rounded onto the total
}

/** One proposal from the chain, or null past MAX_LENGTH. */
function propose(random) {
  const tokens = [];
  for (let state = pick(random, transitions.start); state !== 'end'; state = pick(random, transitions[state])) {
    if (tokens.length === MAX_LENGTH) return null;
    tokens.push(state === 'comma' ? '，' : WORDS_OF[state][Math.floor(random() * WORDS_OF[state].length)]);
  }
  return tokens;
}

/** Kept proposals: a 毒 in every cell it uses, enough 毒, no stutter (会会) or long run, not the example. */
function accept(tokens) {
  if (!tokens || tokens.length < MIN_LENGTH) return null;
  if (tokens.filter((t) => t === '毒').length < MIN_DU) return null;
  if (tokens.some((t, i) => i > 0 && t !== '毒' && t === tokens[i - 1])) return null;
  if (tokens.join('').includes('毒'.repeat(MAX_RUN + 1))) return null;
  // 了 closes a verb.
  if (tokens.some((t, i) => t === '了' && tokens[i - 1] !== '毒' && tokens[i - 1] !== '死')) return null;
  if (tokens.join('') === HELD_OUT_TEXT) return null;
  return tagTokens(tokens);
}

/**
 * `count` tagged sentences from `seed`. The same seed always gives the same
 * corpus, in Node and in every browser (mulberry32, no Math.random).
 * @returns {{tokens: string[], tags: string[]}[]}
 */
export function generateCorpus({ seed, count }) {
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`count must be a whole number ≥ 0, got ${count}`);
  const random = mulberry32(seed);
  const corpus = [];
  while (corpus.length < count) {
    const tokens = propose(random);
    const tags = accept(tokens);
    if (tags) corpus.push({ tokens, tags });
  }
  return corpus;
}

/**
 * How well one-sided and two-sided rules can predict the 毒 roles of a corpus:
 * for every context (the left token, the right token, or both; '<s>'/'</s>' at
 * the ends), the corpus's most frequent role there is the prediction, and the
 * accuracy is the share of 毒 it gets right. That is the best any rule reading
 * only that context can do on this corpus, so it is the ceiling of a head that
 * attends to one neighbour only. Contexts are tokens, not classes: a model sees
 * characters.
 * @returns {{left: number, right: number, both: number, count: number}}
 */
export function neighbourAccuracy(corpus) {
  const tables = { left: new Map(), right: new Map(), both: new Map() };
  let count = 0;
  for (const { tokens, tags } of corpus) {
    tokens.forEach((t, i) => {
      if (t !== '毒') return;
      count++;
      const left = tokens[i - 1] ?? '<s>';
      const right = tokens[i + 1] ?? '</s>';
      for (const [side, key] of [
        ['left', left],
        ['right', right],
        ['both', `${left}|${right}`],
      ]) {
        const roles = tables[side].get(key) ?? tables[side].set(key, new Map()).get(key);
        roles.set(tags[i], (roles.get(tags[i]) ?? 0) + 1);
      }
    });
  }
  const accuracy = (table) => [...table.values()].reduce((s, roles) => s + Math.max(...roles.values()), 0) / count;
  return { left: accuracy(tables.left), right: accuracy(tables.right), both: accuracy(tables.both), count };
}
