// An encoder's or a decoder's run() of a batch: an array of inputs in ONE engine call
// (src/bindings/model_batch.hpp), whose products and norms run over every sequence's tokens at once and whose
// attention runs over each sequence alone (a decoder's causally, teacher-forced, each from position 0), so that
// each row of the result is bit for bit that sequence's own run(). The results come
// back as transformers returns a batch encoded with padding=True: padded on the right to the longest
// sequence, with an attentionMask (1 a token, 0 padding) and each array's shape.
import { describe } from '../../checks.mjs';
import { ArgumentRangeError, ArgumentTypeError } from '../../errors.mjs';
import { checkRunOptions } from '../model-options.mjs';
import { readInput } from '../model-input.mjs';

// What a batch does not return (each sequence's run() does), refused by name.
const NOT_BATCHED = {
  returnQueryKey: 'queries and keys',
  returnHeadOutputs: 'what each head writes',
  returnLayerLogits: 'logit lens',
};

/** Refuses, by name, an option whose output a batch does not return (NOT_BATCHED); `one`: 'sequence' or 'pair'. */
export function refuseUnbatched(checked, one) {
  for (const [name, what] of Object.entries(NOT_BATCHED))
    if (checked[name] !== undefined && checked[name] !== false)
      throw new ArgumentTypeError(
        `${name}: a batch returns no ${what}; run that ${one} alone for them, got ${describe(checked[name])}`,
      );
}

/** Int32Arrays one after another in one (a batch's sequences, as the engine takes them). */
export function joined(lists) {
  const all = new Int32Array(lists.reduce((n, list) => n + list.length, 0));
  lists.reduce((at, list) => (all.set(list, at), at + list.length), 0);
  return all;
}

/** Each input of a batch read by `read` (as run() reads one), an error naming its place in the array. */
export async function readEach(inputs, read) {
  if (inputs.length === 0)
    throw new ArgumentRangeError('input: expected at least one input in the batch, got an empty array');
  const reads = [];
  for (let i = 0; i < inputs.length; i++) {
    try {
      reads.push(await read(inputs[i]));
    } catch (error) {
      if (error instanceof TypeError || error instanceof RangeError)
        error.message = error.message.replace(/^input\b/, `input[${i}]`);
      throw error;
    }
  }
  return reads;
}

/**
 * Sequences of ids padded on the right to the longest with the tokenizer's pad token (0 without one), as
 * transformers pads with padding=True: ids [B, Lmax], attentionMask [B, Lmax] (1 a token, 0 padding), special
 * [B, Lmax] (padding counts as special), lengths, Lmax.
 */
export function padded(inner, sequences) {
  const B = sequences.length;
  const lengths = sequences.map((s) => s.length);
  const Lmax = Math.max(...lengths);
  const padId = inner.tokenizer?.specialTokens?.pad?.id ?? 0;
  const ids = new Int32Array(B * Lmax).fill(padId);
  const attentionMask = new Uint8Array(B * Lmax);
  const special = new Uint8Array(B * Lmax).fill(1);
  sequences.forEach((s, b) => {
    ids.set(s, b * Lmax);
    attentionMask.fill(1, b * Lmax, b * Lmax + s.length);
    s.forEach((id, i) => {
      special[b * Lmax + i] = inner.specialIds.has(id) ? 1 : 0;
    });
  });
  return { ids, attentionMask, special, lengths, Lmax };
}

/**
 * run() of an array of inputs on an encoder or a decoder: one engine call; `extra`, the request's fields a task adds.
 * Options mean what they mean for one input, for every sequence alike (headMask, truncation); those of
 * NOT_BATCHED are refused.
 */
export async function runBatch(inner, inputs, options, extra = {}) {
  let reads;
  const result = await inner.send(async () => {
    const checked = checkRunOptions(options, 'run', inner.config);
    refuseUnbatched(checked, 'sequence');
    const { returnAttention = true, headMask, truncateTo, returnLayerLogits, ...returns } = checked;
    reads = await readEach(inputs, (input) => readInput(inner, input, 'run', true, 0, truncateTo));
    const lengths = Int32Array.from(reads, (r) => r.inputIds.length);
    const inputIds = joined(reads.map((r) => r.inputIds));
    // Token types where an input has them, 0 for the others' tokens.
    const tokenTypeIds = reads.some((r) => r.typeIds)
      ? joined(reads.map((r) => r.typeIds ?? new Int32Array(r.inputIds.length)))
      : null;
    const [group] = inner.architecture.attentionGroups;
    return {
      call: 'run',
      inputIds,
      tokenTypeIds,
      lengths,
      returnAttention,
      ...returns,
      headMask: { [group]: headMask },
      ...extra,
    };
  });
  return batchResult(inner, reads, result);
}

/**
 * A batch's result: inputIds [B, Lmax] padded with the tokenizer's pad token (0 without one), attentionMask
 * [B, Lmax], special [B, Lmax] (padding counts as special), tokens and lengths per sequence, the engine's
 * arrays padded alike, and shapes: each array's dimensions.
 */
function batchResult(inner, reads, result) {
  const B = reads.length;
  const {
    ids: inputIds,
    attentionMask,
    special,
    lengths,
    Lmax,
  } = padded(
    inner,
    reads.map((r) => r.inputIds),
  );
  const shapes = { inputIds: [B, Lmax], attentionMask: [B, Lmax] };
  const out = { batchSize: B, lengths, inputIds, attentionMask, special, tokens: reads.map((r) => r.tokens) };
  for (const [name, value] of Object.entries(result)) {
    out[name] = value.data;
    shapes[name] = value.shape;
  }
  out.shapes = shapes;
  if (result.attention) out.attentions = { [inner.architecture.attentionGroups[0]]: result.attention };
  return out;
}

/**
 * A batch's result as B results of run() on one input (each bit for bit that run()'s): every array cut to its
 * input's rows, by the shapes the engine gave. The task calls over a batch (tasks/heads.mjs) read these.
 */
export function resultsOf(batch) {
  const { lengths, shapes } = batch;
  const B = lengths.length;
  const Lmax = shapes.inputIds[1];
  // Input b's rows of an array [groups, B, Lmax, W] (hiddenStates: groups numLayers + 1; the others 1), or of a
  // sequence-classification head's [B, numLabels].
  const cut = (name, b, L) => {
    const shape = shapes[name];
    if (name === 'taskLogits' && shape.length === 2) return batch[name].slice(b * shape[1], (b + 1) * shape[1]);
    const groups = name === 'hiddenStates' ? shape[0] : 1;
    const W = shape[shape.length - 1];
    const out = new Float32Array(groups * L * W);
    for (let g = 0; g < groups; g++)
      out.set(batch[name].subarray((g * B + b) * Lmax * W, ((g * B + b) * Lmax + L) * W), g * L * W);
    return out;
  };
  // attention [layers, B, H, Lmax, Lmax] → input b's [layers, H, L, L].
  const attentionOf = (b, L) => {
    const [layers, , H] = shapes.attention;
    const out = new Float32Array(layers * H * L * L);
    let at = 0;
    for (let l = 0; l < layers; l++)
      for (let h = 0; h < H; h++)
        for (let i = 0; i < L; i++) {
          const row = (((l * B + b) * H + h) * Lmax + i) * Lmax;
          out.set(batch.attention.subarray(row, row + L), at);
          at += L;
        }
    return out;
  };
  return lengths.map((L, b) => {
    const one = {
      inputIds: batch.inputIds.slice(b * Lmax, b * Lmax + L),
      tokens: batch.tokens[b],
      special: batch.special.slice(b * Lmax, b * Lmax + L),
    };
    for (const name of ['lastHiddenState', 'hiddenStates', 'logits', 'taskLogits'])
      if (batch[name]) one[name] = cut(name, b, L);
    if (batch.attention) {
      one.attention = attentionOf(b, L);
      const [group] = Object.keys(batch.attentions);
      const [layers, , H] = shapes.attention;
      one.attentions = { [group]: { data: one.attention, shape: [layers, H, L, L] } };
    }
    return one;
  });
}
