// The toy grammar's rule table (corpus.mjs) as a grid, for the page's table of
// it and its note. Pure.
import { rules, classOf, vocabulary } from './corpus.mjs';

/**
 * The rule table as a grid, left class × right class → role (null: no
 * sentence puts a 毒 there), and how many rows and columns hold more than one
 * role: those are the contexts where one neighbour alone does not decide.
 */
export function ruleGrid() {
  const lefts = [...new Set(rules.map((r) => r.left))];
  const rights = [...new Set(rules.map((r) => r.right))];
  const cell = (left, right) => rules.find((r) => r.left === left && r.right === right) ?? null;
  const cells = lefts.map((left) => rights.map((right) => cell(left, right)));
  const roles = (list) => new Set(list.filter(Boolean).map((r) => r.role)).size;
  const classes = [...new Set(Object.values(classOf))];
  return {
    lefts,
    rights,
    cells,
    ambiguousLefts: cells.filter((row) => roles(row) > 1).length,
    ambiguousRights: rights.filter((_, j) => roles(cells.map((row) => row[j])) > 1).length,
    /** The characters of each class ('edge' also stands for the sentence's start and end). */
    members: Object.fromEntries(classes.map((c) => [c, vocabulary.filter((v) => classOf[v] === c)])),
  };
}
