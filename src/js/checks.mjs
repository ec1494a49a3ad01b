// The building blocks of the argument checks (validate.mjs,
// validate-trainer.mjs): each reads one argument, checks it, and throws a
// TypeError or RangeError that names it, says what was expected and what was
// given. Limits are passed in (engine.limits, defined in the C++ core).
import { ArgumentRangeError, ArgumentTypeError } from './errors.mjs';

export function describe(value) {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return `an Array of ${value.length} elements`;
  const tag = tagOf.call(value);
  if (tag !== undefined) return `${/^[AEIOU]/.test(tag) ? 'an' : 'a'} ${tag} of ${lengthOf.call(value)} elements`;
  if (ArrayBuffer.isView(value)) return `a DataView of ${value.byteLength} bytes`;
  if (typeof value === 'object') return `an object (${Object.prototype.toString.call(value)})`;
  if (typeof value === 'string') return `the string ${JSON.stringify(value.slice(0, 40))}`;
  return `${typeof value} ${String(value)}`;
}

// PyTorch's and other libraries' names for our arguments (as folded by fold()).
const ALIASES = {
  mask: 'keyPaddingMask',
  attnmask: 'keyPaddingMask',
  paddingmask: 'keyPaddingMask',
  needweights: 'returnAttention',
  returnweights: 'returnAttention',
  outputattentions: 'returnAttention',
  embeddim: 'dModel',
  hiddensize: 'dModel',
  heads: 'numHeads',
  iscausal: 'causal',
};
const fold = (name) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

// The known name a typo most likely meant: the same name in another case or
// spelling (num_heads), a known alias (mask, need_weights), else the longest
// known name that starts with it, that it starts with, or that contains it.
export function closest(name, candidates) {
  const folded = fold(name);
  const exact = candidates.find((c) => fold(c) === folded);
  if (exact) return exact;
  const alias = ALIASES[folded];
  if (alias && candidates.includes(alias)) return alias;
  const related = candidates.filter((c) => {
    const f = fold(c);
    return f.startsWith(folded) || folded.startsWith(f) || (folded.length >= 4 && f.includes(folded));
  });
  return related.sort((a, b) => b.length - a.length)[0];
}

export function rejectUnknown(obj, known, where) {
  for (const name of Object.keys(obj)) {
    if (!known.has(name)) {
      const hint = closest(name, [...known]);
      throw new ArgumentTypeError(
        `${where}: unknown argument "${name}"${hint ? ` (did you mean "${hint}"?)` : ''}; ` +
          `expected one of ${[...known].join(', ')}`,
      );
    }
  }
}

export function dimension(args, name, limits, fallback) {
  const v = args[name];
  if (v === undefined || v === null) {
    if (fallback !== undefined) return fallback;
    throw new ArgumentTypeError(`${name}: expected an integer >= 1, got ${describe(v)}`);
  }
  if (typeof v !== 'number') throw new ArgumentTypeError(`${name}: expected an integer >= 1, got ${describe(v)}`);
  if (!Number.isInteger(v) || v < 1 || v > limits.maxElements)
    throw new ArgumentRangeError(`${name}: expected an integer from 1 to ${limits.maxElements}, got ${v}`);
  return v;
}

export function flag(args, name) {
  const v = args[name];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw new ArgumentTypeError(`${name}: expected a boolean, got ${describe(v)}`);
  return v;
}

// The intrinsic typed-array accessors: a subclass or a Proxy cannot make them
// lie (an overridden `length` once let a short array run on stale data).
const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
const intrinsic = (name) => Object.getOwnPropertyDescriptor(TypedArrayPrototype, name).get;
export const tagOf = intrinsic(Symbol.toStringTag);
const lengthOf = intrinsic('length');
const bufferOf = intrinsic('buffer');
const offsetOf = intrinsic('byteOffset');

// Whether a typed array's buffer was detached (transferred): views of it can
// no longer be made. An empty array's buffer is not.
function isDetached(buffer) {
  try {
    new Uint8Array(buffer);
    return false;
  } catch {
    return true;
  }
}

// args[name] as a plain Type view of exactly `count` elements. `shape`
// describes it in errors: a string, or a function that makes one (so that a
// call that passes does not build the text).
export function typedArray(args, name, Type, count, shape, optional) {
  const v = args[name];
  const text = () => (typeof shape === 'function' ? shape() : shape);
  if (v === undefined || v === null) {
    if (optional) return undefined;
    throw new ArgumentTypeError(`${name}: expected a ${Type.name} of ${count} elements ${text()}, got ${describe(v)}`);
  }
  // The [[TypedArrayName]] slot, read through the intrinsic getter: undefined
  // for anything that is not a real typed array (a Proxy included), from any realm.
  if (tagOf.call(v) !== Type.name)
    throw new ArgumentTypeError(`${name}: expected a ${Type.name} of ${count} elements ${text()}, got ${describe(v)}`);
  const length = lengthOf.call(v);
  if (length !== count) {
    const detached = length === 0 && isDetached(bufferOf.call(v)) ? ' (its buffer is detached)' : '';
    throw new ArgumentRangeError(`${name}: expected ${count} elements ${text()}, got ${length}${detached}`);
  }
  // A new plain view of exactly the checked elements is what reaches the
  // bindings, never the caller's object: its own properties (a `length`
  // getter, say) would run inside the call.
  return new Type(bufferOf.call(v), offsetOf.call(v), length);
}

export function count(limits, name, ...factors) {
  const n = factors.reduce((a, b) => a * b, 1);
  if (n > limits.maxElements)
    throw new ArgumentRangeError(`${name}: ${factors.join('×')} = ${n} elements, more than ${limits.maxElements}`);
  return n;
}

/**
 * Checks that `args` is an object of arguments with only `known` names, and
 * returns a snapshot of it: a plain object read once (any getter runs here,
 * before anything reaches the engine), which the checks then read instead.
 */
export function checkObject(args, known, where) {
  if (args === null || typeof args !== 'object' || Array.isArray(args))
    throw new ArgumentTypeError(`${where}: expected an object of arguments, got ${describe(args)}`);
  rejectUnknown(args, known, where);
  // Each known name read once, own or inherited.
  const snapshot = {};
  for (const name of known) {
    const value = args[name];
    if (value !== undefined) snapshot[name] = value;
  }
  return snapshot;
}

export function integer(args, name, { min, max, fallback }) {
  const v = args[name];
  if (v === undefined || v === null) {
    if (fallback !== undefined) return fallback;
    throw new ArgumentTypeError(`${name}: expected an integer from ${min} to ${max}, got ${describe(v)}`);
  }
  if (typeof v !== 'number')
    throw new ArgumentTypeError(`${name}: expected an integer from ${min} to ${max}, got ${describe(v)}`);
  if (!Number.isInteger(v) || v < min || v > max)
    throw new ArgumentRangeError(`${name}: expected an integer from ${min} to ${max}, got ${v}`);
  return v;
}

export function real(args, name, { above, below, fallback, inclusiveLow }) {
  const v = args[name];
  const range = `${inclusiveLow ? '≥' : '>'} ${above}${below === undefined ? '' : ` and < ${below}`}`;
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'number')
    throw new ArgumentTypeError(`${name}: expected a finite number ${range}, got ${describe(v)}`);
  if (!Number.isFinite(v) || (inclusiveLow ? v < above : v <= above) || (below !== undefined && v >= below))
    throw new ArgumentRangeError(`${name}: expected a finite number ${range}, got ${v}`);
  return v;
}
