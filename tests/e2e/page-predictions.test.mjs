// The real-model view's predictions in headless Chromium (views/predictions.mjs):
// a decoder (the tiny Qwen2 transformers saved, tests/fixtures/models/hf-qwen2)
// shows its next tokens after the sentence with the probabilities Node's run()
// gives (softmax of the same logits, bit for bit), at another temperature
// too, and appends the most probable one; a BERT with its masked-LM head
// (hf-bert-mlm) fills the [MASK] the button puts on a 毒 as Node's run()
// does. No console errors.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { createAttention } from '../../src/js/node.mjs';
import { SENTENCE } from '../../web/sentence.mjs';
import { topTokens } from '../../web/model/predictions.mjs';
import { openPage, setUp } from './page-helpers.mjs';

const files = (name) =>
  readdirSync(path.join('tests/fixtures/models', name))
    .filter((f) => f !== 'reference.json')
    .map((f) => path.join('tests/fixtures/models', name, f));

let env, engine;
beforeAll(async () => {
  env = await setUp({ locale: 'en-US' });
  engine = await createAttention({ variant: 'threaded-simd', threads: 2 });
}, 60_000);
afterAll(async () => {
  engine?.dispose();
  await env?.close();
});

async function load(page, name) {
  await page.locator('#real-model').scrollIntoViewIfNeeded();
  await page.setInputFiles('#real-files', files(name));
  await page.waitForSelector('#real-model[data-ready], #real-error:not([hidden])', { timeout: 30_000 });
}

/** The predictions on the page: per listed position, [[id, probability], …]. */
const shown = (page) =>
  page.$$eval('#real-model .pred-tokens', (lists) =>
    lists.map((list) => ({
      position: Number(list.dataset.position),
      top: [...list.querySelectorAll('li')].map((li) => [Number(li.dataset.id), Number(li.dataset.probability)]),
    })),
  );

const expected = (logits, V, position, temperature = 1) =>
  topTokens(logits.subarray(position * V, (position + 1) * V), 8, temperature).map((t) => [t.id, t.probability]);

// The page's list against Node's: the same ids in the same order, each probability within 1e-12 (softmax of the
// engine's same logits; Chromium's Math.exp may differ from Node's in the last bit).
function expectSame(page, node) {
  expect(page.map((p) => [p.position, p.top.map(([id]) => id)])).toEqual(
    node.map((p) => [p.position, p.top.map(([id]) => id)]),
  );
  page.forEach((p, i) => p.top.forEach(([, q], k) => expect(Math.abs(q - node[i].top[k][1])).toBeLessThan(1e-12)));
}

test('a decoder’s next token, with Node’s probabilities; the most probable appended', async () => {
  const { page, problems } = await openPage(env);
  try {
    await load(page, 'hf-qwen2');
    const model = await engine.loadModel('tests/fixtures/models/hf-qwen2');
    const r = await model.run(SENTENCE, { returnLogits: true, returnAttention: true }); // as the page runs it: the same softmax path, the same bits;
    const V = model.config.vocabSize;
    const last = r.inputIds.length - 1;
    expect(await page.textContent('#real-model .pred-title')).toBe('Next token');
    expectSame(await shown(page), [{ position: last, top: expected(r.logits, V, last) }]);
    // Hotter: the same logits, spread.
    await page.$eval('#pred-temperature', (input) => {
      input.value = '1.5';
      input.dispatchEvent(new Event('input'));
    });
    expectSame(await shown(page), [{ position: last, top: expected(r.logits, V, last, 1.5) }]);
    // The most probable token appended to the text, and the model run again on it.
    const before = await page.inputValue('#real-text');
    await page.click('#pred-action');
    await page.waitForFunction((b) => document.querySelector('#real-text').value !== b, before);
    await page.waitForSelector('#real-model[data-ready]');
    const appended = await page.inputValue('#real-text');
    expect(appended.startsWith(before)).toBe(true);
    const next = await model.decode([expected(r.logits, V, last, 1.5)[0][0]]);
    expect(appended).toBe(before + next);
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 60_000);

test('a BERT with its masked-LM head fills the [MASK] on a 毒 as Node does', async () => {
  const { page, problems } = await openPage(env);
  try {
    await load(page, 'hf-bert-mlm');
    expect(await page.textContent('#real-model .pred-title')).toBe('Fill the mask');
    await page.click('#pred-action');
    await page.waitForFunction(() => document.querySelector('#real-text').value.includes('[MASK]'));
    await page.waitForSelector('#real-model[data-ready]');
    await page.waitForSelector('#real-model .pred-tokens');
    const text = await page.inputValue('#real-text');
    expect(text).toBe(`用毒[MASK]${SENTENCE.slice(3)}`);
    const model = await engine.loadModel('tests/fixtures/models/hf-bert-mlm');
    const r = await model.run(text, { returnLogits: true, returnAttention: true }); // as the page runs it: the same softmax path, the same bits;
    expectSame(await shown(page), [{ position: 3, top: expected(r.logits, model.config.vocabSize, 3) }]);
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 60_000);
