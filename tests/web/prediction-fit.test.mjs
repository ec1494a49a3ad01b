// Whether a checkpoint is trained, measured rather than read off its size
// (web/model/predictions.mjs predictionFit, the notes of views/real-article.mjs):
// karpathy's stories260K (a 260K-parameter Llama trained on TinyStories, 64
// hidden units, in ../shared/fixtures/real) predicts a story's tokens far
// better than chance and is not flagged; every random checkpoint of
// tests/fixtures/models with an output head predicts no better than chance,
// on the article's sentence and on English, and is flagged. The measure by
// hand on made-up logits too.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';
import { SENTENCE } from '../../web/sentence.mjs';
import { predictionFit } from '../../web/model/predictions.mjs';
import { articleMap } from '../../web/model/real-article.mjs';
import { articleNotes } from '../../web/views/real-article.mjs';
import { setLanguage } from '../../web/lib/i18n.mjs';

const STORIES = fileURLToPath(new URL('../../../shared/fixtures/real/stories260K/', import.meta.url));
const STORY = 'Once upon a time, there was a little girl named Lily. She loved to play outside.';
const RANDOM = ['hf-qwen2', 'hf-qwen3', 'hf-llama', 'hf-gpt2-lm', 'gpt2', 'hf-bert-mlm'];

let engine;
beforeAll(async () => {
  engine = await createAttention();
  setLanguage('en');
}, 60_000);
afterAll(() => engine?.dispose());

/** The real-model view's run of `text` (views/real-model.mjs), with its measure. */
async function pageRun(folder, text) {
  const model = await engine.loadModel(folder);
  const { numLayers, numHeads, causal, vocabSize, hasLogits } = model.config;
  const r = await model.run(text, { returnAttention: true, returnLogits: hasLogits });
  const fit = hasLogits
    ? predictionFit({ logits: r.logits, vocab: vocabSize, inputIds: r.inputIds, special: r.special, causal })
    : null;
  model.dispose();
  const article = articleMap(r.tokens, r.special, text);
  return { tokens: r.tokens, special: r.special, attention: r.attention, numLayers, numHeads, causal, fit, article };
}

const kinds = (run, text) => articleNotes(run, text).map((n) => n.kind);

test('the measure by hand: the mean log-probability of each token, next (decoder) or own (encoder)', () => {
  const vocab = 4;
  const row = (hot) => Float32Array.from({ length: vocab }, (_, v) => (v === hot ? Math.log(13) : 0)); // p = 13/16
  const logits = new Float32Array([...row(1), ...row(2), ...row(3)]);
  const decoder = predictionFit({ logits, vocab, inputIds: [0, 1, 2], special: [0, 0, 0], causal: true });
  expect(decoder.count).toBe(2);
  expect(decoder.meanLogProb).toBeCloseTo(Math.log(13 / 16), 6);
  expect(decoder.chance).toBe(-Math.log(4));
  expect(decoder.better).toBe(true);
  // An encoder scores each token at its own row; special tokens are left out.
  const encoder = predictionFit({ logits, vocab, inputIds: [0, 2, 3], special: [1, 0, 0], causal: false });
  expect(encoder.count).toBe(2);
  expect(encoder.meanLogProb).toBeCloseTo(Math.log(13 / 16), 6);
  // Even logits are chance exactly: not better.
  const even = predictionFit({ logits: new Float32Array(8), vocab, inputIds: [0, 1], special: [0, 0], causal: true });
  expect(even.meanLogProb).toBeCloseTo(-Math.log(4), 12);
  expect(even.better).toBe(false);
  expect(predictionFit({ logits: new Float32Array(4), vocab, inputIds: [0], special: [0], causal: true })).toBe(null);
});

test('stories260K, trained though 64 hidden units wide, predicts a story better than chance and is not flagged', async () => {
  expect(readdirSync(STORIES)).toContain('model.safetensors');
  const run = await pageRun(STORIES, STORY);
  expect(run.fit.better).toBe(true);
  expect(run.fit.meanLogProb).toBeGreaterThan(run.fit.chance + 3);
  // (Its SentencePiece pieces carry the word-start mark ▁, which a note explains.)
  expect(kinds(run, STORY)).toEqual(['predicts', 'other', 'wordStart']);
  // On the article's Chinese (bytes it never read) it is no better than chance, and the note says the text may be
  // the reason, not that its weights are random.
  const zh = await pageRun(STORIES, SENTENCE);
  expect(zh.fit.better).toBe(false);
  const note = articleNotes(zh, SENTENCE).find((n) => n.kind === 'chance');
  expect(note.text).toMatch(/either its weights are random \(a test model\) or the text is unlike/);
}, 60_000);

test.each(RANDOM)(
  'the random %s predicts no better than chance and is flagged',
  async (name) => {
    for (const text of [SENTENCE, 'Once upon a time, a girl.']) {
      const run = await pageRun(`tests/fixtures/models/${name}`, text);
      expect(run.fit.better).toBe(false);
      expect(kinds(run, text)[0]).toBe('chance');
    }
  },
  60_000,
);

test('an encoder with no output head cannot be measured, and says so', async () => {
  const run = await pageRun('tests/fixtures/models/bert-zh', SENTENCE);
  expect(run.fit).toBe(null);
  expect(kinds(run, SENTENCE)[0]).toBe('unmeasured');
}, 60_000);
