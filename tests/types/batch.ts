// run() of an array of inputs (a batch) on each kind of model, as a TypeScript program meets it: the overload's result
// type by the options given; type-checked only (tsc --noEmit). Each line under a ts-expect-error directive is a
// call or a field the runtime refuses or never returns (src/js/models/kinds/encoder-batch.mjs,
// encoder-decoder-batch.mjs).
import { createAttention } from 'mha-wasm/model';
import type { DecoderBatchResult, EncoderBatchResult, EncoderResult, Seq2SeqBatchResult } from 'mha-wasm/model';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(check: Equal<A, B>) => check;

export async function batches(): Promise<void> {
  const engine = await createAttention();
  const bert = await engine.loadModel('google-bert/bert-base-uncased', { kind: 'encoder' });
  // One input: a single result; an array: the batched one.
  const one = await bert.run('a snake');
  same<typeof one, EncoderResult>(true);
  const batch = await bert.run(['a snake', { text: 'a', textPair: 'b' }, { inputIds: [101, 102] }]);
  same<typeof batch, EncoderBatchResult>(true);
  const shape: number[] = batch.shapes.lastHiddenState;
  const mask: Uint8Array = batch.attentionMask;
  const lengths: number[] = batch.lengths;
  const tokens: string[][] = batch.tokens;
  const fiveDims: [number, number, number, number, number] = batch.attentions.encoder.shape;
  void [shape, mask, lengths, tokens, fiveDims, batch.attention, batch.batchSize];
  // What an option asks for is there; what it does not is absent.
  const withStates = await bert.run(['a', 'b'], {
    returnHiddenStates: true,
    returnLogits: true,
    returnAttention: false,
  });
  const states: Float32Array = withStates.hiddenStates;
  const logits: Float32Array = withStates.logits;
  void [states, logits];
  // @ts-expect-error: returnAttention: false leaves the attention out
  void withStates.attention;
  // @ts-expect-error: a batch returns no queries and keys (a single run() does)
  await bert.run(['a', 'b'], { returnQueryKey: true });
  // @ts-expect-error: nor what each head writes
  await bert.run(['a', 'b'], { returnHeadOutputs: true });
  // @ts-expect-error: a batch's inputs are inputs, not numbers
  await bert.run(['a', 5]);
}

// A decoder's teacher-forced batch: texts or ids, attention by group `decoder`.
export async function decoderBatches(): Promise<void> {
  const engine = await createAttention();
  const gpt2 = await engine.loadModel('openai-community/gpt2', { kind: 'decoder' });
  const batch = await gpt2.run(['a snake', { inputIds: [50256, 64] }], { returnLogits: true });
  same<typeof batch, DecoderBatchResult<{ returnLogits: true }>>(true);
  const logits: Float32Array = batch.logits;
  const fiveDims: [number, number, number, number, number] = batch.attentions.decoder.shape;
  void [logits, fiveDims, batch.attentionMask, batch.lengths];
  // @ts-expect-error: a decoder's attention is group `decoder`
  void batch.attentions.encoder;
  // @ts-expect-error: a batch's inputs are inputs, not numbers
  await gpt2.run(['a', 5]);
  // @ts-expect-error: a batch has no logit lens (a single run() does)
  await gpt2.run(['a', 'b'], { returnLayerLogits: { positions: [0] } });
}

// An encoder-decoder's teacher-forced batch of pairs: sources with or without their decoder inputs.
export async function pairBatches(): Promise<void> {
  const engine = await createAttention();
  const marian = await engine.loadModel('Helsinki-NLP/opus-mt-zh-en', { kind: 'encoder-decoder' });
  const batch = await marian.run(['用毒', { text: '毒蛇', decoderInputIds: [65000, 5] }, { inputIds: [5, 0] }], {
    returnLogits: true,
  });
  same<typeof batch, Seq2SeqBatchResult<{ returnLogits: true }>>(true);
  const logits: Float32Array = batch.logits;
  const cross: [number, number, number, number, number] = batch.attentions.cross.shape;
  const masks: Uint8Array[] = [batch.attentionMask, batch.decoderAttentionMask];
  const lengths: number[][] = [batch.lengths, batch.decoderLengths];
  const tokens: string[][][] = [batch.tokens, batch.decoderTokens];
  void [logits, cross, masks, lengths, tokens, batch.encoderLastHiddenState, batch.crossAttention];
  const quiet = await marian.run(['a', 'b'], { returnAttention: false, returnHiddenStates: true });
  const states: Float32Array[] = [quiet.encoderHiddenStates, quiet.decoderHiddenStates];
  void states;
  // @ts-expect-error: returnAttention: false leaves the attention out
  void quiet.crossAttention;
  // @ts-expect-error: a batch has no logit lens (a single run() does)
  await marian.run(['a', 'b'], { returnLayerLogits: { positions: [0] } });
  // @ts-expect-error: nor what each head writes
  await marian.run(['a', 'b'], { returnHeadOutputs: true });
  // @ts-expect-error: a batch's inputs are inputs, not numbers
  await marian.run(['a', 5]);
}

// The task calls: an array gives an array of results (answer() takes one question).
export async function taskBatches(): Promise<void> {
  const engine = await createAttention();
  const bert = await engine.loadModel('some/bert-sst2', { kind: 'encoder' });
  const labels = await bert.classify(['good', 'bad']);
  const first: string = labels[0].labels[0].label;
  const embeddings = await bert.embed(['a', 'b'], { pooling: 'mean', normalize: true });
  const vector: Float32Array = embeddings[1].embedding;
  const tokens = await bert.classifyTokens(['a b']);
  void [first, vector, tokens[0].labels[0].token];
  // @ts-expect-error: one question at a time
  await bert.answer([{ question: 'q', context: 'c' }]);
  // @ts-expect-error: a batch returns no queries and keys
  await bert.embed(['a', 'b'], { returnQueryKey: true });
}
