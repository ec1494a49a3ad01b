// The "train it yourself" experiment's data: one training set and one test set
// of the toy grammar (corpus.mjs) shared by every run, and the example
// sentence, as the engine's token and tag ids. Pure.
//
// The task: tag every token. 毒 gets its role (noun, verb, modifier) and every
// other token 'other', so the loss is on every token; 'other' is given away by
// the character itself, so what separates the models is the 毒, and every
// accuracy reported counts the 毒 only.
import { tagSet, vocabulary, heldOut, generateCorpus, neighbourAccuracy, MAX_LENGTH } from './corpus.mjs';

/** The training set: 2,000 generated sentences (duplicates kept: they are how often a sentence occurs). */
export const TRAIN_CORPUS = Object.freeze({ seed: 1, count: 2000 });
/** The test set is drawn from another seed, then every sentence of the training set (and repeats) is dropped. */
export const TEST_CORPUS = Object.freeze({ seed: 2, count: 600 });

const DU = '毒';
const TOKEN_ID = new Map(vocabulary.map((char, id) => [char, id]));
const TAG_ID = new Map(tagSet.map((tag, id) => [tag, id]));

/** A tagged sentence of characters as the engine's ids. */
export function encodeSentence({ tokens, tags }) {
  return { tokens: tokens.map((c) => TOKEN_ID.get(c)), tags: tags.map((t) => TAG_ID.get(t)) };
}

/** Positions of the 毒 in a list of characters. */
export const duPositions = (tokens) => tokens.flatMap((c, i) => (c === DU ? [i] : []));

/** The example sentence's tokens, as the views show them (with the role the rule table gives each 毒). */
export const EXAMPLE_TOKENS = Object.freeze(
  heldOut.tokens.map((text, index) => ({
    text,
    index,
    lang: 'zh-Hans',
    title: heldOut.tags[index] === 'other' ? 'not a 毒' : `${heldOut.tags[index]} (by the rule table)`,
    ...(heldOut.tags[index] !== 'other' && { duRole: heldOut.tags[index] }),
  })),
);
/** Positions of the example sentence's 毒. */
export const EXAMPLE_DU = Object.freeze(duPositions(heldOut.tokens));

/**
 * The experiment's data: the training set, the test set with every sentence
 * that occurs in training removed (and each test sentence once), the example
 * sentence (never generated, so never trained on), and how well one neighbour
 * alone, or both, could tag the test set's 毒 (neighbourAccuracy).
 */
export function buildData({ train = TRAIN_CORPUS, test = TEST_CORPUS } = {}) {
  const trainCorpus = generateCorpus(train);
  const seen = new Set(trainCorpus.map((s) => s.tokens.join('')));
  const testCorpus = [];
  for (const sentence of generateCorpus(test)) {
    const text = sentence.tokens.join('');
    if (seen.has(text)) continue;
    seen.add(text);
    testCorpus.push(sentence);
  }
  const duOf = (s, i) =>
    duPositions(s.tokens).map((t) => ({ sentence: i, token: t, slot: i * MAX_LENGTH + t, tag: TAG_ID.get(s.tags[t]) }));
  return {
    train: trainCorpus.map(encodeSentence),
    test: testCorpus.map(encodeSentence),
    /** Every 毒 of the test set: its slot in the engine's [count, maxLength] predictions, and its tag id. */
    testDu: testCorpus.flatMap(duOf),
    example: encodeSentence(heldOut),
    neighbours: neighbourAccuracy(testCorpus),
  };
}
