// BERT's masked-LM head (BertForMaskedLM's cls.predictions: dense, GELU,
// LayerNorm, the word embeddings' transpose plus bias), against what Hugging
// Face transformers computes for the tiny checkpoint it saved
// (tests/fixtures/models/hf-bert-mlm, tests/tools/make_decoder_fixtures.py):
// with [MASK] on each 毒 of the sentence in turn, every logit and the top
// prediction at the mask, on every build. A checkpoint that holds the head in
// part (the hand-written bert-zh) keeps refusing returnLogits by name.
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';

const MODELS = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
const reference = JSON.parse(readFileSync(path.join(MODELS, 'hf-bert-mlm', 'reference.json'), 'utf8'));

describe.each([
  ['scalar', 1],
  ['simd', 1],
  ['threaded-simd', 3],
])('%s build, %d thread(s)', (variant, threads) => {
  let engine, model;
  beforeAll(async () => {
    engine = await createAttention({ variant, threads });
    model = await engine.loadModel(path.join(MODELS, 'hf-bert-mlm'));
  });
  afterAll(() => engine?.dispose());

  test('every masked sentence’s logits and top prediction are transformers’', async () => {
    const { logitsAbs, logitsRel } = reference.tolerance;
    const V = model.config.vocabSize;
    expect(reference.masked.length).toBeGreaterThanOrEqual(6);
    for (const c of reference.masked) {
      const r = await model.run(c.input, { returnLogits: true });
      expect(Array.from(r.inputIds)).toEqual(c.inputIds);
      expect(r.logits).toHaveLength(c.logits.length);
      for (let i = 0; i < c.logits.length; i++)
        if (!(Math.abs(r.logits[i] - c.logits[i]) <= logitsAbs + logitsRel * Math.abs(c.logits[i])))
          throw new Error(`${c.name} logits[${i}]: got ${r.logits[i]}, want ${c.logits[i]}`);
      c.maskPositions.forEach((q, k) => {
        const row = r.logits.subarray(q * V, (q + 1) * V);
        expect([c.name, row.indexOf(Math.max(...row))]).toEqual([c.name, c.predicted[k]]);
      });
    }
  });
});
