// Runs the "train it yourself" experiment in the engine: every setting ×
// seed trained on the same data (train-data.mjs), tested on sentences the runs
// never saw and on the example sentence. No DOM; the engine is a parameter, so
// Node tests and the page run the same code.
//
// A seed changes only the trainer (initial weights and the order of the
// batches). The runs advance round-robin, a chunk of steps each, so every
// setting's curves grow side by side while they train.
import { tagSet, vocabulary, heldOut, MAX_LENGTH } from './corpus.mjs';
import { buildData, duPositions } from './train-data.mjs';
import { D_MODEL, BATCH_SIZE, CHUNK_STEPS, EVAL_EVERY } from './train-options.mjs';
import { duAccuracy, neighbourWeights } from './train-stats.mjs';
import { headsOffAccuracy } from './train-ablation.mjs';

/**
 * The model on the example sentence: the role it gives each 毒, whether that
 * is the right one, and each head's [length, length] attention.
 */
async function evaluateExample(trainer, example, numHeads) {
  const n = example.tokens.length;
  const L = MAX_LENGTH;
  const { predictions, attention } = await trainer.evaluate({ sentences: [example], returnAttention: true });
  const heads = Array.from({ length: numHeads }, (_, h) => {
    const block = new Float32Array(n * n);
    for (let q = 0; q < n; q++) block.set(attention.subarray((h * L + q) * L, (h * L + q) * L + n), q * n);
    return block;
  });
  const du = duPositions(heldOut.tokens).map((position) => ({
    position,
    want: heldOut.tags[position],
    got: tagSet[predictions[position]],
    right: predictions[position] === example.tags[position],
  }));
  return { du, allRight: du.every((d) => d.right), heads };
}

const abortError = () => new DOMException('The training run was stopped', 'AbortError');

/**
 * Trains every setting × seed and reports as it goes.
 *
 * Every run's record is updated in place and handed to onProgress after each
 * round (every run one chunk further); treat it as read-only. Per run: loss
 * (the mean batch loss of each chunk, at the chunk's last step), accuracy (the
 * test set's 毒 at step 0, every EVAL_EVERY steps and at the end), example
 * (the latest evaluation of the example sentence), and at the end
 * finalAccuracy, neighbours (neighbourWeights) and, with more than one head,
 * headsOff: the test set's accuracy with each head switched off in turn.
 *
 * Stopping: abort `signal`; the promise then rejects with an AbortError after
 * the engine call under way, and every trainer is freed either way.
 *
 * @param {{ createTrainer: Function }} engine
 * @param {{ settings: object[], seeds: number, steps: number, data?: object, chunkSteps?: number,
 *   evalEvery?: number, batchSize?: number, signal?: AbortSignal, onProgress?: (progress: object) => void }} options
 */
export async function runExperiment(engine, options) {
  const { settings, seeds, steps, data = buildData(), signal, onProgress } = options;
  const { chunkSteps = CHUNK_STEPS, evalEvery = EVAL_EVERY, batchSize = BATCH_SIZE } = options;
  if (evalEvery % chunkSteps !== 0)
    throw new RangeError(`evalEvery (${evalEvery}) must be a multiple of chunkSteps (${chunkSteps})`);
  const check = () => {
    if (signal?.aborted) throw abortError();
  };
  const lengths = data.test.map((s) => s.tokens.length);
  const runs = settings.flatMap((setting) =>
    Array.from({ length: seeds }, (_, i) => ({
      setting,
      seed: i + 1,
      step: 0,
      loss: [],
      accuracy: [],
      example: null,
      finalAccuracy: null,
      neighbours: null,
      headsOff: null,
    })),
  );
  const progress = {
    runs,
    steps,
    stepsDone: 0,
    totalSteps: runs.length * steps,
    trainMs: 0,
    stepsPerSecond: NaN,
    done: false,
  };
  const trainers = [];
  try {
    for (const run of runs) {
      check();
      const trainer = await engine.createTrainer({
        vocabSize: vocabulary.length,
        numTags: tagSet.length,
        maxLength: MAX_LENGTH,
        dModel: D_MODEL,
        numHeads: run.setting.numHeads,
        mlpHidden: run.setting.mlpHidden,
        seed: run.seed,
      });
      trainers.push(trainer);
      await trainer.setData({ sentences: data.train });
    }
    const evaluate = async (run, trainer, { attention = false } = {}) => {
      const { predictions, attention: weights } = await trainer.evaluate({
        sentences: data.test,
        returnAttention: attention,
      });
      run.accuracy.push({ step: run.step, value: duAccuracy(predictions, data.testDu) });
      run.example = await evaluateExample(trainer, data.example, run.setting.numHeads);
      return weights;
    };
    for (const [i, run] of runs.entries()) await evaluate(run, trainers[i]);
    onProgress?.(progress);

    while (runs[0].step < steps) {
      for (const [i, run] of runs.entries()) {
        check();
        const chunk = Math.min(chunkSteps, steps - run.step);
        const start = performance.now();
        const { losses, step } = await trainers[i].train({ steps: chunk, batchSize });
        progress.trainMs += performance.now() - start;
        run.step = step;
        run.loss.push({ step, value: losses.reduce((a, b) => a + b, 0) / losses.length });
        progress.stepsDone += chunk;
        if (step === steps) {
          // The last evaluation also measures where each head looks (the test set's attention is large: only once).
          const attention = await evaluate(run, trainers[i], { attention: true });
          run.neighbours = neighbourWeights(attention, run.setting.numHeads, data.testDu, lengths);
          run.finalAccuracy = run.accuracy.at(-1).value;
          // The trained model with each head switched off in turn (train-ablation.mjs): not the 1-head model.
          if (run.setting.numHeads > 1)
            run.headsOff = await headsOffAccuracy(
              trainers[i],
              { dModel: D_MODEL, numHeads: run.setting.numHeads },
              async (trainer) =>
                duAccuracy((await trainer.evaluate({ sentences: data.test })).predictions, data.testDu),
            );
        } else if (step % evalEvery === 0) await evaluate(run, trainers[i]);
      }
      progress.stepsPerSecond = progress.stepsDone / (progress.trainMs / 1000);
      onProgress?.(progress);
    }
    progress.done = true;
    return progress;
  } finally {
    for (const trainer of trainers) trainer.dispose();
  }
}
