// listModelFiles (sources/repo-files.mjs, public in 'mha-wasm/model' and Node's
// entry): a Hub repo's files and sizes and what loadModel would download of
// them, with one request to a local server that speaks the Hub's HTTP
// (tests/tools/hub-server.mjs): the sizes are the files' own, the download's
// names are the files loadModel then fetches, the token follows loadModel's
// rule, and refusals carry codes. parseModelName: names and URLs, no request.
import { statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAttention, listModelFiles, parseModelName, DEFAULT_HUB_ENDPOINT } from '../../src/js/node.mjs';
import { HubServer, folderFiles } from '../tools/hub-server.mjs';
import { isolatedHubHome } from './helpers/hub-home.mjs';

const MODELS = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
const ROBERTA = 'mha-wasm-tests/hf-roberta';
const SHARDED = 'mha-wasm-tests/hf-xlm-roberta-bin-sharded';
const GATED = 'mha-wasm-tests/gated-bert';

let server, other, hub;
beforeAll(async () => {
  hub = isolatedHubHome('hub-files');
  const repos = {
    [ROBERTA]: { files: { ...folderFiles(path.join(MODELS, 'hf-roberta')), 'README.md': Buffer.from('# a model') } },
    [SHARDED]: { files: folderFiles(path.join(MODELS, 'hf-xlm-roberta-bin-sharded')) },
    [GATED]: { files: folderFiles(path.join(MODELS, 'bert-zh')), gated: true },
  };
  server = await new HubServer({ repos, tokens: ['hf_granted'] }).start();
  other = await new HubServer({ repos, tokens: ['hf_granted'] }).start();
});
afterAll(async () => {
  await server?.stop();
  await other?.stop();
  hub?.restore();
});
beforeEach(() => {
  server.requests.length = 0;
  other.requests.length = 0;
});

test("a repo's files with their sizes, and what loadModel downloads of them, in one request", async () => {
  const listed = await listModelFiles(ROBERTA, { endpoint: server.url });
  expect(server.requests.map((r) => r.path)).toEqual([`/api/models/${ROBERTA}/revision/main`]);
  const folder = path.join(MODELS, 'hf-roberta');
  const want = { ...folderFiles(folder), 'README.md': Buffer.from('# a model') };
  expect(Object.fromEntries(listed.files.map((f) => [f.name, f.size]))).toEqual(
    Object.fromEntries(Object.entries(want).map(([name, bytes]) => [name, bytes.length])),
  );
  expect([listed.repo, listed.revision, listed.commit, listed.endpoint]).toEqual([
    ROBERTA,
    'main',
    server.commitOf(ROBERTA),
    server.url,
  ]);
  // The download is what loadModel then fetches into an empty cache, byte for byte.
  const cacheDir = hub.freshCache();
  const engine = await createAttention({ threads: 1 });
  try {
    (await engine.loadModel(ROBERTA, { endpoint: server.url, cacheDir })).dispose();
  } finally {
    engine.dispose();
  }
  const snapshot = path.join(cacheDir, `models--${ROBERTA.replace('/', '--')}`, 'snapshots', listed.commit);
  const fetched = Object.fromEntries(listed.download.names.map((n) => [n, statSync(path.join(snapshot, n)).size]));
  expect(listed.download.bytes).toBe(Object.values(fetched).reduce((a, b) => a + b, 0));
  expect(listed.download.names).not.toContain('README.md');
  expect(listed.download.exact).toBe(true);
  // A sharded checkpoint: its index and shards, the sizes summed from the list.
  const sharded = await listModelFiles(`${server.url}/${SHARDED}`, { endpoint: server.url });
  expect(sharded.download.names).toEqual(
    expect.arrayContaining(['config.json', 'pytorch_model.bin.index.json', 'pytorch_model-00001-of-00002.bin']),
  );
  expect(sharded.download.exact).toBe(false);
});

test("a gated repo's list needs a token only where the Hub asks; the token never reaches another origin", async () => {
  // The test Hub gates the files, not the list (as the Hub does): the list comes, with the token sent.
  const listed = await listModelFiles(GATED, { endpoint: server.url, token: 'hf_granted' });
  expect(listed.files.length).toBeGreaterThan(0);
  expect(server.requests.every((r) => r.authorization === 'Bearer hf_granted')).toBe(true);
  await listModelFiles(`${other.url}/${ROBERTA}`, { endpoint: server.url, token: 'hf_granted' });
  expect(other.requests.length).toBe(1);
  expect(other.requests[0].authorization).toBeUndefined();
});

test('refusals: a bad name or option by argument, a missing repo by code', async () => {
  await expect(listModelFiles('not a name/')).rejects.toThrow(
    'name: expected a Hugging Face model name ("org/name") or a Hub model\'s URL, got the string "not a name/"',
  );
  await expect(listModelFiles(ROBERTA, { revison: 'v1' })).rejects.toThrow(
    'listModelFiles: unknown argument "revison"; expected one of revision, endpoint, token, signal',
  );
  const missing = await listModelFiles('mha-wasm-tests/nope', { endpoint: server.url }).catch((e) => e);
  expect([missing.code, missing.repo, missing.endpoint]).toEqual(['RepoNotFound', 'mha-wasm-tests/nope', server.url]);
});

test('parseModelName: names and Hub URLs, no request', () => {
  expect(parseModelName('org/name')).toEqual({ repo: 'org/name' });
  expect(parseModelName('https://huggingface.co/org/name/tree/v1.0')).toEqual({ repo: 'org/name', revision: 'v1.0' });
  expect(parseModelName(new URL('https://hf-mirror.com/gpt2'))).toEqual({ repo: 'gpt2' });
  for (const bad of ['a b', 'org/-name', 'https://huggingface.co/', '', 42]) expect(parseModelName(bad)).toBeNull();
  expect(DEFAULT_HUB_ENDPOINT).toBe('https://huggingface.co');
});
