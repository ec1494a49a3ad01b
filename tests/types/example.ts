// Uses the whole public API as a TypeScript program would; type-checked only
// (tsc --noEmit), never run. Lines marked @ts-expect-error are misuse the
// declarations must reject: if a declaration drifts, tsc fails.
import { createAttention } from 'mha-wasm';
import { createAttention as createWithTrainer } from 'mha-wasm/train';
import {
  createAttention as createWithModels,
  listModelFiles,
  parseModelName,
  pickModelFiles,
  DEFAULT_HUB_ENDPOINT,
} from 'mha-wasm/model';
import {
  attentionRollout,
  headImportance,
  logitLens,
  oneHeadPerLayer,
  pruningCurve,
  withHeadsOff,
} from 'mha-wasm/analysis';
import type { HeadImportance, LogitLens, PruningPoint } from 'mha-wasm/analysis';
import type {
  AttentionEngine,
  AttentionGradients,
  AttentionLayer,
  ForwardArgs,
  LayerArgs,
  MemoryStats,
  ModelConfig,
  TransformerModel,
  Projections,
  CreateAttentionOptions,
  MultiHeadAttentionArgs,
  MultiHeadAttentionResult,
  Variant,
  AttentionTrainer,
  TrainerOptions,
  TrainerParameters,
  Evaluation,
  ErrorCode,
  MhaErrorFields,
  SpecialToken,
} from 'mha-wasm';

const variants: Variant[] = ['threaded-simd', 'simd', 'scalar'];

const options: CreateAttentionOptions = {
  variant: variants[0],
  threads: 2,
  locateFile: (fileName: string, defaultUrl: string) => new URL(fileName, defaultUrl),
  wasmBinary: new Uint8Array(8),
};
const withArrayBuffer: CreateAttentionOptions = {
  variant: 'scalar',
  wasmBinary: new ArrayBuffer(8),
  locateFile: (f) => `/static/${f}`,
};

export async function everyCall(): Promise<number> {
  const engine: AttentionEngine = await createAttention(options);
  const defaults: AttentionEngine = await createAttention();
  const other = await createAttention(withArrayBuffer);
  const variant: Variant = engine.variant;
  const threads: number = engine.threads;
  const maxElements: number = engine.limits.maxElements + (engine.limits.trainer?.maxLength ?? 0);

  const B = 2,
    L = 4,
    D = 8,
    H = 2,
    dK = 4,
    dV = 4;
  const f = (n: number) => new Float32Array(n);
  const args: MultiHeadAttentionArgs = {
    query: f(B * L * D),
    key: f(B * L * D),
    value: f(B * L * D),
    batch: B,
    seqLenQ: L,
    seqLenK: L,
    dModel: D,
    numHeads: H,
    dK,
    dV,
    wQ: f(D * H * dK),
    wK: f(D * H * dK),
    wV: f(D * H * dV),
    wO: f(H * dV * D),
    bQ: f(H * dK),
    bK: null,
    bV: f(H * dV),
    bO: undefined,
    causal: true,
    keyPaddingMask: new Uint8Array(B * L),
    returnAttention: false,
  };

  // returnAttention: true promises both arrays.
  const both = await engine.multiHeadAttention({ ...args, returnAttention: true });
  const weights: Float32Array = both.attention;
  // Otherwise the attention may be absent.
  const maybe: MultiHeadAttentionResult = await engine.multiHeadAttention(args);
  const output: Float32Array = maybe.output;
  const optional: Float32Array | undefined = maybe.attention;
  // @ts-expect-error without returnAttention: true, attention may be undefined
  const notSure: number = maybe.attention.length;

  // The minimal self-attention call.
  const minimal = await defaults.multiHeadAttention({
    query: f(L * D),
    seqLenQ: L,
    dModel: D,
    numHeads: H,
    wQ: f(64),
    wK: f(64),
    wV: f(64),
    wO: f(64),
  });

  // @ts-expect-error not a variant
  await createAttention({ variant: 'avx2' });
  // @ts-expect-error unknown option
  await createAttention({ varient: 'simd' });
  // @ts-expect-error threads is a number
  await createAttention({ threads: '2' });
  // @ts-expect-error query is required
  await engine.multiHeadAttention({ seqLenQ: L, dModel: D, numHeads: H, wQ: f(64), wK: f(64), wV: f(64), wO: f(64) });
  // @ts-expect-error query must be a Float32Array
  await engine.multiHeadAttention({ ...args, query: new Float64Array(B * L * D) });
  // @ts-expect-error keyPaddingMask is a Uint8Array
  await engine.multiHeadAttention({ ...args, keyPaddingMask: new Float32Array(B * L) });
  // @ts-expect-error causal is a boolean
  await engine.multiHeadAttention({ ...args, causal: 1 });
  const misspelled = {
    query: f(32),
    seqLenQ: L,
    dModel: D,
    numhead: H,
    numHeads: H,
    wQ: f(64),
    wK: f(64),
    wV: f(64),
    wO: f(64),
  };
  // @ts-expect-error misspelled argument (refused at run time too), also when spread from another object
  await engine.multiHeadAttention({ ...misspelled });

  // @ts-expect-error the variant is read-only
  engine.variant = 'scalar';

  // Intermediate matrices for teaching views.
  const withProjections = await engine.multiHeadAttention({ ...args, returnProjections: true });
  const projections: Projections | undefined = withProjections.projections;
  const concatWidth: number = projections ? projections.concat.length / (B * L) : 0;

  // Weights packed once, activations per call.
  const layerArgs: LayerArgs = {
    dModel: D,
    numHeads: H,
    dK,
    dV,
    wQ: args.wQ,
    wK: args.wK,
    wV: args.wV,
    wO: args.wO,
    bQ: args.bQ,
  };
  const layer: AttentionLayer = await engine.createLayer(layerArgs);
  // @ts-expect-error an activation belongs to forward, not createLayer (refused at run time too)
  await engine.createLayer({ ...layerArgs, query: f(32) });
  const forwardArgs: ForwardArgs = { query: f(B * L * D), batch: B, seqLenQ: L, causal: true };
  const viaLayer = await layer.forward({ ...forwardArgs, returnAttention: true });
  const layerWeights: Float32Array = viaLayer.attention;
  const heads: number = layer.numHeads + layer.dK + layer.dV + layer.dModel;
  // @ts-expect-error weights belong to createLayer, not forward
  await layer.forward({ ...forwardArgs, wQ: f(64) });
  const into = f(B * L * D);
  const written: Float32Array = (await layer.forward({ ...forwardArgs, output: into })).output;
  // @ts-expect-error output is a Float32Array
  await layer.forward({ ...forwardArgs, output: new Float64Array(B * L * D) });
  layer.dispose();
  // The backward pass takes no return* flags: they are left out of its arguments.
  const { returnAttention: _ra, returnProjections: _rp, returnScores: _rs, ...backwardArgs } = args;
  const grads: AttentionGradients = await engine.multiHeadAttentionBackward({
    ...backwardArgs,
    gradOutput: f(B * L * D),
  });
  const gradWeights: Float32Array = grads.gradWQ;
  const maybeKey: Float32Array | undefined = grads.gradKey;
  // @ts-expect-error the backward pass takes no return* flags
  await engine.multiHeadAttentionBackward({ ...args, gradOutput: f(B * L * D), returnAttention: true });
  const stats: MemoryStats = await engine.memoryStats();
  const bytes: number = stats.heapBytes + stats.inUseBytes + stats.scratchBytes;

  // Training, in the build with the trainer.
  const trainingEngine: AttentionEngine = await createWithTrainer({ training: true, threads: 2 });
  const trainerOptions: TrainerOptions = {
    vocabSize: 12,
    numTags: 4,
    maxLength: 15,
    numHeads: 2,
    mlpHidden: 64,
    seed: 3,
  };
  const trainer: AttentionTrainer = await trainingEngine.createTrainer(trainerOptions);
  await trainer.setData({
    sentences: [
      { tokens: [0, 1, 2], tags: [3, -1, 1] },
      { tokens: Int32Array.of(4, 5), tags: [0, 0] },
    ],
  });
  const { losses, step } = await trainer.train({ steps: 100, batchSize: 16 });
  const evaluation: Evaluation = await trainer.evaluate({ sentences: [{ tokens: [0, 1, 2] }] });
  const learned: Float32Array = (await trainer.evaluate({ sentences: [{ tokens: [0, 1] }], returnAttention: true }))
    .attention;
  const params: TrainerParameters = await trainer.parameters();
  await trainer.setParameters({ wQ: params.wQ });
  const width: number = trainer.config.dModel / trainer.config.numHeads;
  // @ts-expect-error steps is required
  await trainer.train({ batchSize: 8 });
  // @ts-expect-error tokens are ids, not characters
  await trainer.evaluate({ sentences: [{ tokens: '毒蛇' }], returnAttention: 'yes' });
  trainer.dispose();
  trainingEngine.dispose();
  const trained =
    losses.length +
    step +
    evaluation.loss +
    evaluation.predictions.length +
    learned.length +
    width +
    (trainingEngine.training ? 1 : 0);

  engine.dispose();
  defaults.dispose();
  other.dispose();
  return (
    trained +
    variant.length +
    threads +
    maxElements +
    weights.length +
    output.length +
    (optional?.length ?? 0) +
    notSure +
    minimal.output.length +
    concatWidth +
    layerWeights.length +
    written.length +
    heads +
    bytes +
    gradWeights.length +
    (maybeKey?.length ?? 0)
  );
}

// In browsers, the engine whose loadModel() loads checkpoints comes from 'mha-wasm/model'.
export const withModels: Promise<AttentionEngine> = createWithModels({ variant: 'simd' });

// Models: a folder or its files; the config, tokens and per-layer arrays; each kind's calls (tests/types/kinds.ts
// checks what each returns and refuses).
export async function models(engine: AttentionEngine, files: File[]): Promise<number> {
  const model = await engine.loadModel('checkpoints/bert-base-chinese', {
    kind: 'encoder',
    onProgress: ({ loadedBytes, totalBytes }) => loadedBytes / totalBytes,
  });
  const fromFiles: TransformerModel = await engine.loadModel(files);
  const controller = new AbortController();
  const byName = await engine.loadModel('google-bert/bert-base-chinese', {
    revision: 'main',
    endpoint: 'https://huggingface.co',
    cacheDir: '/tmp/hf',
    token: 'hf_x',
    offline: false,
    signal: controller.signal,
    onProgress: ({ phase, file, fileLoadedBytes }) => (phase === 'download' ? `${file} ${fileLoadedBytes ?? 0}` : ''),
  });
  await engine.loadModel(new URL('https://huggingface.co/gpt2'));
  const held = await engine.loadModel('Qwen/Qwen2.5-0.5B', { weights: 'bf16' });
  const heldAs: 'float32' | 'bf16' | 'f16' | 'q8' | 'q4' | 'gguf' = held.config.weights;
  const q4 = await engine.loadModel('Qwen/Qwen2.5-0.5B', { weights: 'q4' });
  const matrices: number | undefined = q4.config.weightTypes.Q4_0;
  void [heldAs, held.config.weightBytes, matrices];
  // @ts-expect-error weightTypes is read-only
  q4.config.weightTypes.Q4_0 = 1;
  // @ts-expect-error weights is a storage name
  await engine.loadModel('gpt2', { weights: 'fp16' });
  // @ts-expect-error offline is a boolean
  await engine.loadModel('gpt2', { offline: 'yes' });
  const likeLlama = await engine.loadModel('Qwen/Qwen2.5-0.5B-Instruct-GGUF', {
    file: 'qwen2.5-0.5b-instruct-q8_0.gguf',
    activations: 'llama.cpp',
  });
  const rounded: 'float32' | 'llama.cpp' = likeLlama.config.activations;
  void rounded;
  // @ts-expect-error activations is 'float32' or 'llama.cpp'
  await engine.loadModel('gpt2', { activations: 'q8' });
  void byName;
  const { modelType, numLayers, maxLength }: ModelConfig = model.config;
  const r = await model.run('用毒毒毒蛇，毒蛇会不会被毒毒死', { returnHiddenStates: true });
  const pair =
    fromFiles.kind === 'encoder' ? await fromFiles.run({ text: '用毒毒毒蛇', textPair: '蛇会被毒死吗？' }) : r;
  const ids = await model.run({ inputIds: [101, 102], tokenTypeIds: new Int32Array(2) });
  const [layers, , queries, keys] = r.attentions.encoder.shape;
  // Every layer's queries and keys, for a head's q·k: [numLayers, numHeads | numKVHeads, L, headDim].
  const qk = await model.run('用毒', { returnQueryKey: true });
  const { headDim, numKVHeads } = model.config;
  const dots: number = qk.queryKeyScale * qk.query[0] * qk.key[0] * headDim * numKVHeads;
  void dots;
  // What each head writes, by group: ‖f_h(x_j)‖ and each head's output norm, [numLayers, numHeads, L].
  const written = await model.run('用毒', { returnHeadOutputs: true });
  // @ts-expect-error an encoder has no logit lens
  if (model.kind === 'encoder') await model.run('用毒', { returnLayerLogits: { positions: [0] } });
  const valueNorms: Float32Array = written.headOutputs.encoder.valueNorms.data;
  const [, , writtenL] = written.headOutputs.encoder.headOutputNorms.shape;
  void [valueNorms, writtenL];
  const specials: number = r.special.reduce((n, x) => n + x, 0) + model.specialTokens.length;
  void [layers, queries, keys, specials];
  if (fromFiles.kind === 'decoder' && fromFiles.config.causal) {
    const decoder = fromFiles;
    const first = await decoder.prefill('the snake', { returnAttention: true });
    const next = await decoder.step({ inputIds: [262] });
    const pastBefore: number = next.past + first.past + decoder.past;
    await decoder.reset();
    // @ts-expect-error a step takes no text pair
    await decoder.step({ text: 'a', textPair: 'b' });
    // @ts-expect-error a step's keys would be its new tokens' alone: run() returns the queries and keys
    await decoder.step({ inputIds: [262] }, { returnQueryKey: true });
    // @ts-expect-error nor what each head writes (run()'s)
    await decoder.prefill('the snake', { returnHeadOutputs: true });
    // @ts-expect-error generate() returns no head outputs: run() over its outputIds does
    await decoder.generate('a', { returnHeadOutputs: true });
    // The logit lens at the last position: [numLayers + 1, 1, vocabSize].
    const lensed = await decoder.run({ inputIds: [262, 263] }, { returnLayerLogits: { positions: [1] } });
    const lensRows: Float32Array = lensed.layerLogits;
    void lensRows;
    // @ts-expect-error a step returns no layer logits (run()'s)
    await decoder.step({ inputIds: [262] }, { returnLayerLogits: { positions: [0] } });
    // @ts-expect-error positions, not a count
    await decoder.run('a', { returnLayerLogits: { positions: 1 } });
    // The step stream: each token, the logits it came from and the attention of the tokens fed for it.
    for await (const s of decoder.generateSteps('Once upon a time', { maxNewTokens: 8 })) {
      const row: Float32Array = s.logits;
      const shape: number[] = s.attentions.decoder.shape;
      void [row, shape, s.token, s.score + s.step + s.id];
    }
    // @ts-expect-error a stream has no callbacks: its steps are its values
    decoder.generateSteps('a', { onToken: () => {} });
    await decoder.generate('a', { onStep: async ({ id, attention }) => void [id, attention?.length] });
    void pastBefore;
  }
  if (fromFiles.kind === 'encoder-decoder') {
    const mt = fromFiles;
    // A translation: teacher-forced, then generated with heads switched off.
    const forced = await mt.run(
      { text: '用毒毒毒蛇，毒蛇会不会被毒毒死', decoderInputIds: [65000, 12] },
      { returnLogits: true, headMask: { cross: [[1, 0, 1, 1]] } },
    );
    const cross: Float32Array = forced.crossAttention;
    const g = await mt.generate('用毒毒毒蛇，毒蛇会不会被毒毒死', {
      numBeams: 4,
      numReturnSequences: 2,
      onToken: ({ tokens }) => tokens.join(''),
    });
    await mt.generate('毒', { numBeams: 1, onStep: ({ attentions }) => void attentions?.cross.shape });
    const best: string | null = g.text;
    const scores: number[] = g.candidates.map((c) => c.score);
    // @ts-expect-error: early stopping is a boolean or 'never'
    await mt.generate('毒', { earlyStopping: 'always' });
    // @ts-expect-error: an encoder-decoder's run() returns no queries and keys
    await mt.run({ text: '毒', decoderInputIds: [65000] }, { returnQueryKey: true });
    // What each head writes in the three groups; the cross-attention's values are the encoder's positions.
    const heads = await mt.run({ text: '毒', decoderInputIds: [65000] }, { returnHeadOutputs: true });
    const crossValues: Float32Array = heads.headOutputs.cross.valueNorms.data;
    // The logit lens of the decoder at its first position.
    const seqLens = await mt.run({ text: '毒', decoderInputIds: [65000] }, { returnLayerLogits: { positions: [0] } });
    void seqLens.layerLogits.length;
    void [cross, best, scores, crossValues, mt.config.decoderLayers + g.outputIds.length];
  }
  // @ts-expect-error: not an input field
  await model.run({ ids: [1] });
  const tokens: string[] = r.tokens;
  const attention: Float32Array = r.attention;
  const memory = (await engine.memoryStats()).models?.inUseBytes ?? 0;
  model.dispose();
  return (
    modelType.length +
    numLayers +
    maxLength +
    tokens.length +
    attention.length +
    memory +
    pair.lastHiddenState.length +
    ids.inputIds.length +
    r.hiddenStates.length
  );
}

// A Hub repo's files before loading it; errors by code; special tokens by role.
export async function beforeLoading(model: TransformerModel): Promise<number> {
  const listed = await listModelFiles('Qwen/Qwen2.5-0.5B', { revision: 'main', endpoint: DEFAULT_HUB_ENDPOINT });
  const sizes: (number | undefined)[] = listed.files.map((f) => f.size);
  const bytes: number = listed.download?.bytes ?? 0;
  // @ts-expect-error: listModelFiles takes the Hub's options only
  await listModelFiles('org/name', { weights: 'bf16' });
  const repo: string | undefined = parseModelName('https://huggingface.co/org/name')?.repo;
  // A user's files: the checkpoint's records (their own type kept), and those read besides the weights.
  const dropped = [{ path: 'bert/config.json', size: 1, file: new Blob([]) }];
  const picked = pickModelFiles(dropped);
  const given: Blob[] = picked.files.map((e) => e.file);
  const read: number = picked.read.length + picked.folder.length + given.length;
  // @ts-expect-error: records need a path
  pickModelFiles([{ name: 'config.json' }]);
  const mask: SpecialToken | undefined = model.specialTokens.mask;
  const firstId: number = model.specialTokens[0].id;
  // @ts-expect-error: not a role
  void model.specialTokens.separator;
  let code: ErrorCode | undefined;
  try {
    await listModelFiles(new URL('https://huggingface.co/org/name'));
  } catch (error) {
    const fields = error as MhaErrorFields;
    code = fields.code;
    // @ts-expect-error: not a code
    if (fields.code === 'NotFound') code = undefined;
  }
  return sizes.length + bytes + read + (repo?.length ?? 0) + (mask?.id ?? 0) + firstId + (code?.length ?? 0);
}

// Which heads a translation needs (mha-wasm/analysis): the grid, the curve, one head per layer, the rollout.
export async function analyse(model: TransformerModel): Promise<number> {
  const controller = new AbortController();
  const importance: HeadImportance = await headImportance(model, '用毒毒毒蛇', {
    signal: controller.signal,
    onProgress: ({ done, total }) => void (done / total),
  });
  const cross: Float64Array | undefined = importance.groups.cross?.delta;
  const curve = await pruningCurve(model, '用毒毒毒蛇', { importance, steps: 5 });
  const points: PruningPoint[] = curve.curves.all ?? [];
  const text: string | null | undefined = points[points.length - 1]?.output.text;
  const one = await oneHeadPerLayer(model, { text: '用毒' }, { importance, maxNewTokens: 8 });
  const rollout = await attentionRollout(model, '用毒');
  const off = await withHeadsOff(model, '用毒', { headMask: { cross: [[0, 1]] }, maxNewTokens: 8 });
  const without: string | null | undefined = off.output.text;
  // @ts-expect-error: withHeadsOff needs the heads to switch off
  await withHeadsOff(model, '用毒', {});
  // @ts-expect-error: steps is a number
  await pruningCurve(model, 'x', { steps: '10' });
  // @ts-expect-error: the cross-attention is not rolled out
  void rollout.groups.cross;
  // The logit lens: per layer the top tokens and the final token's rank.
  const lens: LogitLens = await logitLens(model, '用毒', { position: 1, topK: 3, target: 5 });
  const ranks: number[] = lens.layers.map((l) => l.finalTop.rank + (l.target?.rank ?? 0) + l.top[0].probability);
  void [ranks, lens.finalTop.text, lens.decoderTokens];
  // @ts-expect-error: position is a number
  await logitLens(model, 'x', { position: 'last' });
  return (
    (cross?.length ?? 0) +
    (text?.length ?? 0) +
    (one.single.encoder?.score ?? 0) +
    importance.timing.msPerPass +
    off.delta +
    (without?.length ?? 0)
  );
}
