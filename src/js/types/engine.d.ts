// Declarations of the engine (src/js/index.d.ts re-exports them): the builds
// (Variant), createAttention's options, the core's limits, the engine's
// methods and its memory statistics.
import type {
  AttentionGradients,
  AttentionLayer,
  BackwardArgs,
  Exact,
  LayerArgs,
  MultiHeadAttentionArgs,
  MultiHeadAttentionResult,
} from './attention.js';
import type { LoadModelOptions, ModelKind, ModelOfKind, ModelSource } from './models.js';
import type { AttentionTrainer, TrainerOptions } from './training.js';

/** Which WebAssembly build runs the engine. */
export type Variant = 'threaded-relaxed-simd' | 'relaxed-simd' | 'threaded-simd' | 'simd' | 'scalar';

export interface CreateAttentionOptions {
  /**
   * Build to load. Default: the best this host runs. In Node, "threaded-relaxed-simd" (Node ≥ 22, or Node
   * 20 with --experimental-wasm-relaxed-simd), else "threaded-simd". In browsers, a threaded build in a
   * cross-origin-isolated page, else a single-thread one; "relaxed-simd" builds where relaxed SIMD exists
   * (Chrome ≥ 114, Firefox ≥ 145), else "simd" where WebAssembly SIMD exists, else "scalar". The relaxed
   * builds are the same engine whose products use fused multiply-add.
   */
  variant?: Variant;
  /**
   * Threads per call, 1 to 16 (only the threaded builds use more than 1). Default: the number of
   * logical cores. In a page that is not cross-origin isolated it falls back to 1 with a warning.
   */
  threads?: number;
  /**
   * Load the build that includes the trainer (dist/mha-train-*, about 55 KB more), for
   * engine.createTrainer(). Default false: the inference builds. In browsers only through
   * `import { createAttention } from 'mha-wasm/train'`, so that bundles without it carry no trainer.
   */
  training?: boolean;
  /**
   * Where to fetch a file of the package from (custom hosting, CDN, a bundler that copies nothing):
   * asked for every file the package loads (the build's glue, .wasm and pthread worker, and
   * engine-worker.js and engine-host.js in browsers) with the file name (e.g. "mha-simd.wasm") and
   * the default URL; returns the URL to use. defaultUrl is undefined in a bundle without
   * import.meta.url (esbuild's iife).
   */
  locateFile?(fileName: string, defaultUrl: string | undefined): string | URL;
  /** The .wasm file's bytes, if you already have them (skips fetching). */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /**
   * Node only: run the engine in a worker_threads Worker, so that a long call leaves the event loop
   * free (a server keeps answering). Costs a copy of the arguments and a message each way per call.
   * Default false: calls run on the calling thread. (In browsers the engine always runs in a Worker.)
   */
  worker?: boolean;
}

/** engine.limits: the core's limits, which every argument check uses. */
export interface Limits {
  /** The most elements of any array a call takes or returns (2^31 − 1). */
  readonly maxElements: number;
  /** The trainer's limits; only in the builds with the trainer (createAttention({ training: true })). */
  readonly trainer?: Readonly<{
    vocabSize: number;
    numTags: number;
    maxLength: number;
    dModel: number;
    mlpHidden: number;
    batchSize: number;
    steps: number;
    /** The most token slots (steps × batchSize × maxLength) one train() call may work through. */
    slotsPerTrain: number;
  }>;
}

export interface AttentionEngine {
  /** The build in use. */
  readonly variant: Variant;
  /** Threads used per call. */
  readonly threads: number;
  /** Whether the build includes the trainer. */
  readonly training: boolean;
  /** The largest sizes a call may have, as the C++ core defines them. */
  readonly limits: Limits;
  /**
   * Multi-head attention forward. Rejects with a TypeError or RangeError that names
   * the bad argument; the engine stays usable afterwards.
   */
  multiHeadAttention<A extends MultiHeadAttentionArgs & { returnAttention: true }>(
    args: Exact<A, MultiHeadAttentionArgs>,
  ): Promise<MultiHeadAttentionResult & { attention: Float32Array }>;
  multiHeadAttention<A extends MultiHeadAttentionArgs>(
    args: Exact<A, MultiHeadAttentionArgs>,
  ): Promise<MultiHeadAttentionResult>;
  /**
   * Backward pass: gradients of sum(gradOutput ⊙ output) for the inputs, weights and given biases of
   * the same call (the forward is recomputed). For self-attention (key and value left out) gradQuery
   * is the whole gradient of the shared input and gradKey/gradValue are absent.
   */
  multiHeadAttentionBackward<A extends BackwardArgs>(args: Exact<A, BackwardArgs>): Promise<AttentionGradients>;
  /**
   * Packs a layer's weights once into the engine's memory: layer.forward() then copies only the
   * activations, which is what makes small calls cheap.
   */
  createLayer<A extends LayerArgs>(args: Exact<A, LayerArgs>): Promise<AttentionLayer>;
  /**
   * A tiny Transformer tagger trained in the engine (needs createAttention({ training: true })):
   * token embedding + sinusoidal positions → multi-head self-attention → residual → optional MLP →
   * linear → softmax cross-entropy, trained with Adam. Seeded: the same options and data give the
   * same model, bitwise, for any thread count.
   */
  createTrainer(options: TrainerOptions): Promise<AttentionTrainer>;
  /**
   * Loads a Hugging Face checkpoint — an encoder (BERT, RoBERTa, XLM-R, CamemBERT), a decoder (GPT-2, Llama,
   * Qwen2, Qwen3) or an encoder-decoder (MarianMT): config.json, model.safetensors or pytorch_model.bin or their
   * shards, and tokenizer.json, vocab.txt, or a Marian model's source.spm, target.spm and vocab.json; or a GGUF
   * file of llama.cpp's (Llama, Qwen2, Qwen3: options.file) — by its Hub name or page URL, from a folder path,
   * a file path or file: URL (Node) or from its files. Its errors carry a code
   * (ErrorCode). Runs in the build with the Transformer blocks (dist/mha-model-*), started with the first model on
   * the same variant and threads.
   * In browsers and bundlers, the engine must come from 'mha-wasm/model' (so that an app that only computes
   * attention does not carry the model builds); in Node, from any entry.
   * Resolves to a TransformerModel: an EncoderModel, DecoderModel or EncoderDecoderModel, told apart by
   * `model.kind`; with options.kind, that kind's model (another kind is refused).
   */
  loadModel<K extends ModelKind = ModelKind>(
    source: ModelSource,
    options?: LoadModelOptions<K>,
  ): Promise<ModelOfKind<K>>;
  /** The engine's wasm memory: the heap, what is allocated in it, and what the engine keeps between calls. */
  memoryStats(): Promise<MemoryStats & { models?: MemoryStats }>;
  /** Frees the engine's memory, its layers, trainers and models, and ends its workers. Idempotent; calls afterwards reject. */
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
