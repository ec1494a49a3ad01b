// The demo sentence and its annotation: the page's default data, in one place.
//
//   用毒毒毒蛇，毒蛇会不会被毒毒死
//   "Will a venomous snake be poisoned to death by venom if we poison it with venom?"
//
// 毒 appears six times in three roles (noun, verb, modifier): the point of the
// sentence is that attention has to tell identical characters apart. Every
// view and every designed head reads these tables; nothing else in web/ spells
// out a token index of this sentence.
//
// The annotation is fixed data. Where an entry has another defensible reading,
// the comment next to it gives that reading; the data keeps the annotation's.

/** Part-of-speech roles, the vocabulary of TOKENS[i].role (and of the role feature in X). */
export const ROLES = Object.freeze([
  'coverb', //      用 and 被: verbs grammaticalised into markers that introduce an argument (instrument, agent)
  'noun',
  'verb',
  'modifier',
  'punctuation',
  'modal', //       会 "will"
  'negation', //    不 "not"
  'complement', //  死 "to death", the result of the verb before it
]);

/**
 * Words (the segmentation over the characters), in order. Each token's `word`
 * is an index into this list.
 */
export const WORDS = Object.freeze(
  [
    ['用', 'with'],
    ['毒', 'poison'],
    ['毒', 'to poison'],
    ['毒蛇', 'venomous snake'],
    ['，', ','],
    ['毒蛇', 'venomous snake'],
    ['会不会', 'will or won’t'],
    ['被', 'by (passive)'],
    ['毒', 'poison'],
    ['毒死', 'poison to death'],
  ].map(([text, gloss]) => Object.freeze({ text, gloss })),
);

/**
 * One token per character, 0-based.
 * - gloss: a short English gloss of this character here
 * - role:  one of ROLES
 * - word:  index into WORDS
 * - head:  index of its dependency head, or null for the root
 *
 * Dependency heads are UD-style (the noun heads its case marker: 用 → 毒1).
 * On the root: semantically clause 2 (毒蛇会不会被毒毒死, "will the snake be
 * poisoned") is the question and clause 1 its condition, so 2 → 13 (advcl)
 * with 13 as root is an equally good reading. The annotation follows UD's
 * convention for juxtaposed clauses without a connective (the first clause is
 * the head, the second attaches to it as parataxis): 2 is the root, 13 → 2.
 *
 * On 11 被 → 13: in this reading 被 is the passive auxiliary of 毒13 (UD
 * aux:pass). With an overt agent (毒12) it is often analysed instead as a
 * preposition heading, or marking, the agent (被 → 12). The annotation keeps 11 → 13.
 */
export const TOKENS = Object.freeze(
  [
    //  char  gloss                                   role           word head
    ['用', 'use (marks the instrument)', 'coverb', 0, 1],
    ['毒', 'poison, noun (the instrument)', 'noun', 1, 2],
    ['毒', 'to poison, verb (clause 1)', 'verb', 2, null],
    ['毒', 'venomous, modifier of 蛇4', 'modifier', 3, 4],
    ['蛇', 'snake (object of 毒2)', 'noun', 3, 2],
    ['，', 'comma', 'punctuation', 4, 2],
    ['毒', 'venomous, modifier of 蛇7', 'modifier', 5, 7],
    ['蛇', 'snake (subject of clause 2, the same snake as 蛇4)', 'noun', 5, 13],
    ['会', 'will', 'modal', 6, 13],
    ['不', 'not', 'negation', 6, 10],
    ['会', 'will (会不会 = “will or won’t”)', 'modal', 6, 13],
    ['被', 'passive marker', 'coverb', 7, 13],
    ['毒', 'poison, noun (agent after 被)', 'noun', 8, 13],
    ['毒', 'to poison, verb (clause 2)', 'verb', 9, 2],
    ['死', 'to death (result of 毒13)', 'complement', 9, 13],
  ].map(([char, gloss, role, word, head]) => Object.freeze({ char, gloss, role, word, head })),
);

/**
 * Long-distance links, second mention → first mention. Each pair is the same
 * character with the same role, one in each clause.
 */
export const LINKS = Object.freeze(
  [
    [6, 3], // 毒 venomous → 毒 venomous
    [7, 4], // 蛇 snake → 蛇 snake (the same snake)
    [12, 1], // 毒 poison (agent) → 毒 poison (instrument)
    [13, 2], // 毒 to poison → 毒 to poison
  ].map(([from, to]) => Object.freeze({ from, to })),
);

/** 用毒毒毒蛇，毒蛇会不会被毒毒死 */
export const SENTENCE = TOKENS.map((t) => t.char).join('');

export const TRANSLATION = 'Will a venomous snake be poisoned to death by venom if we poison it with venom?';

/**
 * The translation's tokens, each with its lemma (for the decoder's same-lemma
 * head), its lexicon entry and its alignment.
 *
 * - lexicon: the Chinese tokens its word type translates, the same for every
 *   token of that type (what a bilingual dictionary gives: venom → 毒1 and 毒12).
 *   The cross heads read it from X.
 * - align: the token-by-token alignment, the annotation the alignment head is
 *   checked against: venom 9 ("by venom", the agent) is 毒12 and venom 15
 *   ("with venom", the instrument) is 毒1; "poisoned" is 毒13 and "death" 死14
 *   (毒死, poison to death); "a venomous snake" is the subject of clause 2
 *   (毒6 蛇7) and "it" the object of clause 1 (蛇4).
 * - clause: which Chinese clause the token belongs to (1: 用毒毒毒蛇, the
 *   condition, "if we poison it with venom"; 2: 毒蛇会不会被毒毒死, the
 *   question), or null.
 *
 * Readings left out: "by" is unaligned, but 被 introduces the agent as much as
 * it marks the passive, so by → 被11 is as good as be → 被11; "?" is
 * unaligned, the question being carried by 会不会 (A-not-A); venomous → 毒3 and
 * snake → 蛇4 would be coreference rather than translation links.
 * Unaligned tokens: a, to, by, if, we, ? ("if we" is implicit in Chinese; "to"
 * only joins "poisoned" to "death").
 */
export const ENGLISH = Object.freeze(
  [
    //  text        lemma       lexicon      align       clause
    ['Will', 'will', [8, 9, 10], [8, 9, 10], 2],
    ['a', 'a', [], [], 2],
    ['venomous', 'venomous', [3, 6], [6], 2],
    ['snake', 'snake', [4, 7], [7], 2],
    ['be', 'be', [11], [11], 2],
    ['poisoned', 'poison', [13], [13], 2],
    ['to', 'to', [], [], 2],
    ['death', 'death', [14], [14], 2],
    ['by', 'by', [], [], 2],
    ['venom', 'venom', [1, 12], [12], 2],
    ['if', 'if', [], [], 1],
    ['we', 'we', [], [], 1],
    ['poison', 'poison', [2], [2], 1],
    ['it', 'it', [4], [4], 1],
    ['with', 'with', [0], [0], 1],
    ['venom', 'venom', [1, 12], [1], 1],
    ['?', '?', [], [], 2],
  ].map(([text, lemma, lexicon, align, clause]) =>
    Object.freeze({ text, lemma, lexicon: Object.freeze(lexicon), align: Object.freeze(align), clause }),
  ),
);

/**
 * The Chinese clause of each token: 1 for 用毒毒毒蛇 (the condition), 2 for
 * 毒蛇会不会被毒毒死 (the question); the comma between them belongs to neither.
 */
export const CLAUSES = Object.freeze([1, 1, 1, 1, 1, null, 2, 2, 2, 2, 2, 2, 2, 2, 2]);

/**
 * `text` as the sentence with characters hidden by `maskToken`: { hidden }
 * (the characters the mask tokens stand for, in order), or null when it is
 * not that (no mask token, or the rest is not the sentence's).
 */
export function maskedSentence(text, maskToken) {
  if (!maskToken) return null;
  const parts = String(text).replace(/\s/gu, '').split(maskToken.replace(/\s/gu, ''));
  if (parts.length < 2) return null;
  const chars = [...SENTENCE];
  const hidden = [];
  let at = 0;
  for (let i = 0; i < parts.length; i++) {
    const part = [...parts[i]];
    if (chars.slice(at, at + part.length).join('') !== parts[i]) return null;
    at += part.length;
    if (i < parts.length - 1) {
      if (at >= chars.length) return null;
      hidden.push(chars[at++]);
    }
  }
  return at === chars.length ? { hidden } : null;
}

/** venom in "with venom" (毒1), the English token the decoder and cross views open on. */
export const WITH_VENOM = ENGLISH.findLastIndex((u) => u.text === 'venom');
