// A decoder's one keys-and-values cache, as generate() shares it with the
// caller: which ids it holds (inner.cachedIds, while inner.cacheOwner is null:
// the caller's, from prefill(), step(), rewind() and generate()), a sequence
// fed so that only what the cache lacks is computed (the rest kept, the
// cache rewound where they part), and the beams of a beam search over that
// one cache. A row of logits or attention is the same, bit for bit, however
// its sequence reached the cache (a prefill, steps, a rewind and steps:
// tests/js/model-steps.test.mjs), so a search's choices do not depend on it.
import { CALLS } from '../../protocol.mjs';

// The head mask ({ group: mask or null }, decoder.mjs masks()) as a key: the keys and values a cache holds were
// computed under one, and are reused only under the same (inner.cachedMask, set with inner.cachedIds).
export const maskKey = (mask) =>
  JSON.stringify(mask ?? null, (key, value) => (ArrayBuffer.isView(value) ? Array.from(value) : value));

// The ids the cache holds for the caller computed under `mask` ([] when a step stream or a conversation holds it,
// or another head mask made it).
const held = (inner, mask) =>
  inner.cacheOwner === null && inner.cachedIds && inner.cachedMask === maskKey(mask) ? inner.cachedIds : [];

/**
 * The request of a decoder's call with its cache: `ids` fed after the first
 * `past` the cache holds (0: a prefill, which empties it first), the last
 * row's logits returned. Resolves to the engine's result with logits the
 * Float32Array of that row.
 */
export function feed(inner, call, ids, returnAttention, headMask) {
  const request = { call, inputIds: Int32Array.from(ids), returnAttention, returnLogits: 'last', headMask };
  return inner.send(() => request).then((r) => ({ ...r, logits: r.logits.data }));
}

/**
 * The cache made to hold `ids` (at least one fed: its logits are the
 * result's): the prefix it shares with what the caller's cache holds kept,
 * the rest fed (`reuse` false: all of it, with a prefill). Resolves to
 * { ...feed's result, reused (the ids kept) }. The cache is the caller's
 * after it.
 */
export async function feedSequence(inner, ids, { attention = false, mask, reuse = true } = {}) {
  const cached = reuse ? held(inner, mask) : [];
  let same = 0;
  const most = Math.min(cached.length, ids.length - 1);
  while (same < most && cached[same] === ids[same]) same++;
  if (same && same < inner.past) await inner.call(CALLS.modelRewind, () => [same]);
  const r = await feed(inner, same ? 'step' : 'prefill', ids.slice(same), attention, mask);
  inner.cachedIds = Array.from(ids);
  inner.cachedMask = maskKey(mask);
  inner.past = ids.length;
  inner.cacheOwner = null;
  return { ...r, reused: same };
}

/**
 * The caller's cache made to hold exactly `ids` (a generation's output but
 * its last id, which was never fed): rewound to what it shares with them,
 * the rest fed.
 */
export async function settle(inner, ids, mask) {
  const cached = held(inner, mask);
  let same = 0;
  while (same < Math.min(cached.length, ids.length) && cached[same] === ids[same]) same++;
  if (same === ids.length && same === inner.past && inner.cacheOwner === null) return;
  if (same < ids.length) {
    await feedSequence(inner, ids, { mask });
    return;
  }
  await inner.call(CALLS.modelRewind, () => [same]);
  inner.cachedIds = Array.from(ids);
  inner.past = same;
  inner.cacheOwner = null;
}

/**
 * beamSearch's (generation/beam.mjs) step and reorder for a decoder, over
 * the engine's one cache made numBeams sequences (src/model/model.hpp,
 * reorder and step_beams): the prompt fed once (what the caller's cache
 * holds of it kept), then copied into every beam at the second step; each
 * step after it feeds one id a beam, as one batch, and a reorder moves the
 * beams' keys and values as the search does. finish() makes the cache one
 * sequence again (beam 0's, as the search left it), the caller's: settle()
 * then brings it to the output. Each beam's logits are bit for bit its own
 * sequence's (tests/native/model_test.cpp).
 */
export function cacheBeams(inner, B, vocabSize, { mask, reuse }) {
  let sequences = null;
  let widened = false;
  const regroup = (parents) => inner.call(CALLS.modelReorder, () => [Int32Array.from(parents)]);
  const step = async (next) => {
    if (!sequences) {
      const prompt = Array.from(next.slice(0, next.length / B));
      sequences = Array.from({ length: B }, () => prompt.slice());
      const r = await feedSequence(inner, prompt, { mask, reuse });
      const logits = new Float32Array(B * vocabSize);
      for (let b = 0; b < B; b++) logits.set(r.logits, b * vocabSize);
      return { logits };
    }
    if (!widened) {
      inner.cacheOwner = sequences; // the search's until finish()
      await regroup(new Array(B).fill(0));
      widened = true;
    }
    sequences.forEach((sequence, b) => sequence.push(next[b]));
    const r = await inner.send(() => ({ call: 'beamStep', inputIds: Int32Array.from(next), headMask: mask }));
    return { logits: r.logits.data };
  };
  const reorder = async (parents) => {
    sequences = Array.from(parents, (p) => sequences[p].slice());
    if (widened) await regroup(parents);
  };
  const finish = async () => {
    if (!widened) return;
    await regroup([0]);
    Object.assign(inner, { cachedIds: sequences[0], cachedMask: maskKey(mask), past: sequences[0].length });
    inner.cacheOwner = null;
  };
  return { step, reorder, finish };
}
