// Declarations of Hugging Face models (src/js/index.d.ts re-exports them):
// loadModel's sources and options, a model's config, run() and its results, an
// encoder-decoder's run, a decoder's prefill and step, special tokens, and the
// model's methods (generation's options and results: generation.d.ts).
import type {
  DecoderGenerateOptions,
  DecoderGenerateResult,
  GenerateOptions,
  GenerateResult,
  GenerateStepsOptions,
  GenerationStep,
} from './generation.js';
import type { ModelTokenizer, TruncationOptions } from './tokenizer.js';

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
   * checkpoint to nearest even ('f16' refuses a value beyond ±65504, naming the tensor). 'q8' and 'q4' quantize
   * each matrix at load into llama.cpp's Q8_0 or Q4_0 blocks (32 values and a half-precision scale: 8.5 or 4.5
   * bits a value in the file, held as 9 or 5 bits a value with a float32 scale) exactly as ggml's reference
   * quantizers do, and the products read them exactly as ggml dequantizes them; 'q4' holds the output head
   * (or the tied embeddings) in Q8_0, as llama-quantize keeps it finer; a matrix whose rows are not whole
   * blocks of 32 and GPT-2's Conv1D matrices stay float32 (`config.weightTypes` says which). Default 'auto': the checkpoint's own 16-bit type when every matrix is
   * stored in it; a GGUF file's quantized matrices in their own blocks; else 'float32' (it never rounds).
   */
  weights?: 'auto' | 'float32' | 'bf16' | 'f16' | 'q8' | 'q4';
  /**
   * The GGUF file of the folder or Hub repo to load ('model-q8_0.gguf'; by name, only it is downloaded): needed
   * when there are several, or config.json
   * beside it. A path to a .gguf file, or a folder whose only .gguf has no config.json beside it, needs none.
   * The file's F32, F16 and BF16 tensors are written as they are. With `weights: 'auto'` its Q8_0, Q5_0, Q4_0,
   * Q4_K and Q6_K matrices stay in their blocks in memory (the products read them exactly as ggml dequantizes
   * them: the results are those of the dequantized float32 model, bit for bit) and the others (Q5_K; a matrix
   * whose rows are not whole blocks) are dequantized into float32; 'float32', 'bf16' or 'f16' dequantize every
   * matrix into that type.
   */
  file?: string;
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
  /**
   * How the weight matrices are held (loadModel's `weights`, 'auto' resolved; 'gguf': some in a GGUF file's own
   * block types, the others in float32), how many matrix tensors in each element type ({ Q4_K: 168, Q6_K: 25,
   * F32: 1 }: 'F32', 'BF16', 'F16', 'Q8_0', 'Q5_0', 'Q4_0', 'Q4_K', 'Q6_K'), and the bytes the parameters take.
   */
  weights: 'float32' | 'bf16' | 'f16' | 'q8' | 'q4' | 'gguf';
  weightTypes: Readonly<Record<string, number>>;
  weightBytes: number;
}

/** Text (tokenized by the folder's tokenizer), a sentence pair, or token ids. */
export type ModelInput =
  | string
  | { text: string; textPair?: string }
  | { inputIds: Int32Array | number[]; tokenTypeIds?: Int32Array | number[] };

export interface ModelRunOptions extends TruncationOptions {
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
  /**
   * What each head writes, by attention group (default false): result.headOutputs (HeadOutputs). run() only (an
   * encoder-decoder's too): prefill(), step(), generate() and generateSteps() refuse it with a TypeError.
   */
  returnHeadOutputs?: boolean;
}

/** A decoder's prefill() and step() take run()'s options but returnQueryKey, returnHeadOutputs and truncation (run()'s). */
export type StepOptions = Omit<ModelRunOptions, 'returnQueryKey' | 'returnHeadOutputs' | 'truncation' | 'maxLength'>;

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
  /** returnHeadOutputs: what each head writes, by group as `attentions` (an encoder's, a decoder's). */
  headOutputs?: { encoder?: HeadOutputs; decoder?: HeadOutputs };
}

/** One group of attention weights and its shape: [numLayers, numHeads, queries, keys]. */
export interface AttentionGroup {
  data: Float32Array;
  shape: [number, number, number, number];
}

/**
 * What each head of a group writes (Kobayashi et al. 2020, "Attention is Not Only a Weight"). The output
 * projection W_O [numHeads · headDim, hiddenSize] is a sum over heads: head h's rows h·headDim … (h + 1)·headDim,
 * W_O^h, carry its part, f_h(x_j) = v_h(x_j) · W_O^h for each token j (grouped-query attention: v of key/value
 * head floor(h / (numHeads / numKVHeads))), weighted by its attention. The projection's bias, shared by every
 * head, is left out of both norms.
 */
export interface HeadOutputs {
  /**
   * ‖f_h(x_j)‖: [layers, heads, keys], how far head h would move the output from token j with all its weight
   * there (an encoder-decoder's cross-attention: the encoder's S positions).
   */
  valueNorms: HeadNorms;
  /** ‖Σ_j α_ij f_h(x_j)‖ = ‖head_h(i) · W_O^h‖: [layers, heads, queries], each head's output at each query (0 when switched off). */
  headOutputNorms: HeadNorms;
}

/** Norms per layer, head and token, and their shape: [layers, heads, tokens]. */
export interface HeadNorms {
  data: Float32Array;
  shape: [number, number, number];
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
  /**
   * returnHeadOutputs, by group: encoder [numLayers, numHeads, S]; decoder [decoderLayers, decoderHeads, T];
   * cross: valueNorms [decoderLayers, decoderHeads, S] (the encoder's output through each decoder layer's
   * cross-attention values and W_O^h), headOutputNorms [decoderLayers, decoderHeads, T].
   */
  headOutputs?: { encoder: HeadOutputs; decoder: HeadOutputs; cross: HeadOutputs };
}

/** What a decoder's prefill and step take: one text (a step's gets no special tokens) or ids. */
export type StepInput = string | { inputIds: Int32Array | number[] };

/** A decoder's prefill or step: its L new tokens after `past`, attention [numLayers, numHeads, L, past + L]. */
export interface StepResult extends Omit<ModelResult, 'query' | 'key' | 'queryKeyScale' | 'headOutputs'> {
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
  /** The checkpoint's tokenizer without the model: encode, decode, countTokens (null without a tokenizer). */
  readonly tokenizer: ModelTokenizer | null;
  /** One sequence through every layer. */
  run(input: ModelInput, options?: ModelRunOptions): Promise<ModelResult>;
  /** An encoder-decoder's (kind 'encoder-decoder'): the input encoded, the decoder's ids decoded at once. */
  run(input: Seq2SeqInput, options?: Seq2SeqRunOptions): Promise<Seq2SeqResult>;
  /** An encoder-decoder's generation (a translation), as transformers' generate() with generation_config.json. */
  generate(input: Seq2SeqInput, options?: GenerateOptions): Promise<GenerateResult>;
  /** A decoder's generation: the prompt, then a token a step through the KV cache, greedy or sampled. */
  generate(prompt: StepInput | { text: string }, options?: DecoderGenerateOptions): Promise<DecoderGenerateResult>;
  /**
   * A decoder's generation one step per next() (kind 'decoder'; others: a TypeError): the same search as
   * generate(), stopped where it stops (eos_token_id, the length). Other calls may use the model between two
   * steps; the stream then feeds its tokens again (the cache is left holding them: `past`).
   */
  generateSteps(
    prompt: StepInput | { text: string },
    options?: GenerateStepsOptions,
  ): AsyncGenerator<GenerationStep, void, undefined>;
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
