// Models by name in headless Chromium (sources/hub-browser.mjs), against the
// test Hub (tests/tools/hub-server.mjs) on another origin, from the demo
// page's origin, whose CSP lets it reach exactly that Hub: a model loads by
// name with transformers' numbers; a second load, after a reload of the page,
// asks only whether main moved (one HEAD; the Cache API); offline: true loads from the cache alone;
// a gated model asks for a token and loads with one (never sent to the CDN);
// a download cut off goes on with Range from its last whole part; a Hub the
// CSP does not list is refused by the browser, with a message that says so;
// the page's engine fetches the models' loader modules only once a model loads.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HubServer, folderFiles } from '../tools/hub-server.mjs';
import { openPage, setUp } from './page-helpers.mjs';

const MODELS = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
const ROBERTA = 'mha-wasm-tests/hf-roberta';
const GATED = 'mha-wasm-tests/gated';
const reference = JSON.parse(readFileSync(path.join(MODELS, 'hf-roberta', 'reference.json'), 'utf8'));

let hub, env, page;
const hubRequests = () => hub.requests.filter((r) => r.method !== 'OPTIONS');

beforeAll(async () => {
  const files = folderFiles(path.join(MODELS, 'hf-roberta'));
  hub = await new HubServer({ repos: { [ROBERTA]: { files }, [GATED]: { files, gated: true } } }).start();
  env = await setUp({ hubEndpoints: [hub.url], hubDownloadHosts: [hub.cdnUrl] });
  // The demo page: its import map resolves the tokenizers' bare import.
  ({ page } = await openPage(env));
}, 60_000);

afterAll(async () => {
  await env?.close();
  await hub?.stop();
});

beforeEach(() => {
  hub.requests.length = 0;
});

/** In the page: loads `name` with `options`, runs the reference's first case; { lastHiddenState, inputIds } or { error }. */
function loadAndRun(name, options) {
  return page.evaluate(
    async ({ name, options, text, partBytes }) => {
      const { createAttention } = await import('/src/js/model-entry.mjs');
      const { BrowserHubStore } = await import('/src/js/models/sources/hub-browser.mjs');
      if (partBytes) BrowserHubStore.partBytes = partBytes;
      const engine = await createAttention({ variant: 'simd' });
      try {
        const events = [];
        delete options.partBytes;
        const model = await engine.loadModel(name, { ...options, onProgress: (e) => events.push(e.phase) });
        const r = await model.run(text);
        return { lastHiddenState: Array.from(r.lastHiddenState), inputIds: Array.from(r.inputIds), events };
      } catch (error) {
        return { error: `${error.name}: ${error.message}` };
      } finally {
        engine.dispose();
      }
    },
    {
      name,
      options: { endpoint: hub.url, ...options, partBytes: undefined },
      text: reference.cases[0].input,
      partBytes: options?.partBytes,
    },
  );
}

function expectReference(result) {
  expect(result.error).toBeUndefined();
  const c = reference.cases[0];
  expect(result.inputIds).toEqual(c.inputIds);
  const tol = reference.tolerance;
  result.lastHiddenState.forEach((x, i) => {
    if (!(Math.abs(x - c.lastHiddenState[i]) <= tol.hiddenAbs + tol.hiddenRel * Math.abs(c.lastHiddenState[i])))
      throw new Error(`lastHiddenState[${i}]: got ${x}, want ${c.lastHiddenState[i]}`);
  });
}

test('a model loads by name into the Cache API; after a reload it loads with no request, and offline', async () => {
  const first = await loadAndRun(ROBERTA);
  expectReference(first);
  expect(first.events).toContain('download');
  expect(hubRequests().map((r) => `${r.port} ${r.path}`)).toEqual(
    expect.arrayContaining([
      `hub /api/models/${ROBERTA}/revision/main`,
      `cdn /cdn/${hub.sha256Of(ROBERTA, 'model.safetensors')}`,
    ]),
  );
  expect(hubRequests().some((r) => /reference\.json/.test(r.path))).toBe(false);
  await page.reload();
  await page.waitForSelector('body[data-ready]');
  hub.requests.length = 0;
  const second = await loadAndRun(ROBERTA);
  expectReference(second);
  expect(second.events).not.toContain('download');
  // One request: whether main moved (a HEAD of config.json, as huggingface_hub revalidates).
  expect(hub.requests.filter((r) => r.method !== 'OPTIONS').map((r) => `${r.method} ${r.path}`)).toEqual([
    `HEAD /${ROBERTA}/resolve/main/config.json`,
  ]);
  hub.requests.length = 0;
  expectReference(await loadAndRun(ROBERTA, { offline: true, endpoint: hub.url }));
  expect(hub.requests).toEqual([]);
  const missing = await loadAndRun('mha-wasm-tests/not-cached', { offline: true });
  expect(missing.error).toMatch(
    /^Error: mha-wasm-tests\/not-cached: offline: true, and the cache \(the browser's Cache API/,
  );
}, 60_000);

test('a gated model asks for a token and loads with one; the CDN never sees it', async () => {
  const refused = await loadAndRun(GATED);
  expect(refused.error).toContain(
    `${GATED} is a gated model: accept its conditions on ${hub.url}/${GATED} while logged in`,
  );
  hub.requests.length = 0;
  expectReference(await loadAndRun(GATED, { token: 'hf_granted' }));
  expect(
    hubRequests()
      .filter((r) => r.port === 'hub' && r.method === 'GET')
      .every((r) => r.authorization === 'Bearer hf_granted'),
  ).toBe(true);
  expect(hubRequests().filter((r) => r.port === 'cdn' && r.authorization)).toEqual([]);
}, 60_000);

test('a download cut off goes on from its last whole part (Range)', async () => {
  await page.evaluate(() => caches.delete('mha-wasm-hub'));
  const weights = hub.sha256Of(ROBERTA, 'model.safetensors');
  hub.cut(weights, 10_000);
  expectReference(await loadAndRun(ROBERTA, { partBytes: 4096 }));
  expect(
    hubRequests()
      .filter((r) => r.path === `/cdn/${weights}`)
      .map((r) => r.range),
  ).toEqual([undefined, 'bytes=8192-']);
}, 60_000);

test("a Hub the page's CSP does not list is refused by the browser, and the message says what to check", async () => {
  const other = await new HubServer({ repos: { [ROBERTA]: { files: {} } } }).start();
  try {
    const result = await loadAndRun(ROBERTA, { endpoint: other.url });
    expect(result.error).toMatch(new RegExp(`^Error: ${ROBERTA}: cannot reach ${other.url} for the file list`));
    expect(other.requests).toEqual([]);
  } finally {
    await other.stop();
  }
}, 60_000);

test("the page's engine imports the models' loader once it has started, before any model is loaded (model-entry.mjs)", async () => {
  const { page: fresh } = await openPage(env);
  try {
    // [path, startTime] of the library's model modules the page has fetched.
    const fetched = () =>
      fresh.evaluate(() =>
        performance
          .getEntriesByType('resource')
          .map((e) => [new URL(e.name).pathname, e.startTime])
          .filter(([p]) => p.startsWith('/src/js/models/')),
      );
    const loader = /\/models\/(load|transformer-model)\.mjs$|\/(formats|tokenizers|kinds|generation)\//;
    // No model is loaded: the entry imports its loader when the page is next idle after the engine started.
    await fresh.waitForFunction(
      () => performance.getEntriesByType('resource').some((e) => e.name.endsWith('/src/js/models/load.mjs')),
      null,
      { timeout: 20_000 },
    );
    // Its import under way, joined (the module map fetches a module once) until its whole graph is in.
    await fresh.evaluate(() => import('/src/js/models/load.mjs'));
    const before = await fetched();
    const loaderModules = before.filter(([p]) => loader.test(p));
    expect(loaderModules.length).toBeGreaterThan(30);
    // Not beside the engine's start: each asked for after its engine's Worker was (when the page is next idle
    // after that: when exactly is the browser's; here after the page's first paint, docs/performance.md).
    const worker = await fresh.evaluate(
      () =>
        performance.getEntriesByType('resource').find((e) => e.name.endsWith('/src/js/engine-worker.js'))?.startTime,
    );
    expect(typeof worker).toBe('number');
    expect(loaderModules.filter(([, start]) => start < worker)).toEqual([]);
    const result = await fresh.evaluate(
      async ({ name, endpoint, text }) => {
        const { createAttention } = await import('/src/js/model-entry.mjs');
        const engine = await createAttention({ variant: 'simd' });
        try {
          const model = await engine.loadModel(name, { endpoint });
          return { inputIds: Array.from((await model.run(text)).inputIds) };
        } finally {
          engine.dispose();
        }
      },
      { name: ROBERTA, endpoint: hub.url, text: reference.cases[0].input },
    );
    expect(result.inputIds).toEqual(reference.cases[0].inputIds);
    // The loader the load used is the one imported before: no module of it fetched again.
    const after = (await fetched()).filter(([p]) => loader.test(p)).map(([p]) => p);
    expect(after.sort()).toEqual(loaderModules.map(([p]) => p).sort());
  } finally {
    await fresh.close();
  }
}, 60_000);
