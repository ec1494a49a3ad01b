// A checkpoint's tokenizer.json is untrusted: what is checked before it is
// handed to @huggingface/tokenizers. Every component must be of a type the
// Hub's tokenizers use; a Sequence is at most 16 deep and 64 long; a regex at
// most 2,000 characters and valid; a Replace cannot match the empty string
// (it would insert its content between every character), and the
// Replace steps of a normalizer cannot grow a text more than 256 times
// (each at most its content's length per character). Beyond this, a
// tokenizer that still runs away is bounded where it runs (node-host.mjs:
// time and memory). The ids it can give are checked against the model at
// every call (transformer-model.mjs).

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
const MAX_GROWTH = 256;

/** Throws an Error naming `file` and the component when tokenizer.json's object `json` is not one to run. */
export function checkTokenizerJson(json, file = 'tokenizer.json', compile = nativeRegex) {
  const fail = (where, what) => {
    throw new Error(`${file}: ${where} ${what}; refused (the tokenizer would not be safe to run)`);
  };
  let growth = 1;
  const visit = (kind, part, where, depth) => {
    if (part === null || part === undefined) return;
    if (typeof part !== 'object' || Array.isArray(part))
      fail(where, `is ${Array.isArray(part) ? 'a list' : typeof part}, not a component`);
    if (!TYPES[kind].includes(part.type))
      fail(where, `has type ${JSON.stringify(part.type)}, not one of ${TYPES[kind].join(', ')}`);
    if (part.type === 'Sequence' && kind !== 'model') {
      const steps = part[STEPS[kind]];
      if (!Array.isArray(steps)) fail(where, `is a Sequence without its list "${STEPS[kind]}"`);
      if (depth >= MAX_DEPTH) fail(where, `nests Sequences more than ${MAX_DEPTH} deep`);
      if (steps.length > MAX_STEPS) fail(where, `is a Sequence of ${steps.length} steps, more than ${MAX_STEPS}`);
      steps.forEach((step, i) => visit(kind, step, `${where}.${STEPS[kind]}[${i}]`, depth + 1));
      return;
    }
    if ('pattern' in part)
      checkPattern(part.pattern, `${where}.pattern`, fail, kind === 'normalizer' && part.type === 'Replace', compile);
    if (kind === 'normalizer' && part.type === 'Replace') {
      const content = typeof part.content === 'string' ? part.content : '';
      growth *= Math.max(1, [...content].length);
      if (growth > MAX_GROWTH)
        fail(where, `makes the normalizer's Replace steps grow a text up to ${growth} times, more than ${MAX_GROWTH}`);
    }
    if (
      kind === 'normalizer' &&
      part.type === 'Prepend' &&
      typeof part.prepend === 'string' &&
      part.prepend.length > 64
    )
      fail(`${where}.prepend`, `is ${part.prepend.length} characters long, more than 64`);
  };
  for (const kind of Object.keys(TYPES)) {
    if (kind === 'model' && (json.model === null || json.model === undefined)) fail('model', 'is missing');
    visit(kind, json[kind], kind, 0);
  }
}

// A Regex pattern as JavaScript compiles it, for a caller without the tokenizers library.
function nativeRegex(text) {
  try {
    return new RegExp(text, 'u');
  } catch {
    return new RegExp(text);
  }
}

function checkPattern(pattern, where, fail, replace, compile) {
  if (!pattern || typeof pattern !== 'object') fail(where, 'is not { String } or { Regex }');
  const text = pattern.Regex ?? pattern.String;
  if (typeof text !== 'string') fail(where, 'is not { String } or { Regex }');
  if (text.length > MAX_PATTERN) fail(where, `is ${text.length} characters long, more than ${MAX_PATTERN}`);
  if (pattern.Regex !== undefined) {
    let regex;
    try {
      regex = compile(text);
    } catch (error) {
      fail(where, `is not a valid regex (${error.message})`);
    }
    // Without the global flag, so that test() starts at 0 whatever the pattern's lastIndex.
    regex = new RegExp(regex.source, regex.flags.replace('g', ''));
    if (replace && regex.test(''))
      fail(where, 'can match the empty string, so Replace would insert its content between every character');
  } else if (replace && text === '')
    fail(where, 'is the empty string, so Replace would insert its content between every character');
}
