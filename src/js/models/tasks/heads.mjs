// An encoder's task calls (model.classify, classifyTokens, answer, embed): one run() with the task head's
// logits (src/model/arch/bert.cpp: the head the checkpoint holds) or the last hidden state, then what
// transformers' pipelines make of them; every field of run()'s result stays in the result (attentions …).
import { describe } from '../../checks.mjs';
import { ArgumentRangeError, ArgumentTypeError, codedError } from '../../errors.mjs';
import { runStack } from '../kinds/encoder.mjs';
import { resultsOf } from '../kinds/encoder-batch.mjs';
import { aggregateTokens, checkAggregation } from './token-aggregation.mjs';
import { encodingOffsets } from '../tokenizers/encoding-offsets.mjs';
import { joinPieces } from '../tokenizers/piece-offsets.mjs';
import { joinTokens } from '../tokenizers/word-offsets.mjs';

const POOLINGS = ['mean', 'cls', 'max', 'none'];
const HEAD_CALLS = {
  'sequence-classification': 'classify',
  'token-classification': 'classifyTokens',
  'question-answering': 'answer',
};

/** The probabilities of `logits[from, from + n)` (a softmax in float64). */
export function softmax(logits, from = 0, n = logits.length - from) {
  let max = -Infinity;
  for (let i = 0; i < n; i++) max = Math.max(max, logits[from + i]);
  const out = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) sum += out[i] = Math.exp(logits[from + i] - max);
  for (let i = 0; i < n; i++) out[i] /= sum;
  return out;
}

// The task's own options out of `options` (each checked), the rest run()'s.
function split(options, names, what) {
  if (options === undefined) return [{}, undefined];
  if (!options || typeof options !== 'object' || Array.isArray(options))
    throw new ArgumentTypeError(`${what} options: expected an object, got ${describe(options)}`);
  const own = {};
  const rest = { ...options };
  for (const name of names) if (name in rest) ((own[name] = rest[name]), delete rest[name]);
  return [own, rest];
}

const HEAD_CLASSES = {
  'sequence-classification': 'SequenceClassification',
  'token-classification': 'TokenClassification',
  'question-answering': 'QuestionAnswering',
};

/** A NoTaskHead error when a model of `config` has not the task head `head` (`what`: the call or pipeline). */
export function checkTaskHead(config, head, what) {
  const { taskHead, modelType } = config;
  if (taskHead === head) return;
  throw codedError(
    'NoTaskHead',
    `${what}: this ${modelType} has ${taskHead ? `a ${taskHead} head (model.${HEAD_CALLS[taskHead]}())` : 'no task head'}` +
      `, not a ${head} one: load a checkpoint saved by a *For${HEAD_CLASSES[head]} class (config.json's ` +
      'architectures name it, and its weights hold the head)',
  );
}

// answer() takes one input; classify(), classifyTokens() and embed() an array too (a batch in one run()).
function oneInput(input, what) {
  if (Array.isArray(input))
    throw new ArgumentTypeError(
      `input: ${what}() takes one input (an object), got an array; call it for each, or model.run([...]) for a batch`,
    );
}

// run() of one input, or of an array of them in one engine call cut into each input's result (every one bit
// for bit its own run(), kinds/encoder-batch.mjs resultsOf); `extra`: the request's fields a task adds.
async function runEach(inner, input, options, extra) {
  if (!Array.isArray(input)) return runStack(inner, input, options, extra);
  return resultsOf(await runStack(inner, input, options, extra));
}

// run() with the task head's logits; a NoTaskHead error when the model has not the head `head`.
async function runHead(inner, head, input, options, what) {
  checkTaskHead(inner.config, head, what);
  return runEach(inner, input, options, { returnTaskLogits: true });
}

// `post` of a task's result, or of each of an array's (the input an array: the results an array).
const each = (input, results, post) => (Array.isArray(input) ? results.map(post) : post(results));

/** A sequence's labels: [{ label, score }] by score, highest first, with taskLogits [numLabels]. */
async function classify(inner, input, options) {
  const results = await runHead(inner, 'sequence-classification', input, options, 'classify');
  return each(input, results, (result) => {
    const scores = softmax(result.taskLogits);
    const labels = inner.config.labels
      .map((label, i) => ({ label, score: scores[i] }))
      .sort((a, b) => b.score - a.score);
    return { ...result, labels };
  });
}

/**
 * Each token's label: [{ label, score, index, token }] (special tokens included), with taskLogits [L, numLabels];
 * with aggregationStrategy, also `entities`: transformers' token-classification pipeline's (tasks/token-aggregation.mjs).
 */
async function classifyTokens(inner, input, options) {
  const [own, rest] = split(options, ['aggregationStrategy'], 'classifyTokens');
  const strategy = own.aggregationStrategy === undefined ? undefined : checkAggregation(own.aggregationStrategy);
  const results = await runHead(inner, 'token-classification', input, rest, 'classifyTokens');
  const n = inner.config.labels.length;
  const post = async (result, b) => {
    const scores = result.tokens.map((_, index) => softmax(result.taskLogits, index * n, n));
    const labels = scores.map((p, index) => {
      let best = 0;
      for (let j = 1; j < n; j++) if (p[j] > p[best]) best = j;
      return { label: inner.config.labels[best], score: p[best], index, token: result.tokens[index] };
    });
    if (strategy === undefined) return { ...result, labels };
    const text = textOf(Array.isArray(input) ? input[b] : input);
    // transformers' special_tokens_mask: the tokens the post-processor added; not the unknown token.
    const unk = inner.tokenizer?.specialTokens.unk?.id;
    const special = result.special.map((s, i) => (s && result.inputIds[i] !== unk ? 1 : 0));
    const words = text === null ? null : await tokenWords(inner.tokenizer, text, result.inputIds, unk);
    const entities = aggregateTokens({ ...result, special, scores }, text, inner.config.labels, strategy, words);
    return { ...result, labels, entities };
  };
  return Array.isArray(input) ? Promise.all(results.map(post)) : post(results);
}

// What aggregation reads of the tokenizer for `text` encoded as `ids` (aggregateTokens' words), or null: the
// offsets, the vocabulary's tokens, and transformers' convert_tokens_to_string (WordPiece's, ByteLevel's, Metaspace's).
async function tokenWords(tokenizer, text, ids, unk) {
  const offsets = await encodingOffsets(tokenizer, text, undefined, ids);
  if (!offsets) return null;
  const { wordPieces, pieceOffsets } = tokenizer;
  const join = wordPieces ? (t) => joinTokens(wordPieces, t) : (t) => joinPieces(pieceOffsets, t);
  if (!wordPieces && join([]) === null) return null; // a decoder joinPieces does not write
  return {
    offsets,
    vocab: tokenizer.tokenStrings(ids),
    unknown: (i) => ids[i] === unk,
    wordAware: wordPieces ? true : pieceOffsets.wordAware,
    join,
  };
}

// The text of an input whose characters the tokens cover (a string, or { text } alone), else null.
const textOf = (input) =>
  typeof input === 'string' ? input : typeof input?.text === 'string' && input.textPair == null ? input.text : null;

// question-answering's input: { question, context }.
function readQuestion(input) {
  if (!input || typeof input !== 'object' || typeof input.question !== 'string' || typeof input.context !== 'string')
    throw new ArgumentTypeError(`input: expected { question, context } (two strings), got ${describe(input)}`);
  const extra = Object.keys(input).filter((k) => k !== 'question' && k !== 'context');
  if (extra.length) throw new ArgumentTypeError(`input: unknown field "${extra[0]}"; expected { question, context }`);
  return { text: input.question, textPair: input.context };
}

/**
 * The answer span in the context, as transformers 4's QuestionAnsweringPipeline chose it: a softmax of the
 * start and of the end logits over the context's tokens and the first ([CLS]), which is then left out; the
 * best start·end product with start ≤ end < start + maxAnswerLength over context tokens. The context's tokens
 * are the last run of non-special tokens (BERT's [CLS] q [SEP] c [SEP], RoBERTa's <s> q </s></s> c </s>).
 */
async function answer(inner, input, options) {
  const [own, rest] = split(options, ['maxAnswerLength'], 'answer');
  const { maxAnswerLength = 15 } = own;
  if (!Number.isInteger(maxAnswerLength) || maxAnswerLength < 1)
    throw new ArgumentRangeError(`maxAnswerLength: expected a positive integer, got ${describe(maxAnswerLength)}`);
  oneInput(input, 'answer');
  const result = await runHead(inner, 'question-answering', readQuestion(input), rest, 'answer');
  const L = result.inputIds.length;
  let end = L;
  while (end > 0 && result.special[end - 1]) end--;
  let begin = end;
  while (begin > 0 && !result.special[begin - 1]) begin--;
  const startLogits = new Float32Array(L);
  const endLogits = new Float32Array(L);
  for (let i = 0; i < L; i++) [startLogits[i], endLogits[i]] = [result.taskLogits[2 * i], result.taskLogits[2 * i + 1]];
  const probabilities = (logits) => {
    const kept = Float64Array.from(logits, (x, i) => (i === 0 || (i >= begin && i < end) ? x : -10000));
    const p = softmax(kept);
    p[0] = 0;
    return p;
  };
  const [pStart, pEnd] = [probabilities(startLogits), probabilities(endLogits)];
  let best = { score: -1, start: begin, end: begin };
  for (let s = begin; s < end; s++)
    for (let e = s; e < Math.min(end, s + maxAnswerLength); e++)
      if (pStart[s] * pEnd[e] > best.score) best = { score: pStart[s] * pEnd[e], start: s, end: e };
  // The context's characters from the start token's first to the end token's last (transformers' answer), where the
  // tokens are placed in the text; else the span's tokens decoded.
  const { question, context } = input;
  const offsets = await encodingOffsets(inner.tokenizer, question, context, result.inputIds);
  const [from, to] = offsets ? [offsets[best.start][0], offsets[best.end][1]] : [null, null];
  const text = offsets
    ? context.slice(from, to)
    : ((await inner.decodeText(result.inputIds.subarray(best.start, best.end + 1))) ?? '');
  const { taskLogits: _, ...run } = result;
  const span = { answer: text, score: best.score, start: from, end: to, tokenSpan: [best.start, best.end] };
  return { ...run, startLogits, endLogits, ...span };
}

/**
 * A sequence's embedding: the last hidden state's rows pooled ('mean', 'cls': the first row, 'max', 'none': every
 * row, [L × hiddenSize]), then divided by its L2 norm when `normalize` (each row, with 'none'). The defaults are a
 * sentence-transformers folder's (modules.json, its Pooling config.json, a Normalize module), else 'mean' and false.
 */
async function embed(inner, input, options) {
  const [own, rest] = split(options, ['pooling', 'normalize'], 'embed');
  const st = inner.config.sentenceTransformers;
  if (own.pooling === undefined && st && st.pooling === null)
    throw new ArgumentTypeError(
      `pooling: this folder's modules.json names a Pooling module whose ${st.file} was not read or holds a mode ` +
        "embed() does not compute; give pooling: 'mean', 'cls', 'max' or 'none'",
    );
  const { pooling = st?.pooling ?? 'mean', normalize = st?.normalize ?? false } = own;
  if (!POOLINGS.includes(pooling))
    throw new ArgumentTypeError(`pooling: expected 'mean', 'cls', 'max' or 'none', got ${describe(pooling)}`);
  if (typeof normalize !== 'boolean')
    throw new ArgumentTypeError(`normalize: expected a boolean, got ${describe(normalize)}`);
  return each(input, await runEach(inner, input, rest), (result) => pool(inner, result, pooling, normalize));
}

// embed()'s embedding of one run() result.
function pool(inner, result, pooling, normalize) {
  const D = inner.config.hiddenSize;
  const h = result.lastHiddenState;
  const L = h.length / D;
  let embedding;
  if (pooling === 'none') embedding = Float32Array.from(h);
  else {
    const acc = new Float64Array(D).fill(pooling === 'max' ? -Infinity : 0);
    const rows = pooling === 'cls' ? 1 : L;
    for (let i = 0; i < rows; i++)
      for (let d = 0; d < D; d++) acc[d] = pooling === 'max' ? Math.max(acc[d], h[i * D + d]) : acc[d] + h[i * D + d];
    if (pooling === 'mean') for (let d = 0; d < D; d++) acc[d] /= L;
    embedding = Float32Array.from(acc);
  }
  if (normalize)
    for (let at = 0; at < embedding.length; at += D) {
      let sum = 0;
      for (let d = 0; d < D; d++) sum += embedding[at + d] ** 2;
      const norm = Math.max(Math.sqrt(sum), 1e-12); // torch.nn.functional.normalize's eps
      for (let d = 0; d < D; d++) embedding[at + d] /= norm;
    }
  return { ...result, embedding, pooling, normalize };
}

/** The encoder's task calls, by name (transformer-model.mjs adds them to the encoder's). */
export const TASKS = Object.freeze({ classify, classifyTokens, answer, embed });
