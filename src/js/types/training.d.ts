// Declarations of the trainer (src/js/index.d.ts re-exports them): a tiny
// Transformer tagger trained in the engine (engine.createTrainer), its
// options, data, parameters and evaluation.

export interface TrainerOptions {
  /** Rows of the token embedding (token ids are 0 … vocabSize-1). */
  vocabSize: number;
  /** Classes of the tagger (tag ids are 0 … numTags-1). */
  numTags: number;
  /** The longest sentence, at most 1024. */
  maxLength: number;
  /** Default 16. */
  dModel?: number;
  /** Default 1; a divisor of dModel (each head has width dModel/numHeads, so every numHeads has the same total width). */
  numHeads?: number;
  /** Units of the per-token MLP after attention; default 0 (no MLP). */
  mlpHidden?: number;
  /** Adam; defaults 0.01, 0.9, 0.999, 1e-8. */
  learningRate?: number;
  beta1?: number;
  beta2?: number;
  epsilon?: number;
  /** Initial weights and batch order; default 1. */
  seed?: number;
}

/** A sentence of token ids, and for training one tag id per token (-1: no loss at that token). */
export interface TaggedSentence {
  tokens: ArrayLike<number>;
  tags?: ArrayLike<number> | null;
}

/** The parameters by name, row-major, y = x·W + b. w1 … b2 exist only with an MLP. */
export interface TrainerParameters {
  embedding: Float32Array;
  wQ: Float32Array;
  bQ: Float32Array;
  wK: Float32Array;
  bK: Float32Array;
  wV: Float32Array;
  bV: Float32Array;
  wO: Float32Array;
  bO: Float32Array;
  w1?: Float32Array;
  b1?: Float32Array;
  w2?: Float32Array;
  b2?: Float32Array;
  wC: Float32Array;
  bC: Float32Array;
}

export interface Evaluation {
  /** Mean loss over tagged tokens (0 when no sentence has tags). */
  loss: number;
  /** [count, maxLength]: the most probable tag, -1 past a sentence's end. */
  predictions: Int32Array;
  /** [count, maxLength, numTags]; zeros past a sentence's end. */
  probabilities: Float32Array;
  /** [count, numHeads, maxLength, maxLength]; present only with returnAttention. */
  attention?: Float32Array;
}

export interface AttentionTrainer {
  /** The options, defaults filled in. */
  readonly config: Readonly<Required<TrainerOptions>>;
  /** Copies the training set into the engine (every sentence needs tags). */
  setData(args: { sentences: TaggedSentence[] }): Promise<void>;
  /** That many Adam steps on seeded, shuffled batches (default 32 sentences). */
  train(args: { steps: number; batchSize?: number }): Promise<{ losses: Float32Array; step: number }>;
  evaluate(args: {
    sentences: TaggedSentence[];
    returnAttention: true;
  }): Promise<Evaluation & { attention: Float32Array }>;
  evaluate(args: { sentences: TaggedSentence[]; returnAttention?: boolean }): Promise<Evaluation>;
  /** A copy of every parameter. */
  parameters(): Promise<TrainerParameters>;
  /** Replaces some parameters and restarts the optimizer (moments and step count back to 0). */
  setParameters(values: Partial<TrainerParameters>): Promise<void>;
  /** Frees the trainer. Idempotent; calls afterwards reject. */
  dispose(): void;
}
