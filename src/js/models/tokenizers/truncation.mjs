// How many tokens of a text (and of its pair) a truncated encoding keeps, as
// transformers truncates with truncation=True ('longest_first'): a
// tokenizer.json's by Rust tokenizers' truncate_encodings (utils/truncation.rs),
// a Marian tokenizer's by transformers' own truncate_sequences (the Python
// backend's). Both cut from the right, and leave room for the special tokens
// the post-processor then adds; the two differ in how they share a cut
// between the texts of a pair.
import { ArgumentRangeError } from '../../errors.mjs';

// Neither can keep the special tokens alone within maxLength.
function tooShort(maxLength, added) {
  return new ArgumentRangeError(
    `maxLength: ${maxLength} tokens, fewer than the ${added + 1} this tokenizer needs (its ${added} special ` +
      'tokens and one of the text)',
  );
}

/**
 * Rust tokenizers' LongestFirst: [keptA, keptB] of texts of `a` and `b`
 * tokens (b null: no pair) within `maxLength` with `added` special tokens.
 */
export function keptByRust(a, b, maxLength, added) {
  const room = maxLength - added;
  if (room <= 0 && a + (b ?? 0) > room) throw tooShort(maxLength, added);
  if (a + (b ?? 0) <= room) return [a, b];
  if (b === null) return [room, null];
  // The shorter text first (n1 ≤ n2): only the longer one is cut, or both to half the room.
  const swap = a > b;
  let [n1, n2] = swap ? [b, a] : [a, b];
  n2 = n1 > room ? n1 : Math.max(n1, room - n1);
  if (n1 + n2 > room) {
    n1 = Math.floor(room / 2);
    n2 = n1 + (room % 2);
  }
  return swap ? [n2, n1] : [n1, n2];
}

/**
 * transformers' truncate_sequences with 'longest_first': [keptA, keptB], the
 * tokens to remove taken first from the longer text until both are as long,
 * then half from each (the first text's half rounded down).
 */
export function keptByPython(a, b, maxLength, added) {
  const remove = a + (b ?? 0) + added - maxLength;
  if (remove <= 0) return [a, b];
  if (maxLength - added <= 0) throw tooShort(maxLength, added);
  if (b === null) return [a - remove, null];
  const first = Math.min(Math.abs(a - b), remove);
  const second = remove - first;
  const [fromA, fromB] =
    a > b
      ? [first + Math.floor(second / 2), second - Math.floor(second / 2)]
      : [Math.floor(second / 2), first + second - Math.floor(second / 2)];
  return [a - fromA, b - fromB];
}
