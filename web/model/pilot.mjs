// The project's PyTorch pilot of the "train it yourself" experiment: its
// protocol and what it measured, shown in small print under the page's own
// evidence as a cross-check. Not computed on the page: these are the pilot's
// reported numbers; every number the page claims comes from its own run. Pure.
export const PILOT = Object.freeze({
  seeds: 5,
  steps: 3000,
  batch: 32,
  dModel: 16,
  /** Held-out 毒 accuracy, mean ± sample SD over the seeds. */
  oneHead: Object.freeze({ mean: 0.931, sd: 0.061 }),
  twoHeads: Object.freeze({ mean: 0.994 }),
  /** Runs (of `seeds`) with all six 毒 of the example right. */
  allRight: Object.freeze({ oneHead: 1, twoHeads: 5 }),
  /** The single head's mean weight on a 毒's left and right neighbour. */
  neighbours: Object.freeze({ left: 0.3, right: 0.39 }),
  /** With an MLP after attention. */
  mlp: Object.freeze({ oneHead: 0.994, twoHeads: 0.997 }),
});
