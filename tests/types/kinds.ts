// Types by kind, as a TypeScript program meets them: what each kind's run(), prefill(), step(), generate() and
// generateSteps() take and return, by the options given; type-checked only (tsc --noEmit). Each line under a
// ts-expect-error directive is a call or a field the runtime refuses or never returns (src/js/models/kinds/,
// src/js/models/model-options.mjs); a line without one is what the runtime takes or returns.
import { createAttention } from 'mha-wasm/model';
import type {
  DecoderModel,
  EncoderDecoderModel,
  EncoderModel,
  ModelOfKind,
  ModelRunOptions,
  ModelType,
  TransformerModel,
} from 'mha-wasm/model';

/** true when A and B are the same type. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(check: Equal<A, B>) => check;

// How a program gets a kind's type: loadModel's `kind` (checked at load), or `model.kind`.
export async function narrowing(): Promise<void> {
  const engine = await createAttention();
  const gpt2 = await engine.loadModel('openai-community/gpt2', { kind: 'decoder' });
  same<typeof gpt2, DecoderModel>(true);
  same<Awaited<ReturnType<typeof engine.loadModel<'encoder-decoder'>>>, EncoderDecoderModel>(true);
  // @ts-expect-error: not a kind
  await engine.loadModel('t5-small', { kind: 'seq2seq' });
  const any = await engine.loadModel('some/model');
  same<typeof any, TransformerModel>(true);
  // What every kind has needs no narrowing.
  void [any.config.numLayers, any.config.kind, any.pieces([1]), any.tokenizer, any.past];
  // @ts-expect-error: an encoder has no generate(): which kind is this?
  await any.generate('a');
  // @ts-expect-error: nor run(), whose input and result are the kind's
  await any.run('a');
  if (any.kind === 'decoder') await any.generate('a', { maxNewTokens: 2 });
  switch (any.kind) {
    case 'encoder':
      same<typeof any, EncoderModel>(true);
      break;
    case 'encoder-decoder':
      same<typeof any, ModelOfKind<'encoder-decoder'>>(true);
      break;
    default:
      same<typeof any, DecoderModel>(true);
  }
  const types: ModelType[] = [
    'bert',
    'roberta',
    'xlm-roberta',
    'camembert',
    'gpt2',
    'llama',
    'qwen2',
    'qwen3',
    'marian',
  ];
  // @ts-expect-error: not an architecture the engine runs
  const t5: ModelType = 't5';
  same<DecoderModel['config']['modelType'], 'gpt2' | 'llama' | 'qwen2' | 'qwen3'>(true);
  same<EncoderDecoderModel['config']['causal'], true>(true);
  void [types, t5];
}

// An encoder: run() alone; fields returned by default are there, the rest as the options ask.
export async function encoder(bert: EncoderModel, maybe: boolean): Promise<void> {
  const r = await bert.run('用毒毒毒蛇');
  const attention: Float32Array = r.attention;
  const shape: number[] = r.attentions.encoder.shape;
  // @ts-expect-error: an encoder's attention group is 'encoder'
  void r.attentions.decoder;
  // @ts-expect-error: logits only with returnLogits
  void r.logits;
  const logits: Float32Array = (await bert.run('用[MASK]', { returnLogits: true })).logits;
  const all = await bert.run('毒', {
    returnHiddenStates: true,
    returnQueryKey: true,
    returnHeadOutputs: true,
    returnAttention: false,
  });
  const scale: number = all.queryKeyScale * all.query[0] * all.key[0] + all.hiddenStates[0];
  const norms: Float32Array = all.headOutputs.encoder.valueNorms.data;
  // @ts-expect-error: returnAttention false returns no attention
  void all.attention;
  // Options known at run time only: their fields may be there.
  const options: ModelRunOptions = { returnAttention: maybe };
  const unknown = await bert.run('毒', options);
  const perhaps: Float32Array | undefined = unknown.attention;
  // @ts-expect-error: may be absent
  const surely: Float32Array = (await bert.run('毒', { returnAttention: maybe })).attention;
  // A head mask as code builds it: arrays of numbers or booleans, typed arrays.
  await bert.run('毒', { headMask: [new Uint8Array([1, 0, 1, 1]), [1, 1, 0, 1]] });
  const rows: number[][] = [
    [1, 0, 1, 1],
    [0, 1, 1, 1],
  ];
  await bert.run('毒', { headMask: rows });
  await bert.run('毒', { headMask: [[true, false, true, true]] });
  // @ts-expect-error: a row is numbers or booleans
  await bert.run('毒', { headMask: [['1', '0']] });
  await bert.run({ text: '毒', textPair: '蛇' });
  await bert.run({ inputIds: [101, 102], tokenTypeIds: [0, 0] });
  // @ts-expect-error: not an option
  await bert.run('毒', { returnAttentions: true });
  // @ts-expect-error: an encoder has no state between calls
  await bert.prefill('毒');
  // @ts-expect-error: nor does it generate (its predictions are run()'s logits)
  await bert.generate('毒');
  void [attention, shape, logits, scale, norms, perhaps, surely];
}

// A decoder: run(), prefill() and step() through its cache, generate() and generateSteps().
export async function decoder(gpt2: DecoderModel): Promise<void> {
  const r = await gpt2.run('The cat', { returnLogits: true });
  const logits: Float32Array = r.logits;
  const rows: number[] = r.attentions.decoder.shape;
  // @ts-expect-error: a decoder has no token types
  await gpt2.run({ inputIds: [1, 2], tokenTypeIds: [0, 0] });
  const first = await gpt2.prefill('The cat');
  const next = await gpt2.step({ inputIds: [262] }, { returnAttention: false, returnLogits: true });
  const past: number = first.past + next.past;
  const firstAttention: Float32Array = first.attention;
  const nextLogits: Float32Array = next.logits;
  // @ts-expect-error: returnAttention false
  void next.attention;
  // Greedy by default: its step scores; candidates, as every kind's generate() returns them.
  const g = await gpt2.generate('The cat', { maxNewTokens: 8 });
  const text: string | null = g.text;
  const stepScores: Float64Array = g.stepScores;
  // @ts-expect-error: a decoder's generate() returns attention only when asked (docs/performance.md)
  void g.attention;
  const attention: Float32Array = (await gpt2.generate('The cat', { returnAttention: true })).attention;
  const only: string | null = g.candidates[0].text;
  // Beam search, as an encoder-decoder's: candidates; step scores only one token a step.
  const beams = await gpt2.generate('The cat', { maxNewTokens: 8, numBeams: 2, numReturnSequences: 2 });
  const second: Int32Array = beams.candidates[1].outputIds;
  const maybeScores: Float64Array | undefined = beams.stepScores;
  // @ts-expect-error: a beam search's result may have no step scores
  const notSure: Float64Array = beams.stepScores;
  // @ts-expect-error: a step stream is one token a step: no beams
  gpt2.generateSteps('The cat', { numBeams: 2 });
  // Stop strings and minP.
  await gpt2.generate('The cat', { stopStrings: ['\n\n', '.'], doSample: true, minP: 0.05, seed: 1 });
  await gpt2.generate('The cat', { stopStrings: 'end' });
  // @ts-expect-error: strings, not ids
  await gpt2.generate('The cat', { stopStrings: [13] });
  // What belongs to the other kind: an encoder-decoder's head mask by group, its steps' cross-attention.
  // @ts-expect-error: a decoder's head mask is [layers][heads], not by group
  await gpt2.generate('The cat', { headMask: { decoder: [[1, 0, 1, 1]] } });
  // @ts-expect-error: a decoder's step has no cross-attention
  await gpt2.generate('The cat', { returnAttention: true, onStep: (s) => void s.attentions?.cross });
  void [only, second, maybeScores, notSure];
  // The seed: there when sampling, maybe there when generation_config.json decides, absent when greedy.
  const sampled = await gpt2.generate('The cat', { doSample: true, topK: 20, seed: 7 });
  const seed: number = sampled.seed;
  const fromConfig: number | undefined = g.seed;
  // @ts-expect-error: a greedy search has no seed
  void (await gpt2.generate('The cat', { doSample: false })).seed;
  const quiet = await gpt2.generate({ text: 'The cat' }, { returnAttention: false, returnHiddenStates: true });
  const hidden: Float32Array = quiet.hiddenStates;
  // @ts-expect-error: returnAttention false
  void quiet.attentions;
  await gpt2.generate({ inputIds: [464, 3797] }, { headMask: [Uint8Array.of(1, 0, 1, 1)], onStep: (s) => void s.id });
  for await (const s of gpt2.generateSteps('The cat', { maxNewTokens: 4 })) {
    const stepAttention: Float32Array = s.attention;
    const stepRows: number[] = s.attentions.decoder.shape;
    void [stepAttention, stepRows, s.textDelta];
  }
  for await (const s of gpt2.generateSteps('The cat', { doSample: true, returnAttention: false })) {
    const stepSeed: number = s.seed;
    // @ts-expect-error: returnAttention false
    void s.attention;
    void stepSeed;
  }
  // @ts-expect-error: a step takes text or ids, no { text }
  await gpt2.step({ text: 'a' });
  void [logits, rows, past, firstAttention, nextLogits, text, stepScores, attention, seed, fromConfig, hidden];
}

// An encoder-decoder: run() teacher-forced, with its three attention groups; generate() a translation.
export async function encoderDecoder(mt: EncoderDecoderModel): Promise<void> {
  const r = await mt.run('用毒毒毒蛇');
  const cross: Float32Array = r.crossAttention;
  const groups: number[] = r.attentions.cross.shape;
  const decoderIds: Int32Array = r.decoderInputIds;
  // @ts-expect-error: logits only with returnLogits
  void r.logits;
  const forced = await mt.run(
    { text: '用毒', decoderInputIds: [65000] },
    { returnLogits: true, returnHiddenStates: true, headMask: { cross: [new Uint8Array([1, 0, 1, 1])] } },
  );
  const logits: Float32Array = forced.logits;
  const encoderHidden: Float32Array = forced.encoderHiddenStates;
  // @ts-expect-error: a head mask by group
  await mt.run('毒', { headMask: [[1, 0]] });
  // @ts-expect-error: no text pair
  await mt.run({ text: '毒', textPair: '蛇' });
  const g = await mt.generate('用毒毒毒蛇', { numBeams: 4, numReturnSequences: 2 });
  const best: string | null = g.candidates[0].text;
  const gCross: Float32Array = g.crossAttention;
  const gDecoderIds: Int32Array = g.decoderInputIds;
  const seedless = await mt.generate('毒', { returnAttention: false, doSample: false });
  // @ts-expect-error: without attention nor hidden states, no teacher-forced pass: no decoder ids
  void seedless.decoderInputIds;
  // @ts-expect-error: a greedy or beam search has no seed
  void seedless.seed;
  // Sampling, as a decoder's: its seed.
  const sampledSeed: number = (await mt.generate('毒', { doSample: true, topP: 0.9, minP: 0.1 })).seed;
  const maybeSeed: number | undefined = (await mt.generate('毒')).seed;
  await mt.generate('毒', { stopStrings: ['.'], numBeams: 2 });
  void [sampledSeed, maybeSeed];
  const hiddenOnly = await mt.generate('毒', { returnAttention: false, returnHiddenStates: true });
  const hiddenIds: Int32Array = hiddenOnly.decoderInputIds;
  const decoderHidden: Float32Array = hiddenOnly.decoderHiddenStates;
  // @ts-expect-error: returnAttention false
  void hiddenOnly.crossAttention;
  // @ts-expect-error: generate() decides the decoder's ids
  await mt.generate({ text: '毒', decoderInputIds: [65000] });
  // @ts-expect-error: no state between calls: prefill, step and generateSteps are a decoder's
  mt.generateSteps('毒');
  await mt.generate('毒', { numBeams: 1, onStep: (s) => void s.attentions?.cross.shape });
  // @ts-expect-error: an encoder-decoder's head mask is by group (a decoder's is [layers][heads])
  await mt.generate('毒', { headMask: [[1, 0]] });
  // @ts-expect-error: an encoder-decoder's step has its attention by group, no decoder-only `attention`
  await mt.generate('毒', { numBeams: 1, onStep: (s) => void s.attention });
  void [cross, groups, decoderIds, logits, encoderHidden, best, gCross, gDecoderIds, hiddenIds, decoderHidden];
}

// numBeams: 1 keeps a greedy result's step scores in the type.
export async function oneBeam(gpt2: DecoderModel): Promise<void> {
  const scores: Float64Array = (await gpt2.generate('The cat', { numBeams: 1 })).stepScores;
  const n = 3;
  const maybe: Float64Array | undefined = (await gpt2.generate('The cat', { numBeams: n })).stepScores;
  void [scores, maybe];
}
