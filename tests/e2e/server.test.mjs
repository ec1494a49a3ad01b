// The demo server binds 127.0.0.1, sends the isolation headers and the wasm
// MIME type, and serves only the page and the package's runtime files: no
// traversal (plain, encoded, doubly encoded, overlong UTF-8, backslashes),
// no symlink out of a served folder, and very long or malformed URLs get a 4xx,
// never a file from outside and never a crash. Ranges follow RFC 9110, every
// response carries the CSP and framing headers, and a socket that never
// finishes its headers is closed.
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import {
  CONTENT_SECURITY_POLICY,
  HEADERS_TIMEOUT_MS,
  IMPORT_MAP_HASH,
  importMapHash,
  startServer,
} from '../../web/server.mjs';

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
function get(path, method = 'GET', headers = {}, onPort = port) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: onPort, path, method, headers }, (res) => {
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
async function expectRefused(paths, secret = PACKAGE_JSON, onPort = port) {
  for (const path of paths) {
    const { status, body } = await get(path, 'GET', {}, onPort);
    expect([path.slice(0, 80), status >= 400 && status < 500, body.includes(secret)]).toEqual([
      path.slice(0, 80),
      true,
      false,
    ]);
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
  await expectRefused(paths);
});

test('encoded, doubly encoded and overlong-UTF-8 traversals, backslashes, absolute forms: 4xx', async () => {
  await expectRefused([
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
  await expectRefused([
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
  await expectRefused([
    `/dist/${'a'.repeat(300)}`,
    `/dist/${'a/'.repeat(3000)}`,
    `/src/js/${'%2e%2e/'.repeat(1500)}package.json`,
    `/${'../'.repeat(5000)}package.json`,
  ]);
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
    await expectRefused(
      [`/dist/zz-test-link-${process.pid}.txt`, `/dist/zz-test-link-${process.pid}/secret.txt`],
      secret,
    );
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

// A second server whose /dist/ is a temporary folder ("served"), next to a
// folder it must never expose ("outside"): symbolic links of every name the
// static layer could try, ranges over known bytes, a FIFO.
describe('with a temporary /dist/', () => {
  let base, served, outside, other, otherPort;
  const secret = `secret-${process.pid}-${Date.now()}`;
  const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => (i * 7) % 256));

  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'mha-server-test-'));
    served = join(base, 'served');
    outside = join(base, 'outside');
    mkdirSync(served);
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret.txt'), secret);
    writeFileSync(join(outside, 'index.html'), secret);
    writeFileSync(join(served, 'bytes.bin'), bytes);
    writeFileSync(join(served, 'empty.bin'), '');
    writeFileSync(join(served, 'zz?ok'), 'inside');
    symlinkSync(join(served, 'bytes.bin'), join(served, 'inner-link.bin')); // a link that stays inside
    const file = join(outside, 'secret.txt');
    for (const name of ['x.htm', 'y.html', 'zz%3Fq', 'zz?r', 'zz%2Fx', 'plain']) symlinkSync(file, join(served, name));
    for (const [dir, index] of [
      ['d', 'index'],
      ['e', 'index.html'],
      ['f', 'index.htm'],
    ]) {
      mkdirSync(join(served, dir));
      symlinkSync(file, join(served, dir, index));
    }
    symlinkSync(outside, join(served, 'dl'), 'dir');
    execFileSync('mkfifo', [join(served, 'fifo')]);
    other = await startServer({ port: 0, folders: { '/dist/': served } });
    otherPort = other.address().port;
  });
  afterAll(async () => {
    await new Promise((r) => other.close(r));
    rmSync(base, { recursive: true, force: true });
  });

  const range = (value, path = '/dist/bytes.bin') => get(path, 'GET', { Range: value }, otherPort);

  test('Range: a satisfiable range gets 206 and exactly its bytes', async () => {
    for (const [value, start, end] of [
      ['bytes=10-19', 10, 19],
      ['bytes=0-0', 0, 0],
      ['bytes=-5', 995, 999],
      ['bytes=990-', 990, 999],
      ['bytes=995-5000', 995, 999],
      ['bytes=-5000', 0, 999],
      ['bytes=999-999', 999, 999],
      ['BYTES=1-2', 1, 2],
    ]) {
      const res = await range(value);
      expect([value, res.status, res.headers['content-range'], res.headers['content-length']]).toEqual([
        value,
        206,
        `bytes ${start}-${end}/1000`,
        String(end - start + 1),
      ]);
      expect(Buffer.from(res.body, 'latin1').equals(bytes.subarray(start, end + 1))).toBe(true);
    }
  });

  test('Range: unsatisfiable gets 416 with bytes */SIZE, and the server keeps serving', async () => {
    for (const value of ['bytes=5-2', 'bytes=1000-', 'bytes=1000-2000', 'bytes=-0', 'bytes=99999999999999999999-']) {
      const res = await range(value);
      expect([value, res.status, res.headers['content-range']]).toEqual([value, 416, 'bytes */1000']);
    }
    expect((await range('bytes=0-0', '/dist/empty.bin')).status).toBe(416);
    expect((await get('/dist/bytes.bin', 'GET', {}, otherPort)).body.length).toBe(1000);
  });

  test('Range: several ranges, other units, malformed values and If-Range get the whole file (200)', async () => {
    for (const [value, extra] of [
      ['bytes=0-1,5-6'],
      ['items=0-1'],
      ['bytes=abc'],
      ['bytes=-'],
      ['bytes=1-2-3'],
      ['bytes=0-1', { 'If-Range': 'W/"x"' }],
    ]) {
      const res = await get('/dist/bytes.bin', 'GET', { Range: value, ...extra }, otherPort);
      expect([value, res.status, res.body.length, res.headers['content-range']]).toEqual([value, 200, 1000, undefined]);
    }
  });

  test('Range on the real server: bytes=5-2 on /index.html gets 416 and the next request is answered', async () => {
    const res = await get('/index.html', 'GET', { Range: 'bytes=5-2' });
    expect(res.status).toBe(416);
    expect(res.headers['content-range']).toMatch(/^bytes \*\/\d+$/);
    expect((await get('/index.html')).status).toBe(200);
    const one = await get('/index.html', 'GET', { Range: 'bytes=0-0' });
    expect([one.status, one.body]).toEqual([206, '<']);
  });

  test('symlinks out of the folder are refused under every name the server tries and every URL form', async () => {
    const paths = [
      '/dist/x',
      '/dist/x.htm',
      '/dist//x',
      '/dist/x?y',
      '/dist/x.htm?y',
      '/dist/x/',
      '/dist/x%2Ehtm',
      '/dist/x#y',
      '/dist/y',
      '/dist/y.html',
      '/dist//y',
      '/dist/y?z',
      '/dist/plain',
      '/dist/plain?x',
      '/dist//plain',
      '/dist/d',
      '/dist/d/',
      '/dist/d/index',
      '/dist/d/index.html',
      '/dist/d/index.htm',
      '/dist//d',
      '/dist/d?x',
      '/dist/d//',
      '/dist/e',
      '/dist/e/',
      '/dist/e/index',
      '/dist/e/index.html',
      '/dist//e/',
      '/dist/e?x',
      '/dist/f',
      '/dist/f/',
      '/dist/f/index',
      '/dist/f/index.htm',
      '/dist/f?x',
      '/dist/zz%3Fq',
      '/dist/zz%253Fq',
      '/dist/zz?q',
      '/dist/zz%3fq',
      '/dist/zz%3Fr',
      '/dist/zz?r',
      '/dist/zz%2Fx',
      '/dist/zz%252Fx',
      '/dist/zz/x',
      '/dist/zz%2fx',
      '/dist/dl/secret.txt',
      '/dist/dl/',
      '/dist/dl',
      '/dist/dl/index.html',
      '/dist//dl/secret.txt',
      '/dist/dl/secret',
    ];
    await expectRefused(paths, secret, otherPort);
  });

  test('inside the folder: links that stay inside, and encoded names, are served', async () => {
    expect((await get('/dist/inner-link.bin', 'GET', {}, otherPort)).body.length).toBe(1000);
    const res = await get('/dist/zz%3Fok', 'GET', {}, otherPort);
    expect([res.status, res.body]).toEqual([200, 'inside']);
  });

  test('a FIFO in a served folder gets a 404 at once (opening it does not wait for a writer)', async () => {
    expect((await get('/dist/fifo', 'GET', {}, otherPort)).status).toBe(404);
    expect((await get('/dist/fifo?x', 'GET', { Range: 'bytes=0-0' }, otherPort)).status).toBe(404);
  });
});

test('MIME types, ETag revalidation (304) and Last-Modified', async () => {
  for (const [path, type] of [
    ['/', 'text/html; charset=utf-8'],
    ['/style.css', 'text/css; charset=utf-8'],
    ['/app.mjs', 'text/javascript; charset=utf-8'],
    ['/dist/mha-simd.js', 'text/javascript; charset=utf-8'],
    ['/dist/mha-simd.wasm', 'application/wasm'],
    ['/vendor/d3/d3.min.js', 'text/javascript; charset=utf-8'],
    ['/vendor/tokenizers/tokenizers.min.mjs', 'text/javascript; charset=utf-8'],
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

test("the page's one inline script, its import map, is allowed by its hash and by nothing broader", async () => {
  const html = (await get('/')).body;
  const text = Buffer.from(/<script type="importmap">([\s\S]*?)<\/script>/.exec(html)[1], 'latin1').toString('utf8');
  const hash = `sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}`;
  expect(importMapHash(html)).toBe(hash);
  expect(IMPORT_MAP_HASH).toBe(hash);
  const scriptSrc = CONTENT_SECURITY_POLICY.split('; ').find((d) => d.startsWith('script-src '));
  expect(scriptSrc).toBe(`script-src 'self' 'wasm-unsafe-eval' '${hash}'`);
  expect(JSON.parse(text).imports['@huggingface/tokenizers']).toBe('./vendor/tokenizers/tokenizers.min.mjs');
  expect(() => importMapHash('<html></html>')).toThrow(/importmap/);
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
