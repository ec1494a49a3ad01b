// The demo server's file layer over symbolic links, ranges and special files:
// links in a served folder that lead outside it are refused under every name
// the server tries and every URL form (it checks the real path of the file it
// opened), links that stay inside are served, ranges follow RFC 9110 (416 when
// unsatisfiable, the exact bytes otherwise), and a FIFO is refused at once.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../../web/server.mjs';
import { distDir, expectRefused, request } from './server-helpers.mjs';

// The real server (the repository's folders).
let server, port;
beforeAll(async () => {
  server = await startServer({ port: 0 });
  port = server.address().port;
});
afterAll(() => new Promise((r) => server.close(r)));

// A link placed in a served folder (dist/ is written by the build) would serve
// whatever it points to, file or folder, if files were opened by name alone;
// web/server.mjs checks the real path of every file it opens and refuses one
// that leaves the served folder.
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
      port,
      [`/dist/zz-test-link-${process.pid}.txt`, `/dist/zz-test-link-${process.pid}/secret.txt`],
      secret,
    );
  } finally {
    rmSync(fileLink, { force: true });
    rmSync(dirLink, { force: true });
    rmSync(outside, { recursive: true, force: true });
  }
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

  const range = (value, path = '/dist/bytes.bin') => request(otherPort, path, 'GET', { Range: value });

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
    expect((await request(otherPort, '/dist/bytes.bin')).body.length).toBe(1000);
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
      const res = await request(otherPort, '/dist/bytes.bin', 'GET', { Range: value, ...extra });
      expect([value, res.status, res.body.length, res.headers['content-range']]).toEqual([value, 200, 1000, undefined]);
    }
  });

  test('Range on the real server: bytes=5-2 on /index.html gets 416 and the next request is answered', async () => {
    const res = await request(port, '/index.html', 'GET', { Range: 'bytes=5-2' });
    expect(res.status).toBe(416);
    expect(res.headers['content-range']).toMatch(/^bytes \*\/\d+$/);
    expect((await request(port, '/index.html')).status).toBe(200);
    const one = await request(port, '/index.html', 'GET', { Range: 'bytes=0-0' });
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
    await expectRefused(otherPort, paths, secret);
  });

  test('inside the folder: links that stay inside, and encoded names, are served', async () => {
    expect((await request(otherPort, '/dist/inner-link.bin')).body.length).toBe(1000);
    const res = await request(otherPort, '/dist/zz%3Fok');
    expect([res.status, res.body]).toEqual([200, 'inside']);
  });

  test('a FIFO in a served folder gets a 404 at once (opening it does not wait for a writer)', async () => {
    expect((await request(otherPort, '/dist/fifo')).status).toBe(404);
    expect((await request(otherPort, '/dist/fifo?x', 'GET', { Range: 'bytes=0-0' })).status).toBe(404);
  });
});
