// mha-wasm/analysis against transformers (tests/fixtures/models/head-analysis/,
// made by tests/tools/make_head_analysis_fixtures.py in float64 with eager
// attention and transformers 4's head_mask emulated) on every build: the
// reference's score and each head's ablation delta, the pruning order, the
// pruning curve's scores and re-decoded outputs, one head per layer and the
// single most important head, and attention rollout; on MarianMT's three
// groups, Qwen2's grouped-query attention, Llama, GPT-2 and BERT's masked-LM
// head. A re-decoded output is compared where transformers' top two logits
// along it are further apart than float32 can blur.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';
import {
  attentionRollout,
  headImportance,
  oneHeadPerLayer,
  pruningCurve,
  withHeadsOff,
} from '../../src/js/analysis/index.mjs';
import { BUILDS, VARIANTS } from './helpers/engines.mjs';

const MODELS = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
const FIXTURES = path.join(MODELS, 'head-analysis');
const NAMES = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.slice(0, -'.json'.length))
  .sort();
const fixture = Object.fromEntries(
  NAMES.map((name) => [name, JSON.parse(readFileSync(path.join(FIXTURES, `${name}.json`), 'utf8'))]),
);
// Sums of float32 log-probabilities over up to 20 tokens against float64 ones.
const SCORE_ABS = 5e-4;
// Below this gap between the top two logits, float32 may pick the other token.
const MARGIN = 1e-3;

const ids = (a) => Array.from(a);
const inputOf = (fx) => ({ inputIds: fx.input.inputIds });
const referenceOptions = (fx) => ({
  reference: { outputIds: fx.reference.outputIds },
  ...(fx.input.positions && { positions: fx.input.positions }),
});
const importanceOf = (fx) => ({
  groups: Object.fromEntries(Object.entries(fx.delta).map(([group, delta]) => [group, { delta }])),
});

describe.each(VARIANTS)('%s build', (variant) => {
  let engine;
  const models = {};
  beforeAll(async () => {
    engine = await createAttention(BUILDS[variant]);
    for (const name of NAMES) models[name] = await engine.loadModel(path.join(MODELS, name));
  });
  afterAll(() => engine?.dispose());

  test.each(NAMES)('%s: the score and every head’s ablation delta, as transformers’', async (name) => {
    const fx = fixture[name];
    const r = await headImportance(models[name], inputOf(fx), referenceOptions(fx));
    expect(Math.abs(r.reference.score - fx.reference.score)).toBeLessThan(SCORE_ABS);
    expect(Object.keys(r.groups)).toEqual(Object.keys(fx.delta));
    for (const [group, want] of Object.entries(fx.delta)) {
      expect(r.groups[group].shape).toEqual(fx.shape[group]);
      want.forEach((d, i) =>
        expect([group, i, Math.abs(r.groups[group].delta[i] - d) < SCORE_ABS]).toEqual([group, i, true]),
      );
    }
    // The order: every head once, by decreasing delta; transformers' order where its deltas are apart.
    expect(r.order).toHaveLength(fx.order.length);
    for (let i = 1; i < r.order.length; i++) expect(r.order[i - 1].delta).toBeGreaterThanOrEqual(r.order[i].delta);
    const pyDelta = (h) => fx.delta[h.group][h.layer * fx.shape[h.group][1] + h.head];
    for (let i = 0; i < r.order.length; i++)
      for (let j = i + 1; j < r.order.length; j++)
        expect(pyDelta(r.order[i])).toBeGreaterThan(pyDelta(r.order[j]) - 2 * SCORE_ABS);
    expect(r.timing.passes).toBe(fx.order.length);
  });

  test.each(NAMES)('%s: the default reference is the model’s own output', async (name) => {
    const fx = fixture[name];
    const options = {
      ...(fx.input.positions && { positions: fx.input.positions }),
      ...(fx.kind === 'decoder' && { newTokens: fx.reference.outputIds.length }),
    };
    const r = await headImportance(models[name], inputOf(fx), options);
    if (fx.curves.all[0].margin > MARGIN) expect(ids(r.reference.outputIds)).toEqual(fx.reference.outputIds);
    expect(Math.abs(r.reference.score - fx.reference.score)).toBeLessThan(SCORE_ABS);
  });

  test.each(NAMES)('%s: the pruning curve, per group and overall', async (name) => {
    const fx = fixture[name];
    const r = await pruningCurve(models[name], inputOf(fx), { ...referenceOptions(fx), importance: importanceOf(fx) });
    expect(Object.keys(r.curves)).toEqual(Object.keys(fx.curves));
    for (const [line, points] of Object.entries(fx.curves)) {
      expect(r.curves[line].map((p) => p.headsOff)).toEqual(points.map((p) => p.headsOff));
      points.forEach((want, k) => {
        const got = r.curves[line][k];
        expect(got.fraction).toBe(k / fx.steps);
        expect([line, k, Math.abs(got.score - want.score) < SCORE_ABS]).toEqual([line, k, true]);
        if (want.margin > MARGIN) expect([line, k, ids(got.output.outputIds)]).toEqual([line, k, want.outputIds]);
        const off = Object.values(got.mask)
          .flat(2)
          .filter((v) => v === 0).length;
        expect(off).toBe(want.headsOff);
      });
    }
    // Nothing off is the reference itself; everything off in a line switches all its heads off.
    expect(r.curves.all[0].score).toBe(r.reference.score);
  });

  test.each(NAMES)('%s: one head per layer, and the single most important head', async (name) => {
    const fx = fixture[name];
    const r = await oneHeadPerLayer(models[name], inputOf(fx), {
      ...referenceOptions(fx),
      importance: importanceOf(fx),
    });
    for (const [group, layers] of Object.entries(fx.oneHead.layers))
      layers.forEach((want, l) => {
        const got = r.layers[group][l];
        expect([got.layer, got.head]).toEqual([want.layer, want.head]);
        expect(Math.abs(got.score - want.score)).toBeLessThan(SCORE_ABS);
      });
    for (const [group, want] of Object.entries(fx.oneHead.single)) {
      const got = r.single[group];
      expect([got.layer, got.head]).toEqual([want.layer, want.head]);
      expect(Math.abs(got.score - want.score)).toBeLessThan(SCORE_ABS);
      if (want.margin > MARGIN) expect(ids(got.output.outputIds)).toEqual(want.outputIds);
    }
    if (fx.oneHead.singleAll) {
      expect(Math.abs(r.singleAll.score - fx.oneHead.singleAll.score)).toBeLessThan(SCORE_ABS);
      if (fx.oneHead.singleAll.margin > MARGIN)
        expect(ids(r.singleAll.output.outputIds)).toEqual(fx.oneHead.singleAll.outputIds);
    } else expect(r).not.toHaveProperty('singleAll');
  });

  test.each(NAMES)(
    '%s: withHeadsOff — the pruning points’ masks and one head alone, as transformers’',
    async (name) => {
      const fx = fixture[name];
      const model = models[name];
      // The mask of the first `n` heads of transformers' order (of the line's groups) switched off.
      const maskOf = (heads) =>
        Object.fromEntries(
          Object.entries(fx.shape).map(([group, [layers, H]]) => [
            group,
            Array.from({ length: layers }, (_, l) =>
              Array.from({ length: H }, (_, h) =>
                heads.some((o) => o.group === group && o.layer === l && o.head === h) ? 0 : 1,
              ),
            ),
          ]),
        );
      const options = referenceOptions(fx);
      const points = fx.curves.all;
      for (const k of [1, Math.floor(fx.steps / 2), fx.steps]) {
        const want = points[k];
        const r = await withHeadsOff(model, inputOf(fx), {
          ...options,
          headMask: maskOf(fx.order.slice(0, want.headsOff)),
        });
        expect([k, Math.abs(r.score - want.score) < SCORE_ABS]).toEqual([k, true]);
        expect(r.delta).toBe(r.score - r.reference.score);
        if (want.margin > MARGIN) expect([k, ids(r.output.outputIds)]).toEqual([k, want.outputIds]);
      }
      // One head alone: its delta in the grid.
      const [group, [, H]] = Object.entries(fx.shape).at(-1);
      const one = await withHeadsOff(model, inputOf(fx), {
        ...options,
        headMask: maskOf([{ group, layer: 1, head: H - 1 }]),
      });
      expect(Math.abs(one.delta - fx.delta[group][H + H - 1])).toBeLessThan(SCORE_ABS);
      expect(one.timing.passes).toBe(2);
    },
  );

  test.each(NAMES)('%s: attention rollout of each self-attention group', async (name) => {
    const fx = fixture[name];
    const input =
      fx.kind === 'encoder-decoder'
        ? { inputIds: fx.input.inputIds, decoderInputIds: fx.reference.outputIds.slice(0, -1) }
        : inputOf(fx);
    const r = await attentionRollout(models[name], input);
    expect(Object.keys(r.groups)).toEqual(Object.keys(fx.rollout));
    for (const [group, want] of Object.entries(fx.rollout)) {
      expect(r.groups[group].shape).toEqual(want.shape);
      let worst = 0;
      want.data.forEach((x, i) => (worst = Math.max(worst, Math.abs(x - r.groups[group].data[i]))));
      expect([group, worst < 1e-5]).toEqual([group, true]);
      // Each row of a rollout sums to 1 (every attention row does, and so does the identity's half).
      const [layers, L] = want.shape;
      for (let row = 0; row < layers * L; row++) {
        let sum = 0;
        for (let j = 0; j < L; j++) sum += r.groups[group].data[row * L + j];
        expect(Math.abs(sum - 1)).toBeLessThan(1e-5);
      }
    }
  });
});
