// An encoder-decoder (MarianMT) through engine.loadModel, against what Hugging
// Face transformers computes for the tiny checkpoints it saved
// (tests/fixtures/models/hf-marian*, tests/tools/make_marian_fixtures.py;
// their reference.json is described in tests/fixtures/models/TRANSFORMERS.md):
// on every build, the teacher-forced run (every encoder, decoder and
// cross-attention weight, both hidden-state stacks, the logits), the same run
// with heads switched off, and generate()'s ids and scores for greedy and beam
// search; a generation's attention equals run() over the ids it fed back, bit
// for bit; onToken's reports; and the refusals.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';
import { expectNear, sameBits as same } from './helpers/compare.mjs';

const MODELS = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
const reference = (name) => JSON.parse(readFileSync(path.join(MODELS, name, 'reference.json'), 'utf8'));
// Every folder whose reference is an encoder-decoder's: a new one is tested by being there.
const FOLDERS = readdirSync(MODELS)
  .filter((name) => existsSync(path.join(MODELS, name, 'reference.json')) && reference(name).forward)
  .sort();
const folder = (name) => path.join(MODELS, name);

// transformers' generate() keyword arguments as generate()'s options.
function optionsOf(o) {
  const names = {
    max_new_tokens: 'maxNewTokens',
    max_length: 'maxLength',
    num_beams: 'numBeams',
    num_return_sequences: 'numReturnSequences',
    length_penalty: 'lengthPenalty',
    early_stopping: 'earlyStopping',
    no_repeat_ngram_size: 'noRepeatNgramSize',
  };
  const out = {};
  for (const [key, value] of Object.entries(o)) {
    if (key === 'do_sample') {
      expect(value).toBe(false);
      continue;
    }
    if (!names[key]) throw new Error(`the test does not know generate()'s ${key}`);
    out[names[key]] = value;
  }
  return out;
}

test('the fixtures are here', () => {
  expect(FOLDERS).toEqual(expect.arrayContaining(['hf-marian', 'hf-marian-bin']));
});

describe.each([
  ['scalar', 1],
  ['simd', 1],
  ['threaded-simd', 3],
])('%s build, %d thread(s)', (variant, threads) => {
  let engine;
  const models = {};
  beforeAll(async () => {
    engine = await createAttention({ variant, threads });
    for (const name of FOLDERS) models[name] = await engine.loadModel(folder(name));
  });
  afterAll(() => engine?.dispose());

  test.each(FOLDERS)('%s: the teacher-forced run, with and without heads, is transformers’', async (name) => {
    const ref = reference(name);
    const t = ref.tolerance;
    const model = models[name];
    expect(model.config).toMatchObject({
      kind: 'encoder-decoder',
      modelType: 'marian',
      numLayers: ref.config.encoderLayers,
      decoderLayers: ref.config.decoderLayers,
      numHeads: ref.config.numHeads,
      hiddenSize: ref.config.dModel,
      vocabSize: ref.config.vocabSize,
    });
    for (const c of [...ref.forward, ...ref.headMask]) {
      const label = `${name} ${c.name}`;
      const r = await model.run(
        { inputIds: c.inputIds, decoderInputIds: c.decoderInputIds },
        { returnHiddenStates: true, returnLogits: true, ...(c.headMask && { headMask: c.headMask }) },
      );
      expect(Array.from(r.decoderInputIds)).toEqual(c.decoderInputIds);
      expectNear(r.encoderAttention, c.encoderAttention, t.attentionAbs, 0, `${label} encoderAttention`);
      expectNear(r.decoderAttention, c.decoderAttention, t.attentionAbs, 0, `${label} decoderAttention`);
      expectNear(r.crossAttention, c.crossAttention, t.attentionAbs, 0, `${label} crossAttention`);
      expectNear(r.encoderHiddenStates, c.encoderHiddenStates, t.hiddenAbs, t.hiddenRel, `${label} encoderHidden`);
      expectNear(r.decoderHiddenStates, c.decoderHiddenStates, t.hiddenAbs, t.hiddenRel, `${label} decoderHidden`);
      expectNear(r.logits, c.logits, t.logitsAbs, t.logitsRel, `${label} logits`);
      const S = c.inputIds.length;
      const T = c.decoderInputIds.length;
      const [Le, H, Ld] = [model.config.numLayers, model.config.numHeads, model.config.decoderLayers];
      expect(r.attentions.encoder.shape).toEqual([Le, H, S, S]);
      expect(r.attentions.decoder.shape).toEqual([Ld, H, T, T]);
      expect(r.attentions.cross.shape).toEqual([Ld, H, T, S]);
      expect(r.attentions.cross.data).toBe(r.crossAttention);
      // The causal mask: no decoder row looks past itself.
      for (let lh = 0; lh < Ld * H; lh++)
        for (let i = 0; i < T; i++)
          for (let j = i + 1; j < T; j++) expect(r.decoderAttention[(lh * T + i) * T + j]).toBe(0);
    }
  });

  test.each(FOLDERS)('%s: text in, text out, as MarianTokenizer reads and writes it', async (name) => {
    const ref = reference(name);
    const model = models[name];
    for (const c of ref.forward) {
      const r = await model.run({ text: c.text, decoderInputIds: c.decoderInputIds });
      expect(Array.from(r.inputIds)).toEqual(c.inputIds);
      expect(r.tokens).toEqual(c.tokens);
      expect(Array.from(r.special)).toEqual(c.tokens.map((t) => (t === '</s>' ? 1 : 0)));
    }
    for (const g of ref.generate) {
      const out = await model.generate(g.text, { ...optionsOf(g.options), returnAttention: false });
      expect([g.name, Array.from(out.inputIds), Array.from(out.outputIds), out.text]).toEqual([
        g.name,
        g.inputIds,
        g.sequence,
        g.decoded,
      ]);
      expect(out.tokens).toHaveLength(out.outputIds.length);
      expect(out.inputTokens).toHaveLength(out.inputIds.length);
    }
  });

  test.each(FOLDERS)('%s: generate() gives transformers’ ids and scores, greedy and beam', async (name) => {
    const ref = reference(name);
    const t = ref.tolerance;
    const model = models[name];
    for (const g of ref.generate) {
      const label = `${name} ${g.name}`;
      // With the attention (the default): the steps' whole-row softmax, the same ids as transformers'.
      const out = await model.generate({ inputIds: g.inputIds }, optionsOf(g.options));
      expect([label, Array.from(out.outputIds)]).toEqual([label, g.sequence]);
      if (g.sequenceScore !== undefined) expect(Math.abs(out.score - g.sequenceScore)).toBeLessThan(t.scoreAbs);
      if (g.stepScores) expectNear(out.stepScores, g.stepScores, t.scoreAbs, 0, `${label} stepScores`);
      if (g.sequences) {
        expect(out.candidates.map((c) => Array.from(c.outputIds))).toEqual(g.sequences);
        out.candidates.forEach((c, i) => expect(Math.abs(c.score - g.sequenceScores[i])).toBeLessThan(t.scoreAbs));
      }
      expect(out.crossAttention).toBeDefined();
    }
  });

  test('a generation’s attention is run() over the ids it fed back, bit for bit; onToken reports each token', async () => {
    const model = models['hf-marian'];
    const g = reference('hf-marian').generate.find((c) => c.name === 'greedy_eos');
    const seen = [];
    const out = await model.generate(
      { inputIds: g.inputIds },
      { ...optionsOf(g.options), returnHiddenStates: true, onToken: (report) => seen.push(report) },
    );
    const n = out.outputIds.length;
    const forced = await model.run(
      { inputIds: g.inputIds, decoderInputIds: out.outputIds.subarray(0, n - 1) },
      { returnHiddenStates: true },
    );
    for (const key of [
      'encoderAttention',
      'decoderAttention',
      'crossAttention',
      'encoderHiddenStates',
      'decoderHiddenStates',
    ])
      expect([key, same(out[key], forced[key])]).toEqual([key, true]);
    expect(out.attentions.cross.shape).toEqual(forced.attentions.cross.shape);
    // One report per new token, in order, each the ids so far.
    expect(seen.map((s) => s.id)).toEqual(Array.from(out.outputIds.subarray(1)));
    seen.forEach((s, i) => expect(Array.from(s.outputIds)).toEqual(Array.from(out.outputIds.subarray(0, i + 2))));
    // Without hidden states the rows come from the search's own steps: the same bits, greedy and beam search
    // (each row of the beam the chosen ids came from at that step).
    for (const numBeams of [1, 4]) {
      const g2 = await model.generate({ inputIds: g.inputIds }, { ...optionsOf(g.options), numBeams });
      const fed = g2.outputIds.subarray(0, g2.outputIds.length - 1);
      const f2 = await model.run({ inputIds: g.inputIds, decoderInputIds: fed });
      for (const key of ['encoderAttention', 'decoderAttention', 'crossAttention', 'lastHiddenState'])
        expect([numBeams, key, same(g2[key], f2[key])]).toEqual([numBeams, key, true]);
      expect(g2.attentions.decoder.shape).toEqual(f2.attentions.decoder.shape);
      expect(Array.from(g2.decoderInputIds)).toEqual(Array.from(fed));
    }
    // Beam search reports every step's best beam; the last is the result.
    const beams = [];
    const b = await model.generate({ inputIds: g.inputIds }, { numBeams: 3, onToken: (r) => beams.push(r) });
    expect(beams.length).toBeGreaterThan(0);
    expect(beams.at(-1).beams).toHaveLength(3);
    expect(b.candidates).toHaveLength(1);
    expect(b.candidates[0].outputIds).toBe(b.outputIds);
  });

  test('heads switched off change the generation as they change the run; all on is no mask', async () => {
    const model = models['hf-marian'];
    const { inputIds } = reference('hf-marian').forward[0];
    const on = {
      encoder: [
        [1, 1, 1, 1],
        [1, 1, 1, 1],
      ],
      decoder: [
        [1, 1, 1, 1],
        [1, 1, 1, 1],
      ],
    };
    const plain = await model.generate({ inputIds }, { maxNewTokens: 6 });
    const allOn = await model.generate({ inputIds }, { maxNewTokens: 6, headMask: on });
    expect(Array.from(allOn.outputIds)).toEqual(Array.from(plain.outputIds));
    expect(same(allOn.crossAttention, plain.crossAttention)).toBe(true);
    // One head left in every layer of every kind: the cross-attention of the others is 0.
    const one = [
      [1, 0, 0, 0],
      [1, 0, 0, 0],
    ];
    const masked = await model.generate(
      { inputIds },
      { maxNewTokens: 6, headMask: { encoder: one, decoder: one, cross: one } },
    );
    const { shape, data } = masked.attentions.cross;
    const [, H, T, S] = shape;
    for (let l = 0; l < shape[0]; l++)
      for (let h = 1; h < H; h++)
        expect(data.subarray((l * H + h) * T * S, (l * H + h + 1) * T * S).every((v) => v === 0)).toBe(true);
  });
});

describe('an encoder-decoder in a worker engine', () => {
  test('runs and generates as on this thread, bit for bit', async () => {
    const direct = await createAttention({ variant: 'simd' });
    const worker = await createAttention({ variant: 'simd', worker: true });
    try {
      const [a, b] = await Promise.all([direct, worker].map((e) => e.loadModel(folder('hf-marian'))));
      const c = reference('hf-marian').forward[0];
      const input = { inputIds: c.inputIds, decoderInputIds: c.decoderInputIds };
      const [x, y] = await Promise.all([a, b].map((m) => m.run(input, { returnLogits: true })));
      for (const key of ['encoderAttention', 'decoderAttention', 'crossAttention', 'logits'])
        expect([key, same(x[key], y[key])]).toEqual([key, true]);
      const [g, h] = await Promise.all([a, b].map((m) => m.generate({ inputIds: c.inputIds }, { numBeams: 4 })));
      expect(Array.from(g.outputIds)).toEqual(Array.from(h.outputIds));
      expect(g.score).toBe(h.score);
    } finally {
      direct.dispose();
      worker.dispose();
    }
  });
});

describe('refusals', () => {
  let engine, marian, bert, gpt2;
  beforeAll(async () => {
    engine = await createAttention({ variant: 'simd' });
    marian = await engine.loadModel(folder('hf-marian'));
    bert = await engine.loadModel(folder('bert-zh'));
    gpt2 = await engine.loadModel(folder('gpt2'));
  });
  afterAll(() => engine?.dispose());
  const ids = [18, 19, 11, 0];

  test('arguments that are not what run() and generate() take name what is wrong', async () => {
    await expect(marian.run({ inputIds: ids, decoderInputIds: [233, 234] })).rejects.toThrow(
      new RangeError('input.decoderInputIds[1]: expected an id below the vocabulary size 234, got 234'),
    );
    await expect(marian.run({ inputIds: ids, decoderInputIds: [] })).rejects.toThrow(RangeError);
    await expect(marian.run({ inputIds: ids, textPair: 'x' })).rejects.toThrow(/textPair/);
    await expect(marian.run({ inputIds: ids }, { headMask: { cross: [[1, 1, 1, 1]] } })).rejects.toThrow(
      /^headMask\.cross: expected 2 layers of 4 heads, got/,
    );
    await expect(
      marian.run(
        { inputIds: ids },
        {
          headMask: {
            decoder: [
              [1, 1, 1],
              [1, 1, 1, 1],
            ],
          },
        },
      ),
    ).rejects.toThrow(new RangeError('headMask.decoder[0]: expected 4 values (one per head), got 3'));
    await expect(
      marian.run(
        { inputIds: ids },
        {
          headMask: {
            encoder: [
              [1, 1, 1, 0.5],
              [1, 1, 1, 1],
            ],
          },
        },
      ),
    ).rejects.toThrow(new RangeError('headMask.encoder[0][3]: expected 1 (keep) or 0 (switch off), got number 0.5'));
    await expect(marian.run({ inputIds: ids }, { headMask: { self: [] } })).rejects.toThrow(/self/);
    await expect(marian.generate({ inputIds: ids }, { numBeams: 0 })).rejects.toThrow(
      new RangeError('numBeams: expected 1 to 64, got 0'),
    );
    await expect(marian.generate({ inputIds: ids }, { maxNewTokens: 2.5 })).rejects.toThrow(TypeError);
    await expect(marian.generate({ inputIds: ids }, { maxNewTokens: 64 })).rejects.toThrow(
      /maxNewTokens: expected 1 to 63/,
    );
    await expect(marian.generate({ inputIds: ids }, { numBeams: 2, numReturnSequences: 3 })).rejects.toThrow(
      /numReturnSequences: expected at most numBeams \(2\), got 3/,
    );
    await expect(marian.generate({ inputIds: ids }, { temperature: 0 })).rejects.toThrow(
      new RangeError('temperature: expected a finite number > 0, got number 0'),
    );
    await expect(marian.generate({ inputIds: ids, decoderInputIds: [233] })).rejects.toThrow(/generate\(\) decides/);
    // After every refusal the model still translates.
    const out = await marian.generate({ inputIds: ids }, { maxNewTokens: 3 });
    expect(out.outputIds.length).toBeGreaterThan(1);
  });

  test('an encoder has no generate(), a decoder’s step stream no beams; an encoder-decoder no prefill or step', async () => {
    await expect(bert.generate('毒')).rejects.toThrow(
      /^generate: a bert is an encoder; generate\(\) is a decoder's or an encoder-decoder's/,
    );
    expect(() => gpt2.generateSteps('毒', { numBeams: 2 })).toThrow(TypeError);
    await expect(marian.prefill({ inputIds: ids })).rejects.toThrow(/prefill: a marian is an encoder-decoder/);
    await expect(marian.step({ inputIds: ids })).rejects.toThrow(TypeError);
  });

  test('calls made at once run one after another, each with its own input', async () => {
    const c = reference('hf-marian').forward;
    const inputs = [c[0], c[1], c[0], c[1]].map((x) => ({ inputIds: x.inputIds, decoderInputIds: x.decoderInputIds }));
    const alone = [];
    for (const input of inputs) alone.push(await marian.run(input, { returnLogits: true }));
    const together = await Promise.all(inputs.map((input) => marian.run(input, { returnLogits: true })));
    together.forEach((r, i) => expect(same(r.logits, alone[i].logits)).toBe(true));
  });
});
