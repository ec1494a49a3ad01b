// An encoder's task heads and embeddings (model.classify, classifyTokens, answer, embed: src/js/models/tasks/
// heads.mjs), and pipeline(task, source) of 'mha-wasm/model' (tasks/pipeline.mjs), with transformers.js' task
// names and result shapes.
import type {
  BatchRunOptions,
  LoadModelOptions,
  ModelRunOptions,
  ModelSource,
  TokenIds,
  TransformerModel,
} from './models.js';
import type { EncoderResult } from './results.js';
import type { DecoderGenerateOptions, GenerateOptions } from './generation.js';
import type { AttentionEngine } from './engine.js';

/** The task heads loadModel reads (config.json's architectures name the *For… class, the weights hold it). */
export type TaskHead = 'sequence-classification' | 'token-classification' | 'question-answering';

/** What an encoder's config says of its task (EncoderConfig). */
export interface TaskConfig {
  /** The task head read (null: none, or the checkpoint lacks its tensors), its labels by index (id2label). */
  taskHead: TaskHead | null;
  labels: readonly string[] | null;
  /**
   * A sentence-transformers folder's pooling (modules.json, its Pooling module's config.json; null: not known) and
   * whether a Normalize module follows — embed()'s defaults; null for other folders.
   */
  sentenceTransformers: { pooling: Pooling | null; normalize: boolean; file: string } | null;
}

export interface LabelScore {
  label: string;
  /** The softmax of the head's logits. */
  score: number;
}

/** classify(): every label, highest score first, and the head's logits [numLabels]; run()'s fields besides. */
export type ClassifyResult<O = {}> = EncoderResult<O> & { labels: LabelScore[]; taskLogits: Float32Array };

/**
 * transformers' aggregation_strategy: 'none' each token's label; 'simple' adjacent tokens of one entity grouped (a
 * B- label starts a group); 'first', 'average', 'max' each word (a token and its '##' pieces) one label — its first
 * token's, its tokens' mean scores', its most confident token's — then grouped as 'simple'. All but 'none' need a
 * BERT WordPiece tokenizer and a string input (the tokens' places in the text).
 */
export type AggregationStrategy = 'none' | 'simple' | 'first' | 'average' | 'max';
export interface ClassifyTokensOptions extends ModelRunOptions {
  /** The result's `entities`, as transformers' token-classification pipeline gives them (no label left out). */
  aggregationStrategy?: AggregationStrategy;
}
/** classifyTokens(): each token's best label (special tokens included), logits [L, numLabels]; `entities`. */
export type ClassifyTokensResult<O = {}> = EncoderResult<O> & {
  labels: Array<LabelScore & { index: number; token: string }>;
  taskLogits: Float32Array;
} & (O extends { aggregationStrategy: infer S } ? { entities: S extends 'none' ? TokenEntity[] : TokenGroup[] } : {});

export interface QuestionInput {
  question: string;
  context: string;
}
export interface AnswerOptions extends ModelRunOptions {
  /** The longest answer in tokens (default 15, as transformers'). */
  maxAnswerLength?: number;
}
/**
 * answer(): the span transformers 4's question-answering pipeline chose (start·end probabilities over the
 * context's tokens): its text, the context's characters from `start` to `end` (UTF-16 positions:
 * context.slice(start, end), as transformers'), the first and last token's index; start and end logits [L].
 * A tokenizer whose tokens the engine does not place in the text (encode's returnOffsets): the span's tokens
 * decoded, start and end null.
 */
export type AnswerResult<O = {}> = EncoderResult<O> & {
  answer: string;
  score: number;
  start: number | null;
  end: number | null;
  tokenSpan: [number, number];
  startLogits: Float32Array;
  endLogits: Float32Array;
};

/** 'mean' of the token rows, 'cls' the first, 'max' each feature's largest, 'none' every row. */
export type Pooling = 'mean' | 'cls' | 'max' | 'none';
export interface EmbedOptions extends ModelRunOptions {
  /** Default: a sentence-transformers folder's, else 'mean'. */
  pooling?: Pooling;
  /** Divide by the L2 norm (each row with 'none'); default: a sentence-transformers Normalize module, else false. */
  normalize?: boolean;
}
/** embed(): [hiddenSize] ([L × hiddenSize] with pooling 'none'), with the pooling and normalisation used. */
export type EmbedResult<O = {}> = EncoderResult<O> & { embedding: Float32Array; pooling: Pooling; normalize: boolean };

/** An encoder's task calls (EncoderModel has them; a head the checkpoint lacks is an Error coded NoTaskHead). */
export interface TaskCalls {
  classify<O extends ModelRunOptions = {}>(input: ModelTaskInput, options?: O): Promise<ClassifyResult<O>>;
  /** An array: one run() of the batch (EncoderModel.run), each result equal to that input's own call. */
  classify<O extends BatchRunOptions = {}>(input: readonly ModelTaskInput[], options?: O): Promise<ClassifyResult<O>[]>;
  classifyTokens<O extends ClassifyTokensOptions = {}>(
    input: ModelTaskInput,
    options?: O,
  ): Promise<ClassifyTokensResult<O>>;
  classifyTokens<O extends BatchRunOptions & { aggregationStrategy?: AggregationStrategy } = {}>(
    input: readonly ModelTaskInput[],
    options?: O,
  ): Promise<ClassifyTokensResult<O>[]>;
  /** One question at a time (an array is a TypeError). */
  answer<O extends AnswerOptions = {}>(input: QuestionInput, options?: O): Promise<AnswerResult<O>>;
  embed<O extends EmbedOptions = {}>(input: ModelTaskInput, options?: O): Promise<EmbedResult<O>>;
  embed<O extends BatchEmbedOptions = {}>(input: readonly ModelTaskInput[], options?: O): Promise<EmbedResult<O>[]>;
}
/** embed()'s options over an array of inputs (a batch's run() options, pooling, normalize). */
export type BatchEmbedOptions = Omit<EmbedOptions, 'returnQueryKey' | 'returnHeadOutputs'>;
export type ModelTaskInput =
  string | { text: string; textPair?: string } | { inputIds: TokenIds; tokenTypeIds?: TokenIds };

// ---- pipeline() ----

export interface FillMaskItem {
  score: number;
  token: number;
  token_str: string;
  sequence: string;
}
/** A token's label (aggregation 'none'); start, end: its characters, text.slice(start, end) (null: not known). */
export interface TokenEntity {
  entity: string;
  score: number;
  index: number;
  word: string;
  start: number | null;
  end: number | null;
}
/** A group of tokens (aggregation 'simple', 'first', 'average', 'max'): its label's tag, mean score, text, place. */
export interface TokenGroup {
  entity_group: string;
  score: number;
  word: string;
  start: number;
  end: number;
}
/** token-classification's options: aggregationStrategy, and the labels left out (default ['O']). */
export interface TokenClassificationOptions extends ModelRunOptions {
  ignoreLabels?: string[];
  aggregationStrategy?: AggregationStrategy;
}
type Grouping = { aggregationStrategy: Exclude<AggregationStrategy, 'none'> };
type Tokenwise = { aggregationStrategy?: 'none' };
/** A token-classification pipeline: each token ('none', the default), or groups with another aggregationStrategy. */
export interface TokenClassifier {
  (input: string, options?: TokenClassificationOptions & Tokenwise): Promise<TokenEntity[]>;
  (input: string, options: TokenClassificationOptions & Grouping): Promise<TokenGroup[]>;
  (input: string[], options?: TokenClassificationOptions & Tokenwise): Promise<TokenEntity[][]>;
  (input: string[], options: TokenClassificationOptions & Grouping): Promise<TokenGroup[][]>;
}
export interface Features {
  /** [1, hiddenSize] pooled, [1, L, hiddenSize] with pooling 'none'. */
  data: Float32Array;
  dims: number[];
}

/** Each task's input, options and result (one input; an array of inputs gives an array of results). */
export interface PipelineTasks {
  'feature-extraction': { input: string; options: EmbedOptions; result: Features };
  'fill-mask': {
    input: string;
    options: ModelRunOptions & { topK?: number };
    result: FillMaskItem[] | FillMaskItem[][];
  };
  'text-classification': { input: string; options: ModelRunOptions & { topK?: number | null }; result: LabelScore[] };
  'token-classification': {
    input: string;
    options: TokenClassificationOptions;
    result: TokenEntity[] | TokenGroup[];
  };
  translation: {
    input: string;
    options: Omit<GenerateOptions, 'onToken' | 'onStep'>;
    result: [{ translation_text: string | null }];
  };
  'text-generation': {
    input: string;
    options: Omit<DecoderGenerateOptions, 'onToken' | 'onStep'> & { returnFullText?: boolean };
    result: [{ generated_text: string | null }];
  };
}
export type PipelineTask = keyof PipelineTasks | 'question-answering';

interface PipelineBase<T extends PipelineTask> {
  readonly task: T;
  /** The model underneath: its run() gives every attention, hidden state, query and key. */
  readonly model: TransformerModel;
  /** Frees the model it loaded and the engine it made (nothing it was given). */
  dispose(): void;
}
export type Pipeline<T extends PipelineTask> = T extends 'token-classification'
  ? PipelineBase<T> & TokenClassifier
  : T extends keyof PipelineTasks
    ? PipelineBase<T> & {
        (input: PipelineTasks[T]['input'], options?: PipelineTasks[T]['options']): Promise<PipelineTasks[T]['result']>;
        (
          input: Array<PipelineTasks[T]['input']>,
          options?: PipelineTasks[T]['options'],
        ): Promise<Array<PipelineTasks[T]['result']>>;
      }
    : PipelineBase<T> & {
        (
          question: string,
          context: string,
          options?: AnswerOptions,
        ): Promise<{
          answer: string;
          score: number;
          start: number | null;
          end: number | null;
          tokenSpan: [number, number];
        }>;
      };

export interface PipelineOptions extends Omit<LoadModelOptions, 'kind'> {
  /** The engine to load into (default: a new one, disposed with the pipeline). */
  engine?: AttentionEngine;
}

/**
 * transformers.js' pipeline(task, model): the model (a Hub name, a folder, files, or a loaded model) loaded into a
 * new engine (or `engine`), as a function of the task's input. A task on a model of the wrong kind is a TypeError,
 * on one without its head an Error coded NoTaskHead.
 */
export function pipeline<T extends PipelineTask>(
  task: T,
  source: ModelSource | TransformerModel,
  options?: PipelineOptions,
): Promise<Pipeline<T>>;
