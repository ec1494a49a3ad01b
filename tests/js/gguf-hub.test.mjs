// GGUF files by name from a Hub (the local server of tests/tools/hub-server.mjs,
// which speaks the Hub's HTTP): loadModel(repo, { file }) downloads that one
// file into huggingface_hub's cache and loads it; a repo of one .gguf needs no
// `file`; several and no `file`, or a `file` the repo lacks, are refused with
// the repo's GGUF files and their sizes.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';
import { HubServer } from '../tools/hub-server.mjs';
import { isolatedHubHome } from './helpers/hub-home.mjs';

const DIR = fileURLToPath(new URL('../fixtures/gguf/', import.meta.url));
const read = (n) => readFileSync(path.join(DIR, n));
const SEVERAL = 'mha-wasm-tests/tiny-qwen2-GGUF';
const ONE = 'mha-wasm-tests/tiny-qwen3-GGUF';

let server, hub, engine;
beforeAll(async () => {
  hub = isolatedHubHome('gguf-hub');
  const repos = {
    [SEVERAL]: {
      files: {
        'tiny-qwen2-q8_0.gguf': read('qwen2-q8_0.gguf'),
        'tiny-qwen2-f16.gguf': read('qwen2-f16.gguf'),
        'README.md': Buffer.from('# GGUF'),
      },
    },
    [ONE]: { files: { 'tiny-qwen3-q4_0.gguf': read('qwen3-q4_0.gguf') } },
  };
  server = await new HubServer({ repos }).start();
  engine = await createAttention({ variant: 'simd', threads: 1 });
});
afterAll(async () => {
  engine?.dispose();
  await server?.stop();
  hub?.restore();
});
const options = (more = {}) => ({ endpoint: server.url, cacheDir: path.join(hub.home, 'cache'), ...more });

test('{ file } downloads that file alone and loads it; the second load is the cache', async () => {
  const model = await engine.loadModel(SEVERAL, options({ file: 'tiny-qwen2-q8_0.gguf' }));
  expect(model.config.modelType).toBe('qwen2');
  const { inputIds } = await model.run('用毒毒毒蛇', { returnAttention: false });
  expect(inputIds.length).toBeGreaterThan(0);
  model.dispose();
  // One file's bytes fetched (an LFS file: from the "CDN", by its sha256): the q8_0 file's.
  const downloads = server.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/cdn/'));
  expect(downloads.map((r) => path.basename(r.path))).toEqual([
    createHash('sha256').update(read('qwen2-q8_0.gguf')).digest('hex'),
  ]);
  server.requests.length = 0;
  const again = await engine.loadModel(SEVERAL, options({ file: 'tiny-qwen2-q8_0.gguf' }));
  again.dispose();
  expect(server.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/cdn/'))).toEqual([]);
});

test('a repo of one .gguf needs no file', async () => {
  const model = await engine.loadModel(ONE, options());
  expect(model.config.modelType).toBe('qwen3');
  model.dispose();
});

test("several and no file, or a file the repo lacks: refused with the repo's GGUF files and sizes", async () => {
  const q8 = read('qwen2-q8_0.gguf').length;
  const f16 = read('qwen2-f16.gguf').length;
  await expect(engine.loadModel(SEVERAL, options())).rejects.toThrow(
    `${SEVERAL} has 2 GGUF files: tiny-qwen2-f16.gguf (${f16} bytes), tiny-qwen2-q8_0.gguf (${q8} bytes); choose one with { file }`,
  );
  await expect(engine.loadModel(SEVERAL, options({ file: 'tiny-qwen2-q4_k_m.gguf' }))).rejects.toMatchObject({
    code: 'EntryNotFound',
    message:
      `${SEVERAL}: no tiny-qwen2-q4_k_m.gguf at revision "main" (its GGUF files: ` +
      `tiny-qwen2-f16.gguf (${f16} bytes), tiny-qwen2-q8_0.gguf (${q8} bytes))`,
  });
});

test('file: a .gguf file name, or a TypeError / RangeError', async () => {
  await expect(engine.loadModel(SEVERAL, options({ file: 3 }))).rejects.toThrow(
    new TypeError("file: expected the name of a .gguf file of the folder or repo ('model-q8_0.gguf'), got number 3"),
  );
  await expect(engine.loadModel(SEVERAL, options({ file: 'sub/model.gguf' }))).rejects.toThrow(RangeError);
  await expect(engine.loadModel(SEVERAL, options({ file: 'model.safetensors' }))).rejects.toThrow(RangeError);
});
