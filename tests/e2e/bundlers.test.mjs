// The package through every bundler recipe of examples/ (webpack 5, esbuild
// esm and iife, Rollup, Vite): each is built (bundlers-recipes.mjs) and loaded
// in headless Chromium from a static server, cross-origin isolated (the
// threaded build, on >= 2 threads) and not (the single-thread simd build);
// each gets the float64 reference's result. A bundle of an app that never
// trains carries no trainer build; an app that imports 'mha-wasm/train' gets
// them, and its trainer matches PyTorch. With locateFile, every file (the
// engine's Worker scripts included) may come from another origin (a CDN).
import { rmSync } from 'node:fs';
import { compareClose } from '../js/helpers/compare.mjs';
import { launchChromium, openPage } from './chromium.mjs';
import { buildRecipe, emitted, exampleReference, serve, trainFixture, workFolder } from './bundlers-recipes.mjs';

const RECIPES = ['webpack', 'esbuild-esm', 'esbuild-iife', 'rollup', 'vite'];
const TOLERANCE = { abs: 1e-5, rel: 1e-4 };

async function expectReference(page, problems, variant) {
  await page.waitForFunction(() => window.mhaResult, null, { timeout: 15_000 });
  const result = await page.evaluate(() => window.mhaResult);
  expect(result.error).toBeUndefined();
  expect(result.variant).toBe(variant);
  if (variant === 'threaded-simd') expect(result.threads).toBeGreaterThanOrEqual(2);
  else expect(result.threads).toBe(1);
  const want = exampleReference();
  expect(compareClose(result.output, want.output, TOLERANCE)).toBeNull();
  expect(compareClose(result.attention, want.attention, TOLERANCE)).toBeNull();
  expect(problems).toEqual([]);
}

let work, server, cdn, browser;
const outputs = {}; // `${recipe}` and `${recipe}-${app}`: the build folders

beforeAll(async () => {
  work = workFolder('bundlers-');
  // Two at a time: the machine may have two cores.
  const jobs = [...RECIPES.flatMap((recipe) => [[recipe], [recipe, 'train']]), ['esbuild-esm', 'cdn']];
  const next = async () => {
    for (let job = jobs.shift(); job; job = jobs.shift()) {
      const [recipe, app] = job;
      outputs[app ? `${recipe}-${app}` : recipe] = await buildRecipe(recipe, work, { app });
    }
  };
  await Promise.all([next(), next()]);
  server = await serve(work);
  // Another origin, with the headers a CDN needs for a cross-origin-isolated page.
  cdn = await serve(work, { 'Access-Control-Allow-Origin': '*', 'Cross-Origin-Resource-Policy': 'cross-origin' });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await cdn?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe.each(RECIPES)('%s', (recipe) => {
  test('emits the inference builds and the engine scripts, and no trainer build unless the app trains', () => {
    const files = emitted(outputs[recipe]).map(({ file }) => file);
    for (const variant of ['threaded-simd', 'simd', 'scalar'])
      expect(files.some((f) => new RegExp(`mha-${variant}[^/]*\\.wasm$`).test(f))).toBe(true);
    expect(files.filter((f) => /mha-train-/.test(f))).toEqual([]);
    const withTrainer = emitted(outputs[`${recipe}-train`]).map(({ file }) => file);
    for (const variant of ['threaded-simd', 'simd', 'scalar'])
      expect(withTrainer.some((f) => new RegExp(`mha-train-${variant}[^/]*\\.wasm$`).test(f))).toBe(true);
  });

  test.each([
    ['isolated', 'threaded-simd'],
    ['plain', 'simd'],
  ])('%s page: runs %s and gets the reference result', async (mode, variant) => {
    const { page, problems } = await openPage(browser.context, `${server.url}${mode}/${recipe}/index.html`);
    try {
      await expectReference(page, problems, variant);
    } finally {
      await page.close();
    }
  });

  test("an app that imports 'mha-wasm/train' trains, isolated, as PyTorch does", async () => {
    const f = trainFixture();
    const { page, problems } = await openPage(browser.context, `${server.url}isolated/${recipe}-train/index.html`);
    try {
      await page.waitForFunction(() => window.mhaTrain, null, { timeout: 15_000 });
      const result = await page.evaluate((fixture) => window.mhaTrain(fixture), f);
      expect(result).toMatchObject({ variant: 'threaded-simd', training: true });
      expect(compareClose(result.losses, f.losses, { abs: 1e-6, rel: 1e-5 })).toBeNull();
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});

test.each([
  ['isolated', 'threaded-simd'],
  ['plain', 'simd'],
])(
  'every file from another origin (locateFile to a CDN), %s page: runs %s, reference result',
  async (mode, variant) => {
    const files = `${cdn.url}${mode}/esbuild-esm-cdn/mha-wasm/`;
    const url = `${server.url}${mode}/esbuild-esm-cdn/index.html?files=${encodeURIComponent(files)}`;
    const { page, problems } = await openPage(browser.context, url);
    try {
      await expectReference(page, problems, variant);
    } finally {
      await page.close();
    }
  },
);
