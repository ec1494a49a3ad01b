// Models by name (sources/hub.mjs, sources/hub-node.mjs) against a local
// server that speaks the Hub's HTTP (tests/tools/hub-server.mjs, never the
// real Hub): a model loads by name and gives transformers' numbers
// (reference.json of tests/fixtures/models); a second load asks only whether
// its branch moved (hub-revalidate.test.mjs);
// the cache is huggingface_hub's layout, and one huggingface_hub itself wrote
// (tests/fixtures/hub/python-cache, by tests/tools/make_hub_fixtures.mjs) loads
// offline; gated, missing and renamed repos; a cut download resumes; two
// processes share a cache; every bad option is refused by name.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { createAttention } from '../../src/js/node.mjs';
import { HubServer, folderFiles } from '../tools/hub-server.mjs';
import { isolatedHubHome } from './helpers/hub-home.mjs';

const MODELS = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
const PYTHON_CACHE = fileURLToPath(new URL('../fixtures/hub/python-cache/', import.meta.url));
const NODE_ENTRY = fileURLToPath(new URL('../../src/js/node.mjs', import.meta.url));
const reference = (name) => JSON.parse(readFileSync(path.join(MODELS, name, 'reference.json'), 'utf8'));
const ROBERTA = 'mha-wasm-tests/hf-roberta';
const SHARDED = 'mha-wasm-tests/hf-xlm-roberta-bin-sharded';
const GATED = 'mha-wasm-tests/gated-bert';
const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/** Every value within abs + rel·|want| of the reference's. */
function expectNear(got, want, tol, label) {
  expect(got.length).toBe(want.length);
  for (let i = 0; i < want.length; i++)
    if (!(Math.abs(got[i] - want[i]) <= tol.hiddenAbs + tol.hiddenRel * Math.abs(want[i])))
      throw new Error(`${label}[${i}]: got ${got[i]}, want ${want[i]}`);
}

/** The model gives the folder's transformers reference in its first case (ids, hidden states, attention). */
async function expectTransformers(model, folder) {
  const ref = reference(folder);
  const c = ref.cases[0];
  const r = await model.run(c.input, { returnAttention: true, returnHiddenStates: true });
  expect(Array.from(r.inputIds)).toEqual(c.inputIds);
  expectNear(r.lastHiddenState, c.lastHiddenState, ref.tolerance, `${folder} lastHiddenState`);
  expectNear(r.attention, c.attention, { hiddenAbs: ref.tolerance.attentionAbs, hiddenRel: 0 }, `${folder} attention`);
}

/** A port nothing listens on. */
async function closedPort() {
  const probe = http.createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

let server;
let engine;
let hub; // the suite's own Hub home (isolatedHubHome)
const freshCache = () => hub.freshCache();
const hubRequests = () => server.requests.filter((r) => r.port === 'hub');

beforeAll(async () => {
  // Nothing of this machine's own Hugging Face settings or cache is read.
  hub = isolatedHubHome('hub');
  const bert = folderFiles(path.join(MODELS, 'bert-zh'));
  server = await new HubServer({
    repos: {
      [ROBERTA]: {
        files: {
          ...folderFiles(path.join(MODELS, 'hf-roberta')),
          'tf_model.h5': Buffer.from('tf'),
          'README.md': Buffer.from('# a model'),
        },
      },
      [SHARDED]: { files: folderFiles(path.join(MODELS, 'hf-xlm-roberta-bin-sharded')) },
      [GATED]: { files: bert, gated: true },
      'mha-wasm-tests/tf-only': { files: { 'config.json': bert['config.json'], 'tf_model.h5': Buffer.from('tf') } },
      'mha-wasm-tests/versions': {
        files: folderFiles(path.join(MODELS, 'hf-roberta')),
        revisions: { 'v-camembert': folderFiles(path.join(MODELS, 'hf-camembert')) },
      },
    },
    renamed: { 'old-org/roberta': ROBERTA },
    tokens: ['hf_granted'],
  }).start();
  engine = await createAttention({ threads: 1 });
});

afterAll(async () => {
  engine?.dispose();
  await server?.stop();
  hub?.restore();
});

beforeEach(() => {
  server.requests.length = 0;
});

test("a model loads by name from the Hub's HTTP, with transformers' numbers, into huggingface_hub's cache layout", async () => {
  const cacheDir = freshCache();
  const events = [];
  const model = await engine.loadModel(ROBERTA, { endpoint: server.url, cacheDir, onProgress: (e) => events.push(e) });
  await expectTransformers(model, 'hf-roberta');
  const commit = server.commitOf(ROBERTA);
  // The file list, then each file the loader reads: HEAD for its ETag, GET; the weights from the "CDN".
  const asked = server.requests.map((r) => `${r.method} ${r.port} ${r.path}`);
  expect(asked[0]).toBe(`GET hub /api/models/${ROBERTA}/revision/main`);
  for (const name of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'model.safetensors'])
    expect(asked).toContain(`HEAD hub /${ROBERTA}/resolve/${commit}/${name}`);
  expect(asked).toContain(`GET cdn /cdn/${server.sha256Of(ROBERTA, 'model.safetensors')}`);
  // Nothing the loader does not read: not the TensorFlow weights, the README or the test's reference.
  expect(asked.filter((a) => /tf_model|README|reference/.test(a))).toEqual([]);
  // The layout: refs/main, relative symlinks into blobs named by ETag (sha256 for LFS, git oid otherwise).
  const root = path.join(cacheDir, 'models--mha-wasm-tests--hf-roberta');
  expect(readFileSync(path.join(root, 'refs', 'main'), 'utf8')).toBe(commit);
  const files = folderFiles(path.join(MODELS, 'hf-roberta'));
  const weights = readlinkSync(path.join(root, 'snapshots', commit, 'model.safetensors'));
  expect(weights).toBe(`../../blobs/${sha256(files['model.safetensors'])}`);
  const config = readlinkSync(path.join(root, 'snapshots', commit, 'config.json'));
  const gitOid = createHash('sha1')
    .update(`blob ${files['config.json'].length}\0`)
    .update(files['config.json'])
    .digest('hex');
  expect(config).toBe(`../../blobs/${gitOid}`);
  expect(
    readFileSync(path.join(root, 'snapshots', commit, 'model.safetensors')).equals(files['model.safetensors']),
  ).toBe(true);
  expect(readdirSync(path.join(root, 'blobs')).filter((n) => n.endsWith('.incomplete'))).toEqual([]);
  // What is absent, as huggingface_hub records it: trees/{commit}.json and .no_exist.
  const tree = JSON.parse(readFileSync(path.join(root, 'trees', `${commit}.json`), 'utf8'));
  expect(tree.format_version).toBe(1);
  expect(tree.files['model.safetensors']).toEqual({
    size: files['model.safetensors'].length,
    blob_id: expect.stringMatching(/^[0-9a-f]{40}$/),
    lfs_sha256: sha256(files['model.safetensors']),
    lfs_size: files['model.safetensors'].length,
  });
  expect(existsSync(path.join(root, '.no_exist', commit, 'pytorch_model.bin'))).toBe(true);
  // Progress: downloads, then loading, each up to its total.
  const downloads = events.filter((e) => e.phase === 'download');
  const total = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'model.safetensors'].reduce(
    (s, n) => s + files[n].length,
    0,
  );
  expect(downloads.at(-1)).toMatchObject({ file: 'model.safetensors', loadedBytes: total, totalBytes: total });
  expect(downloads.every((e, i) => i === 0 || e.loadedBytes >= downloads[i - 1].loadedBytes)).toBe(true);
  const loads = events.filter((e) => e.phase === 'load');
  expect(loads.at(-1).loadedBytes).toBe(loads.at(-1).totalBytes);
  expect(events.findIndex((e) => e.phase === 'load')).toBeGreaterThan(
    events.findLastIndex((e) => e.phase === 'download'),
  );
  model.dispose();

  // A second load makes one request: a HEAD of config.json at main, which has not moved (huggingface_hub's revalidation).
  server.requests.length = 0;
  const again = await engine.loadModel(ROBERTA, { endpoint: server.url, cacheDir });
  expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`HEAD /${ROBERTA}/resolve/main/config.json`]);
  await expectTransformers(again, 'hf-roberta');
  again.dispose();
  server.requests.length = 0;
  // …one by commit, or offline, none.
  (await engine.loadModel(ROBERTA, { endpoint: server.url, cacheDir, revision: commit })).dispose();
  (await engine.loadModel(ROBERTA, { endpoint: 'http://127.0.0.1:1', cacheDir, offline: true })).dispose();
  expect(server.requests).toEqual([]);
});

test('a cache huggingface_hub and transformers wrote (tests/fixtures/hub) loads offline, and online asking only whether main moved', async () => {
  const cacheDir = freshCache();
  cpSync(PYTHON_CACHE, cacheDir, { recursive: true, verbatimSymlinks: true });
  process.env.HF_HUB_CACHE = cacheDir;
  process.env.HF_HUB_OFFLINE = '1';
  try {
    const model = await engine.loadModel(SHARDED);
    await expectTransformers(model, 'hf-xlm-roberta-bin-sharded');
    model.dispose();
    delete process.env.HF_HUB_OFFLINE;
    // Online: Python's trees/{commit}.json says what the repo has: only whether main moved is asked.
    const online = await engine.loadModel(SHARDED, { endpoint: server.url });
    expect(server.requests.map((r) => r.method)).toEqual(['HEAD']);
    online.dispose();
  } finally {
    delete process.env.HF_HUB_CACHE;
    delete process.env.HF_HUB_OFFLINE;
  }
  // The report of huggingface_hub reading a cache this loader wrote (make_hub_fixtures.mjs).
  const report = JSON.parse(readFileSync(new URL('../fixtures/hub/python-report.json', import.meta.url), 'utf8'));
  expect(report.nodeCacheWarnings).toEqual([]);
  expect(report.offlineFromNodeCache.lastHiddenStateMaxAbsDiff).toBeLessThan(1e-5);
});

test('offline without the model in the cache says where it looked and what to do; HF_ENDPOINT is the endpoint', async () => {
  const cacheDir = freshCache();
  await expect(engine.loadModel(ROBERTA, { cacheDir, offline: true })).rejects.toThrow(
    new RegExp(
      `^${ROBERTA}: offline: true, and the cache \\(${cacheDir}/models--mha-wasm-tests--hf-roberta\\) has no revision "main" of it: load it once online`,
    ),
  );
  process.env.HF_HUB_OFFLINE = 'true';
  await expect(engine.loadModel(ROBERTA, { cacheDir })).rejects.toThrow(/offline \(HF_HUB_OFFLINE=true\)/);
  delete process.env.HF_HUB_OFFLINE;
  expect(server.requests).toEqual([]);
  process.env.HF_ENDPOINT = server.url;
  try {
    (await engine.loadModel(ROBERTA, { cacheDir })).dispose();
  } finally {
    delete process.env.HF_ENDPOINT;
  }
  expect(hubRequests().length).toBeGreaterThan(0);
});

test('a gated model asks for a token, and loads with one; the token never goes to the CDN', async () => {
  const cacheDir = freshCache();
  await expect(engine.loadModel(GATED, { endpoint: server.url, cacheDir })).rejects.toThrow(
    `${GATED} is a gated model: accept its conditions on ${server.url}/${GATED} while logged in, then pass a token`,
  );
  await expect(engine.loadModel(GATED, { endpoint: server.url, cacheDir, token: 'hf_other' })).rejects.toThrow(
    /is a gated model: .*the token given has no access yet/,
  );
  server.requests.length = 0;
  const model = await engine.loadModel(GATED, { endpoint: server.url, cacheDir, token: 'hf_granted' });
  await expectTransformers(model, 'bert-zh');
  model.dispose();
  expect(hubRequests().every((r) => r.authorization === 'Bearer hf_granted')).toBe(true);
  expect(server.requests.filter((r) => r.port === 'cdn' && r.authorization !== undefined)).toEqual([]);
  // HF_TOKEN, and the token file `huggingface-cli login` writes ($HF_HOME/token).
  process.env.HF_TOKEN = 'hf_granted';
  (await engine.loadModel(GATED, { endpoint: server.url, cacheDir: freshCache() })).dispose();
  delete process.env.HF_TOKEN;
  mkdirSync(process.env.HF_HOME, { recursive: true });
  writeFileSync(path.join(process.env.HF_HOME, 'token'), 'hf_granted\n');
  try {
    (await engine.loadModel(GATED, { endpoint: server.url, cacheDir: freshCache() })).dispose();
  } finally {
    rmSync(path.join(process.env.HF_HOME, 'token'));
  }
});

test('a wrong name, a wrong revision, a repo without weights the engine reads: errors that say what to do', async () => {
  const cacheDir = freshCache();
  const load = (name, options = {}) => engine.loadModel(name, { endpoint: server.url, cacheDir, ...options });
  await expect(load('mha-wasm-tests/no-such-model')).rejects.toThrow(
    /^mha-wasm-tests\/no-such-model: no model of that name on http:\/\/127\.0\.0\.1:\d+, or it is private \(pass a token .*\); a name is "org\/name"/,
  );
  await expect(load(ROBERTA, { revision: 'nope' })).rejects.toThrow(`${ROBERTA}: no revision "nope"`);
  await expect(load('mha-wasm-tests/tf-only')).rejects.toThrow(
    'mha-wasm-tests/tf-only: no model.safetensors or pytorch_model.bin at revision "main" (it has tf_model.h5)',
  );
  await expect(engine.loadModel('not a name/')).rejects.toThrow(
    /^source: no folder not a name\/, and "not a name\/" is not a Hugging Face model name/,
  );
  const closed = await closedPort();
  await expect(load(ROBERTA, { endpoint: `http://127.0.0.1:${closed}` })).rejects.toThrow(
    new RegExp(
      `^mha-wasm-tests/hf-roberta: cannot reach http://127\\.0\\.0\\.1:${closed} for the file list \\(ECONNREFUSED\\): check the network`,
    ),
  );
  // The engine goes on.
  (await load(ROBERTA)).dispose();
}, 30000);

test('a renamed repo (a relative redirect), a tag, a URL; a 503 retried', async () => {
  const cacheDir = freshCache();
  server.fail(`/api/models/${ROBERTA}/revision/main`, 503, 2);
  const renamed = await engine.loadModel('old-org/roberta', { endpoint: server.url, cacheDir });
  await expectTransformers(renamed, 'hf-roberta');
  renamed.dispose();
  const tagged = await engine.loadModel('mha-wasm-tests/versions', {
    endpoint: server.url,
    cacheDir,
    revision: 'v-camembert',
  });
  expect(tagged.config.modelType).toBe('camembert');
  await expectTransformers(tagged, 'hf-camembert');
  tagged.dispose();
  const root = path.join(cacheDir, 'models--mha-wasm-tests--versions');
  expect(readFileSync(path.join(root, 'refs', 'v-camembert'), 'utf8')).toBe(
    server.commitOf('mha-wasm-tests/versions', 'v-camembert'),
  );
  // A Hub page's URL: its origin is the endpoint; a file: URL is a folder.
  const byUrl = await engine.loadModel(new URL(`${server.url}/${ROBERTA}`), { cacheDir: freshCache() });
  byUrl.dispose();
  const byFileUrl = await engine.loadModel(pathToFileURL(path.join(MODELS, 'hf-roberta')));
  await expectTransformers(byFileUrl, 'hf-roberta');
  byFileUrl.dispose();
});

test('a download cut off resumes with Range, in the same load and in the next; corrupted bytes are refused', async () => {
  const weights = server.sha256Of(ROBERTA, 'model.safetensors');
  const cdn = `/cdn/${weights}`;
  // Cut off after 5000 bytes: the load asks for the rest.
  let cacheDir = freshCache();
  server.cut(weights, 5000);
  const model = await engine.loadModel(ROBERTA, { endpoint: server.url, cacheDir });
  await expectTransformers(model, 'hf-roberta');
  model.dispose();
  expect(server.requests.filter((r) => r.path === cdn).map((r) => r.range)).toEqual([undefined, 'bytes=5000-']);
  // A process that died mid-download left blobs/{sha256}.incomplete: the next load goes on from there.
  cacheDir = freshCache();
  const blobs = path.join(cacheDir, 'models--mha-wasm-tests--hf-roberta', 'blobs');
  mkdirSync(blobs, { recursive: true });
  const bytes = folderFiles(path.join(MODELS, 'hf-roberta'))['model.safetensors'];
  writeFileSync(path.join(blobs, `${weights}.incomplete`), bytes.subarray(0, 7000));
  server.requests.length = 0;
  (await engine.loadModel(ROBERTA, { endpoint: server.url, cacheDir })).dispose();
  expect(server.requests.filter((r) => r.path === cdn).map((r) => r.range)).toEqual(['bytes=7000-']);
  // Wrong bytes where a download stopped: refused by the sha256 check, fetched again whole.
  cacheDir = freshCache();
  const corrupt = path.join(cacheDir, 'models--mha-wasm-tests--hf-roberta', 'blobs');
  mkdirSync(corrupt, { recursive: true });
  writeFileSync(path.join(corrupt, `${weights}.incomplete`), Buffer.alloc(7000, 1));
  server.requests.length = 0;
  (await engine.loadModel(ROBERTA, { endpoint: server.url, cacheDir })).dispose();
  expect(server.requests.filter((r) => r.path === cdn).map((r) => r.range)).toEqual(['bytes=7000-', undefined]);
  expect(sha256(readFileSync(path.join(corrupt, weights)))).toBe(weights);
  // A server that sends wrong bytes: the file is refused, deleted, and nothing is linked.
  cacheDir = freshCache();
  server.corrupt(weights);
  try {
    await expect(engine.loadModel(ROBERTA, { endpoint: server.url, cacheDir })).rejects.toThrow(
      `${ROBERTA}: model.safetensors: downloaded bytes that do not match the Hub's sha256 (`,
    );
  } finally {
    server.corrupt(weights, false);
  }
  const root = path.join(cacheDir, 'models--mha-wasm-tests--hf-roberta');
  expect(readdirSync(path.join(root, 'blobs')).filter((n) => n.startsWith(weights))).toEqual([]);
  expect(existsSync(path.join(root, 'refs', 'main'))).toBe(false);
  (await engine.loadModel(ROBERTA, { endpoint: server.url, cacheDir })).dispose();
});

test('two processes loading the same model into one cache: one download, both right', async () => {
  const cacheDir = freshCache();
  const script = `
    import { createAttention } from ${JSON.stringify(pathToFileURL(NODE_ENTRY).href)};
    const engine = await createAttention({ threads: 1 });
    const model = await engine.loadModel(${JSON.stringify(SHARDED)}, { endpoint: ${JSON.stringify(server.url)}, cacheDir: ${JSON.stringify(cacheDir)} });
    const r = await model.run(${JSON.stringify(reference('hf-xlm-roberta-bin-sharded').cases[0].input)});
    console.log(JSON.stringify(Array.from(r.lastHiddenState)));
    engine.dispose();`;
  const run = () =>
    promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env } });
  const outputs = await Promise.all([run(), run()]);
  const ref = reference('hf-xlm-roberta-bin-sharded');
  for (const { stdout } of outputs)
    expectNear(JSON.parse(stdout), ref.cases[0].lastHiddenState, ref.tolerance, 'child');
  // Each shard came from the CDN once: the second process waited for the first one's lock.
  for (const shard of ['pytorch_model-00001-of-00002.bin', 'pytorch_model-00002-of-00002.bin'])
    expect(server.requests.filter((r) => r.path === `/cdn/${server.sha256Of(SHARDED, shard)}`).length).toBe(1);
  expect(readdirSync(path.join(cacheDir, '.locks', 'models--mha-wasm-tests--hf-xlm-roberta-bin-sharded'))).toEqual([]);
}, 60000);

test('a load aborted mid-download stops, keeps what it fetched, and the engine goes on', async () => {
  const cacheDir = freshCache();
  const controller = new AbortController();
  const loading = engine.loadModel(ROBERTA, {
    endpoint: server.url,
    cacheDir,
    signal: controller.signal,
    onProgress: (e) => e.file === 'tokenizer.json' && controller.abort(new Error('stopped by the user')),
  });
  await expect(loading).rejects.toThrow('stopped by the user');
  (await engine.loadModel(ROBERTA, { endpoint: server.url, cacheDir })).dispose();
});

test.each([
  [{ revision: '' }, TypeError, 'revision: expected a non-empty string, got the string ""'],
  [{ revision: '../main' }, RangeError, 'revision: expected a branch, tag or commit of the repo, got "../main"'],
  [
    { endpoint: 'ftp://hub.example' },
    RangeError,
    'endpoint: expected an http(s) URL such as https://huggingface.co, got "ftp://hub.example"',
  ],
  [{ endpoint: 42 }, TypeError, 'endpoint: expected a non-empty string, got number 42'],
  [
    { token: 'hf_a\nb' },
    RangeError,
    'token: expected a Hugging Face access token (hf_…), got a string with spaces or line breaks',
  ],
  [{ offline: 'yes' }, TypeError, 'offline: expected true or false, got the string "yes"'],
  [{ cacheDir: 5 }, TypeError, 'cacheDir: expected a folder path, got number 5'],
  [{ signal: {} }, TypeError, 'signal: expected an AbortSignal (new AbortController().signal), got an object'],
  [
    { revison: 'main' },
    TypeError,
    'loadModel: unknown argument "revison"; expected one of onProgress, signal, weights, activations, revision',
  ],
])('loadModel(name, %j) is refused', async (options, type, message) => {
  const loading = engine.loadModel(ROBERTA, { endpoint: server.url, cacheDir: freshCache(), ...options });
  await expect(loading).rejects.toThrow(type);
  await expect(loading).rejects.toThrow(message);
  expect(server.requests).toEqual([]);
});
