// Declarations of what a model's run(), prefill() and step() return, by kind (src/js/index.d.ts re-exports
// them), and how a result's type follows from the options given: a field the call returns by default
// (attention) is there unless its option is false; one an option asks for (logits) is there when it is true;
// an option known only at run time (a `boolean`) leaves its fields optional.

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
 * Whether the options type O asks for option K: 'yes' (true), 'no' (false), 'maybe' (a boolean known only at run
 * time); left out, `Default` (what the call does without it: 'maybe' where a checkpoint's file decides).
 */
export type Asked<O, K extends PropertyKey, Default extends Answer = 'no'> = K extends keyof O
  ? [O[K]] extends [true]
    ? 'yes'
    : [O[K]] extends [false]
      ? 'no'
      : [O[K]] extends [undefined]
        ? Default
        : 'maybe'
  : Default;

export type Answer = 'yes' | 'no' | 'maybe';

/** 'yes' when either says yes, 'no' when both say no. */
export type Either<A extends Answer, B extends Answer> = A extends 'yes'
  ? 'yes'
  : B extends 'yes'
    ? 'yes'
    : [A, B] extends ['no', 'no']
      ? 'no'
      : 'maybe';

/** The fields F as `asked` says: there, absent, or optional. */
export type Returned<A extends Answer, F> = A extends 'yes' ? F : A extends 'no' ? {} : Partial<F>;

/** A result's fields as one object type (the intersections flattened, for editors' hovers). */
export type Flat<T> = { [K in keyof T]: T[K] } & {};

/** What run() of an encoder or a decoder returns whatever the options: L tokens. */
export interface StackBase {
  /** [L]. */
  inputIds: Int32Array;
  /** [L] readable pieces: "[CLS]", "毒", "##s", " snake"; byte pieces of one character as "毒₁", "毒₂", "毒₃". */
  tokens: string[];
  /** [L]: 1 where the token is one of the tokenizer's special tokens ([CLS], <s>, <|endoftext|> …). */
  special: Uint8Array;
  /** [L, hiddenSize]. */
  lastHiddenState: Float32Array;
}

/** returnAttention (default true): the weights, [numLayers, numHeads, L, keys], and by group (transformers' name). */
export type StackAttention<Group extends 'encoder' | 'decoder'> = {
  /** [numLayers, numHeads, L, keys], rows are queries (keys: L; a step's: past + L). */
  attention: Float32Array;
  /** The same array with its shape, under the group's name. */
  attentions: { [G in Group]: AttentionGroup };
};

/** returnHiddenStates: [numLayers + 1, L, hiddenSize]: BERT, the embeddings' output then each layer's; GPT-2, each block's input then ln_f of the last. */
export type HiddenStates = { hiddenStates: Float32Array };

/** returnLogits: [L, vocabSize], the language-model head's (a decoder's: the next token's after each position). */
export type Logits = { logits: Float32Array };

/**
 * returnQueryKey: [numLayers, numHeads, L, headDim] and [numLayers, numKVHeads, L, headDim], each head's L
 * vectors together: the queries and keys of every layer's attention, biases added, Qwen3's q/k norms and the
 * rotary positions (Llama, Qwen2, Qwen3) applied. Query head h of layer l weighs key head
 * g = floor(h / (numHeads / numKVHeads)): attention[l][h][i] = softmax over j of
 * queryKeyScale · query[l][h][i] · key[l][g][j], j ≤ i in a causal model (a head headMask switches off: 0).
 */
export type QueryKey = {
  query: Float32Array;
  key: Float32Array;
  /** The factor of those dot products, 1/√headDim: the same in every layer and head of every architecture run. */
  queryKeyScale: number;
};

/** run() of an encoder (Group 'encoder') or a decoder ('decoder') with options O. */
export type StackResult<Group extends 'encoder' | 'decoder', O = {}> = Flat<
  StackBase &
    Returned<Asked<O, 'returnAttention', 'yes'>, StackAttention<Group>> &
    Returned<Asked<O, 'returnHiddenStates'>, HiddenStates> &
    Returned<Asked<O, 'returnLogits'>, Logits> &
    Returned<Asked<O, 'returnQueryKey'>, QueryKey> &
    Returned<Asked<O, 'returnHeadOutputs'>, { headOutputs: { [G in Group]: HeadOutputs } }>
>;

/** Whether O asks for the logit lens (returnLayerLogits: { positions }): 'yes', 'no', or 'maybe'. */
export type LensAsked<O> = 'returnLayerLogits' extends keyof O
  ? [O['returnLayerLogits' & keyof O]] extends [undefined]
    ? 'no'
    : [O['returnLayerLogits' & keyof O]] extends [{ positions: readonly number[] }]
      ? 'yes'
      : 'maybe'
  : 'no';

/**
 * returnLayerLogits: [layers + 1, positions, vocabSize], each layer's hidden state at the positions asked for
 * through the final norm and output head (MarianMT's: its shared embedding plus final_logits_bias, no norm);
 * layer 0 reads the embeddings, the last is the logits' row.
 */
export type LayerLogits = { layerLogits: Float32Array };

/** An encoder's run() (BERT, RoBERTa, XLM-R, CamemBERT). */
export type EncoderResult<O = {}> = StackResult<'encoder', O>;
/**
 * What an encoder's run() of an array of B inputs returns whatever the options: one engine call, each row bit
 * for bit that input's own run(), padded on the right to the longest, Lmax tokens, as transformers returns a
 * batch tokenized with padding=True (every array 0 where the attention mask is 0).
 */
export interface BatchBase {
  /** B, the inputs. */
  batchSize: number;
  /** [B]: each input's tokens. */
  lengths: number[];
  /** [B, Lmax]: padded with the tokenizer's pad token (0 without one). */
  inputIds: Int32Array;
  /** [B, Lmax]: 1 where a token is, 0 where padding is. */
  attentionMask: Uint8Array;
  /** [B, Lmax]: 1 where the token is a special one, and in the padding. */
  special: Uint8Array;
  /** [B] readable pieces of each input (run()'s tokens). */
  tokens: string[][];
  /** [B, Lmax, hiddenSize]. */
  lastHiddenState: Float32Array;
  /** Each array's dimensions by its name (inputIds: [B, Lmax], attention: [numLayers, B, numHeads, Lmax, Lmax] …). */
  shapes: Record<string, number[]>;
}

/**
 * A batch's attention (returnAttention, default true): [numLayers, B, numHeads, Lmax, Lmax], 0 at padded queries
 * and keys (a decoder's also past each query: causal), by its group (encoder, decoder).
 */
export type BatchAttention<G extends 'encoder' | 'decoder' = 'encoder'> = {
  attention: Float32Array;
  attentions: { [K in G]: { data: Float32Array; shape: [number, number, number, number, number] } };
};

/** run() of an array of inputs on an encoder or a decoder (group G) with options O. */
export type StackBatchResult<G extends 'encoder' | 'decoder', O = {}> = Flat<
  BatchBase &
    Returned<Asked<O, 'returnAttention', 'yes'>, BatchAttention<G>> &
    Returned<Asked<O, 'returnHiddenStates'>, HiddenStates> &
    Returned<Asked<O, 'returnLogits'>, Logits>
>;

/**
 * An encoder's run() of an array of inputs with options O: hiddenStates [numLayers + 1, B, Lmax, hiddenSize],
 * logits [B, Lmax, vocabSize].
 */
export type EncoderBatchResult<O = {}> = StackBatchResult<'encoder', O>;

/**
 * A decoder's run() of an array of inputs, teacher-forced (each sequence causal over its own tokens, its own
 * positions from 0), with options O: as an encoder's batch, logits [B, Lmax, vocabSize] (returnLogits true: a
 * batch's are every row's).
 */
export type DecoderBatchResult<O = {}> = StackBatchResult<'decoder', O>;

/** A decoder's run() (GPT-2, Llama, Qwen2, Qwen3): causal, each row i is 0 past key i. */
export type DecoderResult<O = {}> = Flat<StackResult<'decoder', O> & Returned<LensAsked<O>, LayerLogits>>;

/** A decoder's prefill or step: its L new tokens after `past`, attention [numLayers, numHeads, L, past + L]. */
export type StepResult<O = {}> = Flat<
  StackBase & {
    /** The positions the model had seen before these tokens (0 for a prefill). */
    past: number;
  } & Returned<Asked<O, 'returnAttention', 'yes'>, StackAttention<'decoder'>> &
    Returned<Asked<O, 'returnHiddenStates'>, HiddenStates> &
    Returned<Asked<O, 'returnLogits'>, Logits>
>;

/** An encoder-decoder's run: S input tokens, T decoder tokens, whatever the options. */
export interface Seq2SeqBase {
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
}

/** An encoder-decoder's attention (returnAttention, default true): its three groups. */
export type Seq2SeqAttention = {
  /** [numLayers, numHeads, S, S]. */
  encoderAttention: Float32Array;
  /** [decoderLayers, decoderHeads, T, T], causal. */
  decoderAttention: Float32Array;
  /** [decoderLayers, decoderHeads, T, S]: each decoder token's queries over the encoder's positions. */
  crossAttention: Float32Array;
  /** The three with their shapes, by transformers' names. */
  attentions: { encoder: AttentionGroup; decoder: AttentionGroup; cross: AttentionGroup };
};

/** returnHiddenStates: [numLayers + 1, S, hiddenSize] and [decoderLayers + 1, T, hiddenSize]: the embeddings', then each layer's. */
export type Seq2SeqHiddenStates = { encoderHiddenStates: Float32Array; decoderHiddenStates: Float32Array };

/**
 * returnHeadOutputs, by group: encoder [numLayers, numHeads, S]; decoder [decoderLayers, decoderHeads, T];
 * cross: valueNorms [decoderLayers, decoderHeads, S] (the encoder's output through each decoder layer's
 * cross-attention values and W_O^h), headOutputNorms [decoderLayers, decoderHeads, T].
 */
export type Seq2SeqHeadOutputs = { headOutputs: { encoder: HeadOutputs; decoder: HeadOutputs; cross: HeadOutputs } };

/**
 * What an encoder-decoder's run() of an array of B inputs returns whatever the options: one engine call,
 * teacher-forced, each pair's rows bit for bit its own run(); each side padded on the right to its longest (Smax
 * source tokens, Tmax decoder tokens) as transformers' batch of padding=True (every array 0 where either
 * attention mask is 0).
 */
export interface Seq2SeqBatchBase extends BatchBase {
  /** B, the pairs; lengths [B], inputIds, attentionMask, special [B, Smax] and tokens: the sources'. */
  batchSize: number;
  /** [B]: each decoder input's tokens (decoder_start_token_id first). */
  decoderLengths: number[];
  /** [B, Tmax]: padded with the tokenizer's pad token. */
  decoderInputIds: Int32Array;
  /** [B, Tmax]: 1 where a token is, 0 where padding is. */
  decoderAttentionMask: Uint8Array;
  decoderTokens: string[][];
  /** [B, Smax, hiddenSize]. */
  encoderLastHiddenState: Float32Array;
  /** [B, Tmax, hiddenSize]: the decoder's output. */
  lastHiddenState: Float32Array;
}

type BatchGroup = { data: Float32Array; shape: [number, number, number, number, number] };

/**
 * A batch of pairs' attention (returnAttention, default true): encoderAttention [numLayers, B, numHeads, Smax,
 * Smax], decoderAttention [decoderLayers, B, decoderHeads, Tmax, Tmax] (causal), crossAttention [decoderLayers,
 * B, decoderHeads, Tmax, Smax]; 0 at padded queries and keys.
 */
export type Seq2SeqBatchAttention = {
  encoderAttention: Float32Array;
  decoderAttention: Float32Array;
  crossAttention: Float32Array;
  attentions: { encoder: BatchGroup; decoder: BatchGroup; cross: BatchGroup };
};

/**
 * An encoder-decoder's run() of an array of inputs with options O: encoderHiddenStates [numLayers + 1, B, Smax,
 * hiddenSize], decoderHiddenStates [decoderLayers + 1, B, Tmax, hiddenSize], logits [B, Tmax, vocabSize].
 */
export type Seq2SeqBatchResult<O = {}> = Flat<
  Seq2SeqBatchBase &
    Returned<Asked<O, 'returnAttention', 'yes'>, Seq2SeqBatchAttention> &
    Returned<Asked<O, 'returnHiddenStates'>, Seq2SeqHiddenStates> &
    Returned<Asked<O, 'returnLogits'>, Logits>
>;

/** An encoder-decoder's run() with options O; logits [T, vocabSize] (final_logits_bias added). */
export type Seq2SeqResult<O = {}> = Flat<
  Seq2SeqBase &
    Returned<Asked<O, 'returnAttention', 'yes'>, Seq2SeqAttention> &
    Returned<Asked<O, 'returnHiddenStates'>, Seq2SeqHiddenStates> &
    Returned<Asked<O, 'returnLogits'>, Logits> &
    Returned<Asked<O, 'returnHeadOutputs'>, Seq2SeqHeadOutputs> &
    Returned<LensAsked<O>, LayerLogits>
>;
