// Attention rollout (Abnar & Zuidema 2020): per layer Â_l = 0.5·A_l + 0.5·I,
// A_l the layer's attention averaged over its heads, and R_l = Â_l · R_(l−1)
// (R_0 = I): row i of R_l is how much of each input token reaches position i
// after layer l. In float64 over the float32 weights of one run(). Of each
// self-attention group: an encoder's, a decoder's (causal: row i has only
// tokens ≤ i), MarianMT's encoder and its decoder's self-attention; the
// cross-attention is not rolled out (the paper defines rollout for one stack
// of self-attention; joining the decoder's rows to the encoder's tokens is a
// choice the paper does not make).
import { checkModel, checkOptions } from './options.mjs';

/** Rollout of one group's attention { data, shape: [layers, heads, L, L] }: [layers, L, L], R after each layer. */
export function rolloutOf({ data, shape: [layers, heads, L, Lk] }) {
  if (L !== Lk)
    throw new RangeError(`attention: expected square [layers, heads, L, L] weights, got keys ${Lk} for ${L}`);
  const out = new Float64Array(layers * L * L);
  let previous = Float64Array.from({ length: L * L }, (_, k) => (k % (L + 1) === 0 ? 1 : 0));
  const mixed = new Float64Array(L * L);
  for (let l = 0; l < layers; l++) {
    mixed.fill(0);
    for (let h = 0; h < heads; h++) {
      const from = (l * heads + h) * L * L;
      for (let k = 0; k < L * L; k++) mixed[k] += data[from + k];
    }
    for (let k = 0; k < L * L; k++) mixed[k] = (0.5 * mixed[k]) / heads + (k % (L + 1) === 0 ? 0.5 : 0);
    const now = out.subarray(l * L * L, (l + 1) * L * L);
    for (let i = 0; i < L; i++)
      for (let m = 0; m < L; m++) {
        const a = mixed[i * L + m];
        if (a === 0) continue;
        for (let j = 0; j < L; j++) now[i * L + j] += a * previous[m * L + j];
      }
    previous = now;
  }
  return { data: out, shape: [layers, L, L] };
}

/**
 * attentionRollout(model, input, { headMask?, signal? }): { inputIds, tokens, groups: { [group]: { data, shape } } }
 * for each self-attention group of one model.run(input) (an encoder-decoder's input may carry decoderInputIds).
 */
export async function attentionRollout(model, input, options) {
  checkModel(model, 'attentionRollout');
  const opts = checkOptions(options, 'attentionRollout', ['headMask'], false);
  const r = await model.run(input, { returnAttention: true, ...(opts.headMask && { headMask: opts.headMask }) });
  opts.signal?.throwIfAborted();
  const groups = {};
  for (const [group, attention] of Object.entries(r.attentions))
    if (group !== 'cross') groups[group] = rolloutOf(attention);
  opts.onProgress({ phase: 'rollout', done: 1, total: 1 });
  const out = { inputIds: r.inputIds, tokens: r.tokens ?? r.inputTokens, groups };
  if (r.decoderInputIds) Object.assign(out, { decoderInputIds: r.decoderInputIds, decoderTokens: r.decoderTokens });
  return out;
}
