// Quantized GGUF checkpoints with a chat template in the page, in headless
// Chromium, against the test Hub (tests/tools/hub-server.mjs) serving
// "Qwen/Qwen2.5-0.5B-Instruct-GGUF" with the two files the page suggests —
// test-sized stand-ins (tests/fixtures/chat/README.md: the tiny qwen2 in Q8_0
// and the tiny llama in Q4_K_M, each with a chat template): the suggestions'
// sizes are the bytes the Hub serves; a click loads the file; the page flags
// the random checkpoint; the chat box's replies (ids and text), after an undo
// and over two turns, are Node's model.chat() on the same file, and a reply
// token's attention is Node's step's bit for bit; a conversation too long for
// the model is refused in the reader's words; the reply streams; stop and a
// new conversation; a Hub that cannot be reached is said to be; the grid, the
// steps and "which heads matter" run on the Q4_K_M file as on Node; a decoder
// without a chat template has no chat box; both languages, 390 px.
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';
import { headImportance, pruningCurve } from '../../src/js/analysis/index.mjs';
import { HubServer } from '../tools/hub-server.mjs';
import { analyseHeadsOnPage, loadModelFolder, openPage, readHeatmaps, setUp } from './page-helpers.mjs';
import { SENTENCE } from '../../web/sentence.mjs';
import { formatBytes } from '../../web/model/real-model-files.mjs';
import { pageEngineOptions } from './page-builds.mjs';

const CHAT = new URL('../fixtures/chat/', import.meta.url);
const REPO = 'Qwen/Qwen2.5-0.5B-Instruct-GGUF';
const Q8 = 'qwen2.5-0.5b-instruct-q8_0.gguf';
const Q4 = 'qwen2.5-0.5b-instruct-q4_k_m.gguf';
const FILES = {
  [Q8]: readFileSync(new URL('qwen2-chat-q8_0.gguf', CHAT)),
  [Q4]: readFileSync(new URL('llama-chat-q4_k_m.gguf', CHAT)),
};
const PATHS = {
  [Q8]: fileURLToPath(new URL('qwen2-chat-q8_0.gguf', CHAT)),
  [Q4]: fileURLToPath(new URL('llama-chat-q4_k_m.gguf', CHAT)),
};
const MAX = 8; // tokens a reply
const SECOND = 'Why?';
let hub, env, engine, OFFLINE; // OFFLINE: a Hub the page may ask where nothing listens

/** A port of 127.0.0.1 that was free a moment ago (its server closed): nothing answers there. */
async function closedPort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

beforeAll(async () => {
  OFFLINE = `http://127.0.0.1:${await closedPort()}`;
  hub = await new HubServer({ repos: { [REPO]: { files: FILES } } }).start();
  env = await setUp({ hubEndpoints: [hub.url, OFFLINE], hubDownloadHosts: [hub.cdnUrl] });
  engine = await createAttention(pageEngineOptions({ isolated: false }));
}, 60_000);

afterAll(async () => {
  engine?.dispose();
  await env?.close();
  await hub?.stop();
});

/** Node's conversation on a file: each turn's new ids, text, and its steps' attention. */
async function nodeTurns(file, messages, maxNewTokens = MAX) {
  const model = await engine.loadModel(PATHS[file]);
  try {
    const chat = model.chat();
    const turns = [];
    for (const content of messages) {
      const steps = [];
      for await (const s of chat.sendSteps(content, { maxNewTokens })) steps.push(s);
      turns.push({
        ids: steps.map((s) => s.id),
        text: chat.messages.at(-1).content,
        attention: steps.map((s) => s.attention),
        keys: steps.map((s) => s.outputIds.length - 1),
      });
    }
    return { turns, numHeads: model.config.numHeads, model: null };
  } finally {
    model.dispose();
  }
}

const suggestion = (page, file) => page.locator('.real-suggestion', { hasText: file });

async function loadSuggestion(page, file) {
  await suggestion(page, file).click();
  await page.waitForSelector('#real-model[data-ready], #real-error:not([hidden])', { timeout: 30_000 });
  expect(await page.isHidden('#real-error')).toBe(true);
  await page.waitForSelector('.next-chat:not([hidden]) #chat-send:not([disabled])');
}

/** Sends the box's message and waits for the turn's end; the reply's text and its tokens' ids. */
async function send(page, message) {
  if (message !== undefined) await page.fill('#chat-message', message);
  await page.click('#chat-send');
  await page.waitForFunction(() => {
    const status = document.querySelector('#chat-status').textContent;
    return /^(Replied|The reply failed)/.test(status) && !document.querySelector('#chat-send').disabled;
  });
  return page.evaluate(() => ({
    text: [...document.querySelectorAll('.chat-assistant .chat-text')].at(-1)?.textContent,
    ids: [...document.querySelectorAll('.chat-tokens button')].map((b) => Number(b.dataset.id)),
    status: document.querySelector('#chat-status').textContent,
    log: [...document.querySelectorAll('.chat-turn')].map((li) => li.querySelector('.chat-text').textContent),
  }));
}

test('the GGUF suggestions: sizes from the Hub; the chat box replies as Node does, undo, two turns, errors', async () => {
  const node = await nodeTurns(Q8, [SENTENCE, SECOND]);
  const { page, problems } = await openPage(env);
  try {
    await page.locator('#real-hub').scrollIntoViewIfNeeded();
    await page.click('#real-sizes');
    for (const file of [Q8, Q4])
      await page.waitForFunction(
        ([name, text]) =>
          [...document.querySelectorAll('.real-suggestion')].some(
            (b) => b.textContent.includes(name) && b.querySelector('.real-suggestion-size').textContent === text,
          ),
        [file, formatBytes(FILES[file].length)],
      );
    // One file list for the two suggestions of the repo.
    expect(
      hub.requests.filter((r) => r.method === 'GET' && r.path.includes(REPO.split('/')[1]) && r.path.includes('/api/'))
        .length,
    ).toBe(1);
    await loadSuggestion(page, Q8);
    expect(await page.textContent('#real-status')).toMatch(new RegExp(`^Loaded ${REPO}/${Q8}: qwen2, 2 layers`));
    // A random checkpoint: flagged, in the predictions and in the chat box.
    expect(await page.isVisible('.pred-caveat')).toBe(true);
    expect(await page.isVisible('.chat-caveat')).toBe(true);
    expect(await page.inputValue('#chat-message')).toBe(SENTENCE);
    await page.fill('#chat-max', String(MAX));
    const [t1, t2] = node.turns;
    // The reply is drawn as it is decided: the streaming reply's text, each time it changes.
    await page.evaluate(() => {
      window.streamed = [];
      new MutationObserver(() => {
        const text = document.querySelector('.chat-log [data-streaming] .chat-text')?.textContent;
        if (text !== undefined && text !== window.streamed.at(-1)) window.streamed.push(text);
      }).observe(document.querySelector('.chat-log'), { childList: true, subtree: true, characterData: true });
    });
    const first = await send(page);
    const streamed = await page.evaluate(() => window.streamed);
    expect(streamed.length).toBeGreaterThan(2);
    expect(streamed.every((text) => t1.text.startsWith(text))).toBe(true);
    expect(first.ids).toEqual(t1.ids);
    expect(first.text).toBe(t1.text);
    expect(first.log).toEqual([SENTENCE, t1.text]);
    // Every token but the last was fed back: a button each; the last has no attention of its own.
    const buttons = await page.$$eval('.chat-tokens button', (b) => b.map((x) => x.disabled));
    expect(buttons).toEqual(t1.ids.map((_, i) => i === t1.ids.length - 1));
    // A reply token's attention, as the steps' heatmap draws it: Node's step that fed it, bit for bit.
    const step = 3;
    await page.click(`.chat-tokens button[data-step="${step}"]`);
    await page.waitForSelector(`.next-steps[data-step="${step}"] .next-heatmap .heatmap[data-head]`);
    const maps = await readHeatmaps(page, '.next-steps .next-heatmap');
    const [name] = Object.keys(maps);
    const [, layer, head] = /^next-layer-(\d+)-head-(\d+)$/.exec(name).map(Number);
    const keys = t1.keys[step - 1] + 1;
    const row = t1.attention[step].subarray(
      (layer * node.numHeads + head) * keys,
      (layer * node.numHeads + head + 1) * keys,
    );
    expect(maps[name].length).toBe(keys);
    expect(maps[name].filter(([, k, w]) => !Object.is(w, row[k]))).toEqual([]);
    // Undo: the exchange is gone, its message back in the box; sent again, the same reply over the cache.
    await page.click('#chat-undo');
    expect(await page.$$eval('.chat-turn', (l) => l.length)).toBe(0);
    expect(await page.inputValue('#chat-message')).toBe(SENTENCE);
    const again = await send(page);
    expect(again.ids).toEqual(t1.ids);
    expect(again.status).toMatch(/the cache already held [1-9]\d*\./);
    const second = await send(page, SECOND);
    expect(second.ids).toEqual(t2.ids);
    expect(second.text).toBe(t2.text);
    expect(second.log).toEqual([SENTENCE, t1.text, SECOND, t2.text]);
    // Too long for the model's positions: refused in the reader's words, the conversation as it was.
    const long = SENTENCE.repeat(30);
    const refused = await send(page, long);
    expect(refused.status).toBe('The reply failed (the reason is below); the conversation is as it was.');
    expect(await page.textContent('.chat-error')).toMatch(/this model reads at most 256: take an exchange back/);
    expect(refused.log).toEqual(second.log);
    // Both languages; a phone's width: nothing in the box wider than the screen.
    await page.check('input[name="lang"][value="zh"]');
    expect(await page.textContent('.next-chat h4')).toBe('对话');
    expect(await page.textContent('.chat-error')).toMatch(/最多读 256 个/);
    // The box's own text is Chinese: English only in what is data (messages, tokens: translate="no").
    const english = await page.$eval('.next-chat', (box) => {
      const words = [];
      const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode())
        if (!node.parentElement.closest('[translate="no"], details') && node.parentElement.checkVisibility())
          words.push(...(node.textContent.match(/[A-Za-z]{2,}/g) ?? []));
      return words;
    });
    expect(english).toEqual([]);
    await page.setViewportSize({ width: 390, height: 800 });
    const overflow = await page.$eval('.next-chat', (box) => [
      box.scrollWidth,
      box.clientWidth,
      window.innerWidth,
      box.getBoundingClientRect().right,
    ]);
    expect(overflow[0]).toBeLessThanOrEqual(overflow[1]);
    expect(overflow[3]).toBeLessThanOrEqual(overflow[2]);
    // A Hub that cannot be reached: the GGUF suggestions say so, the Hub's error as their title.
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.locator('#real-hub').scrollIntoViewIfNeeded();
    await page.click('#real-endpoint >> xpath=ancestor::details/summary'); // the Hub and token settings
    await page.selectOption('#real-endpoint', OFFLINE);
    await page.click('#real-sizes');
    await page.waitForFunction(
      (files) =>
        files.every((file) =>
          [...document.querySelectorAll('.real-suggestion')].some(
            (b) => b.textContent.includes(file) && b.querySelector('.real-suggestion-size').textContent === '无法连接',
          ),
        ),
      [Q8, Q4],
      { timeout: 60_000 },
    );
    expect(
      problems.filter((p) => !/status of 401 \(Unauthorized\)|ERR_CONNECTION_REFUSED|Failed to fetch/.test(p)),
    ).toEqual([]);
  } finally {
    await page.close();
  }
}, 240_000);

test('Q4_K_M: the grid, the steps, which heads matter and the chat work as on Node', async () => {
  const node = await nodeTurns(Q4, [SENTENCE], 20);
  const model = await engine.loadModel(PATHS[Q4]);
  const reference = await model.run(SENTENCE);
  const importance = await headImportance(model, SENTENCE);
  const curve = await pruningCurve(model, SENTENCE, { importance });
  const steps = [];
  for await (const s of model.generateSteps(SENTENCE, { maxNewTokens: 2 })) steps.push(s.id);
  const { numHeads } = model.config;
  model.dispose();
  const { page, problems } = await openPage(env);
  try {
    await page.locator('#real-hub').scrollIntoViewIfNeeded();
    await loadSuggestion(page, Q4);
    expect(await page.textContent('#real-status')).toMatch(new RegExp(`^Loaded ${REPO}/${Q4}: llama, 1 layers`));
    // The big heatmap: Node's run of the sentence, bit for bit.
    const maps = await readHeatmaps(page, '#real-model .real-heatmap');
    const [name] = Object.keys(maps);
    const [, layer, head] = /^layer-(\d+)-head-(\d+)$/.exec(name).map(Number);
    const L = reference.tokens.length;
    expect(maps[name].length).toBeGreaterThan(0);
    expect(
      maps[name].filter(([q, k, w]) => !Object.is(w, reference.attention[((layer * numHeads + head) * L + q) * L + k])),
    ).toEqual([]);
    // Two steps of the sentence: Node's greedy ids.
    await page.selectOption('#next-prompt', 'sentence');
    await page.click('#next-step');
    await page.waitForSelector('.next-steps[data-step="1"]');
    await page.click('#next-step');
    await page.waitForSelector('.next-steps[data-step="2"]');
    const generated = await page.$$eval('.next-text li.new', (l) => l.map((li) => Number(li.dataset.id)));
    expect(generated).toEqual(steps);
    await page.fill('#chat-max', '20');
    const reply = await send(page);
    expect(reply.ids).toEqual(node.turns[0].ids);
    expect(reply.text).toBe(node.turns[0].text);
    // A new conversation, stopped after its second token: the reply so far joins it, Node's first ids.
    await page.click('#chat-new');
    expect(await page.$$eval('.chat-turn', (l) => l.length)).toBe(0);
    expect(await page.inputValue('#chat-message')).toBe(SENTENCE);
    await page.click('#chat-send');
    await page.waitForFunction(() => document.querySelectorAll('.chat-tokens button').length >= 2);
    await page.click('#chat-stop');
    await page.waitForFunction(() => /^Stopped after/.test(document.querySelector('#chat-status').textContent));
    const ids = await page.$$eval('.chat-tokens button', (b) => b.map((x) => Number(x.dataset.id)));
    expect(ids.length).toBeLessThan(20);
    expect(ids).toEqual(node.turns[0].ids.slice(0, ids.length));
    expect(await page.$$eval('.chat-turn', (l) => l.length)).toBe(2);
    // Which heads matter: each head's change and the pruning curve's outputs are Node's.
    await analyseHeadsOnPage(page);
    const shown = await page.$eval('#real-model .heads-matter', (root) => ({
      deltas: [...root.querySelectorAll('.matter-grid button')].map((b) => Number(b.dataset.delta)),
      line: root.querySelector('.matter-curve-table').dataset.line,
      ids: [...root.querySelectorAll('.matter-curve-table tbody tr')].map((r) => r.cells[2].dataset.ids),
    }));
    const deltas = Object.values(importance.groups).flatMap(({ delta }) => Array.from(delta));
    expect(shown.deltas).toHaveLength(deltas.length);
    expect(
      shown.deltas.filter((d, i) => !(Math.abs(d - deltas[i]) <= 1e-9 * Math.max(1, Math.abs(deltas[i])))),
    ).toEqual([]);
    expect(shown.ids).toEqual(curve.curves[shown.line].map((p) => Array.from(p.output.outputIds).join(' ')));
    // A decoder without a chat template: no chat box.
    await loadModelFolder(page, 'hf-llama');
    await page.waitForSelector('.next-steps:not([hidden])');
    expect(await page.isHidden('.next-chat')).toBe(true);
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 180_000);
