// The reference an analysis scores, and its two passes: score(masks), the
// reference's log-probability teacher-forced in one run() with those heads
// switched off; redecode(masks), the model's own output again with them off
// (generate() greedy, or a BERT's fill). By kind:
//   decoder:          the prompt's greedy continuation of `newTokens` (1: the next token), or reference.outputIds;
//   encoder-decoder:  its greedy translation (numBeams 1), or reference.outputIds (from decoder_start_token_id);
//   encoder:          the masked-LM head's top token at each mask token (specialTokens.mask; or `positions`), or
//                     reference.outputIds there.
// The score is Σ_t log p(reference_t | what precedes it), each softmax in float64 over the float32 logits.
import { describe } from '../checks.mjs';
import { ArgumentRangeError, ArgumentTypeError } from '../errors.mjs';
import { callMask, headGroups } from './heads.mjs';
import { checkKindOptions } from './options.mjs';
import { TEACHER_FORCED } from '../models/transformer-model.mjs';

const QUIET = { returnAttention: false };

/** log p(target) of one logits row, in float64. */
export function logProbability(logits, row, vocab, target) {
  const from = row * vocab;
  let max = -Infinity;
  for (let v = 0; v < vocab; v++) max = Math.max(max, logits[from + v]);
  let sum = 0;
  for (let v = 0; v < vocab; v++) sum += Math.exp(logits[from + v] - max);
  return logits[from + target] - max - Math.log(sum);
}

// The first largest of one logits row (ties: the lowest id, as torch.argmax).
function argmax(logits, row, vocab) {
  let best = 0;
  for (let v = 1; v < vocab; v++) if (logits[row * vocab + v] > logits[row * vocab + best]) best = v;
  return best;
}

function referenceIds(reference, what) {
  if (reference === undefined) return undefined;
  const ids = reference?.outputIds;
  if (!(Array.isArray(ids) || ids instanceof Int32Array) || ids.length === 0 || !ids.every(Number.isInteger))
    throw new ArgumentTypeError(`${what}.outputIds: expected a non-empty array of token ids, got ${describe(ids)}`);
  return Int32Array.from(ids);
}

/**
 * The analysis' task for `model` on `input`: { groups, reference, score(masks), redecode(masks) }.
 * `reference` is { inputIds, outputIds, positions?, text?, tokens, score } (score: every head kept).
 */
export async function makeTask(model, input, options) {
  const { config } = model;
  const groups = headGroups(config);
  checkKindOptions(options, config);
  const given = referenceIds(options.reference, 'reference');
  const mask = (masks) => (masks ? callMask(config, groups, masks) : undefined);
  if (!config.hasLogits)
    throw new ArgumentTypeError(
      `model: a ${config.modelType} without an output head (config.hasLogits false) has no log-probability to score`,
    );
  const task =
    config.kind === 'decoder'
      ? await decoderTask(model, input, options, given, mask)
      : config.kind === 'encoder-decoder'
        ? await seq2seqTask(model, input, options, given, mask)
        : await fillTask(model, input, options, given, mask);
  task.groups = groups;
  task.reference.score = await task.score(null);
  return task;
}

async function decoderTask(model, input, { newTokens = 1 }, given, mask) {
  const vocab = model.config.vocabSize;
  const prompt = (await model.run(input, { ...QUIET, returnLogits: false })).inputIds;
  const greedy = (masks, n) =>
    model.generate({ inputIds: prompt }, { maxNewTokens: n, doSample: false, ...QUIET, headMask: mask(masks) });
  const continuation = given ?? (await greedy(null, newTokens)).outputIds.subarray(prompt.length);
  const P = prompt.length;
  const whole = Int32Array.from([...prompt, ...continuation]);
  const fed = whole.subarray(0, whole.length - 1);
  if (whole.length > model.config.maxLength)
    throw new ArgumentRangeError(
      `reference: ${whole.length} tokens with the prompt, more than the ${model.config.maxLength} positions this model has`,
    );
  return {
    reference: {
      inputIds: prompt,
      outputIds: Int32Array.from(continuation),
      text: await model.decode(continuation),
      tokens: model.pieces(continuation),
    },
    async score(masks) {
      const { logits } = await model.run({ inputIds: fed }, { ...QUIET, returnLogits: true, headMask: mask(masks) });
      let sum = 0;
      for (let k = 0; k < continuation.length; k++) sum += logProbability(logits, P - 1 + k, vocab, continuation[k]);
      return sum;
    },
    async redecode(masks) {
      const out = (await greedy(masks, continuation.length)).outputIds.subarray(P);
      return { outputIds: Int32Array.from(out), text: await model.decode(out), tokens: model.pieces(out) };
    },
  };
}

async function seq2seqTask(model, input, { maxNewTokens }, given, mask) {
  const vocab = model.config.vocabSize;
  const translate = (source, masks) =>
    model.generate(source, { numBeams: 1, ...QUIET, ...(maxNewTokens && { maxNewTokens }), headMask: mask(masks) });
  const first = given ? null : await translate(input, null);
  const inputIds = first?.inputIds ?? (await model.run(input, QUIET)).inputIds;
  const outputIds = given ?? first.outputIds;
  if (outputIds.length < 2)
    throw new ArgumentRangeError(
      `reference.outputIds: expected decoder_start_token_id and at least one token, got ${outputIds.length} ids`,
    );
  const decoderInputIds = outputIds.subarray(0, outputIds.length - 1);
  let fast;
  return {
    reference: {
      inputIds,
      outputIds: Int32Array.from(outputIds),
      text: await model.decode(outputIds),
      tokens: model.pieces(outputIds),
    },
    async score(masks) {
      // Every head kept: run(), which checks the ids; then passes that keep the encoder's output between them.
      const { logits } = masks
        ? { logits: await (fast ??= model[TEACHER_FORCED](inputIds, decoderInputIds))(mask(masks)) }
        : await model.run({ inputIds, decoderInputIds }, { ...QUIET, returnLogits: true });
      let sum = 0;
      for (let t = 1; t < outputIds.length; t++) sum += logProbability(logits, t - 1, vocab, outputIds[t]);
      return sum;
    },
    async redecode(masks) {
      const r = await translate({ inputIds }, masks);
      return { outputIds: r.outputIds, text: r.text, tokens: r.tokens };
    },
  };
}

// The [MASK] positions of an encoder's input: `positions`, else its tokens that are the tokenizer's mask token.
function maskPositions(model, read, positions) {
  if (positions !== undefined) {
    if (!Array.isArray(positions) || positions.length === 0)
      throw new ArgumentTypeError(
        `positions: expected a non-empty array of token positions, got ${describe(positions)}`,
      );
    positions.forEach((p, i) => {
      if (!Number.isInteger(p) || p < 0 || p >= read.inputIds.length)
        throw new ArgumentRangeError(
          `positions[${i}]: expected a position from 0 to ${read.inputIds.length - 1}, got ${describe(p)}`,
        );
    });
    return Int32Array.from(positions);
  }
  const maskId = model.specialTokens.mask?.id;
  const found = [...read.inputIds.keys()].filter((i) => read.inputIds[i] === maskId);
  if (found.length === 0)
    throw new ArgumentRangeError(
      `input: no ${model.specialTokens.mask?.token ?? 'mask'} token to fill (the tokenizer's mask token); give positions to score`,
    );
  return Int32Array.from(found);
}

async function fillTask(model, input, { positions }, given, mask) {
  const vocab = model.config.vocabSize;
  const full = await model.run(input, { ...QUIET, returnLogits: true });
  const at = maskPositions(model, full, positions);
  const { inputIds } = full;
  if (given && given.length !== at.length)
    throw new ArgumentRangeError(
      `reference.outputIds: expected one id per position (${at.length}), got ${given.length}`,
    );
  const fill = (logits) => Int32Array.from(at, (p) => argmax(logits, p, vocab));
  const outputIds = given ?? fill(full.logits);
  // A point of a curve scores, then fills, under the same masks: one run() serves both (the last masks' logits).
  let last = { masks: undefined, logits: null };
  const logitsOf = async (masks) => {
    if (masks !== last.masks)
      last = {
        masks,
        logits: (await model.run(input, { ...QUIET, returnLogits: true, headMask: mask(masks) })).logits,
      };
    return last.logits;
  };
  return {
    reference: { inputIds, positions: at, outputIds, tokens: model.pieces(outputIds) },
    async score(masks) {
      const logits = masks ? await logitsOf(masks) : full.logits;
      let sum = 0;
      at.forEach((p, k) => (sum += logProbability(logits, p, vocab, outputIds[k])));
      return sum;
    },
    async redecode(masks) {
      const ids = fill(await logitsOf(masks));
      return { outputIds: ids, tokens: model.pieces(ids) };
    },
  };
}
