// What the page's Chromium tests (tests/e2e/page-*.test.mjs) share: a server,
// Chromium (Debian's, through playwright-core, in a given locale), opening the
// page and waiting for it, revealing its lazily drawn sections, and reading
// the heatmaps and the text a reader sees; loading a model folder into the
// real-model view.
import { mkdtempSync, rmSync, mkdirSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer } from '../../web/server.mjs';
import { CHROMIUM, chromium } from './chromium.mjs';
import { setLanguage } from '../../web/lib/i18n.mjs';

/** A server and a browser whose pages speak `locale` (navigator.languages). */
export async function setUp({ locale = 'en-US', hubEndpoints, hubDownloadHosts } = {}) {
  const profile = mkdtempSync(path.join(os.tmpdir(), 'mha-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    locale,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
  const server = await startServer({
    port: 0,
    isolate: true,
    ...(hubEndpoints ? { hubEndpoints } : {}),
    ...(hubDownloadHosts ? { hubDownloadHosts } : {}),
  });
  mkdirSync('test-output', { recursive: true });
  return {
    context,
    url: `http://127.0.0.1:${server.address().port}/`,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Opens the page at `query` and waits until its first run is drawn; problems: console errors and page errors. */
export async function openPage(env, query = '', { width = 1440, ready = true } = {}) {
  const page = await env.context.newPage();
  await page.setViewportSize({ width, height: 900 });
  const problems = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.goto(env.url + query);
  if (ready) await page.waitForSelector('body[data-ready]', { timeout: 30_000 });
  return { page, problems };
}

/**
 * Checks a mode and waits until its run is drawn (data-computing gone): the views above and inside the heads change
 * height when it is, and a click right after the check could land on what then moved.
 */
export async function chooseMode(page, mode) {
  await page.check(`input[name="mode"][value="${mode}"]`);
  await page.waitForFunction((m) => document.body.dataset.mode === m && !document.body.dataset.computing, mode);
}

/**
 * Scrolls a lazily drawn section into view and waits until it is drawn. The
 * sections above it grow as they are drawn, which can push it out of view
 * again: then it scrolls again.
 */
export async function reveal(page, selector) {
  for (let attempt = 0; attempt < 10; attempt++) {
    await page.locator(selector).scrollIntoViewIfNeeded();
    try {
      await page.waitForSelector(`${selector}:not([data-stale])`, { timeout: 1000 });
      return;
    } catch {
      // pushed down by a section drawn meanwhile
    }
  }
  await page.waitForSelector(`${selector}:not([data-stale])`);
}

/** Every lazily drawn section that the mode shows (free mode's empty sentence shows none of them). */
export const revealAll = async (page) => {
  for (const section of ['#compare', '#head-view', '#pipeline', '#neuron'])
    if (await page.isVisible(section)) await reveal(page, section);
  if (await page.isVisible('#train')) await trainSectionReady(page);
};

/**
 * Brings the training section near and waits for its data: the corpus is made when the section comes near
 * (views/train.mjs), and the numbers it puts into the grammar's notes can wrap a note onto another line. A test
 * that clicks a control of the section does so after this, when nothing there moves any more.
 */
export async function trainSectionReady(page) {
  await page.locator('#train').scrollIntoViewIfNeeded();
  await page.waitForSelector('#train .train-rules:not([data-stale])');
}

/** Every heatmap inside `scope` (default: the heads grid; '' for the whole page): { name: [[q, k, weight], …] }. */
export const readHeatmaps = (page, scope = '#heads-grid') =>
  page.$$eval(`${scope} .heatmap[data-head]`.trim(), (maps) =>
    Object.fromEntries(
      maps.map((m) => [
        m.dataset.head,
        [...m.querySelectorAll('[data-weight]')].map((c) => [
          Number(c.dataset.q),
          Number(c.dataset.k),
          Number(c.dataset.weight),
        ]),
      ]),
    ),
  );

/**
 * The text a reader meets, language by language: every visible text node and
 * every aria-label, title and alt, except what is marked as not to be
 * translated (translate="no": tokens, code) or as English data (lang="en":
 * the translation). Keys that are data-i18n names show up as themselves.
 */
export const readerText = (page) =>
  page.evaluate(() => {
    const skip = (node) => node.closest('script, style, noscript, [translate="no"], [lang="en"]');
    const out = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || skip(parent) || !node.textContent.trim()) continue;
      if (parent.closest('[hidden]') || getComputedStyle(parent).display === 'none') continue;
      out.push(node.textContent.trim());
    }
    for (const el of document.body.querySelectorAll('[aria-label], [title], [alt]')) {
      if (skip(el)) continue;
      for (const attr of ['aria-label', 'title', 'alt']) if (el.getAttribute(attr)) out.push(el.getAttribute(attr));
    }
    out.push(document.title);
    return out;
  });

/**
 * What a neuron view shows (the designed heads' #neuron, or the real model's .real-neuron): its
 * menus, its vectors' cells and its three steps, as numbers.
 */
export const readNeuron = (page, selector = '#neuron') =>
  page.$eval(selector, (section) => {
    const cells = (row) =>
      [...section.querySelectorAll(`.neuron-vectors rect[data-row="${row}"]`)].map((r) => Number(r.dataset.value));
    const step = (name) => section.querySelector(`[data-step="${name}"]`);
    return {
      pair: section.querySelector('.neuron-pair').textContent,
      head: section.querySelector('select.neuron-head').value,
      q: Number(section.querySelector('select.neuron-query').value),
      k: Number(section.querySelector('select.neuron-key').value),
      qv: cells('q'),
      kv: cells('k'),
      product: cells('product'),
      dot: Number(step('dot').dataset.value),
      score: Number(step('score').dataset.value),
      engineScore: Number(step('score').dataset.engineScore),
      weight: Number(step('weight').dataset.value),
      softmax: Number(step('weight').dataset.softmax),
    };
  });

/** The test data beside a fixture's model files (not the model's): the page is not given them. */
const TEST_DATA = new Set(['reference.json', 'tokenizer-cases.json']);

/** A model folder's files as the real-model view's picker takes them: a fixture's name, or a folder's path. */
export const modelFiles = (folder) => {
  const dir = folder.includes('/') ? folder : path.join('tests/fixtures/models', folder);
  return readdirSync(dir)
    .filter((f) => !TEST_DATA.has(f))
    .map((f) => path.join(dir, f));
};

/** Gives the real-model view's file picker a model folder and waits for its run; the page's error throws. */
export async function loadModelFolder(page, folder) {
  await page.locator('#real-model').scrollIntoViewIfNeeded();
  await page.setInputFiles('#real-files', modelFiles(folder));
  await page.waitForSelector('#real-model[data-ready], #real-error:not([hidden])', { timeout: 30_000 });
  if (await page.isVisible('#real-error'))
    throw new Error(`${folder}: the page could not load it: ${await page.textContent('#real-error')}`);
}

/** Presses "Which heads matter?" in the real-model view and waits for its drawn results; the page's error throws. */
export async function analyseHeadsOnPage(page) {
  await page.click('#real-model .heads-matter .matter-run');
  await page.waitForSelector('#real-model .heads-matter[data-ready], #real-error:not([hidden])', { timeout: 60_000 });
  if (await page.isVisible('#real-error'))
    throw new Error(`the analysis failed: ${await page.textContent('#real-error')}`);
}

/** write() with the page's t() in `lang`, for the sentences the page writes; English again after. */
export function inLanguage(lang, write) {
  setLanguage(lang);
  try {
    return write();
  } finally {
    setLanguage('en');
  }
}
