// The demo server binds 127.0.0.1, sends the isolation headers and the wasm
// MIME type, and serves only the page and the package's runtime files.
import http from 'node:http';
import { startServer } from '../../web/server.mjs';

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
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
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
  for (const path of paths) {
    const { status } = await get(path);
    expect([path, status >= 400 && status < 500]).toEqual([path, true]);
  }
});

test('only GET and HEAD', async () => {
  expect((await get('/', 'POST')).status).toBe(405);
  expect((await get('/', 'HEAD')).status).toBe(200);
});
