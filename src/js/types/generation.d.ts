// Declarations of generation (src/js/index.d.ts re-exports them): an encoder-decoder's generate() and a
// decoder's generate() and generateSteps(), their options, steps and results.
import type { AttentionGroup, HeadMask, Seq2SeqResult } from './models.js';

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
  /**
   * Each new token as it is decided (greedy, with the text it adds: `textDelta`), or each step's best beam, with
   * every beam (beam search: no textDelta, since the best beam can change).
   */
  onToken?: (report: TokenReport) => void;
  /**
   * Each step of a greedy search (numBeams 1; with beams a TypeError): its token, the logits it was chosen from
   * and the decoder's and cross-attention rows of the token fed for it. Awaited before the next step.
   */
  onStep?: (step: GenerationStep) => void | Promise<void>;
  /** Stops between steps (it rejects with the signal's reason). */
  signal?: AbortSignal;
}

/**
 * One step of a generation, as transformers' generate(output_logits, output_scores, output_attentions) gives
 * it: the token chosen, the raw logits row it was chosen from, its processed score, and (with returnAttention,
 * the default) the attention of the tokens fed for it — a decoder's: [numLayers, numHeads, fed, keys] (the
 * prompt at step 1, then the token before), run()'s rows bit for bit; an encoder-decoder's: decoder
 * [decoderLayers, decoderHeads, 1, step] and cross [decoderLayers, decoderHeads, 1, S].
 */
export interface GenerationStep {
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
  /** A sampled generation's seed. */
  seed?: number;
  /** A decoder's: the data of attentions.decoder. */
  attention?: Float32Array;
  attentions?: { decoder: AttentionGroup; cross?: AttentionGroup };
}

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

/** transformers' generate(): sequences[0] as outputIds, its text, and the attention of every token fed back. */
export interface GenerateResult extends Partial<
  Omit<Seq2SeqResult, 'inputIds' | 'tokens' | 'special' | 'headOutputs'>
> {
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
  /** Each new token as it is decided, with the text it adds (`textDelta`, as a step's). */
  onToken?: (report: TokenReport) => void;
  /**
   * Each step: its token, the logits it was chosen from, and (with returnAttention, the default) the attention
   * of the tokens fed for it, computed as run()'s. Awaited before the next step.
   */
  onStep?: (step: GenerationStep) => void | Promise<void>;
  signal?: AbortSignal;
}

/** generateSteps()'s options: generate()'s but the callbacks and the hidden states. */
export type GenerateStepsOptions = Omit<DecoderGenerateOptions, 'onToken' | 'onStep' | 'returnHiddenStates'>;

export interface DecoderGenerateResult {
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
  /** The sum of the chosen tokens' log-probabilities (after the processors); each one's processed score. */
  score: number;
  stepScores: Float64Array;
  /** The seed a sampled generation used (to repeat it). */
  seed?: number;
  attention?: Float32Array;
  attentions?: { decoder: AttentionGroup };
  hiddenStates?: Float32Array;
}
