// Launches Debian's Chromium through playwright-core (browser downloads are
// not used), with the flags that keep it quiet on a machine without network.
// Its headless shell (Debian's chromium-headless-shell, which playwright
// itself runs for headless Chromium): the same Blink and V8 without the
// desktop browser's services: page-readability and page took 51 s of CPU
// (88 s wall) against 62 s (96 s) with /usr/bin/chromium here, and every
// Chromium suite passes on both. The desktop binary when the shell is
// missing; CHROMIUM_PATH chooses another.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer } from '../../web/server.mjs';

// playwright-core as Jest's environment loads it, outside the suite's sandbox (tests/environment.cjs: about 4×
// faster there); imported here when a script runs this file outside Jest.
export const { chromium } = globalThis.playwright ?? (await import('playwright-core'));

const SHELL = '/usr/bin/chromium-headless-shell';
export const CHROMIUM = process.env.CHROMIUM_PATH ?? (existsSync(SHELL) ? SHELL : '/usr/bin/chromium');

export async function launchChromium() {
  const profile = mkdtempSync(path.join(os.tmpdir(), 'mha-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Chromium and the page's server (cross-origin isolated, a free port): { context, url, close() } for both. */
export async function launchWithServer() {
  const [browser, server] = await Promise.all([launchChromium(), startServer({ port: 0, isolate: true })]);
  return {
    context: browser.context,
    url: `http://127.0.0.1:${server.address().port}/`,
    async close() {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Opens a page that records console errors/warnings and uncaught page errors. */
export async function openPage(context, url) {
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.goto(url);
  return { page, problems };
}

/**
 * Opens an empty document at `${baseUrl}blank.html`, served with the same
 * isolation headers the server sends for its own pages, so that engine tests
 * do not depend on the demo page's content; scripts and wasm come from the
 * server itself.
 */
export async function openBlankPage(context, baseUrl) {
  const probe = await fetch(baseUrl);
  const headers = {};
  for (const name of ['cross-origin-opener-policy', 'cross-origin-embedder-policy']) {
    const value = probe.headers.get(name);
    if (value) headers[name] = value;
  }
  const page = await context.newPage();
  await page.route(`${baseUrl}blank.html`, (route) =>
    route.fulfill({
      status: 200,
      contentType: 'text/html',
      headers,
      body: '<!doctype html><title>blank</title><link rel="icon" href="data:,">',
    }),
  );
  const problems = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.goto(`${baseUrl}blank.html`);
  return { page, problems };
}
