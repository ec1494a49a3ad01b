// An encoder's calls (BERT, RoBERTa, XLM-R): run() alone, the whole sequence
// at once. A decoder's run() is the same call on a causal stack, so
// kinds/decoder.mjs takes runStack and stackResult from here.
import { checkRunOptions, lensPositions } from '../model-options.mjs';
import { readInput } from '../model-input.mjs';
import { runBatch } from './encoder-batch.mjs';

/** The engine's named arrays ({ data, shape }, src/bindings/outputs.hpp) as a result's typed arrays; numbers as they are. */
export function plain(result) {
  const out = {};
  for (const [name, value] of Object.entries(result)) out[name] = ArrayBuffer.isView(value?.data) ? value.data : value;
  return out;
}

/**
 * A call's result: its tokens, which of them are special (1) by the
 * tokenizer's list, the engine's arrays, and the attention by group
 * (transformers' names: encoder, decoder) with its shape; what each head
 * writes (returnHeadOutputs) by group only, as { valueNorms, headOutputNorms }.
 */
export function stackResult(inner, read, result) {
  const special = Uint8Array.from(read.inputIds, (id) => (inner.specialIds.has(id) ? 1 : 0));
  const { valueNorms, headOutputNorms, ...arrays } = result;
  const out = { inputIds: read.inputIds, tokens: read.tokens, special, ...plain(arrays) };
  const [group] = inner.architecture.attentionGroups;
  if (result.attention) out.attentions = { [group]: result.attention };
  if (valueNorms) out.headOutputs = { [group]: { valueNorms, headOutputNorms } };
  return out;
}

/**
 * run() of one stack of layers (an encoder's, a decoder's): the input read, then one engine call; an array
 * of inputs, an encoder's batch (encoder-batch.mjs; a decoder's refused there). `extra`: the
 * request's fields a task adds (tasks/heads.mjs: returnTaskLogits); `read` is in the result's inputIds, tokens.
 */
export async function runStack(inner, input, options, extra = {}) {
  if (Array.isArray(input)) return runBatch(inner, input, options, extra);
  let read;
  const result = await inner.send(async () => {
    const checked = checkRunOptions(options, 'run', inner.config);
    const { returnAttention = true, headMask, truncateTo, returnLayerLogits, ...returns } = checked;
    read = await readInput(inner, input, 'run', true, 0, truncateTo);
    const layerLogitPositions = lensPositions(returnLayerLogits, read.inputIds.length, 'input tokens');
    const [group] = inner.architecture.attentionGroups;
    return {
      call: 'run',
      inputIds: read.inputIds,
      tokenTypeIds: read.typeIds,
      returnAttention,
      ...returns,
      layerLogitPositions,
      headMask: { [group]: headMask },
      ...extra,
    };
  });
  return stackResult(inner, read, result);
}

export const encoder = Object.freeze({ run: runStack });
