// What check.mjs needs to know of a tokenizer.json regex (Oniguruma's
// syntax, as the Hub writes it) before the tokenizers library compiles it:
// whether it can match without consuming a character somewhere (an anchor,
// a word boundary or a lookaround: a Replace with it inserts its content at
// such places, so its growth is counted one more per character), and the
// first repeated group that holds an alternation or another repetition —
// (a|a)*, (a+)+, ([\s\S]|[\s\S])*$x — the shapes whose backtracking grows
// exponentially with the text (star height above one, or a repeated choice).
// A reading of the syntax, not a compiler: the regex is also compiled (and
// refused when invalid) by check.mjs, and what backtracks without these
// shapes (polynomially) is bounded by the time limit where the tokenizer runs.

// A repetition with at most this many iterations is bounded (2^16 paths at worst).
const BOUNDED_REPEAT = 16;
// Escapes that match no character: \b \B, and Oniguruma's \A \z \Z \G.
const ANCHOR_ESCAPES = 'bBAzZG';

/**
 * { zeroWidth: whether `source` has an anchor, word boundary or lookaround,
 * nested: the source text of its first repeated group that holds an
 * alternation or a repetition, or null }.
 */
export function scanRegex(source) {
  let zeroWidth = false;
  let nested = null;
  // Open groups; the outermost is the pattern. `alternation`, `repeats`: what the group holds, at any depth.
  const groups = [{ start: 0, alternation: false, repeats: false }];
  let atom = null; // the atom a quantifier would repeat: { start, group? }
  for (let i = 0; i < source.length;) {
    const c = source[i];
    const top = groups[groups.length - 1];
    if (c === '\\') {
      const next = source[i + 1] ?? '';
      if (ANCHOR_ESCAPES.includes(next)) {
        zeroWidth = true;
        atom = null;
      } else atom = { start: i };
      i = escapeEnd(source, i);
    } else if (c === '[') {
      atom = { start: i };
      i = classEnd(source, i);
    } else if (c === '(') {
      const head = /^\(\?(?:[imsx-]*\)|#[^)]*\))/.exec(source.slice(i));
      if (head) {
        // An inline option, (?i), or a comment: no group.
        i += head[0].length;
        continue;
      }
      const prefix = /^\((?:\?(?:<[=!]|[=!:>]|<[A-Za-z_]\w*>|'[A-Za-z_]\w*'|[imsx-]+:))?/.exec(source.slice(i))[0];
      if (/^\(\?<?[=!]/.test(prefix)) zeroWidth = true;
      groups.push({ start: i, alternation: false, repeats: false });
      atom = null;
      i += prefix.length;
    } else if (c === ')') {
      const group = groups.length > 1 ? groups.pop() : top;
      const parent = groups[groups.length - 1];
      parent.alternation ||= group.alternation;
      parent.repeats ||= group.repeats;
      atom = { start: group.start, group };
      i++;
    } else if (c === '|') {
      top.alternation = true;
      atom = null;
      i++;
    } else if (c === '^' || c === '$') {
      zeroWidth = true;
      atom = null;
      i++;
    } else {
      const quantifier = /^(?:[*+?]|\{(\d*)(,(\d*))?\})/.exec(source.slice(i));
      if (quantifier && (c !== '{' || quantifier[1] !== '' || quantifier[3])) {
        const [text, , comma, max] = quantifier;
        // *, +, {n,} and {n,m} past BOUNDED_REPEAT; ? and {n} are bounded.
        const unbounded =
          c === '*' || c === '+' || (comma !== undefined && (max === '' || Number(max) > BOUNDED_REPEAT));
        if (unbounded && atom?.group && (atom.group.alternation || atom.group.repeats) && nested === null)
          nested = source.slice(atom.start, i + text.length);
        if (unbounded) top.repeats = true;
        atom = null;
        i += text.length;
        if (source[i] === '?' || source[i] === '+') i++; // lazy, or Oniguruma's possessive
      } else {
        atom = { start: i };
        i++;
      }
    }
  }
  return { zeroWidth, nested };
}

// The index after the escape at `i`: \p{L}, \x{41}, \u{1F600}, \k<name> with their braces.
function escapeEnd(source, i) {
  const next = source[i + 1];
  const open = source[i + 2];
  if ('pPxuk'.includes(next) && (open === '{' || open === '<')) {
    const close = source.indexOf(open === '{' ? '}' : '>', i + 3);
    if (close > 0) return close + 1;
  }
  return i + 2;
}

// The index after the character class opening at `i`; Oniguruma's classes nest ([a-z&&[^aeiou]], BLOOM's [^(\s|[.,])]).
function classEnd(source, i) {
  let depth = 0;
  for (let j = i; j < source.length; j++) {
    const c = source[j];
    if (c === '\\') j++;
    else if (c === '[') {
      depth++;
      // A ] right after [ or [^ is a character of the class.
      if (source[j + 1] === '^') j++;
      if (source[j + 1] === ']') j++;
    } else if (c === ']' && --depth === 0) return j + 1;
  }
  return source.length;
}
