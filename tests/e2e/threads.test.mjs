// The browser build choice and the Worker, in real headless Chromium, which
// runs relaxed SIMD: a page served with COOP/COEP runs threaded-relaxed-simd on
// >= 2 threads, the same page without them runs relaxed-simd; a browser that
// refuses the relaxed-SIMD probe (as Safari does) gets threaded-simd and simd;
// all give the reference results. (That a large computation leaves the page's
// main thread free is the timed suite main-thread.test.mjs.)
import { RELAXED_SIMD_PROBE } from '../../src/js/variants.mjs';
import { startServer } from '../../web/server.mjs';
import { fixtureNames, loadFixture } from '../js/helpers/fixtures.mjs';
import { compareClose } from '../js/helpers/compare.mjs';
import { launchChromium, openBlankPage } from './chromium.mjs';

let browser;
const servers = {};

beforeAll(async () => {
  browser = await launchChromium();
  for (const isolate of [true, false]) {
    const server = await startServer({ port: 0, isolate });
    servers[isolate ? 'isolated' : 'plain'] = { server, url: `http://127.0.0.1:${server.address().port}/` };
  }
}, 60_000);

afterAll(async () => {
  await browser?.close();
  for (const { server } of Object.values(servers)) await new Promise((r) => server.close(r));
});

// Makes the page a browser without relaxed SIMD: WebAssembly.validate refuses
// the probe module, as a host without it does (the SIMD128 builds hold no
// relaxed opcode, so nothing else changes).
const withoutRelaxedSimd = (page) =>
  page.evaluate((probe) => {
    const validate = WebAssembly.validate;
    const same = (bytes) => bytes.length === probe.length && bytes.every((b, i) => b === probe[i]);
    const view = (b) =>
      ArrayBuffer.isView(b) ? new Uint8Array(b.buffer, b.byteOffset, b.byteLength) : new Uint8Array(b);
    WebAssembly.validate = (bytes) => !same(view(bytes)) && validate(bytes);
  }, Array.from(RELAXED_SIMD_PROBE));

// What createAttention(options) throws inside the page, as "Name: message".
const createError = (page, options) =>
  page.evaluate(async (options) => {
    const { createAttention } = await import('/src/js/browser.mjs');
    try {
      await createAttention(options);
      return 'no error';
    } catch (e) {
      return `${e.name}: ${e.message}`;
    }
  }, options);

// Runs every fixture through createAttention(options) inside the page.
async function runFixturesInPage(page, options) {
  const fixtures = fixtureNames().map((name) => loadFixture(name).raw);
  return page.evaluate(
    async ({ fixtures, options }) => {
      const { createAttention } = await import('/src/js/browser.mjs');
      const engine = await createAttention(options);
      const toArgs = (raw) => {
        const dims = ['batch', 'seqLenQ', 'seqLenK', 'dModel', 'numHeads', 'dK', 'dV', 'causal'];
        const args = { ...Object.fromEntries(dims.map((k) => [k, raw[k]])), returnAttention: true };
        for (const k of ['query', 'key', 'value', 'wQ', 'wK', 'wV', 'wO', 'bQ', 'bK', 'bV', 'bO'])
          args[k] = raw[k] === null ? undefined : Float32Array.from(raw[k]);
        args.keyPaddingMask = raw.keyPaddingMask === null ? undefined : Uint8Array.from(raw.keyPaddingMask);
        return args;
      };
      const results = [];
      for (const raw of fixtures) {
        const { output, attention } = await engine.multiHeadAttention(toArgs(raw));
        results.push({ name: raw.name, output: Array.from(output), attention: Array.from(attention) });
      }
      const info = { variant: engine.variant, threads: engine.threads, isolated: crossOriginIsolated };
      engine.dispose();
      return { info, results };
    },
    { fixtures, options },
  );
}

function expectMatchesFixtures(results) {
  expect(results).toHaveLength(fixtureNames().length);
  for (const { name, output, attention } of results) {
    const { want, tolerance } = loadFixture(name);
    for (const [label, got, ref] of [
      ['output', output, want.output],
      ['attention', attention, want.attention],
    ]) {
      expect({ fixture: name, label, problem: compareClose(got, ref, tolerance) }).toEqual({
        fixture: name,
        label,
        problem: null,
      });
    }
  }
}

test('cross-origin isolated page: threaded-relaxed-simd on >= 2 threads, reference results', async () => {
  const { page, problems } = await openBlankPage(browser.context, servers.isolated.url);
  const { info, results } = await runFixturesInPage(page, {});
  expect(info).toEqual({ variant: 'threaded-relaxed-simd', threads: expect.any(Number), isolated: true });
  expect(info.threads).toBeGreaterThanOrEqual(2);
  expectMatchesFixtures(results);
  // Four threads on two cores: still the reference results.
  const four = await runFixturesInPage(page, { threads: 4 });
  expect(four.info.threads).toBe(4);
  expectMatchesFixtures(four.results);
  expect(problems).toEqual([]);
  await page.close();
}, 120_000);

test('page without isolation headers: falls back to relaxed-simd, reference results; threaded-simd is a clear error', async () => {
  const { page, problems } = await openBlankPage(browser.context, servers.plain.url);
  const { info, results } = await runFixturesInPage(page, {});
  expect(info).toEqual({ variant: 'relaxed-simd', threads: 1, isolated: false });
  expectMatchesFixtures(results);
  const scalar = await runFixturesInPage(page, { variant: 'scalar' });
  expect(scalar.info.variant).toBe('scalar');
  expectMatchesFixtures(scalar.results);
  const error = await createError(page, { variant: 'threaded-simd' });
  expect(error).toMatch(/^RangeError: variant: "threaded-simd" needs a cross-origin-isolated page/);
  expect(error).toMatch(/Cross-Origin-Embedder-Policy: require-corp/);
  // The 'mha-wasm' entry carries no model build: loadModel says which entry does.
  const modelError = await page.evaluate(async () => {
    const { createAttention } = await import('/src/js/browser.mjs');
    const engine = await createAttention();
    try {
      await engine.loadModel([new File(['{}'], 'config.json')]);
      return 'no error';
    } catch (e) {
      return `${e.name}: ${e.message}`;
    } finally {
      engine.dispose();
    }
  });
  expect(modelError).toBe(
    "TypeError: loadModel: 'mha-wasm' loads only the attention builds; for models, " +
      "import { createAttention } from 'mha-wasm/model' (the same engine, with loadModel)",
  );
  expect(problems).toEqual([]);
  await page.close();
}, 120_000);

test.each([
  ['isolated', 'threaded-simd'],
  ['plain', 'simd'],
])(
  'a browser without relaxed SIMD, %s page: %s by default, reference results; a relaxed build is a clear error',
  async (mode, variant) => {
    const { page, problems } = await openBlankPage(browser.context, servers[mode].url);
    await withoutRelaxedSimd(page);
    const { info, results } = await runFixturesInPage(page, {});
    expect(info).toEqual({ variant, threads: expect.any(Number), isolated: mode === 'isolated' });
    if (mode === 'isolated') expect(info.threads).toBeGreaterThanOrEqual(2);
    else expect(info.threads).toBe(1);
    expectMatchesFixtures(results);
    const error = await createError(page, { variant: 'relaxed-simd' });
    expect(error).toMatch(
      /^RangeError: variant: "relaxed-simd" needs WebAssembly relaxed SIMD, which this browser lacks/,
    );
    expect(problems).toEqual([]);
    await page.close();
  },
  120_000,
);

// Debian's Chromium runs relaxed SIMD: both relaxed builds, asked for by name, give the
// reference results (threaded on 2 and 4 threads in the isolated page, the same values
// as the one-thread build's), and the page validates the probe the choice reads.
test('relaxed SIMD in Chromium: threaded-relaxed-simd and relaxed-simd, reference results, same bits for any thread count', async () => {
  const { page, problems } = await openBlankPage(browser.context, servers.isolated.url);
  const probe = await page.evaluate(async () => (await import('/src/js/variants.mjs')).hasRelaxedSimd());
  expect(probe).toBe(true);
  const runs = [];
  for (const options of [
    { variant: 'threaded-relaxed-simd', threads: 2 },
    { variant: 'threaded-relaxed-simd', threads: 4 },
    { variant: 'relaxed-simd' },
  ]) {
    const run = await runFixturesInPage(page, options);
    expect(run.info).toEqual({ variant: options.variant, threads: options.threads ?? 1, isolated: true });
    expectMatchesFixtures(run.results);
    runs.push(run.results);
  }
  for (const other of runs.slice(1))
    other.forEach((r, i) =>
      expect([r.name, r.output, r.attention]).toEqual([runs[0][i].name, runs[0][i].output, runs[0][i].attention]),
    );
  expect(problems).toEqual([]);
  await page.close();
}, 120_000);
