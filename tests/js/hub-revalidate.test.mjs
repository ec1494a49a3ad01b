// A cached branch is revalidated as huggingface_hub revalidates it
// (sources/hub.mjs, revisionCommit): an online load of a branch or tag that
// the cache holds asks one HEAD of its config.json (X-Repo-Commit); when the
// branch moved, the new commit is listed and its files downloaded; a Hub that
// does not answer leaves the cache in use; a repo that is gone is refused; a
// commit or offline asks nothing. forceDownload fetches every file again.
// Against the local server that speaks the Hub's HTTP (tests/tools/hub-server.mjs).
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';
import { HubServer, folderFiles } from '../tools/hub-server.mjs';
import { isolatedHubHome } from './helpers/hub-home.mjs';

const MODELS = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
const REPO = 'mha-wasm-tests/moving';
const ROBERTA = folderFiles(path.join(MODELS, 'hf-roberta'));
const CAMEMBERT = folderFiles(path.join(MODELS, 'hf-camembert'));
const reference = (name) => JSON.parse(readFileSync(path.join(MODELS, name, 'reference.json'), 'utf8'));

let server, engine, hub;
beforeAll(async () => {
  hub = isolatedHubHome('hub-revalidate');
  server = await new HubServer({ repos: { [REPO]: { files: ROBERTA } } }).start();
  engine = await createAttention({ threads: 1 });
});
afterAll(async () => {
  engine?.dispose();
  await server?.stop();
  hub?.restore();
});

const asked = () => server.requests.map((r) => `${r.port} ${r.method} ${r.path}`);
/** The model type and first case's ids the loaded model gives (which checkpoint it is). */
async function which(model) {
  const ref = reference(model.config.modelType === 'camembert' ? 'hf-camembert' : 'hf-roberta');
  const r = await model.run(ref.cases[0].input);
  model.dispose();
  return { modelType: model.config.modelType, ids: Array.from(r.inputIds), want: ref.cases[0].inputIds };
}

test('main moved: one HEAD sees it, the new commit is downloaded and loaded; then one HEAD again', async () => {
  const cacheDir = hub.freshCache();
  const load = (options = {}) => engine.loadModel(REPO, { endpoint: server.url, cacheDir, ...options });
  const first = await which(await load());
  expect(first.modelType).toBe('roberta');
  const before = server.commitOf(REPO);
  server.requests.length = 0;
  const moved = server.push(REPO, CAMEMBERT);
  const second = await which(await load());
  expect(second.modelType).toBe('camembert');
  expect(second.ids).toEqual(second.want);
  expect(asked()[0]).toBe(`hub HEAD /${REPO}/resolve/main/config.json`);
  expect(asked()).toContain(`hub GET /api/models/${REPO}/revision/main`);
  expect(readFileSync(path.join(cacheDir, `models--${REPO.replace('/', '--')}`, 'refs', 'main'), 'utf8')).toBe(moved);
  server.requests.length = 0;
  expect((await which(await load())).modelType).toBe('camembert');
  expect(asked()).toEqual([`hub HEAD /${REPO}/resolve/main/config.json`]);
  // The old commit by its id: from the cache, no request.
  server.requests.length = 0;
  expect((await which(await load({ revision: before }))).modelType).toBe('roberta');
  expect(asked()).toEqual([]);
});

test('a Hub that does not answer leaves the cache in use; a repo that is gone is refused; commits and offline ask nothing', async () => {
  const cacheDir = hub.freshCache();
  const model = await engine.loadModel(REPO, { endpoint: server.url, cacheDir });
  const commit = readFileSync(path.join(cacheDir, `models--${REPO.replace('/', '--')}`, 'refs', 'main'), 'utf8');
  model.dispose();
  // 503 on every try of the HEAD: the retries, then the cache.
  server.fail(`/${REPO}/resolve/main/config.json`, 503, 4);
  server.requests.length = 0;
  (await engine.loadModel(REPO, { endpoint: server.url, cacheDir })).dispose();
  expect(asked().every((a) => a === `hub HEAD /${REPO}/resolve/main/config.json`)).toBe(true);
  // Nothing listening: the cache.
  const probe = http.createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const closed = `http://127.0.0.1:${probe.address().port}`;
  await new Promise((resolve) => probe.close(resolve));
  (await engine.loadModel(REPO, { endpoint: closed, cacheDir })).dispose();
  // A commit, or offline: no request.
  server.requests.length = 0;
  (await engine.loadModel(REPO, { endpoint: server.url, cacheDir, revision: commit })).dispose();
  (await engine.loadModel(REPO, { endpoint: server.url, cacheDir, offline: true })).dispose();
  expect(asked()).toEqual([]);
  // Gone from the Hub (a 401 RepoNotFound, as the Hub answers): refused with its code.
  const gone = await engine
    .loadModel('mha-wasm-tests/was-here', { endpoint: server.url, cacheDir: path.join(hub.home, 'empty') })
    .catch((e) => e);
  expect(gone.code).toBe('RepoNotFound');
}, 30_000);

test('forceDownload fetches every file again, into the same cache; refused offline', async () => {
  const cacheDir = hub.freshCache();
  (await engine.loadModel(REPO, { endpoint: server.url, cacheDir })).dispose();
  server.requests.length = 0;
  const progress = [];
  const model = await engine.loadModel(REPO, {
    endpoint: server.url,
    cacheDir,
    forceDownload: true,
    onProgress: (e) => e.phase === 'download' && progress.push(e.file),
  });
  const loaded = await which(model);
  expect(loaded.ids).toEqual(loaded.want);
  const got = new Set(server.requests.filter((r) => r.method === 'GET').map((r) => r.port));
  expect(got).toEqual(new Set(['hub', 'cdn']));
  expect(new Set(progress)).toEqual(
    new Set(['config.json', 'tokenizer.json', 'tokenizer_config.json', 'model.safetensors']),
  );
  await expect(engine.loadModel(REPO, { cacheDir, offline: true, forceDownload: true })).rejects.toThrow(
    'forceDownload: downloads again, which offline: true forbids',
  );
  await expect(engine.loadModel(REPO, { cacheDir, forceDownload: 'yes' })).rejects.toThrow(
    'forceDownload: expected true or false, got the string "yes"',
  );
});
