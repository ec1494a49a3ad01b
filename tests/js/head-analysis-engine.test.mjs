// mha-wasm/analysis as a caller meets it: the pruning order and curve the
// same bits on 1 and 3 threads; MarianMT's passes that keep the encoder's
// output (decoder and cross heads off) the same bits as run() with that mask;
// onProgress counts every pass and a signal stops between passes; bad
// arguments refused by name; and on karpathy's trained stories260K (a Llama,
// ../shared/fixtures/real), properties that hold for a trained model's story:
// its heads are not interchangeable, some can go with the continuation kept,
// all of them cannot. Through a Worker engine, the same bits.
import { fileURLToPath } from 'node:url';
import {
  attentionRollout,
  headImportance,
  oneHeadPerLayer,
  pruningCurve,
  withHeadsOff,
} from '../../src/js/analysis/index.mjs';
import { logProbability } from '../../src/js/analysis/reference.mjs';
import { folder } from './helpers/checkpoints.mjs';
import { enginesForTests, HERE_AND_IN_A_WORKER, onEachEngine, ONE_AND_THREE_THREADS } from './helpers/engines.mjs';

const STORIES = fileURLToPath(new URL('../../../shared/fixtures/real/stories260K/', import.meta.url));
const PROMPT = 'Once upon a time, there was a little girl named Lily. She loved to play';
const SENTENCE = '用毒毒毒蛇，毒蛇会不会被毒毒死';

const bits = (x) => Array.from(new Float64Array([x]).buffer.slice(0));
const flat = (r) =>
  Object.values(r.groups).flatMap((g) => Array.from(g.delta, (d) => new Uint8Array(Float64Array.of(d).buffer)));

const engines = enginesForTests(ONE_AND_THREE_THREADS);

test.each(['hf-marian', 'hf-qwen2', 'hf-bert-mlm'])(
  '%s: the pruning order and curve are the same bits on 1 and 3 threads',
  async (name) => {
    const input = name === 'hf-bert-mlm' ? '用[MASK]毒蛇' : SENTENCE;
    const options = name === 'hf-qwen2' ? { newTokens: 4 } : {};
    const [a, b] = await Promise.all([engines.one, engines.three].map((e) => e.loadModel(folder(name))));
    const [x, y] = await Promise.all([a, b].map((m) => pruningCurve(m, input, options)));
    expect(x.order).toEqual(y.order);
    expect(x.order.map((h) => bits(h.delta))).toEqual(y.order.map((h) => bits(h.delta)));
    expect(bits(x.reference.score)).toEqual(bits(y.reference.score));
    for (const [line, points] of Object.entries(x.curves))
      points.forEach((p, k) => {
        const q = y.curves[line][k];
        expect([line, k, bits(p.score), Array.from(p.output.outputIds)]).toEqual([
          line,
          k,
          bits(q.score),
          Array.from(q.output.outputIds),
        ]);
      });
    a.dispose();
    b.dispose();
  },
);

test("a BERT's curve point is one run(): its score and its fill read the same logits", async () => {
  const model = await engines.one.loadModel(folder('hf-bert-mlm'));
  const importance = await headImportance(model, '用[MASK]毒蛇');
  // The model with its run() counted (a frozen object: a proxy, every other member the model's own).
  let runs = 0;
  const counted = new Proxy(model, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (key === 'run')
        return (...args) => {
          runs += 1;
          return value.apply(target, args);
        };
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const curve = await pruningCurve(counted, '用[MASK]毒蛇', { importance });
  // One run() for the reference, one a point (one group: its line is the whole curve).
  expect(runs).toBe(1 + curve.curves.all.length);
  expect(Object.keys(curve.curves)).toEqual(['encoder', 'all']);
  model.dispose();
});

test("MarianMT: a pass that keeps the encoder's output is run()'s with that mask, bit for bit", async () => {
  const model = await engines.one.loadModel(folder('hf-marian'));
  const r = await headImportance(model, SENTENCE);
  const { inputIds, outputIds } = r.reference;
  const V = model.config.vocabSize;
  const rows = (layers, heads, off) =>
    Array.from({ length: layers }, (_, l) => Array.from({ length: heads }, (_, h) => (off(l, h) ? 0 : 1)));
  const { decoderLayers: Ld, decoderHeads: H } = model.config;
  // The last head of each group: decoder and cross passes reuse the encoding, the encoder's does not.
  for (const group of ['encoder', 'decoder', 'cross']) {
    const [layers, heads] = r.groups[group].shape;
    const mask = rows(group === 'encoder' ? model.config.numLayers : Ld, group === 'encoder' ? heads : H, (l, h) => {
      return l === layers - 1 && h === heads - 1;
    });
    const { logits } = await model.run(
      { inputIds, decoderInputIds: outputIds.subarray(0, outputIds.length - 1) },
      { returnAttention: false, returnLogits: true, headMask: { [group]: mask } },
    );
    let score = 0;
    for (let t = 1; t < outputIds.length; t++) score += logProbability(logits, t - 1, V, outputIds[t]);
    expect([group, bits(r.groups[group].delta[layers * heads - 1])]).toEqual([group, bits(score - r.reference.score)]);
  }
  // Another call in between encodes something else: the next pass encodes its own input again.
  const again = await headImportance(model, SENTENCE);
  await model.run('蛇', { returnAttention: false });
  expect(flat(await headImportance(model, SENTENCE))).toEqual(flat(again));
  model.dispose();
});

test('through a Worker engine, the same bits as on this thread', () =>
  onEachEngine(HERE_AND_IN_A_WORKER, ['hf-marian'], async (name, models) => {
    const [x, y] = await Promise.all(models.map((m) => headImportance(m, SENTENCE)));
    expect(flat(y)).toEqual(flat(x));
    expect(Array.from(y.reference.outputIds)).toEqual(Array.from(x.reference.outputIds));
  }));

test('onProgress counts every pass; a signal stops the analysis between passes', async () => {
  const model = await engines.one.loadModel(folder('hf-gpt2-lm'));
  const seen = [];
  const r = await headImportance(model, SENTENCE, { onProgress: (p) => seen.push(p) });
  expect(seen).toEqual(
    Array.from({ length: r.timing.passes }, (_, i) => ({ phase: 'importance', done: i + 1, total: 8 })),
  );
  expect(r.timing.msPerPass).toBeGreaterThan(0);
  const controller = new AbortController();
  const stopped = pruningCurve(model, SENTENCE, {
    signal: controller.signal,
    onProgress: ({ phase, done }) => phase === 'importance' && done === 3 && controller.abort(),
  });
  await expect(stopped).rejects.toMatchObject({ name: 'AbortError' });
  const aborted = AbortSignal.abort();
  await expect(attentionRollout(model, SENTENCE, { signal: aborted })).rejects.toMatchObject({ name: 'AbortError' });
  // The model goes on.
  expect((await headImportance(model, SENTENCE)).groups.decoder.delta).toEqual(r.groups.decoder.delta);
  model.dispose();
});

describe('bad arguments are refused by name', () => {
  let gpt2, bert, encoder;
  beforeAll(async () => {
    [gpt2, bert, encoder] = await Promise.all(
      ['hf-gpt2-lm', 'hf-bert-mlm', 'hf-roberta'].map((name) => engines.one.loadModel(folder(name))),
    );
  });

  test.each([
    [
      () => headImportance({}, 'x'),
      TypeError,
      'headImportance: expected a model from engine.loadModel() as its first argument, got',
    ],
    [
      () => pruningCurve(gpt2, 'x', 3),
      TypeError,
      'pruningCurve options: expected an object such as { signal, onProgress }, got number 3',
    ],
    [
      () => pruningCurve(gpt2, 'x', { step: 3 }),
      TypeError,
      'pruningCurve: unknown argument "step" (did you mean "steps"?)',
    ],
    [() => pruningCurve(gpt2, 'x', { steps: 0 }), RangeError, 'steps: expected 1 to 100, got 0'],
    [() => headImportance(gpt2, 'x', { newTokens: 0 }), RangeError, 'newTokens: expected an integer ≥ 1, got number 0'],
    [() => headImportance(gpt2, 'x', { signal: 'stop' }), TypeError, 'signal: expected an AbortSignal, got'],
    [() => headImportance(gpt2, 'x', { onProgress: 1 }), TypeError, 'onProgress: expected a function'],
    [
      () => headImportance(gpt2, 'x', { reference: { outputIds: [] } }),
      TypeError,
      'reference.outputIds: expected a non-empty array of token ids',
    ],
    [() => headImportance(bert, '用毒蛇'), RangeError, 'input: no [MASK] token to fill'],
    [
      () => headImportance(bert, '用[MASK]', { positions: [99] }),
      RangeError,
      'positions[0]: expected a position from 0 to',
    ],
    [() => headImportance(encoder, 'x'), TypeError, 'has no log-probability to score'],
    [
      () => headImportance(gpt2, 'x', { positions: [1] }),
      TypeError,
      'positions: a gpt2 is a decoder, which takes newTokens (the length of its continuation), not positions',
    ],
    [
      () => headImportance(bert, '用[MASK]', { newTokens: 2 }),
      TypeError,
      'newTokens: a bert is an encoder, which takes positions',
    ],
    [() => attentionRollout(gpt2, 'x', { newTokens: 2 }), TypeError, 'attentionRollout: unknown argument "newTokens"'],
    [
      () => oneHeadPerLayer(gpt2, 'x', { importance: { groups: { decoder: { delta: [1] } } } }),
      TypeError,
      'importance.groups.decoder.delta: expected 8 deltas',
    ],
    [() => withHeadsOff(gpt2, 'x'), TypeError, 'withHeadsOff: expected options.headMask'],
    [
      () => withHeadsOff(gpt2, 'x', { headMask: { encoder: [[1]] } }),
      TypeError,
      'headMask.encoder: this model’s groups are decoder',
    ],
    [
      () => withHeadsOff(gpt2, 'x', { headMask: [[1, 1]] }),
      TypeError,
      'headMask.decoder: expected 2 layers of 4 heads, got',
    ],
    [
      () =>
        withHeadsOff(gpt2, 'x', {
          headMask: [
            [1, 1, 2, 1],
            [1, 1, 1, 1],
          ],
        }),
      TypeError,
      'headMask.decoder[0]: expected 4 values of 0 or 1, got',
    ],
  ])('%#', async (call, type, words) => {
    const error = await call().catch((e) => e);
    expect(error).toBeInstanceOf(type);
    expect(error.message).toContain(words);
    expect(error.code).toBe('InvalidArgument');
  });
});

describe('stories260K, trained: which heads its story needs', () => {
  let model, importance, curve;
  beforeAll(async () => {
    model = await engines.three.loadModel(STORIES);
    importance = await headImportance(model, PROMPT, { newTokens: 8 });
    curve = await pruningCurve(model, PROMPT, { newTokens: 8, importance });
  });

  test('the reference is its own greedy continuation, and its heads are not interchangeable', async () => {
    const greedy = await model.generate(PROMPT, { maxNewTokens: 8, doSample: false, returnAttention: false });
    expect(Array.from(importance.reference.outputIds)).toEqual(Array.from(greedy.outputIds.slice(-8)));
    const deltas = Array.from(importance.groups.decoder.delta);
    expect(deltas).toHaveLength(40);
    // Some head matters far more than the median one.
    const sorted = deltas.map(Math.abs).sort((a, b) => a - b);
    expect(sorted[sorted.length - 1]).toBeGreaterThan(4 * sorted[20]);
  });

  test('its least important heads can go with the continuation kept; all of them cannot', () => {
    const points = curve.curves.decoder;
    const text = (p) => p.output.text;
    expect(text(points[0])).toBe(importance.reference.text);
    expect(text(points[1])).toBe(importance.reference.text);
    expect(text(points[10])).not.toBe(importance.reference.text);
    expect(points[10].score).toBeLessThan(points[0].score - 5);
    expect(curve.curves.all).toBe(curve.curves.decoder);
  });
});
