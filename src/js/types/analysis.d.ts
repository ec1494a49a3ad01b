// Type declarations for 'mha-wasm/analysis' (src/js/analysis/): which heads a
// loaded model needs for one input, by experiment on its own calls. Checked by
// tests/types/example.ts.
import type { ModelInput, Seq2SeqInput, TransformerModel } from './models.js';

/** An attention group: an encoder's, a decoder's, or one of MarianMT's three. */
export type AttentionGroup = 'encoder' | 'decoder' | 'cross';

/** What every analysis takes. */
export interface AnalysisControl {
  /** Stops the analysis between two passes: it rejects with the signal's reason (an AbortError). */
  signal?: AbortSignal;
  /** After each pass: its phase ('importance', 'pruning', 'oneHead', 'headsOff', 'rollout', 'lens'), passes done and in all. */
  onProgress?: (progress: { phase: string; done: number; total: number }) => void;
}

/**
 * The reference whose log-probability is scored, by default the model's own output with every head on: a
 * decoder's greedy continuation of `newTokens` tokens (1: the next token), an encoder-decoder's greedy
 * translation (numBeams 1, generation_config.json's other settings; at most `maxNewTokens`), a masked-LM
 * encoder's top token at each mask token (specialTokens.mask) or at `positions`. An option of another kind is a
 * TypeError (newTokens is a decoder's, maxNewTokens an encoder-decoder's, positions an encoder's).
 */
export interface ReferenceOptions extends AnalysisControl {
  /** The output to score instead: a decoder's continuation (new tokens only); an encoder-decoder's ids from decoder_start_token_id; an encoder's one id per position. */
  reference?: { outputIds: Int32Array | number[] };
  newTokens?: number;
  maxNewTokens?: number;
  /** An encoder's positions to fill (default: its mask tokens). */
  positions?: number[];
}

export interface AnalysisReference {
  inputIds: Int32Array;
  outputIds: Int32Array;
  /** An encoder's filled positions. */
  positions?: Int32Array;
  /** The output's text (decoders, encoder-decoders). */
  text?: string | null;
  tokens: string[];
  /** Σ_t log p(outputIds_t | what precedes it), teacher-forced, every head on; natural log, softmax in float64. */
  score: number;
}

/** How long the passes took (they run one after another, in the model's engine). */
export interface AnalysisTiming {
  passes: number;
  totalMs: number;
  msPerPass: number;
}

export interface RankedHead {
  group: AttentionGroup;
  layer: number;
  head: number;
  /** layer × heads + head. */
  index: number;
  /** The score with this head alone off minus the reference's score (negative: the head helps the reference). */
  delta: number;
}

export interface HeadImportance {
  reference: AnalysisReference;
  /** Per group: delta [layers × heads] (C order), see RankedHead.delta. */
  groups: Partial<Record<AttentionGroup, { delta: Float64Array; shape: [number, number] }>>;
  /** Every head in order of increasing importance (the largest delta first; ties by group, layer, head). */
  order: RankedHead[];
  timing: AnalysisTiming;
}

/** An output re-decoded with heads off: greedy generate() (decoders, encoder-decoders) or an encoder's top tokens. */
export interface AnalysisOutput {
  outputIds: Int32Array;
  text?: string | null;
  tokens: string[];
}

/** A head mask as run() takes it, by group: [layers][heads] of 1 (kept) or 0 (off). */
export type GroupMasks = Partial<Record<AttentionGroup, number[][]>>;

export interface PruningPoint {
  /** Share of the line's heads switched off: k / steps. */
  fraction: number;
  headsOff: number;
  score: number;
  output: AnalysisOutput;
  mask: GroupMasks;
}

export interface PruningCurve {
  reference: AnalysisReference;
  order: RankedHead[];
  /** Per group (that group's heads off, the others kept) and 'all' (every group's heads in one order). */
  curves: Partial<Record<AttentionGroup | 'all', PruningPoint[]>>;
  timing: AnalysisTiming;
}

export interface OneHeadPerLayer {
  reference: AnalysisReference;
  /** Per group and layer: the layer's most important head kept, its other heads off, every other layer whole. */
  layers: Partial<Record<AttentionGroup, { layer: number; head: number; score: number }[]>>;
  /** Per group: its single most important head kept, the group's other heads off, the other groups whole. */
  single: Partial<Record<AttentionGroup, { layer: number; head: number; score: number; output: AnalysisOutput }>>;
  /** An encoder-decoder's: that single head in every group at once. */
  singleAll?: { score: number; output: AnalysisOutput };
  timing: AnalysisTiming;
}

export interface AttentionRollout {
  inputIds: Int32Array;
  tokens: string[];
  decoderInputIds?: Int32Array;
  decoderTokens?: string[];
  /** Per self-attention group: R after each layer, [layers, L, L] (row i: how much of each token reaches i). */
  groups: Partial<Record<'encoder' | 'decoder', { data: Float64Array; shape: [number, number, number] }>>;
}

type AnalysisInput = ModelInput | Seq2SeqInput;

/**
 * Each head alone switched off: the change in the reference's teacher-forced log-probability (one run() per
 * head, never a re-generation; an encoder-decoder's decoder and cross heads over the encoder's output kept).
 */
export function headImportance(
  model: TransformerModel,
  input: AnalysisInput,
  options?: ReferenceOptions,
): Promise<HeadImportance>;

/**
 * Michel et al. 2019 §5, gradient-free: heads off cumulatively in the fixed order of one ablation (headImportance;
 * given as `importance`, or run first), at 0, 1/steps … 100 % of each group's heads and of all heads: the
 * reference's score and the re-decoded output at each point. Michel et al. recompute gradient-based scores instead.
 */
export function pruningCurve(
  model: TransformerModel,
  input: AnalysisInput,
  options?: ReferenceOptions & { steps?: number; importance?: Pick<HeadImportance, 'groups'> },
): Promise<PruningCurve>;

/** Michel et al. 2019 §4: a layer reduced to its most important head (by the ablation's deltas); a group to its single most important head. */
export function oneHeadPerLayer(
  model: TransformerModel,
  input: AnalysisInput,
  options?: ReferenceOptions & { importance?: Pick<HeadImportance, 'groups'> },
): Promise<OneHeadPerLayer>;

/**
 * Abnar & Zuidema 2020: per layer 0.5·A + 0.5·I, A averaged over heads, multiplied through the layers, of each
 * self-attention group of one run(); an encoder-decoder's encoder and decoder self-attention, not the cross-attention.
 */
export function attentionRollout(
  model: TransformerModel,
  input: AnalysisInput,
  options?: AnalysisControl & { headMask?: number[][] | GroupMasks },
): Promise<AttentionRollout>;

export interface HeadsOff {
  reference: AnalysisReference;
  /** The reference's log-probability with those heads off (teacher-forced, as headImportance scores it). */
  score: number;
  /** score − reference.score. */
  delta: number;
  /** The output re-decoded with those heads off (as pruningCurve re-decodes it). */
  output: AnalysisOutput;
  timing: AnalysisTiming;
}

/**
 * The model with the heads `headMask` switches off (0): the reference's score and the re-decoded output, for a
 * mask of one's own (one head alone, each layer reduced to the head oneHeadPerLayer kept). An encoder's or a
 * decoder's mask may be run()'s [layers][heads]; a group not given is kept whole.
 */
export function withHeadsOff(
  model: TransformerModel,
  input: AnalysisInput,
  options: ReferenceOptions & { headMask: number[][] | GroupMasks },
): Promise<HeadsOff>;

/** The rollout of one group's attention { data, shape: [layers, heads, L, L] }. */
export function rolloutOf(attention: { data: Float32Array; shape: number[] }): {
  data: Float64Array;
  shape: [number, number, number];
};

/** A token of the logit lens: its id, its piece (the tokenizer's vocabulary entry) and its text alone (special tokens kept). */
export interface LensToken {
  id: number;
  token: string;
  text: string | null;
}

/** A token's place in one layer's lens logits: rank 1 is the top (ties: the lower id first), softmax in float64. */
export interface LensRank {
  rank: number;
  probability: number;
}

export interface LensLayer {
  /** 0: the embeddings; numLayers (an encoder-decoder's decoderLayers): the last layer, the model's own logits. */
  layer: number;
  /** The topK tokens by this layer's lens logits, most likely first. */
  top: (LensToken & { probability: number })[];
  /** Where the last layer's top token stands in this layer. */
  finalTop: LensRank;
  /** Where `target` stands, when given. */
  target?: LensRank;
}

export interface LogitLens {
  inputIds: Int32Array;
  tokens: string[];
  /** An encoder-decoder's decoder ids read (given, or its greedy translation without its last token). */
  decoderInputIds?: Int32Array;
  decoderTokens?: string[];
  /** The position read (of the input's tokens; an encoder-decoder's: of decoderInputIds) and its token. */
  position: number;
  token: string;
  /** The last layer's top token: the model's own prediction after `position`. */
  finalTop: LensToken;
  target?: LensToken;
  layers: LensLayer[];
}

/**
 * The logit lens (nostalgebraist 2020): each layer's hidden state at `position` (default the last) read through
 * the model's final norm and output head (run()'s returnLayerLogits, that position's rows alone), as if that
 * layer were the last: where the next token is decided. A decoder's input, or an encoder-decoder's decoder
 * teacher-forced (its decoderInputIds, else its greedy translation fed back); an encoder is a TypeError.
 * topK: 1 to 100 (default 5); target: a token id whose rank and probability each layer also reports.
 */
export function logitLens(
  model: TransformerModel,
  input: AnalysisInput,
  options?: AnalysisControl & { position?: number; topK?: number; target?: number },
): Promise<LogitLens>;
