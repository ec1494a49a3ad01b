// Switching heads off a trained tagger (the training section's evidence): a
// head switched off writes nothing into the concatenation that W_O maps back
// to dModel, as a head mask of 0 does in transformers (the head's output
// times 0). In the trainer's layout (x·W, src/train/trainer.cpp) head h's
// slice of the concatenation is rows h·dK … (h + 1)·dK − 1 of wO: those rows
// are zeroed, everything else is the trained model. This answers "is a model
// with one head switched off the 1-head model?" with the page's own runs:
// measured, not assumed (Michel et al. 2019 switch heads off a trained
// model; the page also trains 1-head models from scratch).

/**
 * The parameters ({ wO, … } as trainer.parameters() gives them) with the
 * heads `off` switched off: a copy of wO with their rows zeroed; every other
 * array is shared, unchanged.
 * @param {Record<string, Float32Array>} parameters
 * @param {{ dModel: number, numHeads: number }} config
 * @param {number[]} off head indices
 */
export function withHeadsOff(parameters, { dModel, numHeads }, off) {
  const dK = dModel / numHeads;
  const wO = Float32Array.from(parameters.wO);
  for (const head of off) {
    if (!Number.isInteger(head) || head < 0 || head >= numHeads)
      throw new RangeError(`off: expected head indices in [0, ${numHeads}), got ${head}`);
    wO.fill(0, head * dK * dModel, (head + 1) * dK * dModel);
  }
  return { ...parameters, wO };
}

/**
 * A trained trainer's accuracy (`accuracyOf(trainer)`, on whatever set it
 * evaluates) with each head switched off in turn: [{ off: [h], accuracy }],
 * one per head. The trainer's parameters are put back after (setParameters
 * also restarts Adam's moments: call this once training is over).
 */
export async function headsOffAccuracy(trainer, config, accuracyOf) {
  const trained = await trainer.parameters();
  const result = [];
  try {
    for (let head = 0; head < config.numHeads; head++) {
      await trainer.setParameters(withHeadsOff(trained, config, [head]));
      result.push({ off: [head], accuracy: await accuracyOf(trainer) });
    }
  } finally {
    await trainer.setParameters(trained);
  }
  return result;
}
