// A timed Chromium suite (scripts/test.sh runs it alone, after the others): a
// large computation in the cross-origin isolated page leaves its main thread
// free, no task and no timer gap over RAIL's 100 ms. Apart from
// threads.test.mjs, whose tests time nothing and so run two suites at a time.
import { startServer } from '../../web/server.mjs';
import { launchChromium, openBlankPage } from './chromium.mjs';

let browser, server, url;
beforeAll(async () => {
  browser = await launchChromium();
  server = await startServer({ port: 0, isolate: true });
  url = `http://127.0.0.1:${server.address().port}/`;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (server) await new Promise((r) => server.close(r));
});

test('a large computation never blocks the main thread: no task or timer gap over 100 ms', async () => {
  const { page, problems } = await openBlankPage(browser.context, url);
  const report = await page.evaluate(async () => {
    const { createAttention } = await import('/src/js/browser.mjs');
    const engine = await createAttention();
    const seqLenQ = 1024,
      dModel = 512,
      numHeads = 8;
    const fill = (n, s) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.37) * s);
    const args = { query: fill(seqLenQ * dModel, 1), seqLenQ, dModel, numHeads, returnAttention: true };
    for (const w of ['wQ', 'wK', 'wV', 'wO']) args[w] = fill(dModel * dModel, 0.04);

    // Let the set-up above (filling the inputs) finish its own task first.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const longTasks = [];
    const t0 = performance.now();
    const observer = new PerformanceObserver((list) =>
      longTasks.push(
        ...list
          .getEntries()
          .filter((e) => e.startTime >= t0)
          .map((e) => e.duration),
      ),
    );
    observer.observe({ type: 'longtask' });
    let maxGap = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
    }, 5);
    for (let i = 0; i < 3; i++) await engine.multiHeadAttention(args);
    const elapsed = performance.now() - t0;
    clearInterval(timer);
    observer.disconnect();
    engine.dispose();
    return { elapsed, maxGap, longTasks, threads: engine.threads };
  });
  // The work itself takes far longer than 100 ms (three calls, seconds here), so a computation on the
  // main thread would be one task as long as a call, and a timer silent as long.
  expect(report.elapsed).toBeGreaterThan(300);
  // No main-thread task and no timer gap over RAIL's 100 ms response budget. Both are wall time: on two
  // vCPUs, both computing, the OS also takes the main thread's core for a while, which stretches a short
  // task or gap past the Long Tasks API's 50 ms (a 57 ms task and a 55 ms gap were each seen once on a
  // CI machine): 50 ms here would test the scheduler, not the engine.
  expect(report.longTasks.filter((d) => d > 100)).toEqual([]);
  expect(report.maxGap).toBeLessThan(100);
  expect(problems).toEqual([]);
  await page.close();
}, 120_000);
