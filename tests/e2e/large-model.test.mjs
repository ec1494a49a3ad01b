// A model of today's size, in Node and headless Chromium: a checkpoint of
// Qwen2.5-0.5B's shape with 28 layers instead of 24 (551 M parameters,
// bfloat16 as the Hub's file, random weights written here by
// bench/decoder-checkpoint.mjs; 1.1 GB) loaded by name from the test Hub in
// the page and from its folder in Node, its matrices held in 16 bits (1.0 GiB,
// where float32 takes 2.05 GiB), generating after the sentence through the KV
// cache; the page's ids and every step's scores are Node's, bit for bit (the
// same build and threads). Held as float32 in Node, the same model takes the
// wasm memory past 2 GiB (the model builds grow to 4 GiB; the four extra
// layers are what take it there) and gives the same bits, since bfloat16
// widens exactly. The KV cache grows with the sequence: the heap holds the
// weights and little more, not every one of the model's 32,768 positions.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { QWEN25_05B } from '../../bench/decoder-checkpoint.mjs';
import { createAttention } from '../../src/js/node.mjs';
import { HubServer, folderFiles } from '../tools/hub-server.mjs';
import { openPage, setUp } from './page-helpers.mjs';

const REPO = 'mha-wasm-tests/qwen2.5-0.5b-shaped-28-layers';
const CONFIG = { ...QWEN25_05B, num_hidden_layers: 28, max_window_layers: 28 };
const PROMPT = '用毒毒毒蛇，毒蛇会不会被毒毒死';
const NEW_TOKENS = 4;
const GiB = 2 ** 30;

let dir, hub, env, page;
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'mha-qwen-shaped-'));
  // In a process of its own: 551 M seeded draws take Node about 20 s, and many times that inside Jest's VM.
  const writer = new URL('../../bench/decoder-checkpoint.mjs', import.meta.url).href;
  const script = `const m = await import(${JSON.stringify(writer)});
    const shape = m.SHAPES.find((s) => s.key === 'qwen2');
    m.writeDecoderCheckpoint(${JSON.stringify(dir)}, shape, ${JSON.stringify(CONFIG)}, { newTokens: ${NEW_TOKENS} });`;
  execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    stdio: 'inherit',
    env: { PATH: process.env.PATH },
  });
  hub = await new HubServer({ repos: { [REPO]: { files: folderFiles(dir) } } }).start();
  env = await setUp({ hubEndpoints: [hub.url], hubDownloadHosts: [hub.cdnUrl] });
  ({ page } = await openPage(env));
}, 240_000);

afterAll(async () => {
  await env?.close();
  await hub?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** What the page and Node compare: the generation's ids and step scores, the model's storage and the heap. */
async function generateIn(engine, model) {
  const g = await model.generate(PROMPT, { maxNewTokens: NEW_TOKENS });
  return {
    weights: model.config.weights,
    weightBytes: model.config.weightBytes,
    outputIds: Array.from(g.outputIds),
    stepScores: Array.from(g.stepScores),
    heapBytes: (await engine.memoryStats()).models?.heapBytes ?? 0,
  };
}

let node;
test('Node: the bf16 checkpoint loads with its matrices in 16 bits and generates through the KV cache', async () => {
  const engine = await createAttention({ variant: 'threaded-simd', threads: 2 });
  try {
    node = await generateIn(engine, await engine.loadModel(dir));
  } finally {
    engine.dispose();
  }
  expect(node.weights).toBe('bf16');
  expect(node.weightBytes / GiB).toBeGreaterThan(1.0);
  expect(node.weightBytes / GiB).toBeLessThan(1.1);
  expect(node.outputIds).toHaveLength(15 + NEW_TOKENS);
  // The weights, the load's chunk, a step's scratch and a short cache: well under the 1.7 GiB a cache of every
  // position would add.
  expect(node.heapBytes).toBeLessThan(node.weightBytes + 0.3 * GiB);
}, 240_000);

test('Node: held as float32 (past 2 GiB of wasm memory) it gives the same bits', async () => {
  const engine = await createAttention({ variant: 'threaded-simd', threads: 2 });
  try {
    const wide = await generateIn(engine, await engine.loadModel(dir, { weights: 'float32' }));
    expect(wide.weights).toBe('float32');
    expect(wide.weightBytes / GiB).toBeGreaterThan(2.0);
    expect(wide.heapBytes).toBeGreaterThan(2 * GiB);
    expect(wide.outputIds).toEqual(node.outputIds);
    expect(wide.stepScores).toEqual(node.stepScores);
  } finally {
    engine.dispose();
  }
}, 240_000);

test('Chromium: loaded by name from the Hub, it generates Node’s ids and scores bit for bit', async () => {
  const browser = await page.evaluate(
    async ({ name, endpoint, prompt, newTokens }) => {
      const { createAttention } = await import('/src/js/model-entry.mjs');
      const engine = await createAttention({ variant: 'threaded-simd', threads: 2 });
      try {
        const model = await engine.loadModel(name, { endpoint });
        const g = await model.generate(prompt, { maxNewTokens: newTokens });
        return {
          weights: model.config.weights,
          weightBytes: model.config.weightBytes,
          outputIds: Array.from(g.outputIds),
          stepScores: Array.from(g.stepScores),
        };
      } catch (error) {
        return { error: `${error.name}: ${error.message}` };
      } finally {
        engine.dispose();
      }
    },
    { name: REPO, endpoint: hub.url, prompt: PROMPT, newTokens: NEW_TOKENS },
  );
  expect(browser.error).toBeUndefined();
  const { heapBytes, ...want } = node;
  expect(heapBytes).toBeGreaterThan(0);
  expect(browser).toEqual(want);
}, 300_000);
