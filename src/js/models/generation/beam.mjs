// Beam search as transformers 5's _beam_search (batch 1, no sampling), with
// the logits processors of logits-processors.mjs and the stopping criteria of
// stopping.mjs. Written by hand: transformers.js, the one JS library of the
// job, has no beam search (a TODO in its generate()).
import { logSoftmax, processScores } from './logits-processors.mjs';
import { stops } from './stopping.mjs';

const NEG = -1e9; // transformers' stand-in for "never": added, not assigned

// The indices of the k largest values of `values`, largest first (ties: the lower index first, as torch.topk
// on CPU gives them in practice).
function topK(values, k) {
  const order = [];
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (order.length === k && !(v > values[order[k - 1]])) continue;
    let at = order.length < k ? order.length : k - 1;
    while (at > 0 && v > values[order[at - 1]]) at--;
    order.splice(at, 0, i);
    if (order.length > k) order.pop();
  }
  return order;
}

/**
 * Beam search as transformers 5's _beam_search (batch 1, no sampling):
 * `step(ids)` feeds one new id per beam (numBeams of them) and resolves to { logits }:
 * their next-token logits [numBeams × vocab]; `reorder(parents)` makes beam b
 * what beam parents[b] was. Resolves to { outputIds, score, candidates:
 * [{ outputIds, score }] (the numReturnSequences best, best first; score
 * is transformers' sequences_scores, length-penalized) }. `stopText`: as
 * greedySteps' (each candidate's sequence checked, as transformers' criteria).
 */
export async function beamSearch(
  step,
  reorder,
  s,
  vocabSize,
  { prompt = [s.decoderStartTokenId], onToken, signal, stopText } = {},
) {
  const B = s.numBeams;
  const K = Math.max(2, 1 + s.eosTokenIds.length) * B;
  const promptLength = prompt.length;
  let running = Array.from({ length: B }, () => Array.from(prompt));
  // Of each running beam, the beam it was at each step so far (its rows in that step's results).
  let origins = Array.from({ length: B }, () => []);
  let runningScores = Array.from({ length: B }, (_, b) => (b === 0 ? 0 : NEG));
  // The finished hypotheses: numBeams places, -1e9 while empty.
  let finished = Array.from({ length: B }, () => ({ ids: Array.from(prompt), origins: [], score: NEG, done: false }));
  let unsatisfied = true;
  let curLen = promptLength;
  // The first step feeds every beam the whole prompt.
  let next = running.flat();
  for (;;) {
    signal?.throwIfAborted();
    const { logits } = await step(next);
    // Accumulated log-probabilities of every (beam, token).
    const accumulated = new Float64Array(B * vocabSize);
    for (let b = 0; b < B; b++) {
      const row = processScores(
        logSoftmax(logits.subarray(b * vocabSize, (b + 1) * vocabSize)),
        running[b],
        s,
        promptLength,
      );
      for (let v = 0; v < vocabSize; v++) accumulated[b * vocabSize + v] = row[v] + runningScores[b];
    }
    const top = topK(accumulated, K).map((index) => {
      const beam = Math.floor(index / vocabSize);
      const token = index % vocabSize;
      return {
        beam,
        token,
        score: accumulated[index],
        ids: [...running[beam], token],
        origins: [...origins[beam], beam],
      };
    });
    const stopped = await Promise.all(
      top.map(async (c) => stops(s, curLen + 1, c.token) || Boolean(stopText && (await stopText(c.ids)))),
    );
    // The next running beams: the best K that did not stop.
    const live = top.map((c, k) => c.score + (stopped[k] ? NEG : 0));
    const keep = topK(live, B);
    const nextRunning = keep.map((k) => top[k]);
    // Finished hypotheses: the top numBeams candidates that stopped, length-penalized, merged with the old.
    const full = finished.every((f) => f.done) && s.earlyStopping === true;
    const merged = [...finished];
    top.forEach((c, k) => {
      let score = c.score / (curLen + 1 - promptLength) ** s.lengthPenalty;
      if (full) score += NEG;
      if (!unsatisfied) score += NEG;
      const just = stopped[k] && k < B;
      if (!just) score += NEG;
      merged.push({ ids: c.ids, origins: c.origins, score, done: just });
    });
    finished = topK(
      merged.map((m) => m.score),
      B,
    ).map((i) => merged[i]);
    running = nextRunning.map((c) => c.ids);
    origins = nextRunning.map((c) => c.origins);
    runningScores = keep.map((k) => live[k]);
    await reorder(nextRunning.map((c) => c.beam));
    curLen += 1;
    // Can a running beam still beat the worst finished one? (_check_early_stop_heuristic)
    const hypothetical =
      s.earlyStopping === 'never' && s.lengthPenalty > 0 ? s.maxLength - promptLength : curLen - promptLength;
    const bestPossible = runningScores[0] / hypothetical ** s.lengthPenalty;
    const worst = Math.min(...finished.map((f) => f.score));
    unsatisfied = unsatisfied && finished.some((f) => bestPossible > (f.done ? worst : NEG));
    const best = finished[0].done && finished[0].score > bestPossible ? finished[0].ids : running[0];
    onToken?.({ outputIds: Int32Array.from(best), beams: running.map((ids) => Int32Array.from(ids)) });
    const open = !(finished.every((f) => f.done) && s.earlyStopping === true);
    const continuations = !stopped.every(Boolean);
    if (!(unsatisfied && open && continuations)) break;
    next = running.map((seq) => seq[seq.length - 1]);
  }
  // Each candidate's own ids (transformers pads the shorter ones of sequences to the longest with pad_token_id).
  const candidates = finished
    .slice(0, s.numReturnSequences)
    .map((f) => ({ outputIds: Int32Array.from(f.ids), score: f.score }));
  // origins: the beam whose row of each step's results computed the best candidate's token at that position.
  return { outputIds: candidates[0].outputIds, score: candidates[0].score, candidates, origins: finished[0].origins };
}
