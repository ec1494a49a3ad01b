// The demo server binds 127.0.0.1, sends the isolation headers and the wasm
// MIME type, and serves only the page and the package's runtime files: no
// traversal (plain, encoded, doubly encoded, overlong UTF-8, backslashes), and
// very long or malformed URLs get a 4xx, never a file from outside and never a
// crash. Every response carries the CSP and framing headers, a socket that
// never finishes its headers is closed, and an error inside a request is a 500
// for that request only. Symbolic links, ranges and special files:
// server-paths.test.mjs.
import { spawn } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { CONTENT_SECURITY_POLICY, HEADERS_TIMEOUT_MS, startServer } from '../../web/server.mjs';
import { expectRefused, request } from './server-helpers.mjs';

let server, port;
beforeAll(async () => {
  server = await startServer({ port: 0 });
  port = server.address().port;
});
afterAll(() => new Promise((r) => server.close(r)));

const get = (path, method = 'GET', headers = {}) => request(port, path, method, headers);

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
    ['/dist/mha-threaded-simd.js', /javascript/],
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
    '/package.json',
    '/tests/fixtures/README.md',
    '/node_modules/sirv/package.json',
    '/.git/HEAD',
    '/.gitignore',
    '/../package.json',
    '/%2e%2e/package.json',
    '/src/js/%2e%2e/%2e%2e/package.json',
    '/dist/..%2f..%2fpackage.json',
    '/src/core/attention.cpp',
    '/web/index.html',
    '//etc/passwd',
    '/dist/%2F..%2F..%2Fpackage.json',
    '/src/js/..%5c..%5cpackage.json',
    `/${'a'.repeat(5000)}`,
    '/%E0%A4%A',
    '/dist/%00',
  ];
  await expectRefused(port, paths);
});

test('encoded, doubly encoded and overlong-UTF-8 traversals, backslashes, absolute forms: 4xx', async () => {
  await expectRefused(port, [
    '/dist/%2e%2e%2f%2e%2e%2fpackage.json',
    '/dist/.%2e/package.json',
    '/dist/%2e./%2e./package.json',
    '/dist/%252e%252e/%252e%252e/package.json',
    '/dist/%c0%ae%c0%ae/%c0%ae%c0%ae/package.json',
    '/dist/%c0%af..%c0%afpackage.json',
    '/%u002e%u002e/package.json',
    '/dist/\\..\\..\\package.json',
    '/src/js/../../package.json',
    '/dist//../package.json',
    '/vendor/d3/../../../package.json',
    '/vendor/d3/%2e%2e/%2e%2e/%2e%2e/package.json',
    '/vendor/tokenizers/../package.json',
    '/vendor/tokenizers/%2e%2e/%2e%2e/%2e%2e/%2e%2e/package.json',
    '/dist/?../../package.json',
    'http://127.0.0.1/../package.json',
    `http://127.0.0.1:${port}/%2e%2e/package.json`,
    '*',
    '/dist/mha-simd.wasm%00.txt',
    '/dist/%00../../package.json',
  ]);
});

test('malformed percent-encoding gets a 4xx, and the server keeps serving', async () => {
  await expectRefused(port, [
    '/%',
    '/%zz',
    '/dist/%',
    '/src/js/%',
    '/vendor/d3/%',
    '/dist/mha-simd.js%',
    '/dist/%ff%fe',
    '/dist/%c0%af',
    '/dist/%E0%A4%A',
    '/src/js/%%32%65%%32%65/package.json',
    '/dist/%2',
    '/dist/%G0',
  ]);
  expect((await get('/')).status).toBe(200);
});

test('very long URLs: over the header limit 431, under it 404; never a crash', async () => {
  for (const path of [
    `/${'a'.repeat(20_000)}`,
    `/dist/${'b'.repeat(70_000)}`,
    `/src/js/${'../'.repeat(10_000)}package.json`,
  ]) {
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
  await expectRefused(port, [
    `/dist/${'a'.repeat(300)}`,
    `/dist/${'a/'.repeat(3000)}`,
    `/src/js/${'%2e%2e/'.repeat(1500)}package.json`,
    `/${'../'.repeat(5000)}package.json`,
  ]);
  expect((await get('/src/js/browser.mjs')).status).toBe(200);
});

test('only GET and HEAD', async () => {
  expect((await get('/', 'POST')).status).toBe(405);
  expect((await get('/', 'HEAD')).status).toBe(200);
});

// A request that fails inside the handler. Node's default 16 KiB header limit
// leaves no URL that does, so the server runs in a child process with the
// limit raised (node --max-http-header-size, as NODE_OPTIONS could set it):
// there a URL of 200,000 path segments overflows the stack in resolveUrl
// (path.join of every segment), a RangeError thrown mid-request. onRequest
// ends that request with a 500 and a line on stderr; the server goes on.
test('an error inside the request handler is a 500 for that request only; the server answers the next one', async () => {
  const serverModule = JSON.stringify(fileURLToPath(new URL('../../web/server.mjs', import.meta.url)));
  const script = `const { startServer } = await import(${serverModule});
    console.log((await startServer({ port: 0 })).address().port);`;
  const child = spawn(process.execPath, ['--max-http-header-size=4000000', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  try {
    const childPort = await new Promise((resolve, reject) => {
      child.stdout.setEncoding('utf8').once('data', (line) => resolve(Number(line.trim())));
      child.once('exit', (code) => reject(new Error(`the server exited (${code}): ${stderr}`)));
    });
    expect((await request(childPort, '/')).status).toBe(200);
    const failed = await request(childPort, `/dist/${'a/'.repeat(200_000)}`);
    expect([failed.status, failed.body, failed.headers['content-security-policy']]).toEqual([
      500,
      'Internal server error\n',
      CONTENT_SECURITY_POLICY,
    ]);
    // The error is logged with the request (its URL cut to 200 characters).
    expect(stderr).toMatch(/^mha-wasm demo: GET \/dist\/(a\/){97}: Maximum call stack size exceeded\n$/);
    const next = await request(childPort, '/dist/mha-simd.wasm', 'HEAD');
    expect([next.status, next.headers['content-type']]).toEqual([200, 'application/wasm']);
    expect(child.exitCode).toBe(null);
  } finally {
    child.kill();
  }
}, 45_000);

test('MIME types, ETag revalidation (304) and Last-Modified', async () => {
  for (const [path, type] of [
    ['/', 'text/html; charset=utf-8'],
    ['/style.css', 'text/css; charset=utf-8'],
    ['/app.mjs', 'text/javascript; charset=utf-8'],
    ['/dist/mha-simd.js', 'text/javascript; charset=utf-8'],
    ['/dist/mha-simd.wasm', 'application/wasm'],
    ['/vendor/d3/d3.min.js', 'text/javascript; charset=utf-8'],
  ]) {
    const res = await get(path, 'HEAD');
    expect([path, res.status, res.headers['content-type']]).toEqual([path, 200, type]);
  }
  const first = await get('/dist/mha-simd.wasm');
  expect(first.headers.etag).toMatch(/^W\/"\d+-\d+"$/);
  expect(first.headers['cache-control']).toBe('no-cache');
  const again = await get('/dist/mha-simd.wasm', 'GET', { 'If-None-Match': first.headers.etag });
  expect([again.status, again.body, again.headers.etag]).toEqual([304, '', first.headers.etag]);
  expect((await get('/dist/mha-simd.wasm', 'GET', { 'If-None-Match': 'W/"1-2"' })).status).toBe(200);
  expect(
    (await get('/dist/mha-simd.wasm', 'GET', { 'If-Modified-Since': first.headers['last-modified'] })).status,
  ).toBe(304);
});

test('every response, 404 and 405 included, carries the CSP and the framing and sniffing headers', async () => {
  expect(CONTENT_SECURITY_POLICY.split(/[; ]+/)).not.toContain("'unsafe-eval'");
  expect(CONTENT_SECURITY_POLICY.split(/[; ]+/)).not.toContain("'unsafe-inline'");
  for (const [path, method, status] of [
    ['/', 'GET', 200],
    ['/dist/mha-simd.wasm', 'HEAD', 200],
    ['/nothing', 'GET', 404],
    ['/', 'POST', 405],
  ]) {
    const { status: got, headers } = await get(path, method);
    expect([
      path,
      got,
      headers['content-security-policy'],
      headers['x-frame-options'],
      headers['x-content-type-options'],
    ]).toEqual([path, status, CONTENT_SECURITY_POLICY, 'DENY', 'nosniff']);
  }
  expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self' 'wasm-unsafe-eval'");
  expect(CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'");
});

test('the page has no inline script, and the CSP allows none', async () => {
  const html = (await get('/')).body;
  expect([...html.matchAll(/<script\b([^>]*)>/g)].filter((m) => !/\bsrc=/.test(m[1]))).toEqual([]);
  const scriptSrc = CONTENT_SECURITY_POLICY.split('; ').find((d) => d.startsWith('script-src '));
  expect(scriptSrc).toBe("script-src 'self' 'wasm-unsafe-eval'");
  // The tokenizers' folder of node_modules is not served: the page's tokenizer worker has them inside.
  expect((await get('/vendor/tokenizers/tokenizers.min.mjs', 'HEAD')).status).toBe(404);
});

test(
  'a socket that sends half a request header is closed within the headers timeout',
  async () => {
    expect([server.headersTimeout, server.requestTimeout]).toEqual([HEADERS_TIMEOUT_MS, HEADERS_TIMEOUT_MS]);
    const started = Date.now();
    const { elapsed, reply } = await new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () =>
        socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Half: '),
      );
      let reply = '';
      socket.setEncoding('latin1');
      socket.on('data', (chunk) => (reply += chunk));
      socket.on('error', reject);
      socket.on('close', () => resolve({ elapsed: Date.now() - started, reply }));
    });
    expect(elapsed).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 100);
    expect(elapsed).toBeLessThan(HEADERS_TIMEOUT_MS + 2500);
    expect(reply).toMatch(/^HTTP\/1\.1 408/);
    expect((await get('/')).status).toBe(200);
  },
  HEADERS_TIMEOUT_MS + 10_000,
);
