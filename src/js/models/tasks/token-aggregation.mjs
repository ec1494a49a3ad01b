// token-classification's entities with transformers' aggregation_strategy (TokenClassificationPipeline:
// gather_pre_entities, aggregate, aggregate_words, group_entities): 'none' each token's label; 'simple' adjacent
// tokens of one entity grouped (a B- tag starts a new group, an I- tag or a plain label continues one); 'first',
// 'average' and 'max' first give every word (a token and the pieces that continue it) one label — its first
// token's, the label of its tokens' mean scores, its most confident token's — and then group as 'simple' does.
// A token continues a word, for a tokenizer that marks later pieces (WordPiece's '##'), when its text is longer
// than the characters it covers; for one that does not (byte-level BPE), by transformers' fallback: when the
// character before it and its first are no space. The unknown token never. Offsets and words come from the
// tokenizer (tokenizers/encoding-offsets.mjs; words joined by word-offsets.mjs or piece-offsets.mjs).
import { describe } from '../../checks.mjs';
import { ArgumentRangeError, ArgumentTypeError } from '../../errors.mjs';

/** aggregationStrategy's values (transformers' aggregation_strategy's, lower-cased). */
export const AGGREGATION_STRATEGIES = Object.freeze(['none', 'simple', 'first', 'average', 'max']);

/** aggregationStrategy checked: one of AGGREGATION_STRATEGIES (an ArgumentRangeError naming it otherwise). */
export function checkAggregation(value) {
  if (!AGGREGATION_STRATEGIES.includes(value))
    throw new ArgumentRangeError(
      `aggregationStrategy: expected ${AGGREGATION_STRATEGIES.map((s) => `'${s}'`).join(', ')}, got ${describe(value)}`,
    );
  return value;
}

const argmax = (scores) => scores.reduce((best, x, i) => (x > scores[best] ? i : best), 0);
const codePoints = (s) => [...s].length;

/**
 * The entities of one classifyTokens() result (`result`: tokens, special, and `scores`, each token's
 * probabilities) of the string `text`: strategy 'none' gives { entity, score, index, word, start, end } a
 * non-special token, the others { entity_group, score, word, start, end } a group. `words`: { offsets (each
 * token's [start, end) in text), vocab (each token as the vocabulary writes it), unknown(i), wordAware, join
 * (tokens → text, transformers' convert_tokens_to_string) }, or null (then start and end are null, the words the
 * readable tokens, and only 'none' is computed).
 */
export function aggregateTokens({ tokens, special, scores }, text, labels, strategy, words) {
  if (!words && strategy !== 'none')
    throw new ArgumentTypeError(
      `aggregationStrategy: '${strategy}' needs each token's place in the text and the tokenizer's words, which ` +
        "the engine finds for a string input of a WordPiece, byte-level BPE or Metaspace tokenizer (docs/api-models.md#offsets), got this input; use 'none'",
    );
  const pre = [];
  tokens.forEach((token, index) => {
    if (special[index]) return;
    const [start, end] = words ? words.offsets[index] : [null, null];
    const ref = words ? text.slice(start, end) : null;
    const unknown = Boolean(words?.unknown(index));
    const word = words ? words.vocab[index] : token;
    let isSubword = false;
    if (words && !unknown)
      isSubword = words.wordAware
        ? codePoints(word) !== codePoints(ref)
        : start > 0 && !text.slice(start - 1, start + 1).includes(' ');
    pre.push({ word: unknown ? ref : word, scores: scores[index], start, end, index, isSubword });
  });
  const labelled = (p, scoresOf = p.scores) => {
    const best = argmax(scoresOf);
    return { entity: labels[best], score: scoresOf[best], index: p.index, word: p.word, start: p.start, end: p.end };
  };
  if (strategy === 'none') return pre.map((p) => labelled(p));
  const { join } = words;
  const entities = strategy === 'simple' ? pre.map((p) => labelled(p)) : wordsOf(pre, strategy, labels, join);
  return groupEntities(entities, join);
}

// aggregate_words: each word's tokens (a token and the subword pieces after it) as one entity.
function wordsOf(pre, strategy, labels, join) {
  const groups = [];
  for (const p of pre) groups.length && p.isSubword ? groups.at(-1).push(p) : groups.push([p]);
  return groups.map((group) => {
    let scores;
    if (strategy === 'first') scores = group[0].scores;
    else if (strategy === 'max') {
      // The first token whose highest probability is the highest.
      const tops = group.map((p) => Math.max(...p.scores));
      scores = group[argmax(tops)].scores;
    } else {
      scores = new Float64Array(labels.length);
      for (const p of group) for (let j = 0; j < scores.length; j++) scores[j] += p.scores[j] / group.length;
    }
    const best = argmax(scores);
    return {
      entity: labels[best],
      score: scores[best],
      word: join(group.map((p) => p.word)),
      start: group[0].start,
      end: group.at(-1).end,
    };
  });
}

// get_tag: a B- or I- label's tag, a plain label its own (taken as continuing).
const tagOf = (label) => (/^[BI]-/.test(label) ? [label[0], label.slice(2)] : ['I', label]);

// group_entities: adjacent entities of one tag grouped, a B- starting a new group; each group's score the mean.
function groupEntities(entities, join) {
  const groups = [];
  for (const e of entities) {
    const [bi, tag] = tagOf(e.entity);
    if (groups.length && bi !== 'B' && tagOf(groups.at(-1).at(-1).entity)[1] === tag) groups.at(-1).push(e);
    else groups.push([e]);
  }
  return groups.map((group) => ({
    entity_group: group[0].entity.slice(group[0].entity.indexOf('-') + 1), // after the first '-', if any
    score: group.reduce((sum, e) => sum + e.score, 0) / group.length,
    word: join(group.map((e) => e.word)),
    start: group[0].start,
    end: group.at(-1).end,
  }));
}
