// The demo server binds 127.0.0.1, sends the isolation headers and the wasm
// MIME type, and serves only the page and the package's runtime files: no
// traversal (plain, encoded, doubly encoded, overlong UTF-8, backslashes),
// no symlink out of a served folder, and very long or malformed URLs get a 4xx,
// never a file from outside and never a crash.
import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../web/server.mjs';

const distDir = fileURLToPath(new URL('../../dist/', import.meta.url));
// What a response must never contain: package.json's own text.
const PACKAGE_JSON = readFileSync(new URL('../../package.json', import.meta.url), 'utf8').slice(0, 60);

let server, port;
beforeAll(async () => {
  server = await startServer({ port: 0 });
  port = server.address().port;
});
afterAll(() => new Promise((r) => server.close(r)));

// Raw request: the path goes out exactly as written (no client-side normalizing).
function get(path, method = 'GET') {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method }, (res) => {
      let body = '';
      res.setEncoding('latin1');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Every path gets a 4xx whose body holds nothing of `secret` (package.json by default). */
async function expectRefused(paths, secret = PACKAGE_JSON) {
  for (const path of paths) {
    const { status, body } = await get(path);
    expect([path.slice(0, 80), status >= 400 && status < 500, body.includes(secret)]).toEqual([path.slice(0, 80), true, false]);
  }
}

test('binds the loopback address only', () => {
  expect(server.address().address).toBe('127.0.0.1');
});

test('serves the page, the package files and the wasm with the right headers', async () => {
  for (const [path, type] of [
    ['/', /text\/html/],
    ['/app.mjs', /javascript/],
    ['/src/js/browser.mjs', /javascript/],
    ['/src/js/engine-worker.js', /javascript/],
    ['/dist/mha-threaded-simd.wasm', /^application\/wasm/],
    ['/dist/mha-threaded-simd.worker.js', /javascript/],
  ]) {
    const res = await get(path);
    expect([path, res.status]).toEqual([path, 200]);
    expect(res.headers['content-type']).toMatch(type);
    expect(res.headers['cross-origin-opener-policy']).toBe('same-origin');
    expect(res.headers['cross-origin-embedder-policy']).toBe('require-corp');
  }
});

test('nothing outside the served folders is reachable', async () => {
  const paths = [
    '/package.json', '/tests/fixtures/README.md', '/node_modules/sirv/package.json', '/.git/HEAD', '/.gitignore',
    '/../package.json', '/%2e%2e/package.json', '/src/js/%2e%2e/%2e%2e/package.json', '/dist/..%2f..%2fpackage.json',
    '/src/core/attention.cpp', '/web/index.html', '//etc/passwd', '/dist/%2F..%2F..%2Fpackage.json',
    '/src/js/..%5c..%5cpackage.json', `/${'a'.repeat(5000)}`, '/%E0%A4%A', '/dist/%00',
  ];
  await expectRefused(paths);
});

test('encoded, doubly encoded and overlong-UTF-8 traversals, backslashes, absolute forms: 4xx', async () => {
  await expectRefused([
    '/dist/%2e%2e%2f%2e%2e%2fpackage.json', '/dist/.%2e/package.json', '/dist/%2e./%2e./package.json',
    '/dist/%252e%252e/%252e%252e/package.json', '/dist/%c0%ae%c0%ae/%c0%ae%c0%ae/package.json', '/dist/%c0%af..%c0%afpackage.json',
    '/%u002e%u002e/package.json', '/dist/\\..\\..\\package.json', '/src/js/../../package.json', '/dist//../package.json',
    '/vendor/d3/../../../package.json', '/vendor/d3/%2e%2e/%2e%2e/%2e%2e/package.json', '/dist/?../../package.json',
    'http://127.0.0.1/../package.json', `http://127.0.0.1:${port}/%2e%2e/package.json`, '*',
    '/dist/mha-simd.wasm%00.txt', '/dist/%00../../package.json',
  ]);
});

test('malformed percent-encoding gets a 4xx, and the server keeps serving', async () => {
  await expectRefused(['/%', '/%zz', '/dist/%', '/src/js/%', '/vendor/d3/%', '/dist/mha-simd.js%', '/dist/%ff%fe', '/dist/%c0%af',
    '/dist/%E0%A4%A', '/src/js/%%32%65%%32%65/package.json', '/dist/%2', '/dist/%G0']);
  expect((await get('/')).status).toBe(200);
});

test('very long URLs: over the header limit 431, under it 404; never a crash', async () => {
  for (const path of [`/${'a'.repeat(20_000)}`, `/dist/${'b'.repeat(70_000)}`, `/src/js/${'../'.repeat(10_000)}package.json`]) {
    // Node answers 431 and closes the connection; when that close overtakes the
    // client still sending its request, the client sees a reset instead of the
    // 431. Either way the request is refused; nothing else is accepted.
    const outcome = await get(path).then(
      (res) => res.status,
      (error) => (error.code === 'ECONNRESET' || /socket hang up/.test(error.message) ? 'reset' : error.message),
    );
    expect([path.length, [431, 'reset'].includes(outcome) ? 'refused' : outcome]).toEqual([path.length, 'refused']);
  }
  // Under Node's 16 KiB header limit: a file name past NAME_MAX, 3,000 segments, 5,000 "../".
  await expectRefused([`/dist/${'a'.repeat(300)}`, `/dist/${'a/'.repeat(3000)}`, `/src/js/${'%2e%2e/'.repeat(1500)}package.json`,
    `/${'../'.repeat(5000)}package.json`]);
  expect((await get('/src/js/browser.mjs')).status).toBe(200);
});

// sirv follows symbolic links, so a link placed in a served folder (dist/ is
// written by the build) would serve whatever it points to, file or folder;
// web/server.mjs refuses anything whose real path leaves the served folder.
test('a symlink in a served folder pointing outside it is not followed', async () => {
  const outside = mkdtempSync(join(tmpdir(), 'mha-server-test-'));
  const secret = `secret-${process.pid}-${Date.now()}`;
  writeFileSync(join(outside, 'secret.txt'), secret);
  const fileLink = join(distDir, `zz-test-link-${process.pid}.txt`);
  const dirLink = join(distDir, `zz-test-link-${process.pid}`);
  try {
    symlinkSync(join(outside, 'secret.txt'), fileLink);
    symlinkSync(outside, dirLink, 'dir');
    await expectRefused([`/dist/zz-test-link-${process.pid}.txt`, `/dist/zz-test-link-${process.pid}/secret.txt`], secret);
  } finally {
    rmSync(fileLink, { force: true });
    rmSync(dirLink, { force: true });
    rmSync(outside, { recursive: true, force: true });
  }
});

test('only GET and HEAD', async () => {
  expect((await get('/', 'POST')).status).toBe(405);
  expect((await get('/', 'HEAD')).status).toBe(200);
});
