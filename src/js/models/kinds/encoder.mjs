// An encoder's calls (BERT, RoBERTa, XLM-R): run() alone, the whole sequence
// at once. A decoder's run() is the same call on a causal stack, so
// kinds/decoder.mjs takes runStack and stackResult from here.
import { CALLS } from '../../protocol.mjs';
import { checkRunOptions } from '../model-options.mjs';
import { readInput } from '../model-input.mjs';

/**
 * A call's result: its tokens, which of them are special (1) by the
 * tokenizer's list, the engine's arrays, and the attention by group
 * (transformers' names: encoder, decoder) with its shape.
 */
export function stackResult(inner, read, { attentionShape, ...result }) {
  const special = Uint8Array.from(read.inputIds, (id) => (inner.specialIds.has(id) ? 1 : 0));
  const out = { inputIds: read.inputIds, tokens: read.tokens, special, ...result };
  if (result.attention) {
    const [group] = inner.architecture.attentionGroups;
    out.attentions = { [group]: { data: result.attention, shape: attentionShape } };
  }
  return out;
}

/** run() of one stack of layers (an encoder's, a decoder's): the input read, then one engine call. */
export async function runStack(inner, input, options) {
  let read;
  const result = await inner.call(CALLS.modelRun, async () => {
    const {
      returnAttention = true,
      returnHiddenStates = false,
      returnLogits = false,
      returnQueryKey = false,
      headMask,
    } = checkRunOptions(options, 'run', inner.config);
    read = await readInput(inner, input, 'run', true, 0);
    return [read.inputIds, read.typeIds, returnAttention, returnHiddenStates, returnLogits, headMask, returnQueryKey];
  });
  return stackResult(inner, read, result);
}

export const encoder = Object.freeze({ run: runStack });
