// Type declarations for mha-wasm. Checked against real use by
// tests/types/example.ts (`tsc --noEmit`, part of `npm test`).

/** Which WebAssembly build runs the engine. */
export type Variant = 'threaded-simd' | 'simd' | 'scalar';

export interface CreateAttentionOptions {
  /**
   * Build to load. Default in Node: "threaded-simd". Default in browsers: "threaded-simd" in a
   * cross-origin-isolated page, else "simd" where WebAssembly SIMD exists, else "scalar".
   */
  variant?: Variant;
  /**
   * Threads per call, 1 to 16 (only "threaded-simd" uses more than 1). Default: the number of
   * logical cores. In a page that is not cross-origin isolated it falls back to 1 with a warning.
   */
  threads?: number;
  /**
   * Where to fetch a file of the package from (custom hosting, CDN):
   * receives the file name (e.g. "mha-simd.wasm") and the default URL, returns the URL to use.
   */
  locateFile?: (fileName: string, defaultUrl: string) => string | URL;
  /** The .wasm file's bytes, if you already have them (skips fetching). */
  wasmBinary?: ArrayBuffer | Uint8Array;
}

/**
 * Arguments of multiHeadAttention. Arrays are row-major. Shapes:
 * query [batch, seqLenQ, dModel]; key, value [batch, seqLenK, dModel];
 * wQ, wK [dModel, numHeads*dK]; wV [dModel, numHeads*dV]; wO [numHeads*dV, dModel];
 * bQ, bK [numHeads*dK]; bV [numHeads*dV]; bO [dModel]; keyPaddingMask [batch, seqLenK].
 */
export interface MultiHeadAttentionArgs {
  query: Float32Array;
  /** Default: query (self-attention). */
  key?: Float32Array;
  /** Default: query (self-attention). */
  value?: Float32Array;
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
  /** Also return the attention weights [batch, numHeads, seqLenQ, seqLenK]. Default false. */
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

export interface AttentionEngine {
  /** The build in use. */
  readonly variant: Variant;
  /** Threads used per call. */
  readonly threads: number;
  /**
   * Multi-head attention forward. Rejects with a TypeError or RangeError that names
   * the bad argument; the engine stays usable afterwards.
   */
  multiHeadAttention(args: MultiHeadAttentionArgs & { returnAttention: true }): Promise<MultiHeadAttentionResult & { attention: Float32Array }>;
  multiHeadAttention(args: MultiHeadAttentionArgs): Promise<MultiHeadAttentionResult>;
  /**
   * Backward pass: gradients of sum(gradOutput ⊙ output) for the inputs, weights and given biases of
   * the same call (the forward is recomputed). For self-attention (key and value left out) gradQuery
   * is the whole gradient of the shared input and gradKey/gradValue are absent.
   */
  multiHeadAttentionBackward(args: BackwardArgs): Promise<AttentionGradients>;
  /**
   * Packs a layer's weights once into the engine's memory: layer.forward() then copies only the
   * activations, which is what makes small calls cheap.
   */
  createLayer(args: LayerArgs): Promise<AttentionLayer>;
  /** The engine's wasm memory: the heap, what is allocated in it, and what the engine keeps between calls. */
  memoryStats(): Promise<MemoryStats>;
  /** Frees the engine's memory and its layers, and ends its workers. Idempotent; calls afterwards reject. */
  dispose(): void;
}

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
  'query' | 'key' | 'value' | 'batch' | 'seqLenQ' | 'seqLenK' | 'causal' | 'keyPaddingMask' | 'returnAttention' | 'returnProjections' | 'returnScores'
>;

export interface AttentionLayer {
  readonly dModel: number;
  readonly numHeads: number;
  readonly dK: number;
  readonly dV: number;
  forward(args: ForwardArgs & { returnAttention: true }): Promise<MultiHeadAttentionResult & { attention: Float32Array }>;
  forward(args: ForwardArgs): Promise<MultiHeadAttentionResult>;
  /** Frees the packed weights. Idempotent; calls afterwards reject. */
  dispose(): void;
}

export interface MemoryStats {
  /** Size of the WebAssembly memory. */
  heapBytes: number;
  /** Bytes allocated in it (by the engine, its layers and kept buffers). */
  inUseBytes: number;
  /** Of those, the buffers the engine keeps for the next call. */
  scratchBytes: number;
}

/** Loads and instantiates the wasm engine. */
export function createAttention(options?: CreateAttentionOptions): Promise<AttentionEngine>;
