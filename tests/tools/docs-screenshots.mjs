// The screenshots of the page's real-model views in docs/ (captioned
// in docs/demo-page.md), made in headless Chromium with the committed random
// test checkpoints of tests/fixtures/models — their numbers mean nothing, and
// the page says so in each picture. MarianMT (hf-marian) in the translation
// view, in Chinese: the importance grids, the pruning curve with the re-decoded
// translations, "one head per layer" and "only the most important head", the
// rollout; a Llama (hf-llama) in the real-model view, in English: a head's
// attention weights switched to the norm-weighted α·‖f(x)‖, and its logit
// lens; a BERT (hf-bert-mlm) in Chinese: the run read in the article's terms
// and the fill of the [MASK] the button puts on a 毒. The page's
// numbers are checked against Node's by tests/e2e/page-heads-matter*.test.mjs
// and page-norm-weighted.test.mjs; this script only pictures them.
// Usage (dist/ built): node tests/tools/docs-screenshots.mjs [--out docs]
import path from 'node:path';
import { parseArgs } from 'node:util';
import { analyseHeadsOnPage, loadModelFolder, openPage, setUp } from '../e2e/page-helpers.mjs';

const { values } = parseArgs({ options: { out: { type: 'string', default: 'docs' } } });
const section = '#real-model .heads-matter';

/** Screenshots the smallest box around every element of `selectors` (in page coordinates) to out/file. */
async function shoot(page, selectors, file) {
  const boxes = [];
  for (const selector of selectors) {
    await page.locator(selector).first().scrollIntoViewIfNeeded();
    boxes.push(
      await page.$eval(selector, (e) => {
        const r = e.getBoundingClientRect();
        return {
          x: r.left + globalThis.scrollX,
          y: r.top + globalThis.scrollY,
          right: r.right + globalThis.scrollX,
          bottom: r.bottom + globalThis.scrollY,
        };
      }),
    );
  }
  const x = Math.min(...boxes.map((b) => b.x));
  const y = Math.min(...boxes.map((b) => b.y));
  const clip = {
    x,
    y,
    width: Math.max(...boxes.map((b) => b.right)) - x,
    height: Math.max(...boxes.map((b) => b.bottom)) - y,
  };
  await page.screenshot({ path: path.join(values.out, file), fullPage: true, clip });
  console.log(`${path.join(values.out, file)}: ${Math.round(clip.width)} × ${Math.round(clip.height)}`);
}

function expectNoProblems(problems, what) {
  if (problems.length) throw new Error(`${what}: the page reported ${problems.join('; ')}`);
}

const env = await setUp({ locale: 'zh-CN' });
try {
  {
    const { page, problems } = await openPage(env);
    await loadModelFolder(page, 'hf-marian');
    await analyseHeadsOnPage(page);
    await shoot(page, [`${section} .matter-trust`, `${section} .matter-legend`], 'heads-matter-grid.png');
    await shoot(page, [`${section} .matter-line-bar`, `${section} .matter-table`], 'heads-matter-curve.png');
    await page.click(`${section} .matter-few-layers-run`);
    await page.waitForSelector(`${section} .matter-few-layers:not([hidden])`, { timeout: 60_000 });
    await page.click(`${section} .matter-few-single-run`);
    await page.waitForSelector(`${section} .matter-few-single:not([hidden])`, { timeout: 60_000 });
    await shoot(page, [`${section} .matter-few`], 'heads-matter-fewer.png');
    await page.click(`${section} .matter-rollout-run`);
    await page.waitForSelector(`${section} .matter-rollout-map .heatmap`, { timeout: 60_000 });
    await shoot(page, [`${section} .matter-rollout`], 'heads-matter-rollout.png');
    expectNoProblems(problems, 'hf-marian');
    await page.close();
  }
  {
    const { page, problems } = await openPage(env);
    await page.check('input[name="lang"][value="en"]');
    await loadModelFolder(page, 'hf-llama');
    await page.check('#real-model .measure-toggle input[value="norm"]');
    await page.waitForSelector('#real-model .real-heatmap .heatmap[data-measure="norm"]');
    await shoot(page, ['#real-model .measure-toggle', '#real-model .real-heatmap'], 'norm-weighted.png');
    await page.click(`${section} .lens-run`);
    await page.waitForSelector(`${section} .matter-lens[data-ready]`, { timeout: 60_000 });
    await shoot(page, [`${section} .matter-lens`], 'logit-lens.png');
    expectNoProblems(problems, 'hf-llama');
    await page.close();
  }
  {
    const { page, problems } = await openPage(env);
    await loadModelFolder(page, 'hf-bert-mlm');
    await shoot(page, ['#real-model .real-article'], 'real-article.png');
    await page.click('#pred-action');
    await page.waitForFunction(() => globalThis.document.querySelector('#real-text').value.includes('[MASK]'));
    await page.waitForSelector('#real-model[data-ready]');
    await page.waitForSelector('#real-model .pred-tokens');
    await shoot(page, ['#real-model .real-predictions'], 'fill-mask.png');
    expectNoProblems(problems, 'hf-bert-mlm');
    await page.close();
  }
} finally {
  await env.close();
}
