// Where each token of a byte-level BPE tokenizer (GPT-2, RoBERTa, Qwen) or of a SentencePiece-style one (Llama's
// BPE with byte fallback, XLM-R's and CamemBERT's Unigram with Metaspace) lies in the text it was cut from, as
// Hugging Face tokenizers gives it (an Encoding's offsets): what token-classification's aggregation and
// question-answering's answer span need (tasks/), beside word-offsets.mjs's WordPiece. The library the engine
// runs the tokenizer with gives no offsets, so they are found here: the text is normalised as the tokenizer's
// normalizer does, each normalised character keeping the original characters it came from, written out as the
// bytes the pieces spell (Metaspace's spaces as its replacement), and the tokens' bytes are laid over them in
// order. Only the parts whose effect on the characters is known (below); any other gives null (pieceRule).
import { charsmapLookup } from './sentencepiece-normalizer.mjs';

/** What of tokenizer.json's object `json` the offsets follow; null when a part of it is not one known here. */
export function pieceRule(json, bytesOfPiece) {
  const { model, normalizer, pre_tokenizer: pre, post_processor: post } = json;
  if (model?.type !== 'BPE' && model?.type !== 'Unigram') return null;
  const steps = normalizerSteps(normalizer);
  const split = preTokenizer(pre);
  if (!steps || !split) return null;
  return Object.freeze({
    steps,
    // Without ByteLevel or Metaspace: SentencePiece-style pieces of the normalised text as it is (a normalizer
    // that prepends and replaces the spaces, as Llama 2's converted tokenizers have).
    byteLevel: false,
    replacement: null,
    prepend: false,
    ...split,
    // RobertaProcessing's and the ByteLevel post-processor's trim_offsets: a token's spaces left out of its span.
    trim: (post?.type === 'RobertaProcessing' || post?.type === 'ByteLevel') && post.trim_offsets === true,
    byteFallback: model.byte_fallback === true,
    unk: unkToken(model),
    bytesOf: bytesOfPiece,
    // What transformers' token-classification reads: whether the model marks a word's later pieces (BPE's
    // continuing_subword_prefix), and the decoder that joins tokens into words (joinPieces).
    wordAware: typeof model.continuing_subword_prefix === 'string' && model.continuing_subword_prefix !== '',
    decoder: decoderOf(json.decoder),
  });
}

// The decoders joinPieces writes: ByteLevel, Metaspace; null for any other.
function decoderOf(d) {
  if (d?.type === 'ByteLevel') return Object.freeze({ byteLevel: true });
  if (d?.type !== 'Metaspace') return null;
  const scheme = d.prepend_scheme ?? (d.add_prefix_space === false ? 'never' : 'always');
  return Object.freeze({
    replacement: typeof d.replacement === 'string' ? d.replacement : '▁',
    strip: scheme !== 'never',
  });
}

// Made when first needed: the module also loads where TextEncoder, TextDecoder and Intl.Segmenter are not (a
// bundle's first run in a bare context, tests/js/files.test.mjs).
let coders;
const codec = () =>
  (coders ??= {
    encoder: new TextEncoder(),
    lenient: new TextDecoder('utf-8'), // U+FFFD for bytes that are not UTF-8, as Python's errors='replace'
    graphemes: typeof Intl?.Segmenter === 'function' ? new Intl.Segmenter('en', { granularity: 'grapheme' }) : null,
  });

/**
 * Tokens joined as transformers' convert_tokens_to_string joins them (the tokenizer's decoder on the tokens):
 * ByteLevel's, each character its byte (one that is not a byte-level character, its UTF-8), the bytes read as
 * UTF-8; Metaspace's, the replacement a space (none in the first token, where the pre-tokenizer prepends one);
 * null for another decoder.
 */
export function joinPieces(rule, tokens) {
  const { decoder } = rule;
  if (!decoder) return null;
  if (!decoder.byteLevel) {
    const spaced = (token, i) =>
      [...token].map((c) => (c !== decoder.replacement ? c : i === 0 && decoder.strip ? '' : ' '));
    return tokens.map((token, i) => spaced(token, i).join('')).join('');
  }
  const bytes = [];
  for (const token of tokens)
    for (const char of token) {
      const byte = rule.bytesOf(char);
      bytes.push(...(byte ?? codec().encoder.encode(char)));
    }
  return codec().lenient.decode(Uint8Array.from(bytes));
}

function unkToken(model) {
  if (model.type === 'BPE') return model.unk_token ?? null;
  return Number.isInteger(model.unk_id) ? (model.vocab?.[model.unk_id]?.[0] ?? null) : null;
}

// The normalizer as steps on characters, or null: none, NFC/NFD/NFKC/NFKD, Precompiled (sentencepiece's charsmap),
// Lowercase, Prepend, Replace.
function normalizerSteps(n) {
  if (n == null) return [];
  if (n.type === 'Sequence') {
    const steps = [];
    for (const part of n.normalizers ?? []) {
      const s = normalizerSteps(part);
      if (!s) return null;
      steps.push(...s);
    }
    return steps;
  }
  if (['NFC', 'NFD', 'NFKC', 'NFKD'].includes(n.type)) return [{ form: n.type }];
  if (n.type === 'Precompiled' && typeof n.precompiled_charsmap === 'string' && typeof Intl?.Segmenter === 'function') {
    let lookup; // the charsmap read when first needed: a load that asks for no offsets never decodes it
    const blob = n.precompiled_charsmap;
    return [{ precompiled: (text) => (lookup ??= charsmapLookup(base64Bytes(blob)))(text) }];
  }
  if (n.type === 'Lowercase') return [{ lowercase: true }];
  if (n.type === 'Prepend' && typeof n.prepend === 'string') return [{ prepend: n.prepend }];
  if (n.type === 'Replace' && typeof n.content === 'string') {
    const pattern = n.pattern?.String ?? n.pattern?.Regex;
    if (typeof pattern !== 'string' || pattern === '') return null;
    try {
      const regex = new RegExp(n.pattern.String !== undefined ? escape(pattern) : pattern, 'gu');
      return [{ regex, content: n.content }];
    } catch {
      return null;
    }
  }
  return null;
}
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// The pre-tokenizer: { byteLevel: true } (ByteLevel, after any splits that keep every character), { byteLevel:
// false, replacement, prepend } (Metaspace), {} (splits alone), or null.
function preTokenizer(p) {
  if (p == null) return {};
  if (p.type === 'Sequence') {
    let out = {};
    for (const part of p.pretokenizers ?? []) {
      const one = preTokenizer(part);
      if (!one || (one.byteLevel !== undefined && out.byteLevel !== undefined)) return null;
      out = { ...out, ...one };
    }
    return out;
  }
  if (p.type === 'ByteLevel') return p.add_prefix_space === true ? null : { byteLevel: true };
  if (p.type === 'Metaspace') {
    const replacement = typeof p.replacement === 'string' ? p.replacement : '▁';
    const scheme = p.prepend_scheme ?? (p.add_prefix_space === false ? 'never' : 'always');
    return { byteLevel: false, replacement, prepend: scheme !== 'never' };
  }
  // Splits that keep every character where it is.
  if (p.type === 'Split') return p.behavior === 'Removed' ? null : {};
  if (p.type === 'Digits' || p.type === 'Punctuation') return {};
  return null;
}

// The text as the normalizer makes it: [{ char, from, to }] (`from`, `to`: the original characters' UTF-16 span).
function normalized(rule, text) {
  let chars = [];
  let at = 0;
  for (const char of text) chars.push({ char, from: at, to: (at += char.length) });
  for (const step of rule.steps) {
    if (step.form) chars = unicodeForm(chars, step.form);
    else if (step.precompiled) chars = precompiledForm(chars, step.precompiled);
    else if (step.lowercase) chars = chars.flatMap((c) => remade([c], [...c.char.toLowerCase()]));
    else if (step.prepend !== undefined) {
      // What is prepended takes the first character's span.
      if (chars.length) chars = [...[...step.prepend].map((char) => ({ ...chars[0], char })), ...chars];
    } else chars = replaced(chars, step);
  }
  return chars;
}

// The characters `made` of the run `run`, as tokenizers aligns a transformation: the k-th made character takes the
// span of the run's k-th (the last one's past its end); characters the run loses are its last ones.
const remade = (run, made) => made.map((char, k) => ({ ...run[Math.min(k, run.length - 1)], char }));

// A Unicode normal form, a character and the combining marks after it at a time (e + U+0301 → é takes the e's span,
// ﬁ → f i each the ligature's).
function unicodeForm(chars, form) {
  const out = [];
  for (let i = 0; i < chars.length;) {
    let j = i + 1;
    while (j < chars.length && /^\p{M}$/u.test(chars[j].char)) j++;
    const run = chars.slice(i, j);
    out.push(
      ...remade(run, [
        ...run
          .map((c) => c.char)
          .join('')
          .normalize(form),
      ]),
    );
    i = j;
  }
  return out;
}

// tokenizers' Precompiled: a grapheme of fewer than 6 bytes that the charsmap maps (by its shortest key that begins
// it) becomes what the map gives; else each of its characters that the map maps does.
function precompiledForm(chars, lookup) {
  const index = charIndex(chars);
  const out = [];
  for (const { segment, index: at } of codec().graphemes.segment(chars.map((c) => c.char).join(''))) {
    const run = chars.slice(index[at], index[at + segment.length]);
    const whole = codec().encoder.encode(segment).length < 6 ? lookup(segment) : null;
    if (whole !== null) out.push(...remade(run, [...whole]));
    else
      for (const c of run) {
        const made = lookup(c.char);
        out.push(...(made === null ? [c] : remade([c], [...made])));
      }
  }
  return out;
}

// UTF-16 position in the characters' text → the character's index (one past the end: chars.length).
function charIndex(chars) {
  const index = [];
  chars.forEach((c, i) => {
    for (let k = 0; k < c.char.length; k++) index.push(i);
  });
  index.push(chars.length);
  return index;
}

const base64Bytes = (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

// Replace: each match's characters become the content's; where the content is shorter, the match's first
// characters are the ones lost (tokenizers' replace: "  " → " " takes the second space's span).
function replaced(chars, { regex, content }) {
  const text = chars.map((c) => c.char).join('');
  const index = charIndex(chars);
  const out = [];
  let last = 0;
  for (const m of text.matchAll(regex)) {
    const [begin, end] = [index[m.index], index[m.index + m[0].length]];
    if (end === begin) continue;
    out.push(...chars.slice(last, begin));
    const made = [...content];
    const run = chars.slice(begin, end);
    out.push(...remade(run.slice(Math.max(0, run.length - made.length)), made));
    last = end;
  }
  out.push(...chars.slice(last));
  return out;
}

// The normalised text's bytes as the pieces spell them, each with its character's index: Metaspace's spaces as its
// replacement (and one before the text), byte-level pieces' bytes as the UTF-8 of the characters.
function spelled(rule, chars) {
  let units = chars;
  if (rule.replacement !== null && !rule.byteLevel) {
    units = chars.map((c) => (c.char === ' ' ? { ...c, char: rule.replacement } : c));
    // Metaspace's prepended replacement takes the first character's span.
    if (rule.prepend && units.length && !units[0].char.startsWith(rule.replacement))
      units = [{ ...units[0], char: rule.replacement }, ...units];
  }
  const bytes = [];
  const owner = [];
  units.forEach((u, i) => {
    for (const b of codec().encoder.encode(u.char)) (bytes.push(b), owner.push(i));
  });
  return { units, bytes, owner };
}

// A token's bytes as they are laid over the text: a byte-level piece's, a <0xHH> piece's byte, else its UTF-8.
function tokenBytes(rule, token) {
  if (rule.byteLevel) return rule.bytesOf(token) ?? null;
  const fallback = rule.byteFallback ? /^<0x([0-9A-Fa-f]{2})>$/.exec(token) : null;
  return fallback ? [parseInt(fallback[1], 16)] : [...codec().encoder.encode(token)];
}

/**
 * Each token's [start, end) in `text` (UTF-16 units: text.slice(start, end)) as tokenizers gives it, [0, 0] for a
 * special one (`special[i]`): the characters its bytes fall in (a character cut between tokens is in each), an
 * unknown token the characters up to the next token's; with trim, less its spaces at either end. null when the
 * tokens do not spell the text (a special token typed in it, a truncated input).
 */
export function pieceOffsets(rule, text, tokens, special) {
  const { units, bytes, owner } = spelled(rule, normalized(rule, text));
  const laid = tokens.map((token, i) => (special[i] ? null : tokenBytes(rule, token)));
  const offsets = [];
  let at = 0;
  for (let i = 0; i < tokens.length; i++) {
    if (special[i]) {
      offsets.push([0, 0]);
      continue;
    }
    let take = laid[i];
    if (tokens[i] === rule.unk) {
      // The unknown token covers what the next token does not: up to where the next one's bytes are.
      const next = laid.slice(i + 1).find((b) => b);
      let end = next ? find(bytes, next, at + 1) : bytes.length;
      if (end < 0) return null;
      take = bytes.slice(at, end);
    }
    if (!take || take.length === 0 || take.some((b, k) => bytes[at + k] !== b)) return null;
    const covered = units.slice(owner[at], owner[at + take.length - 1] + 1);
    at += take.length;
    offsets.push(span(rule, covered, tokens[i]));
  }
  return at === bytes.length ? offsets : null;
}

function find(bytes, needle, from) {
  for (let p = from; p + needle.length <= bytes.length; p++) if (needle.every((b, k) => bytes[p + k] === b)) return p;
  return -1;
}

// A token's span: its characters' first start and last end, where they have one (a prepended character has none).
function span(rule, covered, token) {
  let kept = covered.filter((u) => u.to > u.from);
  if (rule.trim) {
    // Spaces only (ByteLevel's trim_offsets counts the pieces' Ġ), not tabs or newlines.
    const space = (u) => u.char === ' ';
    let [b, e] = [0, kept.length];
    while (b < e && space(kept[b])) b++;
    while (e > b && space(kept[e - 1])) e--;
    if (b === e && token.length) return kept.length ? [kept.at(-1).to, kept.at(-1).to] : [0, 0];
    kept = kept.slice(b, e);
  }
  if (!kept.length) {
    const at = covered.find((u) => u.to > u.from)?.from ?? covered[0]?.to ?? 0;
    return [at, at];
  }
  return [Math.min(...kept.map((u) => u.from)), Math.max(...kept.map((u) => u.to))];
}
