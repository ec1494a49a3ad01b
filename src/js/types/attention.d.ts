// Declarations of the attention calls (src/js/index.d.ts re-exports them):
// multiHeadAttention's arguments and results, the backward pass's arguments
// and gradients, and a layer with packed weights (createLayer).

/**
 * Arguments of multiHeadAttention. Arrays are row-major. Shapes:
 * query [batch, seqLenQ, dModel]; key, value [batch, seqLenK, dModel];
 * wQ, wK [dModel, numHeads*dK]; wV [dModel, numHeads*dV]; wO [numHeads*dV, dModel];
 * bQ, bK [numHeads*dK]; bV [numHeads*dV]; bO [dModel]; keyPaddingMask [batch, seqLenK].
 */
export interface MultiHeadAttentionArgs {
  query: Float32Array;
  /** Default: query (self-attention, with value left out too). */
  key?: Float32Array | null;
  /** Default: key (or query when key is left out too). Given without key: refused. */
  value?: Float32Array | null;
  /** Default 1. */
  batch?: number;
  seqLenQ: number;
  /** Default: seqLenQ. */
  seqLenK?: number;
  dModel: number;
  numHeads: number;
  /** Default: dModel / numHeads. */
  dK?: number;
  /** Default: dModel / numHeads. */
  dV?: number;
  wQ: Float32Array;
  wK: Float32Array;
  wV: Float32Array;
  wO: Float32Array;
  bQ?: Float32Array | null;
  bK?: Float32Array | null;
  bV?: Float32Array | null;
  bO?: Float32Array | null;
  /** Query i sees key j only if j <= i (top-left aligned). Default false. */
  causal?: boolean;
  /** [batch, seqLenK]; 1 = ignore that key, 0 = use it. */
  keyPaddingMask?: Uint8Array | null;
  /**
   * Also return the attention weights [batch, numHeads, seqLenQ, seqLenK]. Default false. The output
   * then comes from the path that writes the weights out (two-pass softmax) rather than the online
   * softmax: it may differ by a few float32 roundings, at most 2e-6 of the output's largest magnitude.
   */
  returnAttention?: boolean;
  /** Also return the intermediate matrices Q, K, V and concat (for teaching views). Default false. */
  returnProjections?: boolean;
  /**
   * Also return the scores Q_h·K_hᵀ/√dK before any mask, [batch, numHeads, seqLenQ, seqLenK]
   * (for teaching views; all of them are computed, causal ones included). Default false.
   */
  returnScores?: boolean;
}

/** The intermediate matrices of one call, row-major. */
export interface Projections {
  /** [batch, seqLenQ, numHeads*dK] = query·wQ + bQ; head h is columns h*dK … h*dK+dK-1. */
  Q: Float32Array;
  /** [batch, seqLenK, numHeads*dK] = key·wK + bK. */
  K: Float32Array;
  /** [batch, seqLenK, numHeads*dV] = value·wV + bV. */
  V: Float32Array;
  /** [batch, seqLenQ, numHeads*dV]: every head's output side by side, before wO. */
  concat: Float32Array;
}

export interface MultiHeadAttentionResult {
  /** [batch, seqLenQ, dModel], owned by the caller. */
  output: Float32Array;
  /** [batch, numHeads, seqLenQ, seqLenK]; present only with returnAttention. */
  attention?: Float32Array;
  /** Present only with returnProjections. */
  projections?: Projections;
  /** [batch, numHeads, seqLenQ, seqLenK], unmasked, already divided by √dK; present only with returnScores. */
  scores?: Float32Array;
}

/**
 * `A` with no names beyond those of `Shape`: the engine refuses an unknown
 * argument at run time, and this makes it a compile error too, also for
 * arguments spread from another object.
 */
export type Exact<A, Shape> = A & Record<Exclude<keyof A, keyof Shape>, never>;

/** The arguments of the forward call (no return* flags) plus the gradient of the loss w.r.t. its output. */
export type BackwardArgs = Omit<MultiHeadAttentionArgs, 'returnAttention' | 'returnProjections' | 'returnScores'> & {
  /** [batch, seqLenQ, dModel]. */
  gradOutput: Float32Array;
};

/** Gradients, each shaped like what it is the gradient of. */
export interface AttentionGradients {
  gradQuery: Float32Array;
  gradKey?: Float32Array;
  gradValue?: Float32Array;
  gradWQ: Float32Array;
  gradWK: Float32Array;
  gradWV: Float32Array;
  gradWO: Float32Array;
  gradBQ?: Float32Array;
  gradBK?: Float32Array;
  gradBV?: Float32Array;
  gradBO?: Float32Array;
}

/** The weights of one attention layer (shapes as in MultiHeadAttentionArgs). */
export type LayerArgs = Pick<
  MultiHeadAttentionArgs,
  'dModel' | 'numHeads' | 'dK' | 'dV' | 'wQ' | 'wK' | 'wV' | 'wO' | 'bQ' | 'bK' | 'bV' | 'bO'
>;

/** The activations of one call through a layer. */
export type ForwardArgs = Pick<
  MultiHeadAttentionArgs,
  | 'query'
  | 'key'
  | 'value'
  | 'batch'
  | 'seqLenQ'
  | 'seqLenK'
  | 'causal'
  | 'keyPaddingMask'
  | 'returnAttention'
  | 'returnProjections'
  | 'returnScores'
> & {
  /**
   * Where to write the result: a Float32Array [batch, seqLenQ, dModel], returned as
   * result.output. An engine on the calling thread allocates no array for it (one in a
   * Worker copies its result into it). It may be the query's own memory.
   */
  output?: Float32Array;
};

export interface AttentionLayer {
  readonly dModel: number;
  readonly numHeads: number;
  readonly dK: number;
  readonly dV: number;
  forward<A extends ForwardArgs & { returnAttention: true }>(
    args: Exact<A, ForwardArgs>,
  ): Promise<MultiHeadAttentionResult & { attention: Float32Array }>;
  forward<A extends ForwardArgs>(args: Exact<A, ForwardArgs>): Promise<MultiHeadAttentionResult>;
  /** Frees the packed weights. Idempotent; calls afterwards reject. */
  dispose(): void;
}
