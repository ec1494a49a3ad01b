// Shared by tests/e2e/server*.test.mjs: raw requests to a demo server on a
// port, and the check that a path is refused without leaking a secret.
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const distDir = fileURLToPath(new URL('../../dist/', import.meta.url));
// What a response must never contain: package.json's own text.
export const PACKAGE_JSON = readFileSync(new URL('../../package.json', import.meta.url), 'utf8').slice(0, 60);

/** A raw request to 127.0.0.1:port: the path goes out exactly as written (no client-side normalizing). */
export function request(port, path, method = 'GET', headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let body = '';
      res.setEncoding('latin1');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Every path gets a 4xx from the server on `port` whose body holds nothing of `secret` (package.json by default). */
export async function expectRefused(port, paths, secret = PACKAGE_JSON) {
  for (const path of paths) {
    const { status, body } = await request(port, path);
    expect([path.slice(0, 80), status >= 400 && status < 500, body.includes(secret)]).toEqual([
      path.slice(0, 80),
      true,
      false,
    ]);
  }
}
