// The real-model view's loading errors in the reader's language
// (web/model/load-errors.mjs): each kind made by the package itself in Node
// (engine.loadModel on broken folders, and by name against the test Hub of
// tests/tools/hub-server.mjs: a name it does not have, a gated model, a
// download cut off every time, a Hub that cannot be reached, a cancel), each
// with the code and fields the package gives it (src/js/errors.mjs), which
// are all the page reads; every kind has its message in both catalogues.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';
import { HubServer, folderFiles } from '../tools/hub-server.mjs';
import { LOAD_ERROR_KINDS, loadErrorReason } from '../../web/model/load-errors.mjs';
import { LANGUAGES, entry, setLanguage, t } from '../../web/lib/i18n.mjs';

const FOLDER = fileURLToPath(new URL('../fixtures/models/bert-zh/', import.meta.url));
const { 'reference.json': _, ...FILES } = folderFiles(FOLDER);
const CONFIG = JSON.parse(FILES['config.json']);
const withConfig = (changes) => ({ ...FILES, 'config.json': Buffer.from(JSON.stringify({ ...CONFIG, ...changes })) });

let engine, hub, cacheDir;
beforeAll(async () => {
  engine = await createAttention({ variant: 'simd' });
  hub = await new HubServer({
    repos: { 'tests/bert': { files: FILES }, 'tests/gated': { files: FILES, gated: true } },
  }).start();
  cacheDir = mkdtempSync(path.join(os.tmpdir(), 'mha-load-errors-'));
}, 60_000);
afterAll(async () => {
  engine?.dispose();
  await hub?.stop();
  if (cacheDir) rmSync(cacheDir, { recursive: true, force: true });
});

/** The error loadModel rejects with (the test fails if it loads). */
async function failure(source, options) {
  const error = await engine.loadModel(source, options).then(
    () => null,
    (e) => e,
  );
  expect(error).not.toBeNull();
  return error;
}

/** The page's reason for the error loadModel rejects with, which must carry `code` (and `fields`). */
async function reasonOf(code, fields, source, options) {
  const error = await failure(source, options);
  expect({ code: error.code, ...Object.fromEntries(Object.keys(fields).map((k) => [k, error[k]])) }).toEqual({
    code,
    ...fields,
  });
  return loadErrorReason(error);
}
const reason = async (source, options) => loadErrorReason(await failure(source, options));
const byName = (repo, options = {}) => reason(repo, { endpoint: hub.url, cacheDir, ...options });

test('a folder: no config.json, an architecture the engine does not run, a setting it refuses, no weights', async () => {
  expect(await reasonOf('NoConfig', {}, { 'model.safetensors': FILES['model.safetensors'] })).toMatchObject({
    kind: 'noConfig',
  });
  const type = await reasonOf(
    'UnsupportedModel',
    { file: 'config.json', field: 'model_type', value: '"nope"' },
    withConfig({ model_type: 'nope' }),
  );
  expect(type).toMatchObject({
    kind: 'modelType',
    params: { file: 'config.json', field: 'model_type', type: '"nope"' },
  });
  // No model_type at all: said so, not "undefined".
  const { model_type: ____, ...untyped } = CONFIG;
  expect(await reason({ ...FILES, 'config.json': Buffer.from(JSON.stringify(untyped)) })).toMatchObject({
    kind: 'noModelType',
  });
  // The engine's own words stay as the detail.
  expect(type.detail).toMatch(/^Error: config\.json: model_type "nope" is not supported; mha-wasm runs "bert"/);
  expect(await reasonOf('BadConfig', { file: 'config.json' }, withConfig({ num_attention_heads: 0 }))).toMatchObject({
    kind: 'config',
  });
  const { 'model.safetensors': __, ...noWeights } = FILES;
  expect(await reasonOf('NoWeights', {}, noWeights)).toMatchObject({ kind: 'noWeights' });
});

test('a folder: a file the engine cannot read is named', async () => {
  const weights = FILES['model.safetensors'];
  const cut = { ...FILES, 'model.safetensors': weights.subarray(0, weights.length >> 1) };
  expect(await reasonOf('BadCheckpoint', { file: 'model.safetensors' }, cut)).toMatchObject({
    kind: 'badFile',
    params: { file: 'model.safetensors' },
  });
  expect(await reason({ 'config.json': FILES['config.json'], 'pytorch_model.bin': Buffer.alloc(64) })).toMatchObject({
    kind: 'badFile',
    params: { file: 'pytorch_model.bin' },
  });
  expect(
    await reasonOf('BadCheckpoint', { file: 'config.json' }, { ...FILES, 'config.json': Buffer.from('{ not json') }),
  ).toMatchObject({
    kind: 'badFile',
    params: { file: 'config.json' },
  });
  const index = { weight_map: { 'bert.embeddings.word_embeddings.weight': 'model-00001-of-00002.safetensors' } };
  const { 'model.safetensors': ___, ...sharded } = FILES;
  expect(
    await reason({ ...sharded, 'model.safetensors.index.json': Buffer.from(JSON.stringify(index)) }),
  ).toMatchObject({ kind: 'badFile', params: { file: 'model.safetensors.index.json' } });
});

test('by name: not on the Hub, gated (without and with a token), a Hub that cannot be reached', async () => {
  const named = (code, fields, repo, options = {}) =>
    reasonOf(code, fields, repo, { endpoint: hub.url, cacheDir, ...options });
  expect(
    await named('RepoNotFound', { repo: 'tests/no-such-model', endpoint: hub.url }, 'tests/no-such-model'),
  ).toMatchObject({
    kind: 'notFound',
    params: { repo: 'tests/no-such-model', endpoint: hub.url },
  });
  expect(await named('GatedRepo', { repo: 'tests/gated' }, 'tests/gated')).toMatchObject({
    kind: 'gated',
    params: { repo: 'tests/gated' },
  });
  expect(await byName('tests/gated', { token: 'hf_no_access' })).toMatchObject({ kind: 'gated' });
  // A port nothing listens on (after the loader's retries, 3.5 s).
  const unreachable = { endpoint: 'http://127.0.0.1:9' };
  expect(await named('Unreachable', unreachable, 'tests/bert', unreachable)).toMatchObject({
    kind: 'unreachable',
    params: { endpoint: 'http://127.0.0.1:9' },
  });
}, 30_000);

test('by name: a download cut off at every try is "interrupted"; a cancel is not an error', async () => {
  const weights = hub.sha256Of('tests/bert', 'model.safetensors');
  // Every download of the weights cut after 1000 bytes (the test Hub forgets a cut once used: this map does not).
  hub.cuts = new (class extends Map {
    delete() {
      return false;
    }
  })([[weights, 1000]]);
  try {
    const cut = await reasonOf('Interrupted', { repo: 'tests/bert', file: 'model.safetensors' }, 'tests/bert', {
      endpoint: hub.url,
      cacheDir: mkdtempSync(path.join(cacheDir, 'cut-')),
    });
    expect(cut).toMatchObject({ kind: 'interrupted', params: { file: 'model.safetensors' } });
  } finally {
    hub.cuts = new Map();
  }
  const controller = new AbortController();
  controller.abort(new DOMException('cancelled', 'AbortError'));
  expect(await byName('tests/bert', { signal: controller.signal })).toMatchObject({ kind: 'cancelled' });
}, 30_000);

test('anything else is "other", with its text as the detail: no message is read', () => {
  // A message the old regexes took for a gated repo, without the code: other.
  expect(loadErrorReason(new Error('org/name is a gated model: accept its conditions'))).toMatchObject({
    kind: 'other',
  });
  // A file's code without the file: other (the message needs the name).
  expect(loadErrorReason(Object.assign(new Error('x'), { code: 'BadCheckpoint' }))).toMatchObject({ kind: 'other' });
  expect(loadErrorReason(new RangeError('offset is out of bounds'))).toEqual({
    kind: 'other',
    params: {},
    detail: 'RangeError: offset is out of bounds',
  });
  expect(loadErrorReason('a string')).toEqual({ kind: 'other', params: {}, detail: 'a string' });
});

test('every kind has its message in both languages', () => {
  const params = {
    type: '"nope"',
    file: 'model.safetensors',
    field: 'model_type',
    single: 'model.safetensors',
    other: 'pytorch_model.bin',
    repo: 'org/name',
    endpoint: 'https://huggingface.co',
  };
  for (const lang of LANGUAGES) {
    setLanguage(lang);
    for (const kind of LOAD_ERROR_KINDS) {
      expect(() => entry(`real.loadError.${kind}`)).not.toThrow();
      expect(t(`real.loadError.${kind}`, params)).not.toMatch(/undefined|NaN|\{/);
    }
  }
  setLanguage('en');
});
