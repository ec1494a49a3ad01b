// The package through a bundler: examples/vite is built with Vite into a
// temporary folder (by the Vite CLI in a child process: Vite's bundler does
// not run inside Jest's VM), served statically with the isolation headers, and
// loaded in headless Chromium: the threaded build must load from the files
// Vite copied and renamed, and give the reference result.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sirv from 'sirv';
import { referenceAttention } from '../js/helpers/reference.mjs';
import { compareClose } from '../js/helpers/compare.mjs';
import { launchChromium, openPage } from './chromium.mjs';

const configFile = fileURLToPath(new URL('../../examples/vite/vite.config.mjs', import.meta.url));
let outDir, server, url, browser;

beforeAll(async () => {
  outDir = mkdtempSync(path.join(os.tmpdir(), 'mha-vite-'));
  const vite = fileURLToPath(new URL('../../node_modules/vite/bin/vite.js', import.meta.url));
  const built = spawnSync(
    process.execPath,
    [vite, 'build', '--config', configFile, '--outDir', outDir, '--emptyOutDir'],
    {
      encoding: 'utf8',
      timeout: 90_000,
    },
  );
  if (built.status !== 0) throw new Error(`vite build failed:\n${built.stdout}\n${built.stderr}`);
  const files = sirv(outDir);
  server = createServer((req, res) => {
    res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    res.setHeader('Cross-Origin-Embedder-Policy', 'require-corp');
    files(req, res, () => {
      res.statusCode = 404;
      res.end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${server.address().port}/`;
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => (server ? server.close(r) : r()));
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

test('Vite copies every file the threaded build needs', () => {
  const files = readdirSync(path.join(outDir, 'assets'));
  for (const variant of ['threaded-simd', 'simd', 'scalar'])
    expect(files.some((f) => f.startsWith(`mha-${variant}-`) && f.endsWith('.wasm'))).toBe(true);
});

test('the Vite app runs threaded-simd on >= 2 threads and gets the reference result', async () => {
  const { page, problems } = await openPage(browser.context, url);
  await page.waitForFunction(() => window.mhaResult, null, { timeout: 30_000 });
  const result = await page.evaluate(() => window.mhaResult);
  expect(result.variant).toBe('threaded-simd');
  expect(result.threads).toBeGreaterThanOrEqual(2);

  // The same inputs as examples/vite/main.js, through the float64 reference.
  const seqLenQ = 6,
    dModel = 8,
    numHeads = 2;
  const ramp = (n, scale) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.7) * scale);
  const want = referenceAttention({
    query: ramp(seqLenQ * dModel, 1),
    seqLenQ,
    dModel,
    numHeads,
    wQ: ramp(dModel * dModel, 0.3),
    wK: ramp(dModel * dModel, 0.2),
    wV: ramp(dModel * dModel, 0.5),
    wO: ramp(dModel * dModel, 0.4),
    causal: true,
  });
  const tolerance = { abs: 1e-5, rel: 1e-4 };
  expect(compareClose(result.output, want.output, tolerance)).toBeNull();
  expect(compareClose(result.attention, want.attention, tolerance)).toBeNull();
  expect(problems).toEqual([]);
  await page.close();
}, 60_000);
