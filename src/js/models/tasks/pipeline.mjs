// pipeline(task, source, options): transformers.js' task names and result shapes over a model's own calls
// (tasks/heads.mjs, run, generate), for those who reach for them. A pipeline is a function of its input with
// `task`, `model` (the TransformerModel: run() it for every attention, hidden state, query and key) and
// dispose(). An array of inputs gives an array of results: one batch (one engine call, kinds/encoder-batch.mjs)
// for the encoder's tasks but question-answering, one call each for the others.
import { describe, rejectUnknown } from '../../checks.mjs';
import { ArgumentRangeError, ArgumentTypeError, codedError } from '../../errors.mjs';
import { resultsOf } from '../kinds/encoder-batch.mjs';
import { LOAD_OPTIONS } from '../load.mjs';
import { checkTaskHead } from './heads.mjs';

/**
 * Each task: the kind of model it runs on, and the head it needs (checked when the pipeline is made); `batch`:
 * its run takes an array of inputs too (one batch) and gives an array of results.
 */
const TASKS = Object.freeze({
  'feature-extraction': { kind: 'encoder', run: extractFeatures, batch: true },
  'fill-mask': { kind: 'encoder', run: fillMask, batch: true, needs: (config) => config.hasLogits },
  'text-classification': { kind: 'encoder', head: 'sequence-classification', run: classifyText, batch: true },
  'token-classification': { kind: 'encoder', head: 'token-classification', run: classifyTokens, batch: true },
  'question-answering': { kind: 'encoder', head: 'question-answering', run: answerQuestion },
  translation: { kind: 'encoder-decoder', run: translate },
  'text-generation': { kind: 'decoder', run: generateText },
});
// loadModel's options (but kind: the task's), and the engine to load into (else a new one).
const PIPELINE_OPTIONS = new Set(['engine', ...[...LOAD_OPTIONS].filter((name) => name !== 'kind')]);

// The options a task takes out of a call's options (each checked where it is used), the rest the model call's.
function take(options, names) {
  if (options === undefined) return [{}, undefined];
  if (!options || typeof options !== 'object' || Array.isArray(options))
    throw new ArgumentTypeError(`options: expected an object, got ${describe(options)}`);
  const own = {};
  const rest = { ...options };
  for (const name of names) if (name in rest) ((own[name] = rest[name]), delete rest[name]);
  return [own, Object.keys(rest).length ? rest : undefined];
}

// topK: a positive integer (or null: every one, where allowed).
function topKOf(value, fallback, nullable) {
  if (value === undefined) return fallback;
  if (value === null && nullable) return Infinity;
  if (!Number.isInteger(value) || value < 1)
    throw new ArgumentRangeError(
      `topK: expected a positive integer${nullable ? ' or null (all)' : ''}, got ${describe(value)}`,
    );
  return value;
}

async function extractFeatures(model, text, options) {
  const [own, rest] = take(options, ['pooling', 'normalize']);
  // transformers.js' defaults (pooling 'none', normalize false), unless the folder is sentence-transformers'.
  const st = model.config.sentenceTransformers;
  const pooling = own.pooling ?? (st ? undefined : 'none');
  const results = await model.embed(text, { ...rest, ...(pooling !== undefined && { pooling }), ...own });
  const D = model.config.hiddenSize;
  return each(text, results, (result) => ({
    data: result.embedding,
    dims: result.pooling === 'none' ? [1, result.embedding.length / D, D] : [1, D],
  }));
}

// `post` of a result, or of each of an array's (the input an array: the results an array).
const each = (input, results, post) => (Array.isArray(input) ? results.map(post) : post(results));

async function fillMask(model, text, options) {
  const [own, rest] = take(options, ['topK']);
  const topK = topKOf(own.topK, 5, false);
  const run = await model.run(text, { returnAttention: false, ...rest, returnLogits: true });
  if (!Array.isArray(text)) return masksOf(model, run, topK, text);
  return Promise.all(resultsOf(run).map((result, i) => masksOf(model, result, topK, text[i])));
}

// fill-mask's predictions for each mask token of one input's run() result.
async function masksOf(model, result, topK, text) {
  const mask = model.specialTokens.mask?.id;
  const V = model.config.vocabSize;
  const positions = [...result.inputIds.keys()].filter((i) => result.inputIds[i] === mask);
  if (mask === undefined || positions.length === 0)
    throw new ArgumentTypeError(
      `input: no mask token (${model.specialTokens.mask?.token ?? 'the tokenizer has none'}) in ${describe(text)}`,
    );
  const perMask = [];
  for (const at of positions) {
    const row = result.logits.subarray(at * V, (at + 1) * V);
    let max = -Infinity;
    for (const x of row) max = Math.max(max, x);
    let sum = 0;
    for (const x of row) sum += Math.exp(x - max);
    const best = [...row.keys()].sort((a, b) => row[b] - row[a] || a - b).slice(0, topK);
    const found = [];
    for (const token of best) {
      const ids = Int32Array.from(result.inputIds);
      ids[at] = token;
      found.push({
        score: Math.exp(row[token] - max) / sum,
        token,
        token_str: await model.decode([token], { skipSpecialTokens: false }),
        sequence: await model.decode(ids, { skipSpecialTokens: true }),
      });
    }
    perMask.push(found);
  }
  return perMask.length === 1 ? perMask[0] : perMask;
}

async function classifyText(model, text, options) {
  const [own, rest] = take(options, ['topK']);
  const topK = topKOf(own.topK, 1, true);
  const results = await model.classify(text, { returnAttention: false, ...rest });
  return each(text, results, ({ labels }) => labels.slice(0, topK));
}

// transformers' entities (tasks/token-aggregation.mjs), those labelled one of ignoreLabels left out.
async function classifyTokens(model, text, options) {
  const [own, rest] = take(options, ['ignoreLabels', 'aggregationStrategy']);
  const { ignoreLabels = ['O'], aggregationStrategy = 'none' } = own;
  if (!Array.isArray(ignoreLabels) || ignoreLabels.some((l) => typeof l !== 'string'))
    throw new ArgumentTypeError(`ignoreLabels: expected an array of label names, got ${describe(ignoreLabels)}`);
  const results = await model.classifyTokens(text, { returnAttention: false, ...rest, aggregationStrategy });
  return each(text, results, ({ entities }) =>
    entities.filter((e) => !ignoreLabels.includes(e.entity ?? e.entity_group)),
  );
}

async function answerQuestion(model, question, context, options) {
  const result = await model.answer({ question, context }, { returnAttention: false, ...options });
  const { answer, score, start, end, tokenSpan } = result;
  return { answer, score, start, end, tokenSpan };
}

async function translate(model, text, options) {
  const { text: translation } = await model.generate(text, { returnAttention: false, ...options });
  return [{ translation_text: translation }];
}

async function generateText(model, text, options) {
  const [own, rest] = take(options, ['returnFullText']);
  const { returnFullText = true } = own;
  if (typeof returnFullText !== 'boolean')
    throw new ArgumentTypeError(`returnFullText: expected a boolean, got ${describe(returnFullText)}`);
  const result = await model.generate(text, { returnAttention: false, ...rest });
  const prompt = typeof text === 'string' ? text : (text?.text ?? '');
  return [{ generated_text: returnFullText ? prompt + result.text : result.text }];
}

/** pipeline() of an entry, over its createAttention (model-entry.mjs, node.mjs). */
export function pipelineOf(createAttention) {
  return async function pipeline(task, source, options = {}) {
    if (!Object.hasOwn(TASKS, task))
      throw new ArgumentTypeError(`task: expected one of ${Object.keys(TASKS).join(', ')}, got ${describe(task)}`);
    if (!options || typeof options !== 'object' || Array.isArray(options))
      throw new ArgumentTypeError(`pipeline options: expected an object, got ${describe(options)}`);
    rejectUnknown(options, PIPELINE_OPTIONS, 'pipeline');
    const { kind, head, run, needs, batch } = TASKS[task];
    const given = source && typeof source === 'object' && typeof source.run === 'function' && 'kind' in source;
    const { engine: givenEngine, ...loadOptions } = options;
    if (given && Object.keys(options).length)
      throw new ArgumentTypeError('pipeline options: a loaded model takes none (they are loadModel options)');
    const engine = given ? null : (givenEngine ?? (await createAttention()));
    let model;
    try {
      model = given ? source : await engine.loadModel(source, { ...loadOptions, kind });
      if (model.kind !== kind)
        throw new ArgumentTypeError(
          `model: ${task} runs on an ${kind}, got a ${model.config.modelType} (${model.kind})`,
        );
      if (head) checkTaskHead(model.config, head, `pipeline('${task}')`);
      if (needs && !needs(model.config))
        throw codedError(
          'NoTaskHead',
          `pipeline('${task}'): this ${model.config.modelType} has no masked-LM head the engine read (a checkpoint ` +
            "saved by BertForMaskedLM: config.json's architectures name it, and its weights hold cls.predictions)",
        );
    } catch (error) {
      if (!given && model) model.dispose();
      if (!given && !givenEngine) engine.dispose();
      throw error;
    }
    const pipe = async (input, ...rest) => {
      if (task === 'question-answering' || batch) return run(model, input, ...rest);
      return Array.isArray(input)
        ? input.reduce(async (done, one) => [...(await done), await run(model, one, rest[0])], Promise.resolve([]))
        : run(model, input, rest[0]);
    };
    return Object.assign(pipe, {
      task,
      model,
      /** Frees the model the pipeline loaded, and the engine it made (not a model or engine it was given). */
      dispose() {
        if (given) return;
        model.dispose();
        if (!givenEngine) engine.dispose();
      },
    });
  };
}
