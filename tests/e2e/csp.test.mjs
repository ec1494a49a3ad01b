// The package under a strict Content-Security-Policy without 'unsafe-eval':
// two recipes of examples/ (bundlers-recipes.mjs), served with POLICY on every
// response (the page, its scripts, the workers' scripts): Vite's, whose small
// worker scripts arrive as data: URLs and start as blob: workers, and
// esbuild's iife, whose files come from locateFile. Each computes the
// reference result, cross-origin isolated (threaded-relaxed-simd in Chromium) and not (relaxed-simd); and
// each recipe's app of 'mha-wasm/model' runs a checkpoint's text, through the
// tokenizer's own Worker (dist/mha-model-tokenizer.js), as PyTorch does.
import { cpSync, rmSync } from 'node:fs';
import path from 'node:path';
import { compareClose } from '../js/helpers/compare.mjs';
import { launchChromium, openPage } from './chromium.mjs';
import { PAGE_BUILD } from './page-builds.mjs';
import { buildRecipe, exampleReference, modelFixture, serve, workFolder } from './bundlers-recipes.mjs';

// WebAssembly needs 'wasm-unsafe-eval'; blob: is for the workers a bundler
// inlined (Vite below 4 KB). Nothing needs 'unsafe-eval' or 'unsafe-inline'.
export const POLICY = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self' blob:";
const RECIPES = ['vite', 'esbuild-iife'];
let work, server, browser;

beforeAll(async () => {
  work = workFolder('csp-');
  for (const recipe of RECIPES) {
    await buildRecipe(recipe, work);
    await buildRecipe(recipe, work, { app: 'model' });
  }
  cpSync(modelFixture().folder, path.join(work, 'models', 'bert-zh'), { recursive: true });
  server = await serve(work, { 'Content-Security-Policy': POLICY });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe.each(RECIPES)('%s under the CSP', (recipe) => {
  test.each(Object.entries(PAGE_BUILD))(
    '%s page: runs %s and gets the reference result, with no violation',
    async (mode, variant) => {
      const { page, problems } = await openPage(browser.context, `${server.url}${mode}/${recipe}/index.html`);
      try {
        await page.waitForFunction(() => window.mhaResult, null, { timeout: 15_000 });
        const result = await page.evaluate(() => window.mhaResult);
        expect(result.error).toBeUndefined();
        expect(result.variant).toBe(variant);
        const want = exampleReference();
        const tolerance = { abs: 1e-5, rel: 1e-4 };
        expect(compareClose(result.output, want.output, tolerance)).toBeNull();
        expect(compareClose(result.attention, want.attention, tolerance)).toBeNull();
        // The examples' favicon is a data: image, which this policy (default-src) refuses.
        expect(problems.filter((p) => !p.includes("Loading the image 'data:,'"))).toEqual([]);
        // The policy is in force: an inline script is refused (the engine ran under it).
        const refused = await page.evaluate(
          () =>
            new Promise((resolve) => {
              document.addEventListener('securitypolicyviolation', (e) => resolve(e.effectiveDirective), {
                once: true,
              });
              const script = document.createElement('script');
              script.textContent = 'window.inlineRan = true';
              document.head.append(script);
            }),
        );
        expect(refused).toBe('script-src-elem');
        expect(await page.evaluate(() => window.inlineRan)).toBeUndefined();
      } finally {
        await page.close();
      }
    },
  );

  test("its app of 'mha-wasm/model' tokenizes a text in the tokenizer's Worker and runs it as PyTorch does", async () => {
    const { names, reference } = modelFixture();
    const c = reference.cases.find((x) => x.name === 'sentence');
    const { page, problems } = await openPage(browser.context, `${server.url}plain/${recipe}-model/index.html`);
    const workers = [];
    page.on('worker', (worker) => workers.push(worker.url()));
    try {
      await page.waitForFunction(() => window.mhaModel, null, { timeout: 15_000 });
      const result = await page.evaluate(
        ([base, files, text]) => window.mhaModel(base, files, text),
        [`${server.url}plain/models/bert-zh/`, names, c.input],
      );
      expect(result).toMatchObject({ tokens: c.readable ?? c.tokens, inputIds: c.inputIds });
      expect(compareClose(result.attention, c.attention, { abs: reference.tolerance.attentionAbs, rel: 0 })).toBeNull();
      expect(workers.some((w) => /mha-model-tokenizer[^/]*\.js$/.test(w))).toBe(true);
      expect(problems.filter((p) => !p.includes("Loading the image 'data:,'"))).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
