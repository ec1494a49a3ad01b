// Local server for the demo page (`npm start`). Serves web/ at /, and the
// package's runtime files at their repository paths, /src/js/ and /dist/, so
// that the relative URLs inside src/js/browser.mjs (../../dist/mha-simd.js and
// the others) resolve as they do in the published package, plus d3's dist/
// folder at /vendor/d3/. Nothing else of the repository is reachable (no
// /tests, no other /node_modules, no /.git, no /package.json).
//
// Usage: node web/server.mjs    PORT=0 picks a free port; default 8080.
import { createServer } from 'node:http';
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sirv from 'sirv';

// dev: files are looked up per request instead of listed once at start-up, so
// a rebuild of dist/ while the server runs is served as it is now (a stale
// listing would send the old Content-Length). etag: the browser revalidates
// every load and gets 304 when nothing changed.
const serve = (folder) => {
  const root = realpathSync(fileURLToPath(new URL(`../${folder}`, import.meta.url)));
  return Object.assign(sirv(root, { dev: true, etag: true }), { root });
};

// sirv follows symbolic links: a link inside a served folder could expose any
// file of the machine. Every file a request could resolve to (sirv also tries
// PATH.html and PATH/index.html) must really lie inside the folder.
function staysInside(root, urlPath) {
  const target = path.join(root, urlPath);
  for (const candidate of [target, `${target}.html`, path.join(target, 'index.html')]) {
    let real;
    try {
      real = realpathSync(candidate);
    } catch {
      continue; // does not exist: sirv will not serve it either
    }
    if (real !== root && !real.startsWith(root + path.sep)) return false;
  }
  return true;
}

// URL prefix → handler; the first matching prefix wins, the handler sees the
// path with the prefix removed (sirv itself refuses paths that leave its folder).
const MOUNTS = [
  ['/src/js/', serve('src/js')],
  ['/dist/', serve('dist')],
  // d3's prebuilt bundles, for the page's views (web/lib/d3.mjs): same origin,
  // so the page works offline and under COEP; only this one folder of node_modules.
  ['/vendor/d3/', serve('node_modules/d3/dist')],
  ['/', serve('web')],
];

// Cross-origin isolation: makes SharedArrayBuffer (wasm threads) and the
// precise performance.now() available; the page shows crossOriginIsolated.
const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

function notFound(res) {
  res.statusCode = 404;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.end('Not found\n');
}

function handle(req, res, isolate) {
  if (isolate) for (const [name, value] of Object.entries(ISOLATION_HEADERS)) res.setHeader(name, value);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.statusCode = 405;
    res.setHeader('Allow', 'GET, HEAD');
    return res.end();
  }
  const [prefix, handler] = MOUNTS.find(([p]) => req.url.startsWith(p)) ?? [];
  if (!handler) return notFound(res);
  const rest = req.url.slice(prefix.length - 1);
  // sirv's dev mode serves dotfiles; refuse any segment starting with a dot,
  // encoded or not (this also turns every "..", even %2e%2e, into a 404).
  const urlPath = decodeSafely(rest.split(/[?#]/, 1)[0]);
  if (/(^|\/)\./.test(urlPath)) return notFound(res);
  if (!staysInside(handler.root, urlPath)) return notFound(res);
  req.url = rest;
  handler(req, res, () => notFound(res));
}

function decodeSafely(path) {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/**
 * Starts the demo server.
 * @param {{ port?: number, host?: string, isolate?: boolean }} [options] port 0 picks a
 *   free port; isolate false leaves out the cross-origin isolation headers (to test
 *   the page as a plain static host would serve it)
 * @returns {Promise<import('node:http').Server>} the server, once it is listening
 */
export function startServer({ port = 8080, host = '127.0.0.1', isolate = true } = {}) {
  const server = createServer((req, res) => handle(req, res, isolate));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

function portFromEnvironment() {
  const text = process.env.PORT ?? '8080';
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535)
    throw new RangeError(`PORT: expected an integer from 0 to 65535, got "${text}"`);
  return port;
}

async function main() {
  if (!existsSync(new URL('../dist/mha-simd.wasm', import.meta.url)))
    console.warn('mha-wasm demo: dist/ has no wasm build yet; run `npm run build` first');
  const server = await startServer({ port: portFromEnvironment(), host: '127.0.0.1' });
  console.log(`mha-wasm demo: http://127.0.0.1:${server.address().port}/`);
  const stop = () => {
    server.close(() => process.exit(0));
    // Keep-alive connections would hold close() open until they time out.
    server.closeAllConnections?.();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

const isMain = (() => {
  try {
    return realpathSync(process.argv[1] ?? '') === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
})();

if (isMain) {
  main().catch((error) => {
    console.error(`mha-wasm demo: ${error.message}`);
    process.exit(1);
  });
}
