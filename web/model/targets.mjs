// What each designed head is meant to attend to, read from the annotation:
// the ground truth of the page's overlay and of the unit tests. Pure.
//
// Each function returns one entry per query row: { keys, fallback }. keys are
// the annotated targets. fallback is true where the annotation gives that row
// nothing to find (the root has no head, an unlinked token no antecedent, an
// unaligned word no Chinese counterpart); keys is then empty, and the
// documented choice is that the head scores every key alike, so the row is
// uniform over the keys it may see. Uniform rather than "attend to yourself":
// a self fallback in every head would pile up on the diagonal of the single
// head (whose score is the sum of the heads' scores) and hide the relations
// that the comparison is about; a uniform row adds the same to every key, so
// it does not change the single head at all.
import { TOKENS, LINKS, ENGLISH, CLAUSES } from '../sentence.mjs';

const row = (keys) => Object.freeze({ keys: Object.freeze(keys), fallback: keys.length === 0 });

/**
 * role: each 毒 attends to the other 毒 with the same role (nouns 1↔12, verbs
 * 2↔13, modifiers 3↔6). As a rule for every token: the other tokens that share
 * the most of (role, character), so also 蛇4↔蛇7, 会8↔会10 and the two
 * coverbs 用0↔被11; 不, 死 and the comma share neither with any token.
 */
export function roleTargets(tokens = TOKENS) {
  return tokens.map((t, q) => {
    const shared = tokens.map((u, k) => (k === q ? 0 : (u.role === t.role) + (u.char === t.char)));
    const best = Math.max(...shared);
    return row(best === 0 ? [] : shared.flatMap((s, k) => (s === best ? [k] : [])));
  });
}

/** dependency: each token attends to its dependency head; the root (毒2) has none. */
export function dependencyTargets(tokens = TOKENS) {
  return tokens.map((t) => row(t.head === null ? [] : [t.head]));
}

/** long-distance: each second mention attends to its first mention; other tokens have no link back. */
export function longDistanceTargets(tokens = TOKENS, links = LINKS) {
  return tokens.map((_, q) => {
    const link = links.find((l) => l.from === q);
    return row(link ? [link.to] : []);
  });
}

/**
 * previous-word (decoder): each English token attends to the one before it.
 * Token 0 has none; the causal mask leaves it only itself, so its row is [1, 0, …].
 */
export function previousWordTargets(english = ENGLISH) {
  return english.map((_, q) => row(q === 0 ? [] : [q - 1]));
}

/**
 * same-lemma (decoder, causal): a token attends to the earlier tokens with its
 * lemma (venom 15 → venom 9, poison 12 → poisoned 5).
 */
export function sameLemmaTargets(english = ENGLISH) {
  return english.map((t, q) => row(english.slice(0, q).flatMap((u, k) => (u.lemma === t.lemma ? [k] : []))));
}

/**
 * alignment (cross): each English token attends to the Chinese tokens it
 * translates, by the token-by-token annotation (venom 9 → 毒12, venom 15 → 毒1).
 * Unaligned tokens have no target; the head spreads them over their clause.
 */
export function alignmentTargets(english = ENGLISH) {
  return english.map((t) => row([...t.align]));
}

/** order (cross): each English token attends to the Chinese tokens of its clause. */
export function orderTargets(english = ENGLISH, clauses = CLAUSES) {
  return english.map((t) => row(clauses.flatMap((c, k) => (c !== null && c === t.clause ? [k] : []))));
}

/** Targets by head name, for the designed heads of each mode. */
export const TARGETS = Object.freeze({
  role: roleTargets,
  dependency: dependencyTargets,
  'long-distance': longDistanceTargets,
  'previous-word': previousWordTargets,
  'same-lemma': sameLemmaTargets,
  alignment: alignmentTargets,
  order: orderTargets,
});
