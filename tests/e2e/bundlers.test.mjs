// The package through every bundler recipe of examples/ (webpack 5, esbuild
// esm and iife, Rollup, Vite): each is built (bundlers-recipes.mjs) and loaded
// in headless Chromium from a static server, cross-origin isolated (the
// threaded build, on >= 2 threads) and not (the single-thread simd build);
// each gets the float64 reference's result. A bundle of an app that only
// computes attention carries no trainer or model build, and none of their JS
// (the models' loader, the tokenizers, the trainer's checks); an app that
// imports 'mha-wasm/train' gets the trainer's, and its trainer matches
// PyTorch; one that imports 'mha-wasm/model' gets the models', and a
// checkpoint's run matches PyTorch. With locateFile, every file (the
// engine's Worker scripts included) may come from another origin (a CDN).
// What each bundle emits (its bytes, its JS's bytes), and the build and
// threads each page got, go to test-output/bundlers-report.json.
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { compareClose } from '../js/helpers/compare.mjs';
import { ENTRY_CODE, markersIn } from '../js/helpers/entry-code.mjs';
import { launchChromium, openPage } from './chromium.mjs';
import { PAGE_BUILD } from './page-builds.mjs';
import { VARIANTS as ALL_BUILDS } from '../../src/js/files.mjs';
import { isThreaded } from '../../src/js/variants.mjs';
import {
  REPO,
  buildRecipe,
  emitted,
  exampleReference,
  modelFixture,
  serve,
  trainFixture,
  workFolder,
} from './bundlers-recipes.mjs';

const RECIPES = ['webpack', 'esbuild-esm', 'esbuild-iife', 'rollup', 'vite'];
const APPS = ['train', 'model'];
const TOLERANCE = { abs: 1e-5, rel: 1e-4 };
const REPORT = path.join(REPO, 'test-output', 'bundlers-report.json');
// recipe → { [app]: { bytes, files, jsBytes }, pages: { [mode]: { variant, threads } } }
const report = {};

// Every file a build emitted, and of them the JavaScript (the app's bundle and
// chunks, the engine's scripts, the builds' glue).
const sizes = (dir) => {
  const files = emitted(dir);
  const js = files.filter((f) => /\.m?js$/.test(f.file));
  return {
    bytes: files.reduce((sum, f) => sum + f.bytes, 0),
    files: files.length,
    jsBytes: js.reduce((sum, f) => sum + f.bytes, 0),
  };
};
const emittedJs = (dir) =>
  emitted(dir)
    .filter((f) => /\.m?js$/.test(f.file))
    .map((f) => readFileSync(path.join(dir, f.file), 'utf8'))
    .join('\n');

async function expectReference(page, problems, variant) {
  await page.waitForFunction(() => window.mhaResult, null, { timeout: 15_000 });
  const result = await page.evaluate(() => window.mhaResult);
  expect(result.error).toBeUndefined();
  expect(result.variant).toBe(variant);
  if (isThreaded(variant)) expect(result.threads).toBeGreaterThanOrEqual(2);
  else expect(result.threads).toBe(1);
  const want = exampleReference();
  expect(compareClose(result.output, want.output, TOLERANCE)).toBeNull();
  expect(compareClose(result.attention, want.attention, TOLERANCE)).toBeNull();
  expect(problems).toEqual([]);
  return result;
}

let work, server, cdn, browser;
const outputs = {}; // `${recipe}` and `${recipe}-${app}`: the build folders

beforeAll(async () => {
  work = workFolder('bundlers-');
  // Two at a time: the machine may have two cores.
  const jobs = [
    ...RECIPES.flatMap((recipe) => [[recipe], ...APPS.map((app) => [recipe, app])]),
    ['esbuild-esm', 'cdn'],
  ];
  const next = async () => {
    for (let job = jobs.shift(); job; job = jobs.shift()) {
      const [recipe, app] = job;
      outputs[app ? `${recipe}-${app}` : recipe] = await buildRecipe(recipe, work, { app });
    }
  };
  await Promise.all([next(), next()]);
  cpSync(modelFixture().folder, path.join(work, 'models', 'bert-zh'), { recursive: true });
  server = await serve(work);
  // Another origin, with the headers a CDN needs for a cross-origin-isolated page.
  cdn = await serve(work, { 'Access-Control-Allow-Origin': '*', 'Cross-Origin-Resource-Policy': 'cross-origin' });
  browser = await launchChromium();
  // About 25 s alone; npm test runs another suite beside it.
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await cdn?.close();
  if (work) rmSync(work, { recursive: true, force: true });
  writeFileSync(REPORT, `${JSON.stringify(report, null, 2)}\n`);
});

describe.each(RECIPES)('%s', (recipe) => {
  test("emits the attention builds, and the trainer's or the models' only for an app that imports their entry", () => {
    const names = (app) => emitted(outputs[app ? `${recipe}-${app}` : recipe]).map(({ file }) => file);
    const builds = (files, family) =>
      ALL_BUILDS.filter((variant) => files.some((f) => new RegExp(`mha-${family}${variant}[^/]*\\.wasm$`).test(f)));
    for (const app of [undefined, ...APPS]) {
      const files = names(app);
      expect(builds(files, '')).toEqual(ALL_BUILDS);
      for (const family of APPS) expect(builds(files, `${family}-`)).toEqual(app === family ? ALL_BUILDS : []);
      report[recipe] = { ...report[recipe], [app ?? 'attention']: sizes(outputs[app ? `${recipe}-${app}` : recipe]) };
    }
  });

  test("an app's JS carries the trainer's code only through 'mha-wasm/train', the models' only through 'mha-wasm/model'", () => {
    for (const app of [undefined, ...APPS]) {
      const code = emittedJs(outputs[app ? `${recipe}-${app}` : recipe]);
      // Every marker where the app imports its entry (so this bundler keeps it), none elsewhere.
      for (const family of APPS)
        expect([app ?? 'attention', family, markersIn(code, family)]).toEqual([
          app ?? 'attention',
          family,
          app === family ? ENTRY_CODE[family].markers : [],
        ]);
    }
  });

  test.each(Object.entries(PAGE_BUILD))('%s page: runs %s and gets the reference result', async (mode, variant) => {
    const { page, problems } = await openPage(browser.context, `${server.url}${mode}/${recipe}/index.html`);
    try {
      const { threads } = await expectReference(page, problems, variant);
      report[recipe] = { ...report[recipe], pages: { ...report[recipe]?.pages, [mode]: { variant, threads } } };
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
      expect(result).toMatchObject({ variant: PAGE_BUILD.isolated, training: true });
      expect(compareClose(result.losses, f.losses, { abs: 1e-6, rel: 1e-5 })).toBeNull();
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });

  test("an app that imports 'mha-wasm/model' loads a checkpoint, plain page, as PyTorch runs it", async () => {
    const { names, reference } = modelFixture();
    const c = reference.cases.find((x) => x.name === 'sentence');
    const { page, problems } = await openPage(browser.context, `${server.url}plain/${recipe}-model/index.html`);
    try {
      await page.waitForFunction(() => window.mhaModel, null, { timeout: 15_000 });
      const result = await page.evaluate(
        ([base, files, text]) => window.mhaModel(base, files, text),
        [`${server.url}plain/models/bert-zh/`, names, c.input],
      );
      expect(result).toMatchObject({
        variant: PAGE_BUILD.plain,
        threads: 1,
        tokens: c.readable ?? c.tokens,
        inputIds: c.inputIds,
      });
      const { tolerance } = reference;
      expect(compareClose(result.attention, c.attention, { abs: tolerance.attentionAbs, rel: 0 })).toBeNull();
      expect(
        compareClose(result.lastHiddenState, c.lastHiddenState, { abs: tolerance.hiddenAbs, rel: tolerance.hiddenRel }),
      ).toBeNull();
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});

test.each(Object.entries(PAGE_BUILD))(
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
