// A checkpoint's tokenizer.json is untrusted: what is checked before it is
// handed to @huggingface/tokenizers (in the worker the tokenizer runs in,
// serve.mjs). Every component must be of a type the Hub's tokenizers use; a
// Sequence is at most 16 deep and 64 long; a regex at most 2,000 characters,
// valid, and without a repeated group that holds an alternation or a
// repetition (regex.mjs: the shapes that backtrack exponentially); a Replace
// cannot match the empty string (it would insert its content between every
// character), nor write "$'" or "$&" (which the library's replaceAll reads as
// the text after or at each match); a string a component inserts is at most
// 64 characters. Each component's growth is bounded — a text of n characters
// becomes at most factor·n + extra (a Replace of content c: |c| per
// character, |c| + 1 where its regex can match between characters; Unicode
// normalization forms by their largest expansion; ByteLevel's bytes 3) — and
// the normalizer and pre-tokenizer together, and the decoder, may grow a text
// at most 256 times: in a browser a worker that runs out of memory takes the
// page with it, so memory is bounded here, before anything runs, and per
// call by the text's length (tokenizer.mjs). Time is bounded where it runs
// (bounded-host.mjs). The ids it can give are checked against the model at
// load (tokenizer.mjs) and at every call (transformer-model.mjs).
import { scanRegex } from './regex.mjs';

const TYPES = {
  normalizer: [
    'BertNormalizer',
    'Lowercase',
    'NFC',
    'NFD',
    'NFKC',
    'NFKD',
    'Nmt',
    'Precompiled',
    'Replace',
    'Prepend',
    'Strip',
    'StripAccents',
    'Sequence',
    'ByteLevel',
  ],
  pre_tokenizer: [
    'BertPreTokenizer',
    'ByteLevel',
    'Metaspace',
    'Whitespace',
    'WhitespaceSplit',
    'Split',
    'Punctuation',
    'Digits',
    'Sequence',
    'CharDelimiterSplit',
    'UnicodeScripts',
  ],
  model: ['BPE', 'WordPiece', 'Unigram', 'WordLevel'],
  post_processor: ['TemplateProcessing', 'RobertaProcessing', 'BertProcessing', 'ByteLevel', 'Sequence'],
  decoder: [
    'ByteLevel',
    'WordPiece',
    'Metaspace',
    'BPEDecoder',
    'CTC',
    'Sequence',
    'Replace',
    'Fuse',
    'Strip',
    'ByteFallback',
  ],
};
// Where a Sequence keeps its steps, by component.
const STEPS = {
  normalizer: 'normalizers',
  pre_tokenizer: 'pretokenizers',
  post_processor: 'processors',
  decoder: 'decoders',
};
const MAX_DEPTH = 16;
const MAX_STEPS = 64;
const MAX_PATTERN = 2000;
/** The most a tokenizer may grow a text (its normalizer and pre-tokenizer together, or its decoder). */
export const MAX_GROWTH = 256;
// The strings a component or the model inserts into a text, each at most this long.
const MAX_INSERTED = 64;
const INSERTED = [
  'content',
  'prepend',
  'replacement',
  'str_rep',
  'prefix',
  'suffix',
  'word_delimiter_token',
  'pad_token',
  'continuing_subword_prefix',
  'end_of_word_suffix',
];
// What String.prototype.replaceAll reads in a replacement: $$, $&, $`, $', $1…, $<name>.
const REPLACEMENT_PATTERN = /\$[$&`'0-9<]/;
// The UTF-16 units a unit can become, at most: the Unicode normalization forms' largest expansions
// (NFKC/NFKD: U+FDFA into 18; NFD: 4; NFC: 3), lowercasing (U+0130 into 2), UTF-8 bytes as characters (3).
const FACTOR = { NFC: 3, NFD: 4, NFKC: 18, NFKD: 18, Precompiled: 18, Lowercase: 2, ByteLevel: 3 };

/** Text growth of a component: a text of n UTF-16 units becomes at most factor·n + extra. */
const same = { factor: 1, extra: 0 };
const then = (a, b) => ({ factor: a.factor * b.factor, extra: a.extra * b.factor + b.extra });

/**
 * Throws an Error naming `file` and the component when tokenizer.json's
 * object `json` is not one to run; `compile(text)`: a Regex pattern as the
 * tokenizers library compiles it. Returns the text growth it allows: {
 * encode: { factor, extra } of the normalizer and pre-tokenizer, decode: {
 * factor, extra } of the decoder, per token }.
 */
export function checkTokenizerJson(json, file = 'tokenizer.json', compile = nativeRegex) {
  const fail = (where, what) => {
    throw new Error(`${file}: ${where} ${what}; refused (the tokenizer would not be safe to run)`);
  };
  const visit = (kind, part, where, depth) => {
    if (part === null || part === undefined) return same;
    if (typeof part !== 'object' || Array.isArray(part))
      fail(where, `is ${Array.isArray(part) ? 'a list' : typeof part}, not a component`);
    if (!TYPES[kind].includes(part.type))
      fail(where, `has type ${JSON.stringify(part.type)}, not one of ${TYPES[kind].join(', ')}`);
    for (const field of INSERTED) {
      const value = part[field];
      if (typeof value === 'string' && value.length > MAX_INSERTED)
        fail(`${where}.${field}`, `is ${value.length} characters long, more than ${MAX_INSERTED}`);
    }
    if (kind === 'model') return same;
    if (part.type === 'Sequence') {
      const steps = part[STEPS[kind]];
      if (!Array.isArray(steps)) fail(where, `is a Sequence without its list "${STEPS[kind]}"`);
      if (depth >= MAX_DEPTH) fail(where, `nests Sequences more than ${MAX_DEPTH} deep`);
      if (steps.length > MAX_STEPS) fail(where, `is a Sequence of ${steps.length} steps, more than ${MAX_STEPS}`);
      return steps.reduce(
        (growth, step, i) => then(growth, visit(kind, step, `${where}.${STEPS[kind]}[${i}]`, depth + 1)),
        same,
      );
    }
    const replace = part.type === 'Replace';
    const pattern = 'pattern' in part ? checkPattern(part.pattern, `${where}.pattern`, fail, replace, compile) : null;
    if (kind === 'post_processor') return same;
    return growthOf(kind, part, pattern, where, fail);
  };
  if (json.model === null || json.model === undefined) fail('model', 'is missing');
  const grows = (growth, where) => {
    if (growth.factor > MAX_GROWTH)
      fail(where, `can grow a text up to ${growth.factor} times, more than ${MAX_GROWTH}`);
    return growth;
  };
  // The normalizer, then the pre-tokenizer on what it gives; each refused where the growth passes the bound.
  const normalizer = grows(visit('normalizer', json.normalizer, 'normalizer', 0), 'normalizer');
  const encode = grows(
    then(normalizer, visit('pre_tokenizer', json.pre_tokenizer, 'pre_tokenizer', 0)),
    'pre_tokenizer',
  );
  visit('model', json.model, 'model', 0);
  visit('post_processor', json.post_processor, 'post_processor', 0);
  const decode = grows(visit('decoder', json.decoder, 'decoder', 0), 'decoder');
  return { encode, decode };
}

// The growth of one component that is not a Sequence (`pattern`: its regex's scan, or null).
function growthOf(kind, part, pattern, where, fail) {
  const text = (field, fallback) => (typeof part[field] === 'string' ? part[field] : fallback);
  if (part.type === 'Replace') {
    const content = text('content', '');
    if (REPLACEMENT_PATTERN.test(content))
      fail(
        `${where}.content`,
        `holds ${JSON.stringify(REPLACEMENT_PATTERN.exec(content)[0])}, which the tokenizers library reads as a replacement pattern (the text at, before or after each match)`,
      );
    // A match takes at least one unit and gives |content|; one between units also keeps the unit.
    return pattern?.zeroWidth
      ? { factor: 1 + content.length, extra: content.length }
      : { factor: Math.max(1, content.length), extra: 0 };
  }
  if (kind === 'normalizer') {
    if (part.type === 'Prepend') return { factor: 1, extra: text('prepend', '').length };
    if (part.type === 'BertNormalizer') {
      // Spaces around each CJK character (3), then lowercasing (2) and NFD (4) before the accents go.
      const chinese = part.handle_chinese_chars !== false ? 3 : 1;
      const lower = part.lowercase !== false ? FACTOR.Lowercase : 1;
      return { factor: chinese * lower * (part.strip_accents !== false ? FACTOR.NFD : 1), extra: 0 };
    }
    return { factor: FACTOR[part.type] ?? 1, extra: 0 };
  }
  if (kind === 'pre_tokenizer') {
    if (part.type === 'ByteLevel') return { factor: FACTOR.ByteLevel, extra: part.add_prefix_space ? 1 : 0 };
    if (part.type === 'Metaspace') {
      // Each space becomes the replacement (str_rep when given, as the library reads it), and one may lead.
      const replacement = text('replacement', '\u2581');
      const spaces = text('str_rep', '') || replacement;
      for (const [field, value] of [
        ['replacement', replacement],
        ['str_rep', spaces],
      ])
        if (REPLACEMENT_PATTERN.test(value))
          fail(
            `${where}.${field}`,
            `holds ${JSON.stringify(REPLACEMENT_PATTERN.exec(value)[0])}, a replacement pattern`,
          );
      return { factor: Math.max(1, spaces.length), extra: replacement.length };
    }
    return same;
  }
  // Decoders, per token: a BPE suffix, CTC word delimiter or Metaspace replacement that is empty inserts a
  // space between every character (the library's replaceAll('', ' ')); WordPiece joins with a space.
  const empty = (field, fallback) => text(field, fallback) === '';
  if (
    (part.type === 'BPEDecoder' && empty('suffix', '')) ||
    (part.type === 'CTC' && empty('word_delimiter_token', '|')) ||
    (part.type === 'Metaspace' && empty('replacement', '\u2581'))
  )
    return { factor: 2, extra: 1 };
  if (part.type === 'WordPiece') return { factor: 1, extra: 1 };
  return same;
}

// A Regex pattern as JavaScript compiles it, for a caller without the tokenizers library.
function nativeRegex(text) {
  try {
    return new RegExp(text, 'u');
  } catch {
    return new RegExp(text);
  }
}

// Checks a component's pattern; returns scanRegex's reading of a Regex, { zeroWidth: false } of a String.
function checkPattern(pattern, where, fail, replace, compile) {
  if (!pattern || typeof pattern !== 'object') fail(where, 'is not { String } or { Regex }');
  const text = pattern.Regex ?? pattern.String;
  if (typeof text !== 'string') fail(where, 'is not { String } or { Regex }');
  if (text.length > MAX_PATTERN) fail(where, `is ${text.length} characters long, more than ${MAX_PATTERN}`);
  if (pattern.Regex === undefined) {
    if (replace && text === '')
      fail(where, 'is the empty string, so Replace would insert its content between every character');
    return { zeroWidth: false };
  }
  let regex;
  try {
    regex = compile(text);
  } catch (error) {
    fail(where, `is not a valid regex (${error.message})`);
  }
  const scan = scanRegex(text);
  if (scan.nested !== null)
    fail(
      where,
      `repeats ${scan.nested}, a group that holds an alternation or a repetition, whose backtracking can take ` +
        'exponential time',
    );
  // Without the global flag, so that test() starts at 0 whatever the pattern's lastIndex.
  regex = new RegExp(regex.source, regex.flags.replace('g', ''));
  if (replace && regex.test(''))
    fail(where, 'can match the empty string, so Replace would insert its content between every character');
  return scan;
}
