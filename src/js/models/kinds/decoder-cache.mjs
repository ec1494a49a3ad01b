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
 * beamSearch's (generation/beam.mjs) step and reorder for a decoder with one
 * cache: each beam's sequence is kept here; a step feeds each beam in the
 * order of their sequences (so that each shares the most with the one
 * before), reusing the cache up to where they part; beams with the same ids
 * are computed once. The first step (every beam the prompt) is one feed.
 * The cost: a beam's ids after where it parts from the beam before it are fed
 * again at each step (the engine's decoder cache holds one sequence; the
 * encoder-decoder's holds beams).
 */
export function cacheBeams(inner, B, vocabSize, { mask, reuse }) {
  let sequences = null;
  const step = async (next) => {
    const logits = new Float32Array(B * vocabSize);
    if (!sequences) {
      const prompt = Array.from(next.slice(0, next.length / B));
      sequences = Array.from({ length: B }, () => prompt.slice());
      const r = await feedSequence(inner, prompt, { mask, reuse });
      for (let b = 0; b < B; b++) logits.set(r.logits, b * vocabSize);
      return { logits };
    }
    sequences.forEach((sequence, b) => sequence.push(next[b]));
    const order = sequences.map((_, b) => b).sort((a, b) => compare(sequences[a], sequences[b]));
    let last = null;
    for (const b of order) {
      if (last !== null && compare(sequences[last], sequences[b]) === 0) {
        logits.copyWithin(b * vocabSize, last * vocabSize, (last + 1) * vocabSize);
        continue;
      }
      logits.set((await feedSequence(inner, sequences[b], { mask })).logits, b * vocabSize);
      last = b;
    }
    return { logits };
  };
  const reorder = (parents) => {
    sequences = Array.from(parents, (p) => sequences[p].slice());
  };
  return { step, reorder };
}

// Two sequences of ids in lexicographic order.
function compare(a, b) {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}
