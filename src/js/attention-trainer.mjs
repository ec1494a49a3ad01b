// The tiny Transformer tagger of the trainer's builds (engine.createTrainer):
// its options and data checked (validate-trainer.mjs), then kept in the
// engine's memory. Reached only from the entries that offer training
// ('mha-wasm/train', train.mjs; Node's node.mjs), which pass createTrainer to
// the engine.
import { CALLS } from './protocol.mjs';
import { CALL, EngineResource } from './resource.mjs';
import {
  normalizeTrainerOptions,
  normalizeSentences,
  normalizeTrainArguments,
  normalizeParameters,
} from './validate-trainer.mjs';

/**
 * Checks the options, makes the trainer in the engine (`call` is its calls)
 * and resolves to an AttentionTrainer. `limits`: the engine's (with trainer).
 */
export async function createTrainer(call, options, limits, onDispose) {
  const config = normalizeTrainerOptions(options, limits.trainer);
  const { id, shapes } = await call(CALLS.createTrainer, [config]);
  return new AttentionTrainer(call, id, config, shapes, limits, onDispose);
}

export class AttentionTrainer extends EngineResource {
  #shapes;
  #limits;

  constructor(call, id, config, shapes, limits, onDispose) {
    super(call, id, 'trainer', CALLS.disposeTrainer, onDispose);
    this.#shapes = shapes;
    this.#limits = limits;
    /** The options the trainer was made with, defaults filled in. */
    this.config = Object.freeze({ ...config });
    Object.freeze(this);
  }

  /**
   * The training set: { sentences: [{ tokens, tags }] }, ids as Arrays or
   * Int32Arrays, a tag per token (-1 = no loss there). Copied into the engine;
   * training batches are drawn from it in a seeded shuffle.
   */
  async setData(args) {
    await this[CALL](CALLS.trainerSetData, () => [
      normalizeSentences(args, this.config, 'setData', true, this.#limits),
    ]);
  }

  /**
   * { steps, batchSize = 32 }: that many Adam steps. Resolves to { losses,
   * step }: each batch's mean loss (before its step) and the steps taken so far.
   */
  async train(args) {
    return this[CALL](CALLS.trainerTrain, () => {
      const { steps, batchSize } = normalizeTrainArguments(args, this.#limits.trainer, this.config);
      return [steps, batchSize];
    });
  }

  /**
   * The model on { sentences: [{ tokens, tags? }], returnAttention }. Resolves
   * to { loss, predictions, probabilities, attention? }: predictions Int32Array
   * [count, maxLength] (-1 past a sentence's end), probabilities Float32Array
   * [count, maxLength, numTags], attention Float32Array [count, numHeads,
   * maxLength, maxLength]; loss is the mean over tagged tokens (0 without tags).
   */
  async evaluate(args) {
    return this[CALL](CALLS.trainerEvaluate, () => [
      normalizeSentences(args, this.config, 'evaluate', false, this.#limits),
    ]);
  }

  /** Every parameter, copied: { embedding, wQ, bQ, wK, bK, wV, bV, wO, bO, (w1, b1, w2, b2,) wC, bC }. */
  async parameters() {
    return this[CALL](CALLS.trainerParameters);
  }

  /**
   * Replaces some or all parameters ({ name: Float32Array }, shapes as
   * parameters() gives them) and starts the optimizer afresh (Adam's moments
   * and the step count back to 0).
   */
  async setParameters(values) {
    await this[CALL](CALLS.trainerSetParameters, () => [normalizeParameters(values, this.#shapes)]);
  }
}
