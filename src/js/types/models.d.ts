// Declarations of Hugging Face models (src/js/index.d.ts re-exports them):
// loadModel's sources and options, a model's config, inputs and options, special
// tokens, and the models by kind — EncoderModel, DecoderModel, EncoderDecoderModel,
// told apart by `kind` — with their methods (what run() returns: results.d.ts;
// generation's options and results: generation.d.ts).
import type { Exact } from './attention.js';
import type {
  DecoderGenerateOptions,
  DecoderGenerateResult,
  DecoderGenerationStep,
  GenerateOptions,
  GenerateResult,
  GenerateStepsOptions,
} from './generation.js';
import type {
  DecoderBatchResult,
  DecoderResult,
  EncoderBatchResult,
  EncoderResult,
  Seq2SeqBatchResult,
  Seq2SeqResult,
  StepResult,
} from './results.js';
import type { ModelTokenizer, TruncationOptions } from './tokenizer.js';
import type { TaskCalls, TaskConfig } from './tasks.js';

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

export interface LoadModelOptions<K extends ModelKind = ModelKind> {
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
   * blocks of 32 and GPT-2's Conv1D matrices stay float32 (`config.weightTypes` says which). Default 'auto':
   * the checkpoint's own 16-bit type when every matrix is stored in it; a GGUF file's quantized matrices in
   * their own blocks; else 'float32' (it never rounds).
   */
  weights?: 'auto' | 'float32' | 'bf16' | 'f16' | 'q8' | 'q4';
  /**
   * How the products with the weight matrices take their activations. 'float32' (the default): each product is
   * float32 over the weights' exact values (a GGUF file's results are its dequantized model's, transformers').
   * 'llama.cpp': each product with a Q8_0, Q5_0 or Q4_0 matrix (a GGUF file's, or 'q8', 'q4') first rounds its
   * activations to 8-bit blocks of 32 (Q8_0) as llama.cpp's CPU backend does, and with a BF16 matrix to bf16, so
   * that the logits and greedy ids follow llama.cpp's (with its KV cache in float32: `--cache-type-k f32
   * --cache-type-v f32`; by default llama.cpp keeps keys and values in f16, which this does not copy). F16,
   * K-quant and float32 matrices are not touched (rounding them did not bring the results nearer llama.cpp's),
   * nor the per-head products of `returnHeadOutputs`. Results are the same for any thread count.
   */
  activations?: 'float32' | 'llama.cpp';
  /**
   * The GGUF file of the folder or Hub repo to load ('model-q8_0.gguf'; by name, only it is downloaded): needed
   * when there are several, or config.json
   * beside it. A path to a .gguf file, or a folder whose only .gguf has no config.json beside it, needs none.
   * The file's F32, F16 and BF16 tensors are written as they are. With `weights: 'auto'` its Q8_0, Q5_0, Q4_0,
   * Q4_K, Q5_K and Q6_K matrices stay in their blocks in memory (the products sum each block's values and scale
   * the sum once: the results are those of the dequantized float32 model up to rounding, the same for any thread
   * count) and the others (a matrix whose rows are not whole blocks) are dequantized into float32; 'float32', 'bf16' or 'f16' dequantize every
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
  /**
   * The kind the checkpoint must be: loadModel rejects another kind with a TypeError (code 'InvalidArgument')
   * once config.json is read, before the weights load into the engine (a Hub model's files are downloaded
   * first); and its type is that kind's model (DecoderModel …).
   */
  kind?: K;
  /** The cache only, no request (default: $HF_HUB_OFFLINE in Node). */
  offline?: boolean;
  /**
   * Downloads every file again, even those the cache holds (huggingface_hub's force_download); refused offline.
   * Without it, a branch or tag the cache holds costs one HEAD request (has it moved?), a commit none.
   */
  forceDownload?: boolean;
}

/** What an architecture is: BERT and RoBERTa encode, GPT-2 and Llama decode, Marian (a translation model) does both. */
export type ModelKind = 'encoder' | 'decoder' | 'encoder-decoder';

/** config.json's model_type, by kind: those the engine's architectures run (src/model/arch/registry.cpp). */
export type EncoderModelType = 'bert' | 'roberta' | 'xlm-roberta' | 'camembert';
export type DecoderModelType = 'gpt2' | 'llama' | 'qwen2' | 'qwen3';
export type EncoderDecoderModelType = 'marian';
export type ModelType = EncoderModelType | DecoderModelType | EncoderDecoderModelType;

/** A model's sizes, whatever its kind (an encoder-decoder's are its encoder's). */
export interface ModelConfigBase {
  numLayers: number;
  numHeads: number;
  hiddenSize: number;
  vocabSize: number;
  /** config.json's max_position_embeddings (n_positions for GPT-2). */
  maxPositions: number;
  /** The longest input in tokens (RoBERTa's first position ids are taken). */
  maxLength: number;
  /** Whether run() returns logits (returnLogits): a decoder's or an encoder-decoder's head, a BERT's masked-LM head when the checkpoint holds it. */
  hasLogits: boolean;
  /**
   * Every head's width (dK = dV: hiddenSize / numHeads, or config.json's head_dim, as Qwen3's), and the key/value
   * heads: numHeads, or fewer with grouped-query attention (Llama, Qwen2, Qwen3), where query head h uses key head
   * floor(h / (numHeads / numKVHeads)).
   */
  headDim: number;
  numKVHeads: number;
  /**
   * How the weight matrices are held (loadModel's `weights`, 'auto' resolved; 'gguf': some in a GGUF file's own
   * block types, the others in float32), how many matrix tensors in each element type ({ Q4_K: 168, Q6_K: 25,
   * F32: 1 }: 'F32', 'BF16', 'F16', 'Q8_0', 'Q5_0', 'Q4_0', 'Q4_K', 'Q5_K', 'Q6_K'), and the bytes the parameters
   * take.
   */
  weights: 'float32' | 'bf16' | 'f16' | 'q8' | 'q4' | 'gguf';
  weightTypes: Readonly<Record<string, number>>;
  weightBytes: number;
  /** loadModel's `activations`: how the products with the weight matrices take their activations. */
  activations: 'float32' | 'llama.cpp';
}

/** `causal`: whether its (an encoder-decoder's: its decoder's) self-attention sees only earlier positions (each attention row i is 0 past key i). */
export interface EncoderConfig extends ModelConfigBase, TaskConfig {
  modelType: EncoderModelType;
  kind: 'encoder';
  causal: false;
}

/** What a decoder's or an encoder-decoder's config says of task heads: none is read for these kinds. */
export interface NoTaskConfig {
  taskHead: null;
  labels: null;
  sentenceTransformers: null;
}

export interface DecoderConfig extends ModelConfigBase, NoTaskConfig {
  modelType: DecoderModelType;
  kind: 'decoder';
  causal: true;
}

export interface EncoderDecoderConfig extends ModelConfigBase, NoTaskConfig {
  modelType: EncoderDecoderModelType;
  kind: 'encoder-decoder';
  causal: true;
  /** Its decoder's layers and heads (numLayers and numHeads are its encoder's). */
  decoderLayers: number;
  decoderHeads: number;
}

export type ModelConfig = EncoderConfig | DecoderConfig | EncoderDecoderConfig;

/** Token ids. */
export type TokenIds = Int32Array | readonly number[];

/** An encoder's input: text (tokenized by the folder's tokenizer), a sentence pair, or token ids (with token types). */
export type ModelInput = string | { text: string; textPair?: string } | { inputIds: TokenIds; tokenTypeIds?: TokenIds };

/** A decoder's run() input: a decoder has no token types. */
export type DecoderInput = string | { text: string; textPair?: string } | { inputIds: TokenIds };

/**
 * One layer's row of a head mask, [numHeads]: 1 or true keeps a head, 0 or false switches it off (any other
 * value is a RangeError); an array or a typed array, as code builds it.
 */
export type HeadMaskRow = readonly (number | boolean)[] | (ArrayBufferView & ArrayLike<number>);

/** A head mask of one stack: [numLayers] rows. An off head's output and weights are 0. */
export type LayerHeadMask = readonly HeadMaskRow[];

export interface ModelRunOptions extends TruncationOptions {
  /** Every layer's attention weights (default true). */
  returnAttention?: boolean;
  /** Hugging Face's output_hidden_states (default false). */
  returnHiddenStates?: boolean;
  /** The language-model head's logits (default false): GPT-2's, tied to its token embeddings; a RangeError for a model without one. */
  returnLogits?: boolean;
  /** Heads switched off: [numLayers][numHeads] of 1 (keep) or 0 (off); an off head's output and weights are 0. */
  headMask?: LayerHeadMask;
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

/**
 * The logit lens (mha-wasm/analysis' logitLens reads it): run() of a decoder or an encoder-decoder only (an
 * encoder's, prefill(), step() and generate() refuse it with a TypeError).
 */
export interface LayerLogitsOption {
  /**
   * Each layer's hidden state at these positions (of the input's tokens; an encoder-decoder's: of its
   * decoderInputIds) through the model's final norm and output head, as if that layer were the last:
   * result.layerLogits [layers + 1, positions.length, vocabSize], layer 0 the embeddings', the last the model's
   * logits bit for bit. Only these positions' rows are computed (a vocabulary can be 151k).
   */
  returnLayerLogits?: { positions: readonly number[] };
}

/** A decoder's run() options: an encoder's and the logit lens. */
export interface DecoderRunOptions extends ModelRunOptions, LayerLogitsOption {}

/** A decoder's prefill() and step() take run()'s options but returnQueryKey, returnHeadOutputs and truncation (run()'s). */
export type StepOptions = Omit<ModelRunOptions, 'returnQueryKey' | 'returnHeadOutputs' | 'truncation' | 'maxLength'>;

/**
 * An encoder-decoder's input: the text to encode (its tokenizer appends `</s>`) or its ids, and for run()
 * the decoder's ids (teacher forcing; default [decoder_start_token_id]).
 */
export type Seq2SeqInput =
  string | { text: string; decoderInputIds?: TokenIds } | { inputIds: TokenIds; decoderInputIds?: TokenIds };

/** What an encoder-decoder's generate() takes: the text or its ids (generate() decides the decoder's). */
export type Seq2SeqGenerateInput = string | { text: string } | { inputIds: TokenIds };

/**
 * Heads switched off, per kind of attention: [layers][heads] of 1 (keep) or 0 (off). An off head's weights
 * are multiplied by 0 before they weigh V (Hugging Face's head_mask): its output and its weights are 0.
 */
export interface HeadMask {
  encoder?: LayerHeadMask;
  decoder?: LayerHeadMask;
  cross?: LayerHeadMask;
}

export interface Seq2SeqRunOptions extends Omit<ModelRunOptions, 'headMask' | 'returnQueryKey'>, LayerLogitsOption {
  headMask?: HeadMask;
}

/** What a decoder's prefill and step take: one text (a step's gets no special tokens) or ids. */
export type StepInput = string | { inputIds: TokenIds };

/** What a decoder's generate() and generateSteps() take: the prompt as text or ids. */
export type DecoderPrompt = StepInput | { text: string };

export interface SpecialToken {
  readonly id: number;
  readonly token: string;
}

/** A tokenizer's special tokens, by id, with its roles as properties. */
export type SpecialTokens = ReadonlyArray<SpecialToken> & {
  readonly [role in 'bos' | 'eos' | 'unk' | 'sep' | 'pad' | 'cls' | 'mask']?: SpecialToken;
};

/**
 * A method's options: O, what was given (its literal true and false decide the result's fields), checked against
 * the method's options type (a name it does not take is an error, its callbacks' parameters typed).
 */
type Options<O, Shape> = Exact<O, Shape> & Shape;

/** What a model of every kind has. */
export interface ModelBase {
  /**
   * The tokenizer's special tokens by id ([] for a folder without a tokenizer), and by role as transformers names
   * them (tokenizer_config.json's bos_token … mask_token, else the tokenizer class's defaults): `specialTokens.mask`
   * is BERT's [MASK] or RoBERTa's <mask>, absent where the tokenizer has none.
   */
  readonly specialTokens: SpecialTokens;
  /** The checkpoint's tokenizer without the model: encode, decode, countTokens (null without a tokenizer). */
  readonly tokenizer: ModelTokenizer | null;
  /** Forgets what a decoder has seen (the other kinds keep nothing between calls). */
  reset(): Promise<void>;
  /**
   * Keeps the first `past` positions a decoder has seen (its KV cache cut there; an integer from 0 to
   * `this.past`, else a RangeError): the next step() continues from them.
   */
  rewind(past: number): Promise<void>;
  /** The positions a decoder's cache holds: prefill(), step(), generate() (its output but the last id); 0 for the other kinds. */
  readonly past: number;
  /** The readable pieces of token ids, as results' tokens show them. */
  pieces(ids: ArrayLike<number>): string[];
  /** Token ids as text through the checkpoint's tokenizer (null without one). */
  decode(ids: ArrayLike<number>, options?: { skipSpecialTokens?: boolean }): Promise<string | null>;
  /** Frees the model's memory. Idempotent; calls afterwards reject. */
  dispose(): void;
}

/**
 * An encoder (BERT, RoBERTa, XLM-R, CamemBERT): run() alone. Each method's options type its result: a field
 * returned by default (attention) is there unless its option is false, one an option asks for (logits,
 * hiddenStates …) is there when it is true, optional when the option is a boolean known at run time only.
 */
export interface EncoderModel extends ModelBase, TaskCalls {
  /** config.kind, the model's kind: `if (model.kind === 'encoder')` narrows a TransformerModel to this. */
  readonly kind: 'encoder';
  readonly config: EncoderConfig;
  /** One sequence through every layer; attention by group `encoder`. */
  run<O extends ModelRunOptions = {}>(
    input: ModelInput,
    options?: Options<O, ModelRunOptions>,
  ): Promise<EncoderResult<O>>;
  /**
   * A batch: every input in one engine call, faster than a run() each for short ones, each row bit for bit its
   * own run(); padded to the longest (EncoderBatchResult). The options are every input's (one head mask for all).
   */
  run<O extends BatchRunOptions = {}>(
    input: readonly ModelInput[],
    options?: Options<O, BatchRunOptions>,
  ): Promise<EncoderBatchResult<O>>;
}

/**
 * An encoder's or a decoder's run() options for a batch: queries and keys, what each head writes and the logit lens
 * are a single run()'s. The options are every input's (one head mask for all).
 */
export type BatchRunOptions = Omit<ModelRunOptions, 'returnQueryKey' | 'returnHeadOutputs'>;

/** A decoder (GPT-2, Llama, Qwen2, Qwen3): run(), its KV cache (prefill, step), generation. */
export interface DecoderModel extends ModelBase {
  readonly kind: 'decoder';
  readonly config: DecoderConfig;
  /** One sequence through every layer, causally; attention by group `decoder`. */
  run<O extends DecoderRunOptions = {}>(
    input: DecoderInput,
    options?: Options<O, DecoderRunOptions>,
  ): Promise<DecoderResult<O>>;
  /**
   * A teacher-forced batch: every input in one engine call, each causal over its own tokens from position 0, each
   * row bit for bit its own run(); padded on the right to the longest (DecoderBatchResult).
   */
  run<O extends BatchRunOptions = {}>(
    input: readonly DecoderInput[],
    options?: Options<O, BatchRunOptions>,
  ): Promise<DecoderBatchResult<O>>;
  /**
   * The prompt, then a token a step through the KV cache: greedy, sampled or by beam search, stop strings, as
   * transformers' generate() (generation_config.json's defaults). What the cache holds of the prompt (from
   * prefill(), step() or an earlier generate()) is kept, the rest fed; the cache is left holding the output but
   * its last id (`past` = outputIds.length − 1: a step() of that id continues it); a search that fails (the
   * signal, a callback) leaves it empty. Attention only with returnAttention: true: each step's rows put
   * together, the weights computed as transformers' eager attention does (ids can then differ from a search
   * without it where two scores tie within rounding; docs/performance.md measures what it costs).
   */
  generate<O extends DecoderGenerateOptions = {}>(
    prompt: DecoderPrompt,
    options?: Options<O, DecoderGenerateOptions>,
  ): Promise<DecoderGenerateResult<O>>;
  /**
   * The same search one step per next(): stopped where generate() stops (eos_token_id, the length). Other calls
   * may use the model between two steps; the stream then feeds its tokens again (the cache is left holding them:
   * `past`).
   */
  generateSteps<O extends GenerateStepsOptions = {}>(
    prompt: DecoderPrompt,
    options?: Options<O, GenerateStepsOptions>,
  ): AsyncGenerator<DecoderGenerationStep<O>, void, undefined>;
  /** The first call with state: the sequence through every layer, each layer's keys and values kept for the steps after it. */
  prefill<O extends StepOptions = {}>(input: StepInput, options?: Options<O, StepOptions>): Promise<StepResult<O>>;
  /**
   * The next tokens after the positions it has seen, through its KV cache: bit for bit the rows of run() over
   * the whole sequence with the same returnAttention (with the weights the softmax takes whole rows, without
   * them tiles: the last bits differ, and a prefill's choice carries into the keys and values its steps read).
   */
  step<O extends StepOptions = {}>(input: StepInput, options?: Options<O, StepOptions>): Promise<StepResult<O>>;
}

/** An encoder-decoder's run() options for a batch: what each head writes and the logit lens are a single run()'s. */
export type Seq2SeqBatchRunOptions = Omit<Seq2SeqRunOptions, 'returnHeadOutputs' | 'returnLayerLogits'>;

/** An encoder-decoder (MarianMT): run() teacher-forced, generate() (a translation); no state between calls. */
export interface EncoderDecoderModel extends ModelBase {
  readonly kind: 'encoder-decoder';
  readonly config: EncoderDecoderConfig;
  /** The input encoded, the decoder's ids (default [decoder_start_token_id]) decoded at once; attention by group `encoder`, `decoder`, `cross`. */
  run<O extends Seq2SeqRunOptions = {}>(
    input: Seq2SeqInput,
    options?: Options<O, Seq2SeqRunOptions>,
  ): Promise<Seq2SeqResult<O>>;
  /**
   * A teacher-forced batch of pairs: every input in one engine call, each pair's rows bit for bit its own run();
   * each side padded on the right to its longest (Seq2SeqBatchResult). The options are every pair's (one head
   * mask for all, truncation of each source).
   */
  run<O extends Seq2SeqBatchRunOptions = {}>(
    input: readonly Seq2SeqInput[],
    options?: Options<O, Seq2SeqBatchRunOptions>,
  ): Promise<Seq2SeqBatchResult<O>>;
  /** As transformers' generate() with generation_config.json: greedy, sampled (seeded) or beam search, stop strings. */
  generate<O extends GenerateOptions = {}>(
    input: Seq2SeqGenerateInput,
    options?: Options<O, GenerateOptions>,
  ): Promise<GenerateResult<O>>;
}

/**
 * A loaded model, one of three kinds: `model.kind` (or loadModel's `kind` option) tells which, and narrows the
 * type to that kind's methods, inputs and results.
 */
export type TransformerModel = EncoderModel | DecoderModel | EncoderDecoderModel;

/** The model type of a kind: ModelOfKind<'decoder'> is DecoderModel. */
export type ModelOfKind<K extends ModelKind> = Extract<TransformerModel, { kind: K }>;

/** run() of an encoder or a decoder whose options are known only at run time (every option's fields optional). */
export type ModelResult = EncoderResult<ModelRunOptions> | DecoderResult<ModelRunOptions>;
