// A decoder's calls (GPT-2, Llama, Qwen2/3): run() as an encoder's on a causal
// stack; prefill() and step() through its keys-and-values cache; generate(),
// greedy, sampled or by beam search, the prompt fed once (what the caller's
// cache holds of it kept) and one new token a step, the cache left holding the
// output (kinds/decoder-cache.mjs); and generateSteps(), the greedy or sampled
// search one step per next(), between which other calls may use the cache
// (the stream then feeds its own tokens again).
import { checkGenerateOptions, checkRunOptions, GENERATE_OPTIONS } from '../model-options.mjs';
import { readInput } from '../model-input.mjs';
import { CALLS } from '../../protocol.mjs';
import { rejectUnknown } from '../../checks.mjs';
import { ArgumentRangeError, ArgumentTypeError } from '../../errors.mjs';
import { generationSettings } from '../generation/settings.mjs';
import { greedySearch, greedySteps } from '../generation/greedy.mjs';
import { beamSearch } from '../generation/beam.mjs';
import { seededRandom } from '../generation/sampling.mjs';
import { stopStringCheck } from '../generation/stopping.mjs';
import { addedText, textStream } from '../generation/text-stream.mjs';
import { cacheBeams, feed, feedSequence, maskKey, settle } from './decoder-cache.mjs';
import { runStack, stackResult } from './encoder.mjs';

export { feed };

// prefill() and step(): one engine call with state, `past` counted after it.
function stateful(inner, call, input, options) {
  return inner.exclusive(async () => {
    let read, request;
    const result = await inner.send(async () => {
      const { returnAttention = true, headMask, ...returns } = checkRunOptions(options, call, inner.config);
      read = await readInput(inner, input, call, false, call === 'step' ? inner.past : 0);
      request = { call, inputIds: read.inputIds, returnAttention, ...returns, headMask: masks(inner, headMask) };
      return request;
    });
    inner.past = result.past + read.inputIds.length;
    const fed = Array.from(read.inputIds);
    const key = maskKey(request.headMask);
    if (call === 'prefill') inner.cachedIds = fed;
    else
      inner.cachedIds =
        inner.cacheOwner === null && inner.cachedIds && inner.cachedMask === key ? [...inner.cachedIds, ...fed] : null;
    inner.cachedMask = key;
    inner.cacheOwner = null; // the caller's now: a step stream feeds its tokens again
    return stackResult(inner, read, result);
  });
}

// A decoder's head mask as the engine's request names it: by its one attention group.
export const masks = (inner, headMask) => ({ [inner.architecture.attentionGroups[0]]: headMask ?? null });

// generate()'s input: a string, { text } or { inputIds }, as the prompt.
function promptSource(input, what) {
  if (input && typeof input === 'object' && 'text' in input) {
    rejectUnknown(input, new Set(['text']), `${what} input`);
    return input.text;
  }
  return input;
}

/**
 * A decoder's search settings for a prompt of `promptLength` tokens (generation_config.json's, then
 * `opts`), checked against the model's positions; `lengths` says what maxLength counts in the error
 * (a conversation: "the conversation's N and the reply's").
 */
export function decoderSettings(inner, promptLength, opts, lengths = `the prompt's ${promptLength} and the new ones`) {
  const { config } = inner;
  const settings = generationSettings(inner.generation.json, inner.generation.file, opts, config.vocabSize, {
    promptLength,
    encoderDecoder: false,
    maxPositions: config.maxPositions,
  });
  if (settings.maxLength > config.maxLength)
    throw new ArgumentRangeError(
      `maxLength: ${settings.maxLength} tokens (${lengths}), more than the ${config.maxLength} positions ` +
        `this model has`,
    );
  return settings;
}

// The prompt read and the search's settings, checked against the model's positions.
async function prepare(inner, source, opts, what) {
  const read = await readInput(inner, source, what, false, 0);
  const prompt = read.inputIds;
  const settings = decoderSettings(inner, prompt.length, opts);
  if (settings.stopStrings.length && !inner.tokenizer)
    throw new ArgumentTypeError(
      `stopStrings: this ${inner.config.modelType} has no tokenizer to decode its ids with (stop strings are text)`,
    );
  const stopText = inner.tokenizer ? stopStringCheck(inner.decodeText, settings.stopStrings) : null;
  return { read, settings, stopText, seed: opts.seed ?? Math.floor(Math.random() * 2 ** 32) };
}

// The rows of the last `n` queries of an attention { data, shape: [layers, heads, T, keys] }: [layers, heads, n, keys].
export function lastQueries({ data, shape: [layers, heads, T, keys] }, n) {
  const out = new Float32Array(layers * heads * n * keys);
  for (let block = 0; block < layers * heads; block++)
    out.set(data.subarray((block * T + T - n) * keys, (block * T + T) * keys), block * n * keys);
  return { data: out, shape: [layers, heads, n, keys] };
}

// The attentions of a causal sequence fed in parts ({ data, shape: [layers, heads, n, keys] } each, in order,
// each part's keys every position fed up to it) as one [layers, heads, T, T]: each row where run() over the
// whole sequence puts it, and 0 at the keys a row does not see, as run()'s.
export function joinQueries(parts) {
  const [layers, heads] = parts[0].shape;
  const T = parts.reduce((n, p) => n + p.shape[2], 0);
  const out = new Float32Array(layers * heads * T * T);
  let row = 0;
  for (const { data, shape } of parts) {
    const [, , n, keys] = shape;
    for (let block = 0; block < layers * heads; block++)
      for (let i = 0; i < n; i++)
        out.set(data.subarray((block * n + i) * keys, (block * n + i + 1) * keys), (block * T + row + i) * T);
    row += n;
  }
  return { data: out, shape: [layers, heads, T, T] };
}

/**
 * One step of a stream as the caller sees it (generate's onStep,
 * generateSteps' values): the token chosen and what it was chosen from —
 * the raw logits row, its processed score, and the attention of the tokens
 * fed for it (the prompt at step 1, the token before after that), as
 * transformers' generate(output_logits, output_scores, output_attentions)
 * gives them for each step; and the text it adds (generation/text-stream.mjs).
 */
export function publicStep(inner, found, index, seed, textDelta) {
  const { id, outputIds, score, fed } = found;
  const token = inner.pieces([id])[0];
  const out = { step: index, id, token, textDelta, outputIds, score, logits: fed.logits };
  if (fed.attention) {
    out.attention = fed.attention.data;
    out.attentions = { [inner.architecture.attentionGroups[0]]: fed.attention };
  }
  if (seed !== undefined) out.seed = seed;
  return out;
}

/** onStep with beams: refused by name (a step of a beam search is numBeams beams, not one token). */
export function checkBeamSteps(opts, settings, file) {
  const B = settings.numBeams;
  if (opts.onStep && B > 1)
    throw new ArgumentTypeError(
      `onStep: a step of a beam search is ${B} beams, not one token (numBeams ${B}` +
        `${opts.numBeams === undefined ? `, from ${file}` : ''}); give numBeams: 1, or follow the beams with onToken`,
    );
}

async function generate(inner, input, options) {
  const opts = checkGenerateOptions(options, inner.config, GENERATE_OPTIONS.decoder);
  const source = promptSource(input, 'generate');
  return inner.exclusive(async () => {
    const { read, settings, seed, stopText } = await prepare(inner, source, opts, 'generate');
    checkBeamSteps(opts, settings, inner.generation.file);
    const prompt = read.inputIds;
    const mask = masks(inner, opts.headMask);
    const B = settings.numBeams;
    // Attention only when asked (returnAttention: true; docs/performance.md: numLayers·numHeads·n² floats,
    // 1.3 GB for a Qwen2.5-0.5B at 1,000 tokens). Greedy or sampled, each step then returns its rows (onStep's
    // too), computed as run()'s are, bit for bit, and so are the logits (the weights computed, not the fused
    // tiles': transformers' eager attention where output_attentions is asked); step 1's are the whole
    // prompt's, so the prompt is then fed whole, not after what the cache holds of it. The steps' rows put
    // together are the attention, with no second pass over the output (beams: a run() after the search).
    const wantAttention = opts.returnAttention === true;
    const stepAttention = wantAttention && B === 1;
    const parts = stepAttention && !opts.returnHiddenStates ? [] : null;
    let first = true;
    // The prompt through every layer once (what the caller's cache holds of it kept), then one token a step.
    const step = async (ids) => {
      let r;
      if (first) {
        first = false;
        r = await feedSequence(inner, Array.from(ids), { attention: stepAttention, mask, reuse: !stepAttention });
      } else {
        r = await feed(inner, 'step', ids, stepAttention, mask);
        inner.cachedIds.push(...ids);
        inner.past += ids.length;
      }
      parts?.push(r.attention);
      return r;
    };
    let found;
    let index = 0;
    const onToken = opts.onToken && tokenReporter(inner, opts.onToken);
    const texts = B === 1 && (opts.onToken || opts.onStep) && textDeltas(inner, prompt);
    const hooks = { prompt, signal: opts.signal, stopText };
    try {
      if (B === 1)
        found = await greedySearch(step, settings, {
          ...hooks,
          random: seededRandom(seed),
          onStep:
            texts &&
            (async (s) => {
              const textDelta = await texts(s);
              onToken?.(s, textDelta);
              if (opts.onStep)
                await opts.onStep(publicStep(inner, s, ++index, settings.doSample ? seed : undefined, textDelta));
            }),
        });
      else {
        const beams = cacheBeams(inner, B, inner.config.vocabSize, { mask, reuse: true });
        found = await beamSearch(beams.step, beams.reorder, settings, inner.config.vocabSize, { ...hooks, onToken });
        await beams.finish();
      }
      // The cache holds what the output fed (all of it but its last id): a step of that id continues it.
      await settle(inner, Array.from(found.outputIds.subarray(0, -1)), mask);
    } catch (error) {
      // A search that failed (the engine, the signal, a callback) leaves the cache empty.
      await inner.call(CALLS.modelReset);
      Object.assign(inner, { past: 0, cacheOwner: null, cachedIds: [] });
      throw error;
    }
    const text = (ids) => (inner.tokenizer ? addedText(inner.decodeText, ids, prompt.length) : null);
    const candidates = await Promise.all(
      (found.candidates ?? [{ outputIds: found.outputIds, score: found.score }]).map(async (c) => ({
        outputIds: c.outputIds,
        score: c.score,
        text: await text(c.outputIds),
        tokens: inner.pieces(c.outputIds),
      })),
    );
    const out = {
      inputIds: prompt,
      inputTokens: read.tokens,
      outputIds: found.outputIds,
      text: candidates[0].text,
      tokens: candidates[0].tokens,
      score: found.score,
      candidates,
    };
    if (found.stepScores) out.stepScores = Float64Array.from(found.stepScores);
    if (settings.doSample) out.seed = seed;
    if (parts) {
      // The rows of every id the steps fed: the output but its last id.
      const attention = joinQueries(parts);
      const attentions = { [inner.architecture.attentionGroups[0]]: attention };
      Object.assign(out, { attention: attention.data, attentions });
    } else if (wantAttention || opts.returnHiddenStates) {
      const fed = found.outputIds.subarray(0, found.outputIds.length - 1);
      const r = await inner.send(() => ({
        call: 'run',
        inputIds: fed,
        returnAttention: wantAttention,
        returnHiddenStates: opts.returnHiddenStates === true,
        headMask: mask,
      }));
      const fedRead = { inputIds: fed, typeIds: null, tokens: inner.pieces(fed) };
      const { attention, attentions, hiddenStates } = stackResult(inner, fedRead, r);
      Object.assign(out, attention && { attention, attentions }, hiddenStates && { hiddenStates });
    }
    return out;
  });
}

// onToken's calls, in order, with the tokens so far (and, a token at a time, the text it adds).
export function tokenReporter(inner, onToken) {
  return ({ outputIds, id, beams }, textDelta) => {
    const report = { outputIds, tokens: inner.pieces(outputIds) };
    if (id !== undefined) report.id = id;
    if (textDelta !== undefined) report.textDelta = textDelta;
    if (beams) report.beams = beams;
    onToken(report);
  };
}

/**
 * Each step's text delta after `prompt` (ids): a function of a search's step
 * ({ outputIds, done }) → Promise<string>, null without a tokenizer.
 */
export function textDeltas(inner, prompt) {
  if (!inner.tokenizer) return () => Promise.resolve(null);
  const stream = textStream(inner.decodeText, prompt);
  return ({ outputIds, done }) => stream.push(outputIds, done);
}

// generateSteps(): the arguments checked now, the steps computed one per next().
function generateSteps(inner, input, options) {
  const opts = checkGenerateOptions(options, inner.config, GENERATE_OPTIONS.steps, 'generateSteps');
  return stream(inner, promptSource(input, 'generateSteps'), opts);
}

async function* stream(inner, source, opts) {
  const { read, settings, seed, stopText } = await inner.exclusive(() => prepare(inner, source, opts, 'generateSteps'));
  const owner = {}; // the cache is this stream's while inner.cacheOwner is this object
  const cached = []; // the ids this stream has fed
  const attention = opts.returnAttention !== false;
  const mask = masks(inner, opts.headMask);
  const step = (ids) =>
    inner.exclusive(async () => {
      let r;
      if (cached.length && inner.cacheOwner === owner) {
        r = await feed(inner, 'step', ids, attention, mask);
      } else {
        // First, or the cache was used since: everything this stream fed, again (the rows of the new ids
        // are the step's, bit for bit).
        r = await feed(inner, 'prefill', [...cached, ...ids], attention, mask);
        if (attention && cached.length) r = { ...r, attention: lastQueries(r.attention, ids.length) };
        inner.cacheOwner = owner;
      }
      cached.push(...ids);
      inner.past = cached.length;
      return r;
    });
  let index = 0;
  const random = seededRandom(seed);
  const texts = textDeltas(inner, read.inputIds);
  const search = { prompt: read.inputIds, random, signal: opts.signal, stopText };
  for await (const found of greedySteps(step, settings, search))
    yield publicStep(inner, found, ++index, settings.doSample ? seed : undefined, await texts(found));
}

export const decoder = Object.freeze({
  run: runStack,
  prefill: (inner, input, options) => stateful(inner, 'prefill', input, options),
  step: (inner, input, options) => stateful(inner, 'step', input, options),
  generate,
  generateSteps,
});
