// Greedy search and sampling (num_beams 1) as transformers 5's _sample: one
// token a step from the processed scores of the ids fed (settings.mjs,
// logits-processors.mjs), until a stopping criterion (stopping.mjs). The
// model is a `step(ids)` function, so the search is tested against
// transformers through the models (tests/js/decoder-generate.test.mjs,
// tests/js/seq2seq.test.mjs). greedySteps() is the search one step at a time
// (the step stream of generate({ onStep }) and model.generateSteps());
// greedySearch() runs it to the end.
import { logProbability, processScores } from './logits-processors.mjs';
import { sample } from './sampling.mjs';
import { stops } from './stopping.mjs';

/**
 * The search as an async generator. `step(ids)` feeds the new ids (first
 * the whole prompt) and resolves to { logits, ... }: the next token's
 * logits (a Float32Array over the vocabulary) and whatever else the model
 * returned for the ids fed. `prompt`: the ids the output starts with
 * (default [decoder_start_token_id]); `random`: sampling's generator;
 * `stopText`: stopping.mjs' stopStringCheck of the stop strings, or null.
 * Yields, a step each: { id, outputIds (the prompt first, through id),
 * score (id's processed score: transformers' scores), logProbability (its
 * log-softmax), fed (step()'s result that gave the logits), done (whether
 * this step's id stops the search) }; returns after that step.
 */
export async function* greedySteps(step, s, { prompt = [s.decoderStartTokenId], random, signal, stopText } = {}) {
  const sequence = Array.from(prompt);
  let next = Array.from(prompt);
  for (;;) {
    signal?.throwIfAborted();
    const fed = await step(next);
    const scores = processScores(fed.logits, sequence, s, prompt.length);
    let best = 0;
    if (s.doSample) best = sample(scores, random);
    else for (let v = 1; v < scores.length; v++) if (scores[v] > scores[best]) best = v;
    sequence.push(best);
    const done = stops(s, sequence.length, best) || Boolean(stopText && (await stopText(sequence)));
    yield {
      id: best,
      outputIds: Int32Array.from(sequence),
      score: scores[best],
      logProbability: logProbability(scores, best),
      fed,
      done,
    };
    if (done) return;
    next = [best];
  }
}

/**
 * The whole search (greedySteps' arguments, and `onToken` called after each
 * step with { id, outputIds }, `onStep` with greedySteps' step and awaited).
 * Resolves to { outputIds, score, stepScores }: the ids (the prompt first),
 * the sum of the chosen tokens' log-softmax of the processed scores, and the
 * processed score of each chosen token.
 */
export async function greedySearch(step, s, { onToken, onStep, ...options } = {}) {
  const stepScores = [];
  let score = 0;
  let outputIds;
  for await (const found of greedySteps(step, s, options)) {
    stepScores.push(found.score);
    score += found.logProbability;
    outputIds = found.outputIds;
    onToken?.({ id: found.id, outputIds });
    if (onStep) await onStep(found);
  }
  return { outputIds, score, stepScores };
}
