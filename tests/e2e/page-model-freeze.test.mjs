// A timed Chromium suite (scripts/test.sh runs it alone, after the others): the
// real-model view draws a 12 layers × 12 heads checkpoint's 144 thumbnails
// without a long task that would freeze the page. Apart from page-model.test.mjs,
// whose other tests time nothing and so run two suites at a time.
import { setUp, openPage } from './page-helpers.mjs';
import { load, twelveByTwelve } from './real-model-files.mjs';

let env;
beforeAll(async () => {
  env = await setUp({ locale: 'zh-CN' });
}, 60_000);
afterAll(async () => {
  await env?.close();
});

test('12 layers × 12 heads: 144 thumbnails drawn without a long freeze of the page', async () => {
  const { page, problems } = await openPage(env);
  try {
    await page.evaluate(() => {
      window.longTasks = [];
      new PerformanceObserver((list) => window.longTasks.push(...list.getEntries().map((e) => e.duration))).observe({
        type: 'longtask',
      });
    });
    await page.locator('#real-model').scrollIntoViewIfNeeded();
    await load(page, twelveByTwelve());
    expect(await page.isHidden('#real-error')).toBe(true);
    expect(await page.locator('#real-model .real-grid canvas').count()).toBe(144);
    expect(await page.textContent('#real-status')).toContain('12 层 × 12 头');
    // Loading, running and drawing 144 heads: no task long enough to freeze the page (about 160 ms here at most).
    const longest = Math.max(0, ...(await page.evaluate(() => window.longTasks)));
    expect(longest).toBeLessThan(400);
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 60_000);
