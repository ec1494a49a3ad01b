// The real-model view loading by name (views/model-hub-input.mjs) in headless
// Chromium, against the test Hub (tests/tools/hub-server.mjs) serving the
// tiny BERT of tests/fixtures/models/bert-zh as "google-bert/bert-base-chinese":
// the page's CSP lets it reach exactly that Hub and its download host; the
// suggestions show the download size computed from the Hub's file list; a
// click downloads and loads the model, whose big heatmap holds, bit for bit,
// Node's attention for the same folder; after a reload the model comes from
// the browser's storage with no file requested; a slow download is cancelled
// and the model loads afterwards; a wrong name is an error that says so.
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';
import { HubServer, folderFiles } from '../tools/hub-server.mjs';
import { openPage, readHeatmaps, setUp } from './page-helpers.mjs';
import { SENTENCE } from '../../web/sentence.mjs';
import { formatBytes } from '../../web/model/real-model-files.mjs';
import { setLanguage, t } from '../../web/lib/i18n.mjs';
import { pageEngineOptions } from './page-builds.mjs';

const FOLDER = fileURLToPath(new URL('../fixtures/models/bert-zh/', import.meta.url));
const REPO = 'google-bert/bert-base-chinese';
const GATED = 'tests/gated-bert';
let hub, env, engine, reference;

beforeAll(async () => {
  hub = await new HubServer({
    repos: { [REPO]: { files: folderFiles(FOLDER) }, [GATED]: { files: folderFiles(FOLDER), gated: true } },
  }).start();
  env = await setUp({ hubEndpoints: [hub.url], hubDownloadHosts: [hub.cdnUrl] });
  engine = await createAttention(pageEngineOptions({ isolated: false }));
  reference = await (await engine.loadModel(FOLDER)).run(SENTENCE);
}, 60_000);

afterAll(async () => {
  engine?.dispose();
  await env?.close();
  await hub?.stop();
});

/** The downloads (GET): a reload's load asks only whether main moved (a HEAD), which is no download. */
const fileRequests = () => hub.requests.filter((r) => r.method === 'GET' && /\/resolve\/|^\/cdn\//.test(r.path));
const bertButton = (page) => page.locator('.real-suggestion', { hasText: REPO });

async function loadByClick(page) {
  await bertButton(page).click();
  await page.waitForSelector('#real-model[data-ready], #real-error:not([hidden])', { timeout: 30_000 });
  expect(await page.isHidden('#real-error')).toBe(true);
}

async function expectHeatmapAsNode(page) {
  const maps = await readHeatmaps(page, '#real-model .real-heatmap');
  const [name] = Object.keys(maps);
  const [, layer, head] = /^layer-(\d+)-head-(\d+)$/.exec(name).map(Number);
  const L = reference.tokens.length;
  const mismatches = maps[name].filter(
    ([q, k, w]) => !Object.is(w, reference.attention[((layer * 4 + head) * L + q) * L + k]),
  );
  expect(mismatches).toEqual([]);
}

test('by name: sizes from the file list, a click downloads and loads, a reload downloads nothing', async () => {
  const { page, problems } = await openPage(env);
  try {
    const response = await page.request.get(env.url);
    const connect = response
      .headers()
      ['content-security-policy'].split('; ')
      .find((d) => d.startsWith('connect-src'));
    expect(connect).toBe(`connect-src 'self' ${hub.url} ${hub.cdnUrl}`);
    await page.locator('#real-hub').scrollIntoViewIfNeeded();
    expect(await page.$$eval('#real-endpoint option', (o) => o.map((x) => x.value))).toEqual([hub.url]);
    expect(await page.textContent('#real-model .real-hosts')).toContain(`Loading by name contacts ${hub.url}`);
    // No request before the reader asks for the sizes (tabbing through the field asks nothing); then the file lists.
    await page.focus('#real-name');
    await page.keyboard.press('Tab');
    expect(hub.requests).toEqual([]);
    await page.click('#real-sizes');
    const files = folderFiles(FOLDER);
    // What loading reads: config, tokenizer.json and its config (vocab.txt is not read beside a tokenizer.json), weights.
    const want = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'model.safetensors'].reduce(
      (sum, n) => sum + files[n].length,
      0,
    );
    await page.waitForFunction(
      ([repo, text]) =>
        [...document.querySelectorAll('.real-suggestion')].some(
          (b) => b.textContent.includes(repo) && b.querySelector('.real-suggestion-size').textContent === text,
        ),
      [REPO, formatBytes(want)],
    );
    // Another suggestion the test Hub does not have: "not reachable", with the Hub's answer as its title.
    await page.waitForFunction(() =>
      [...document.querySelectorAll('.real-suggestion-size')].some((s) => s.textContent === 'not reachable'),
    );
    hub.requests.length = 0;
    await loadByClick(page);
    expect(await page.inputValue('#real-name')).toBe(REPO);
    expect(await page.textContent('#real-status')).toMatch(
      new RegExp(
        `^Loaded ${REPO}: bert, 2 layers × 4 heads, .*\\(downloaded ${formatBytes(want).replace('.', '\\.')}, in \\d+ ms\\)\\.$`,
      ),
    );
    expect(fileRequests().length).toBeGreaterThan(0);
    await expectHeatmapAsNode(page);
    // A reload: the model from the browser's storage, no file downloaded; one HEAD asks whether main moved.
    await page.reload();
    await page.waitForSelector('body[data-ready]');
    await page.locator('#real-hub').scrollIntoViewIfNeeded();
    hub.requests.length = 0;
    await loadByClick(page);
    expect(fileRequests()).toEqual([]);
    expect(hub.requests.filter((r) => r.method !== 'OPTIONS').map((r) => `${r.method} ${r.path}`)).toEqual([
      `HEAD /${REPO}/resolve/main/config.json`,
    ]);
    expect(await page.textContent('#real-status')).toContain("from this browser's storage, nothing downloaded");
    await expectHeatmapAsNode(page);
    // The console's only complaints: the test Hub's 401 for the suggestions it does not have.
    expect(problems.filter((p) => !/status of 401 \(Unauthorized\)/.test(p))).toEqual([]);
  } finally {
    await page.close();
  }
}, 90_000);

test('a slow download is cancelled; a wrong name is an error; the model loads afterwards', async () => {
  const { page } = await openPage(env, '', { width: 390 });
  try {
    await page.evaluate(() => caches.delete('mha-wasm-hub'));
    await page.locator('#real-hub').scrollIntoViewIfNeeded();
    const weights = hub.sha256Of(REPO, 'model.safetensors');
    hub.throttle(weights, 50);
    await page.fill('#real-name', REPO);
    await page.click('#real-hub-load');
    await page.waitForFunction(() =>
      /Downloading model\.safetensors/.test(document.querySelector('#real-progress-text').textContent),
    );
    await page.click('#real-cancel');
    await page.waitForFunction(() => /^Cancelled\./.test(document.querySelector('#real-status').textContent));
    expect(await page.isHidden('#real-error')).toBe(true);
    expect(await page.isHidden('#real-cancel')).toBe(true);
    hub.throttle(weights, 0);
    // A name the Hub does not know.
    await page.fill('#real-name', 'google-bert/no-such-model');
    await page.click('#real-hub-load');
    await page.waitForSelector('#real-error:not([hidden])');
    expect(await page.textContent('#real-error')).toContain('google-bert/no-such-model: no model of that name on');
    // Not a name at all: the field says so, nothing is asked.
    hub.requests.length = 0;
    await page.fill('#real-name', 'bert base');
    await page.click('#real-hub-load');
    expect(await page.$eval('#real-name', (i) => i.validationMessage)).toContain('is not a model name');
    expect(hub.requests).toEqual([]);
    await loadByClick(page);
    await expectHeatmapAsNode(page);
    // At 390 px wide the page does not scroll sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await page.evaluate(() => (document.querySelector('.toolbar').style.position = 'static'));
    await page.locator('#real-hub').screenshot({ path: 'test-output/real-model-hub-390.png' });
  } finally {
    await page.close();
  }
}, 90_000);

/** The message the page's catalogue writes for a load error of `kind` (model/load-errors.mjs), in `lang`. */
function loadMessage(lang, kind, params) {
  setLanguage(lang);
  const text = t('real.error.load', { message: t(`real.loadError.${kind}`, params) });
  setLanguage('en');
  return text;
}

test('the Hub’s errors in the reader’s words (not found, gated, unreachable, cut short), the engine’s kept', async () => {
  const { page } = await openPage(env);
  try {
    await page.evaluate(() => caches.delete('mha-wasm-hub'));
    await page.locator('#real-hub').scrollIntoViewIfNeeded();
    /** Loads `name` and waits for its error: [the message, the engine's text]. */
    const failing = async (name) => {
      await page.fill('#real-name', name);
      await page.click('#real-hub-load');
      await page.waitForSelector('#real-error:not([hidden])', { timeout: 30_000 });
      return [await page.textContent('#real-error > p'), await page.textContent('#real-error code[lang="en"]')];
    };
    const [notFound, notFoundDetail] = await failing('google-bert/no-such-model');
    expect(notFound).toBe(loadMessage('en', 'notFound', { repo: 'google-bert/no-such-model', endpoint: hub.url }));
    expect(notFoundDetail).toContain('google-bert/no-such-model: no model of that name on');
    expect(await failing(GATED)).toEqual([
      loadMessage('en', 'gated', { repo: GATED }),
      expect.stringMatching(new RegExp(`^Error: ${GATED} is a gated model`)),
    ]);
    // No answer from the Hub at all (after the loader's retries).
    await page.route(`${hub.url}/api/**`, (route) => route.abort('connectionrefused'));
    expect((await failing(REPO))[0]).toBe(loadMessage('en', 'unreachable', { endpoint: hub.url }));
    await page.unroute(`${hub.url}/api/**`);
    // The weights' download cut off at every try (the test Hub forgets a cut once used: this map does not).
    hub.cuts = new (class extends Map {
      delete() {
        return false;
      }
    })([[hub.sha256Of(REPO, 'model.safetensors'), 4000]]);
    try {
      expect((await failing(REPO))[0]).toBe(loadMessage('en', 'interrupted', { file: 'model.safetensors' }));
    } finally {
      hub.cuts = new Map();
    }
    // In Chinese: the same error, rewritten; no English outside names and the engine's own words.
    await page.check('input[name="lang"][value="zh"]');
    await page.waitForFunction(() => document.querySelector('#real-model-title').textContent === '真实模型');
    expect(await page.textContent('#real-error > p')).toBe(
      loadMessage('zh', 'interrupted', { file: 'model.safetensors' }),
    );
    const latin = await page.$eval('#real-error', (root) => {
      const out = [];
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode())
        if (!node.parentElement.closest('[translate="no"], [lang="en"]'))
          out.push(...(node.textContent.match(/[A-Za-z]{2,}/g) ?? []));
      return out;
    });
    expect(latin).toEqual([]);
    // And it loads once the Hub answers whole again.
    await loadByClick(page);
    await expectHeatmapAsNode(page);
  } finally {
    await page.close();
  }
}, 90_000);
