// Type declarations for mha-wasm. Checked against real use by
// tests/types/example.ts (`tsc --noEmit`, part of `npm test`).

/** Which WebAssembly build runs the engine. */
export type Variant = 'threaded-relaxed-simd' | 'relaxed-simd' | 'threaded-simd' | 'simd' | 'scalar';

/**
 * The stable code every error of the library carries (error.code), so that a program tells errors apart
 * without reading their English (src/js/errors.mjs lists what each means). A TypeError or RangeError of a
 * refused argument has 'InvalidArgument'; a size past the engine's memory or limits 'TooLarge'.
 */
export type ErrorCode =
  | 'RepoNotFound'
  | 'GatedRepo'
  | 'RevisionNotFound'
  | 'EntryNotFound'
  | 'Forbidden'
  | 'HubError'
  | 'Unreachable'
  | 'Offline'
  | 'Interrupted'
  | 'StorageFull'
  | 'NoConfig'
  | 'UnsupportedModel'
  | 'BadConfig'
  | 'NoWeights'
  | 'BadCheckpoint'
  | 'BadTokenizer'
  | 'TooLarge'
  | 'InvalidArgument'
  | 'Disposed'
  | 'WorkerFailed'
  | 'Unsupported';

/**
 * What an error of the library carries besides its message (an Error, TypeError or RangeError): its code,
 * and where it is about one, the file (a checkpoint's 'config.json', 'model.safetensors' …), the config
 * field and its value as JSON (UnsupportedModel), the Hub repo and endpoint.
 */
export interface MhaErrorFields {
  code?: ErrorCode;
  file?: string;
  field?: string;
  value?: string;
  repo?: string;
  endpoint?: string;
}

export interface CreateAttentionOptions {
  /**
   * Build to load. Default in Node: "threaded-simd". Default in browsers: "threaded-simd" in a
   * cross-origin-isolated page, else "simd" where WebAssembly SIMD exists, else "scalar". Where
   * the host runs WebAssembly relaxed SIMD (Chrome ≥ 114, Firefox ≥ 145, Node ≥ 22, Node 20 with
   * --experimental-wasm-relaxed-simd), "threaded-relaxed-simd" and "relaxed-simd" instead of the
   * two SIMD builds: the same engine whose products use fused multiply-add.
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

/**
 * `A` with no names beyond those of `Shape`: the engine refuses an unknown
 * argument at run time, and this makes it a compile error too, also for
 * arguments spread from another object.
 */
export type Exact<A, Shape> = A & Record<Exclude<keyof A, keyof Shape>, never>;

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
   * shards, and tokenizer.json, vocab.txt, or a Marian model's source.spm, target.spm and vocab.json — by its Hub
   * name or page URL, from a folder path or file: URL (Node) or from its files. Its errors carry a code
   * (ErrorCode). Runs in the build with the Transformer blocks (dist/mha-model-*), started with the first model on
   * the same variant and threads.
   * In browsers and bundlers, the engine must come from 'mha-wasm/model' (so that an app that only computes
   * attention does not carry the model builds); in Node, from any entry.
   */
  loadModel(source: ModelSource, options?: LoadModelOptions): Promise<TransformerModel>;
  /** The engine's wasm memory: the heap, what is allocated in it, and what the engine keeps between calls. */
  memoryStats(): Promise<MemoryStats & { models?: MemoryStats }>;
  /** Frees the engine's memory, its layers, trainers and models, and ends its workers. Idempotent; calls afterwards reject. */
  dispose(): void;
}

/**
 * A Hugging Face Hub model's name ('org/name', or a Hub page's URL as a string or URL), a model
 * folder's path or file: URL (Node; a folder of that path comes first), or a
 * folder's files.
 */
export type ModelSource = string | URL | FileList | File[] | { [fileName: string]: ArrayBuffer | Uint8Array | Blob };

export interface LoadProgress {
  /** 'download': a file coming from the Hub into the cache; 'load': the weights streaming into the engine. */
  phase: 'download' | 'load';
  /** The file the bytes are of. */
  file: string;
  /** Bytes so far and in all, over this phase's files. */
  loadedBytes: number;
  totalBytes: number;
  /** Bytes of `file` so far and in all (downloads). */
  fileLoadedBytes?: number;
  fileTotalBytes?: number;
}

export interface LoadModelOptions {
  /** Called as files download and as the weights stream into the engine. */
  onProgress?: (progress: LoadProgress) => void;
  /** Stops the download and the load (it rejects with the signal's reason); what was downloaded stays in the cache. */
  signal?: AbortSignal;
  /**
   * How the weight matrices (every linear layer's, the token embeddings) are held in the engine's memory; norms
   * and biases stay float32. 16-bit weights are widened exactly inside the GEMM, so a bf16 checkpoint held as
   * 'bf16' gives the float32 results bit for bit in half the memory. 'bf16' and 'f16' round a float32
   * checkpoint to nearest even ('f16' refuses a value beyond ±65504, naming the tensor). Default 'auto': the
   * checkpoint's own 16-bit type when every matrix is stored in it, else 'float32' (it never rounds).
   */
  weights?: 'auto' | 'float32' | 'bf16' | 'f16';
  /** A Hub model's branch, tag or commit (default 'main'). */
  revision?: string;
  /** The Hub to ask (default: $HF_ENDPOINT in Node, else https://huggingface.co). */
  endpoint?: string;
  /** Node: huggingface_hub's cache folder (default $HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub). */
  cacheDir?: string;
  /**
   * An access token for gated and private models (default: $HF_TOKEN, else the token `huggingface-cli login` saved).
   * Sent to the endpoint's origin only: never to another origin (a CDN, a redirect, a source URL's host), never over
   * plain http unless the endpoint is loopback; a URL source on another origin loads without it.
   */
  token?: string;
  /** The cache only, no request (default: $HF_HUB_OFFLINE in Node). */
  offline?: boolean;
  /**
   * Downloads every file again, even those the cache holds (huggingface_hub's force_download); refused offline.
   * Without it, a branch or tag the cache holds costs one HEAD request (has it moved?), a commit none.
   */
  forceDownload?: boolean;
}

export interface ModelConfig {
  /**
   * config.json's model_type, one the engine's architectures run (src/model/arch/registry.cpp): 'bert', 'roberta',
   * 'xlm-roberta', 'camembert', 'gpt2', 'marian', 'llama', 'qwen2', 'qwen3'.
   */
  modelType: string;
  /** An encoder-decoder's are its encoder's. */
  numLayers: number;
  numHeads: number;
  /** An encoder-decoder's decoder (kind 'encoder-decoder' only). */
  decoderLayers?: number;
  decoderHeads?: number;
  hiddenSize: number;
  vocabSize: number;
  /** config.json's max_position_embeddings (n_positions for GPT-2). */
  maxPositions: number;
  /** What the architecture is: BERT and RoBERTa encode, GPT-2 decodes, Marian (a translation model) does both. */
  kind: 'encoder' | 'decoder' | 'encoder-decoder';
  /** Whether its (an encoder-decoder's: its decoder's) self-attention sees only earlier positions (each attention row i is 0 past key i). */
  causal: boolean;
  /** The longest input in tokens (RoBERTa's first position ids are taken). */
  maxLength: number;
  /** Whether run() returns logits (returnLogits): a decoder's or an encoder-decoder's head, a BERT's masked-LM head when the checkpoint holds it. */
  hasLogits: boolean;
  /**
   * Every head's width (dK = dV: hiddenSize / numHeads, or config.json's head_dim, as Qwen3's), and the key/value
   * heads: numHeads, or fewer with grouped-query attention (Llama, Qwen2, Qwen3), where query head h uses key head
   * floor(h / (numHeads / numKVHeads)). An encoder-decoder's are its encoder's.
   */
  headDim: number;
  numKVHeads: number;
  /** How the weight matrices are held (loadModel's `weights`, 'auto' resolved), and the bytes the parameters take. */
  weights: 'float32' | 'bf16' | 'f16';
  weightBytes: number;
}

/** Text (tokenized by the folder's tokenizer), a sentence pair, or token ids. */
export type ModelInput =
  | string
  | { text: string; textPair?: string }
  | { inputIds: Int32Array | number[]; tokenTypeIds?: Int32Array | number[] };

export interface ModelRunOptions {
  /** Every layer's attention weights (default true). */
  returnAttention?: boolean;
  /** Hugging Face's output_hidden_states (default false). */
  returnHiddenStates?: boolean;
  /** The language-model head's logits (default false): GPT-2's, tied to its token embeddings; a RangeError for a model without one. */
  returnLogits?: boolean;
  /** Heads switched off: [numLayers][numHeads] of 1 (keep) or 0 (off); an off head's output and weights are 0. */
  headMask?: ArrayLike<0 | 1 | boolean>[];
  /**
   * Every layer's queries and keys as its attention takes them (default false): result.query, result.key and
   * result.queryKeyScale. run() of an encoder or a decoder only: prefill(), step(), generate() and an
   * encoder-decoder's run() refuse it with a TypeError.
   */
  returnQueryKey?: boolean;
}

/** A decoder's prefill() and step() take run()'s options but returnQueryKey (run() over the whole sequence has it). */
export type StepOptions = Omit<ModelRunOptions, 'returnQueryKey'>;

export interface ModelResult {
  /** [L]. */
  inputIds: Int32Array;
  /** [L] readable pieces: "[CLS]", "毒", "##s", " snake"; byte pieces of one character as "毒₁", "毒₂", "毒₃". */
  tokens: string[];
  /** [L, hiddenSize]. */
  lastHiddenState: Float32Array;
  /** [numLayers, numHeads, L, L], rows are queries. */
  attention?: Float32Array;
  /** [numLayers + 1, L, hiddenSize]: BERT, the embeddings' output then each layer's; GPT-2, each block's input then ln_f of the last. */
  hiddenStates?: Float32Array;
  /** [L, vocabSize]: the next token's logits after each position (returnLogits). */
  logits?: Float32Array;
  /** [L]: 1 where the token is one of the tokenizer's special tokens ([CLS], <s>, <|endoftext|> …). */
  special: Uint8Array;
  /** The attention by group, as transformers names them (an encoder's, a decoder's; `attention` is the same array). */
  attentions?: { encoder?: AttentionGroup; decoder?: AttentionGroup; cross?: AttentionGroup };
  /**
   * returnQueryKey: [numLayers, numHeads, L, headDim] and [numLayers, numKVHeads, L, headDim], each head's L
   * vectors together: the queries and keys of every layer's attention, biases added, Qwen3's q/k norms and the
   * rotary positions (Llama, Qwen2, Qwen3) applied. Query head h of layer l weighs key head
   * g = floor(h / (numHeads / numKVHeads)): attention[l][h][i] = softmax over j of
   * queryKeyScale · query[l][h][i] · key[l][g][j], j ≤ i in a causal model (a head headMask switches off: 0).
   */
  query?: Float32Array;
  key?: Float32Array;
  /** The factor of those dot products, 1/√headDim: the same in every layer and head of every architecture run. */
  queryKeyScale?: number;
}

/** One group of attention weights and its shape: [numLayers, numHeads, queries, keys]. */
export interface AttentionGroup {
  data: Float32Array;
  shape: [number, number, number, number];
}

/**
 * An encoder-decoder's input: the text to encode (its tokenizer appends `</s>`) or its ids, and for run()
 * the decoder's ids (teacher forcing; default [decoder_start_token_id]).
 */
export type Seq2SeqInput =
  | string
  | { text: string; decoderInputIds?: Int32Array | number[] }
  | { inputIds: Int32Array | number[]; decoderInputIds?: Int32Array | number[] };

/**
 * Heads switched off, per kind of attention: [layers][heads] of 1 (keep) or 0 (off). An off head's weights
 * are multiplied by 0 before they weigh V (Hugging Face's head_mask): its output and its weights are 0.
 */
export interface HeadMask {
  encoder?: ArrayLike<0 | 1 | boolean>[];
  decoder?: ArrayLike<0 | 1 | boolean>[];
  cross?: ArrayLike<0 | 1 | boolean>[];
}

export interface Seq2SeqRunOptions extends Omit<ModelRunOptions, 'headMask' | 'returnQueryKey'> {
  headMask?: HeadMask;
}

/** An encoder-decoder's run: S input tokens, T decoder tokens. */
export interface Seq2SeqResult {
  /** [S], the encoder's input. */
  inputIds: Int32Array;
  tokens: string[];
  special: Uint8Array;
  /** [T], the decoder's input (decoder_start_token_id first). */
  decoderInputIds: Int32Array;
  decoderTokens: string[];
  /** [S, hiddenSize]: the encoder's output. */
  encoderLastHiddenState: Float32Array;
  /** [T, hiddenSize]: the decoder's output. */
  lastHiddenState: Float32Array;
  /** [numLayers, numHeads, S, S]. */
  encoderAttention?: Float32Array;
  /** [decoderLayers, decoderHeads, T, T], causal. */
  decoderAttention?: Float32Array;
  /** [decoderLayers, decoderHeads, T, S]: each decoder token's queries over the encoder's positions. */
  crossAttention?: Float32Array;
  /** The three with their shapes, by transformers' names. */
  attentions?: { encoder: AttentionGroup; decoder: AttentionGroup; cross: AttentionGroup };
  /** [numLayers + 1, S, hiddenSize] and [decoderLayers + 1, T, hiddenSize]: the embeddings', then each layer's. */
  encoderHiddenStates?: Float32Array;
  decoderHiddenStates?: Float32Array;
  /** [T, vocabSize] (final_logits_bias added). */
  logits?: Float32Array;
}

export interface GenerateOptions {
  /** Tokens after decoder_start_token_id (default: generation_config.json's max_length, 20 without one). */
  maxNewTokens?: number;
  /** The whole output's length, decoder_start_token_id included; or maxNewTokens, not both. */
  maxLength?: number;
  /** 1: greedy search; more: beam search (default generation_config.json's num_beams). */
  numBeams?: number;
  /** Candidates returned (beam search), at most numBeams. */
  numReturnSequences?: number;
  lengthPenalty?: number;
  earlyStopping?: boolean | 'never';
  noRepeatNgramSize?: number;
  repetitionPenalty?: number;
  /** No eos before this many new tokens. */
  minNewTokens?: number;
  /** The attention (and hidden states) of run() over the ids fed back (default true; hidden states false). */
  returnAttention?: boolean;
  returnHiddenStates?: boolean;
  /** Applied at every step and to the returned attention. */
  headMask?: HeadMask;
  /** Each new token as it is decided (greedy), or each step's best beam, with every beam (beam search). */
  onToken?: (report: { outputIds: Int32Array; tokens: string[]; id?: number; beams?: Int32Array[] }) => void;
  /** Stops between steps (it rejects with the signal's reason). */
  signal?: AbortSignal;
}

export interface GenerateCandidate {
  /** decoder_start_token_id first, eos last unless the length ran out. */
  outputIds: Int32Array;
  text: string | null;
  tokens: string[];
  /** Greedy: the sum of the chosen tokens' log-probabilities; beam search: transformers' sequences_scores (length-penalized). */
  score: number;
}

/** transformers' generate(): sequences[0] as outputIds, its text, and the attention of every token fed back. */
export interface GenerateResult extends Partial<Omit<Seq2SeqResult, 'inputIds' | 'tokens' | 'special'>> {
  /** [S], the input, and its readable pieces and special tokens (run()'s inputIds, tokens and special). */
  inputIds: Int32Array;
  inputTokens: string[];
  inputSpecial: Uint8Array;
  outputIds: Int32Array;
  /** The readable pieces of outputIds. */
  tokens: string[];
  /** The translation: outputIds decoded without special tokens (null without a tokenizer). */
  text: string | null;
  /** Greedy: each chosen token's processed score. */
  stepScores?: Float64Array;
  score: number;
  /** The numReturnSequences best, best first (greedy: the one). */
  candidates: GenerateCandidate[];
}

export interface DecoderGenerateOptions {
  /** New tokens after the prompt (default: generation_config.json's max_length, which counts the prompt). */
  maxNewTokens?: number;
  maxLength?: number;
  /** Sampling (default generation_config.json's do_sample), with its temperature, topK (default 50) and topP. */
  doSample?: boolean;
  temperature?: number;
  topK?: number;
  topP?: number;
  /** The sampler's seed (mha-wasm's own generator: the same seed, the same text, in Node and browsers). */
  seed?: number;
  repetitionPenalty?: number;
  noRepeatNgramSize?: number;
  /** No eos before this many new tokens. */
  minNewTokens?: number;
  /** attention [numLayers, numHeads, n − 1, n − 1] of run() over outputIds without its last id (default true). */
  returnAttention?: boolean;
  returnHiddenStates?: boolean;
  /** [numLayers][numHeads] of 1 (keep) or 0 (off), at every step and in the returned attention. */
  headMask?: ArrayLike<0 | 1 | boolean>[];
  onToken?: (report: { outputIds: Int32Array; tokens: string[]; id?: number }) => void;
  signal?: AbortSignal;
}

export interface DecoderGenerateResult {
  /** The prompt's ids and pieces. */
  inputIds: Int32Array;
  inputTokens: string[];
  /** The prompt, then the new ids (transformers' generate() sequences[0]). */
  outputIds: Int32Array;
  /** The new text only (null without a tokenizer). */
  text: string | null;
  /** The pieces of outputIds. */
  tokens: string[];
  /** The sum of the chosen tokens' log-probabilities (after the processors); each one's processed score. */
  score: number;
  stepScores: Float64Array;
  /** The seed a sampled generation used (to repeat it). */
  seed?: number;
  attention?: Float32Array;
  attentions?: { decoder: AttentionGroup };
  hiddenStates?: Float32Array;
}

/** What a decoder's prefill and step take: one text (a step's gets no special tokens) or ids. */
export type StepInput = string | { inputIds: Int32Array | number[] };

/** A decoder's prefill or step: its L new tokens after `past`, attention [numLayers, numHeads, L, past + L]. */
export interface StepResult extends Omit<ModelResult, 'query' | 'key' | 'queryKeyScale'> {
  /** The positions the model had seen before these tokens (0 for a prefill). */
  past: number;
}

export interface SpecialToken {
  readonly id: number;
  readonly token: string;
}

/** A tokenizer's special tokens, by id, with its roles as properties. */
export type SpecialTokens = ReadonlyArray<SpecialToken> & {
  readonly [role in 'bos' | 'eos' | 'unk' | 'sep' | 'pad' | 'cls' | 'mask']?: SpecialToken;
};

export interface TransformerModel {
  readonly config: ModelConfig;
  /**
   * The tokenizer's special tokens by id ([] for a folder without a tokenizer), and by role as transformers names
   * them (tokenizer_config.json's bos_token … mask_token, else the tokenizer class's defaults): `specialTokens.mask`
   * is BERT's [MASK] or RoBERTa's <mask>, absent where the tokenizer has none.
   */
  readonly specialTokens: SpecialTokens;
  /** One sequence through every layer. */
  run(input: ModelInput, options?: ModelRunOptions): Promise<ModelResult>;
  /** An encoder-decoder's (kind 'encoder-decoder'): the input encoded, the decoder's ids decoded at once. */
  run(input: Seq2SeqInput, options?: Seq2SeqRunOptions): Promise<Seq2SeqResult>;
  /** An encoder-decoder's generation (a translation), as transformers' generate() with generation_config.json. */
  generate(input: Seq2SeqInput, options?: GenerateOptions): Promise<GenerateResult>;
  /** A decoder's generation: the prompt, then a token a step through the KV cache, greedy or sampled. */
  generate(prompt: StepInput | { text: string }, options?: DecoderGenerateOptions): Promise<DecoderGenerateResult>;
  /**
   * A decoder's first call with state (kind 'decoder'; an encoder's is a TypeError): the sequence
   * through every layer, each layer's keys and values kept for the steps after it.
   */
  prefill(input: StepInput, options?: StepOptions): Promise<StepResult>;
  /**
   * A decoder's next tokens after the positions it has seen, through its KV cache: bit for bit the
   * rows of run() over the whole sequence with the same returnAttention (with the weights the softmax
   * takes whole rows, without them tiles: the last bits differ, and a prefill's choice carries into
   * the keys and values its steps read).
   */
  step(input: StepInput, options?: StepOptions): Promise<StepResult>;
  /** Forgets what a decoder has seen. */
  reset(): Promise<void>;
  /** The positions a decoder has seen through prefill() and step(). */
  readonly past: number;
  /** The readable pieces of token ids, as results' tokens show them. */
  pieces(ids: ArrayLike<number>): string[];
  /** Token ids as text through the checkpoint's tokenizer (null without one). */
  decode(ids: ArrayLike<number>, options?: { skipSpecialTokens?: boolean }): Promise<string | null>;
  /** Frees the model's memory. Idempotent; calls afterwards reject. */
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
