// A sentence-transformers repo loaded by name from a local server that speaks the Hub's HTTP
// (tests/tools/hub-server.mjs): its modules.json and the Pooling module's config.json it names are downloaded,
// so embed() of the model loaded by name is bit for bit the same folder's loaded from the disk (whose embeddings
// tasks.test.mjs checks against transformers), with the same defaults; a Pooling config.json the repo lacks is
// what it is for a folder (embed() asks for the pooling); a plain repo has none; the cache then serves them offline.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';
import { HubServer, folderFiles } from '../tools/hub-server.mjs';
import { isolatedHubHome } from './helpers/hub-home.mjs';

const TASKS = fileURLToPath(new URL('../fixtures/tasks/', import.meta.url));
const FOLDER = path.join(TASKS, 'bert-sentence-embedding');
const POOLING = '1_Pooling/config.json';
const MEAN = 'mha-wasm-tests/st-mean-normalized';
const CLS = 'mha-wasm-tests/st-cls';
const NO_POOLING = 'mha-wasm-tests/st-no-pooling';
const PLAIN = 'mha-wasm-tests/plain-bert';
const TEXTS = ['We poison the snake.', '用毒毒毒蛇，毒蛇会不会被毒毒死'];

// The folder's files, its Pooling config.json at its path; the CLS repo: [CLS] pooling and no Normalize module.
const top = folderFiles(FOLDER);
const pooling = readFileSync(path.join(FOLDER, POOLING));
const modules = JSON.parse(top['modules.json'].toString());
const clsPooling = { ...JSON.parse(pooling.toString()), pooling_mode_cls_token: true, pooling_mode_mean_tokens: false };
const clsModules = modules.filter((m) => !m.type.endsWith('models.Normalize'));
const json = (value) => Buffer.from(JSON.stringify(value, null, 2));
const { 'modules.json': _, ...plain } = top;
const served = {
  [MEAN]: { ...top, [POOLING]: pooling },
  [CLS]: { ...top, 'modules.json': json(clsModules), [POOLING]: json(clsPooling) },
  [NO_POOLING]: top,
  [PLAIN]: plain,
};

let server, engine, hub, local;
beforeAll(async () => {
  hub = isolatedHubHome('hub-tasks');
  const repos = Object.fromEntries(Object.entries(served).map(([repo, files]) => [repo, { files }]));
  server = await new HubServer({ repos }).start();
  engine = await createAttention({ variant: 'simd' });
  local = await engine.loadModel(FOLDER);
});
afterAll(async () => {
  local?.dispose();
  engine?.dispose();
  await server?.stop();
  hub?.restore();
});

const embeddings = async (model, options) => {
  const out = [];
  for (const text of TEXTS) out.push((await model.embed(text, options)).embedding);
  return out;
};

test.each([
  [MEAN, { pooling: 'mean', normalize: true, file: POOLING }, {}],
  [CLS, { pooling: 'cls', normalize: false, file: POOLING }, { pooling: 'cls', normalize: false }],
])(
  '%s by name: modules.json and its Pooling config.json downloaded; embed() is the local folder’s bit for bit, online and from the cache',
  async (repo, settings, localOptions) => {
    const cacheDir = hub.freshCache();
    const online = await engine.loadModel(repo, { endpoint: server.url, cacheDir });
    expect(online.config.sentenceTransformers).toEqual(settings);
    const want = await embeddings(local, localOptions);
    expect(await embeddings(online, {})).toEqual(want);
    // The files sit in the cache's snapshot by their paths.
    const snapshot = path.join(cacheDir, `models--${repo.replace('/', '--')}`, 'snapshots', server.commitOf(repo));
    expect(readFileSync(path.join(snapshot, POOLING))).toEqual(served[repo][POOLING]);
    online.dispose();
    // Offline: no request, the same model.
    server.requests.length = 0;
    const offline = await engine.loadModel(repo, { endpoint: server.url, cacheDir, offline: true });
    expect(server.requests).toEqual([]);
    expect(offline.config.sentenceTransformers).toEqual(settings);
    expect(await embeddings(offline, {})).toEqual(want);
    offline.dispose();
    // Online again, by commit: the cache is complete (no download).
    server.requests.length = 0;
    const pinned = await engine.loadModel(repo, { endpoint: server.url, cacheDir, revision: server.commitOf(repo) });
    expect(server.requests).toEqual([]);
    expect(pinned.config.sentenceTransformers).toEqual(settings);
    pinned.dispose();
  },
);

test('a Pooling config.json the repo lacks is what it is for a folder; a plain BERT repo has no modules.json', async () => {
  const cacheDir = hub.freshCache();
  const lacking = await engine.loadModel(NO_POOLING, { endpoint: server.url, cacheDir });
  // The folder's top-level files alone, as files (no 1_Pooling/config.json).
  const withoutPooling = Object.fromEntries(Object.entries(top).map(([name, bytes]) => [name, new Uint8Array(bytes)]));
  const folderLacking = await engine.loadModel(withoutPooling);
  expect(lacking.config.sentenceTransformers).toEqual({ pooling: null, normalize: true, file: POOLING });
  expect(lacking.config.sentenceTransformers).toEqual(folderLacking.config.sentenceTransformers);
  const message =
    /^pooling: this folder's modules.json names a Pooling module whose 1_Pooling\/config.json was not read/;
  await expect(lacking.embed('a')).rejects.toThrow(message);
  await expect(folderLacking.embed('a')).rejects.toThrow(message);
  folderLacking.dispose();
  lacking.dispose();
  // Offline, the cache knows it is absent.
  server.requests.length = 0;
  const offline = await engine.loadModel(NO_POOLING, { endpoint: server.url, cacheDir, offline: true });
  expect(server.requests).toEqual([]);
  expect(offline.config.sentenceTransformers).toEqual({ pooling: null, normalize: true, file: POOLING });
  offline.dispose();
  const bert = await engine.loadModel(PLAIN, { endpoint: server.url, cacheDir });
  expect(bert.config.sentenceTransformers).toBeNull();
  expect(server.requests.map((r) => r.path).filter((p) => /modules|Pooling/.test(p))).toEqual([]);
  // Without a sentence-transformers folder: mean and no normalisation, as embed() defaults.
  expect((await bert.embed(TEXTS[0])).embedding).toEqual((await local.embed(TEXTS[0], { normalize: false })).embedding);
  bert.dispose();
});
