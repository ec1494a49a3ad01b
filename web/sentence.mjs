// The demo sentence, one token per character, each with a short English gloss.
// 毒 appears six times in three roles (noun, verb, modifier): the point of the
// sentence is that attention has to tell identical characters apart.

export const TRANSLATION = 'Will a venomous snake be poisoned by venom if we poison it with venom?';

/** @type {ReadonlyArray<Readonly<{ char: string, gloss: string }>>} */
export const TOKENS = Object.freeze(
  [
    ['用', 'use (instrument marker)'],
    ['毒', 'poison (noun, instrument)'],
    ['毒', 'to poison (verb)'],
    ['毒', 'venomous (modifier of 蛇 4)'],
    ['蛇', 'snake'],
    ['，', 'comma'],
    ['毒', 'venomous (modifier of 蛇 7)'],
    ['蛇', 'snake (same snake)'],
    ['会', 'will'],
    ['不', 'not'],
    ['会', 'will'],
    ['被', 'passive marker'],
    ['毒', 'poison (noun, agent)'],
    ['毒', 'to poison (verb)'],
    ['死', 'to death'],
  ].map(([char, gloss]) => Object.freeze({ char, gloss })),
);

/** 用毒毒毒蛇，毒蛇会不会被毒毒死 */
export const SENTENCE = TOKENS.map((t) => t.char).join('');
