// Declarations of generation (src/js/index.d.ts re-exports them): an encoder-decoder's generate() and a
// decoder's generate() and generateSteps(), their options, steps and results (each result's fields as its
// options ask: results.d.ts).
import type { HeadMask, LayerHeadMask } from './models.js';
import type {
  Asked,
  AttentionGroup,
  Either,
  Flat,
  Returned,
  Seq2SeqAttention,
  Seq2SeqBase,
  Seq2SeqHiddenStates,
} from './results.js';

/**
 * What every kind's generate() takes to search: transformers' generate() keyword arguments, camelCased (each
 * default: generation_config.json's, else transformers'). Greedy (numBeams 1, doSample false), sampling (doSample)
 * or beam search (numBeams > 1; with doSample a TypeError), on a decoder and an encoder-decoder alike.
 */
export interface SearchOptions {
  /** New tokens after the prompt (a decoder's) or decoder_start_token_id (default: generation_config.json's max_length, 20 new without one). */
  maxNewTokens?: number;
  /** The whole output's length, the prompt or decoder_start_token_id included; or maxNewTokens, not both. */
  maxLength?: number;
  /** No eos before this many new tokens. */
  minNewTokens?: number;
  /**
   * 1: greedy search or sampling; more: beam search (default generation_config.json's num_beams). A decoder's
   * beams share its one KV cache: each step feeds each beam's ids after where it parts from the beam before.
   */
  numBeams?: 1 | (number & {}); // (1 named: `numBeams: 1` types a result as one token a step's)
  /** Candidates returned (beam search), at most numBeams. */
  numReturnSequences?: number;
  /** Beam search: a finished beam's score is its log-probability ÷ (new tokens)^lengthPenalty. */
  lengthPenalty?: number;
  earlyStopping?: boolean | 'never';
  /** Sampling (default generation_config.json's do_sample), with temperature, topK (default 50), topP and minP. */
  doSample?: boolean;
  temperature?: number;
  topK?: number;
  topP?: number;
  /**
   * Sampling: drop the tokens less likely than minP × the most likely one's probability (after temperature,
   * topK and topP), as transformers' MinPLogitsWarper; 0 to 1.
   */
  minP?: number;
  /**
   * The sampler's seed (mha-wasm's own generator: the same seed, the same ids on every build and thread count,
   * in Node and browsers; not torch's numbers). Default: a random one, returned as the result's `seed`.
   */
  seed?: number;
  noRepeatNgramSize?: number;
  repetitionPenalty?: number;
  /**
   * Stop once the text contains one of these strings (transformers' stop_strings, StopStringCriteria): the
   * string may span ids, and the id that completes it ends the output (its text may run on past the string:
   * "stop" ends an output in "…st|opper"). Needs the model's tokenizer. The output is not cut at the string.
   */
  stopStrings?: string | string[];
  /**
   * The attention (and hidden states) over the ids fed back, bit for bit run()'s: a decoder's (default false)
   * its steps' rows put together, computed as transformers' eager attention computes them (with beams, run()
   * after the search); an encoder-decoder's (default true) its decoder steps'. Hidden states: default false.
   */
  returnAttention?: boolean;
  returnHiddenStates?: boolean;
  /**
   * Each new token as it is decided (greedy or sampled, with the text it adds: `textDelta`), or each step's best
   * beam, with every beam (beam search: no textDelta, since the best beam can change).
   */
  onToken?: (report: TokenReport) => void;
  /** Stops between steps (it rejects with the signal's reason). */
  signal?: AbortSignal;
}

/** The options of a beam search, which a step stream (generateSteps, sendSteps) does not take. */
export type BeamOptions = 'numBeams' | 'numReturnSequences' | 'lengthPenalty' | 'earlyStopping';

/** An encoder-decoder's generate() options. */
export interface GenerateOptions extends SearchOptions {
  /** Applied at every step and to the returned attention. */
  headMask?: HeadMask;
  /**
   * Each step of a greedy or sampled search (numBeams 1; with beams a TypeError): its token, the logits it was
   * chosen from and the decoder's and cross-attention rows of the token fed for it. Awaited before the next step.
   */
  onStep?: (step: Seq2SeqGenerationStep) => void | Promise<void>;
}

/**
 * One step of a generation, as transformers' generate(output_logits, output_scores, output_attentions) gives
 * it: the token chosen, the raw logits row it was chosen from, its processed score, and (with returnAttention,
 * the default) the attention of the tokens fed for it.
 */
export interface GenerationStepBase {
  /** 1 for the first new token. */
  step: number;
  id: number;
  /** Its readable piece. */
  token: string;
  /**
   * The text this step adds (null without a tokenizer): the steps' deltas joined are the result's `text` — the
   * output decoded (special tokens skipped) minus the decoded prompt. '' while a character is not whole (a
   * byte-fallback piece such as <0xE6>, a byte-level piece of a CJK character), then the whole character.
   */
  textDelta: string | null;
  /** The output so far: the prompt (or decoder_start_token_id), then the new ids through `id`. */
  outputIds: Int32Array;
  /** id's score after the logits processors (the step's stepScores entry). */
  score: number;
  /** The raw logits the token was chosen from, [vocabSize]. */
  logits: Float32Array;
}

/**
 * A decoder's step (generateSteps' values, generate's onStep) with options O: its attention
 * [numLayers, numHeads, fed, keys] (the prompt at step 1, then the token before), run()'s rows bit for bit,
 * unless returnAttention is false; a sampled generation's seed.
 */
export type DecoderGenerationStep<O = { returnAttention: boolean }> = Flat<
  GenerationStepBase &
    Returned<Asked<O, 'doSample', 'maybe'>, { seed: number }> &
    Returned<Asked<O, 'returnAttention', 'yes'>, { attention: Float32Array; attentions: { decoder: AttentionGroup } }>
>;

/**
 * An encoder-decoder's greedy step (onStep): with returnAttention (the default), decoder
 * [decoderLayers, decoderHeads, 1, step] and cross [decoderLayers, decoderHeads, 1, S].
 */
export interface Seq2SeqGenerationStep extends GenerationStepBase {
  attentions?: { decoder: AttentionGroup; cross: AttentionGroup };
  /** A sampled generation's seed. */
  seed?: number;
}

/** A step of either kind's generation. */
export type GenerationStep = DecoderGenerationStep | Seq2SeqGenerationStep;

/** What onToken is given: the output so far, its pieces, and (a token at a time) the new id and its text. */
export interface TokenReport {
  outputIds: Int32Array;
  tokens: string[];
  id?: number;
  /** Greedy or sampled: the text the token adds, as GenerationStep's textDelta. */
  textDelta?: string | null;
  /** Beam search: every running beam. */
  beams?: Int32Array[];
}

export interface GenerateCandidate {
  /** decoder_start_token_id first, eos last unless the length ran out. */
  outputIds: Int32Array;
  text: string | null;
  tokens: string[];
  /** Greedy: the sum of the chosen tokens' log-probabilities; beam search: transformers' sequences_scores (length-penalized). */
  score: number;
}

/** An encoder-decoder's generate() whatever its options. */
export interface GenerateBase {
  /** [S], the input, and its readable pieces and special tokens (run()'s inputIds, tokens and special). */
  inputIds: Int32Array;
  inputTokens: string[];
  inputSpecial: Uint8Array;
  /** transformers' generate() sequences[0]: decoder_start_token_id first, eos last unless the length ran out. */
  outputIds: Int32Array;
  /** The readable pieces of outputIds. */
  tokens: string[];
  /** The translation: outputIds decoded without special tokens (null without a tokenizer). */
  text: string | null;
  /** Greedy (numBeams 1): each chosen token's processed score; a beam search has none. */
  stepScores?: Float64Array;
  score: number;
  /** The numReturnSequences best, best first (greedy: the one). */
  candidates: GenerateCandidate[];
}

/**
 * An encoder-decoder's generate() with options O: with returnAttention (the default) or returnHiddenStates, the
 * teacher-forced run() over outputIds but its last (decoderInputIds, decoderTokens, the encoder's and the
 * decoder's last hidden states) and the attention of every token fed back (its rows of the steps, bit for bit
 * that run's) or the hidden states.
 */
export type GenerateResult<O = {}> = Flat<
  GenerateBase &
    Returned<Asked<O, 'doSample', 'maybe'>, { seed: number }> &
    Returned<
      Either<Asked<O, 'returnAttention', 'yes'>, Asked<O, 'returnHiddenStates'>>,
      Omit<Seq2SeqBase, 'inputIds' | 'tokens' | 'special'>
    > &
    Returned<Asked<O, 'returnAttention', 'yes'>, Seq2SeqAttention> &
    Returned<Asked<O, 'returnHiddenStates'>, Seq2SeqHiddenStates>
>;

/**
 * A decoder's generate() options. generate() keeps what the cache (prefill(), step(), an earlier generate())
 * holds of its prompt and feeds the rest; it leaves the cache holding its output but the last id
 * (model.past === outputIds.length − 1: a step() of that id continues it); a search that fails leaves it empty.
 */
export interface DecoderGenerateOptions extends SearchOptions {
  /**
   * attention [numLayers, numHeads, n − 1, n − 1] of run() over outputIds without its last id, and each onStep
   * step's rows. Default **false** for a decoder (an encoder-decoder's is true): the attention costs a second
   * pass over the output and numLayers·numHeads·n² floats — for a Qwen2.5-0.5B at 1,000 tokens 1.3 GB, and
   * about twice the time at 100 (docs/performance.md). generateSteps() returns each step's by default.
   */
  returnAttention?: boolean;
  /** [numLayers][numHeads] of 1 (keep) or 0 (off), at every step and in the returned attention. */
  headMask?: LayerHeadMask;
  /**
   * Each step of a greedy or sampled search (numBeams 1; with beams a TypeError): its token, the logits it was
   * chosen from, and (with returnAttention: true) the attention of the tokens fed for it, computed as run()'s
   * (the prompt is then fed whole, the cache's copy of it not kept). Awaited before the next step.
   */
  onStep?: (step: DecoderGenerationStep) => void | Promise<void>;
}

/** generateSteps()'s options: generate()'s but the beams, the callbacks and the hidden states. */
export type GenerateStepsOptions = Omit<
  DecoderGenerateOptions,
  'onToken' | 'onStep' | 'returnHiddenStates' | BeamOptions
>;

/** A decoder's generate() whatever its options. */
export interface DecoderGenerateBase {
  /** The prompt's ids and pieces. */
  inputIds: Int32Array;
  inputTokens: string[];
  /** The prompt, then the new ids (transformers' generate() sequences[0]). */
  outputIds: Int32Array;
  /**
   * The new text (null without a tokenizer): outputIds decoded minus the decoded prompt, special tokens skipped,
   * as transformers' text-generation pipeline gives it (return_full_text=False); so the prompt's text and this
   * are the whole output's ("The cat" + " and a boy").
   */
  text: string | null;
  /** The pieces of outputIds. */
  tokens: string[];
  /**
   * Greedy or sampled: the sum of the chosen tokens' log-probabilities (after the processors); beam search:
   * transformers' sequences_scores (length-penalized).
   */
  score: number;
  /** The numReturnSequences best, best first (greedy or sampled: the one); each text is what it adds to the prompt. */
  candidates: GenerateCandidate[];
}

/** Whether a search with options O is one token a step (numBeams 1 or left to generation_config.json). */
type OneBeam<O> = 'numBeams' extends keyof O
  ? [O['numBeams' & keyof O]] extends [1 | undefined]
    ? 'yes'
    : 'maybe'
  : 'yes';

/**
 * A decoder's generate() with options O: each chosen token's processed score (stepScores; one token a step:
 * numBeams 1, or left out, when generation_config.json's num_beams is 1 — a beam search has none); the seed a
 * sampled generation used (to repeat it; doSample left out, generation_config.json's do_sample decides); with
 * returnAttention: true, run()'s attention [numLayers, numHeads, n − 1, n − 1] over outputIds without its last
 * id (not by default); asked, its hidden states.
 */
export type DecoderGenerateResult<O = {}> = Flat<
  DecoderGenerateBase &
    Returned<OneBeam<O>, { stepScores: Float64Array }> &
    Returned<Asked<O, 'doSample', 'maybe'>, { seed: number }> &
    Returned<Asked<O, 'returnAttention', 'no'>, { attention: Float32Array; attentions: { decoder: AttentionGroup } }> &
    Returned<Asked<O, 'returnHiddenStates'>, { hiddenStates: Float32Array }>
>;
