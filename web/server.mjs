// Local server for the demo page (`npm start`). Serves web/ at /, and the
// package's runtime files at their repository paths, /src/js/ and /dist/, so
// that the relative URLs inside src/js/browser.mjs (../../dist/mha-simd.js and
// the others) resolve as they do in the published package, plus d3's dist/
// folder at /vendor/d3/ (the checkpoints' tokenizers run in
// dist/mha-model-tokenizer.js, which has the tokenizers library inside).
// Nothing else of the repository is reachable (no /tests, no other
// /node_modules, no /.git, no /package.json).
//
// The static file layer is written here rather than taken from a package so
// that one function decides which file a URL names (resolveUrl), one opens it
// and checks the real path of the opened file (openInside), and every error of
// a request ends that request only (onRequest).
//
// Usage: node web/server.mjs    PORT=0 picks a free port; default 8080.
import { createServer } from 'node:http';
import { constants, existsSync, realpathSync } from 'node:fs';
import { open, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream';
import { fileURLToPath } from 'node:url';

const here = (folder) => fileURLToPath(new URL(`../${folder}`, import.meta.url));

// URL prefix → folder; the first matching prefix wins.
const FOLDERS = {
  '/src/js/': here('src/js'),
  '/dist/': here('dist'),
  // d3's prebuilt bundles, for the page's views (web/lib/d3.mjs): same origin,
  // so the page works offline and under COEP; only this one folder of node_modules.
  '/vendor/d3/': here('node_modules/d3/dist'),
  '/': here('web'),
};

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.cjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
};

// Cross-origin isolation: makes SharedArrayBuffer (wasm threads) and the
// precise performance.now() available; the page shows crossOriginIsolated.
const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

// Everything the page loads comes from this origin. 'wasm-unsafe-eval' lets
// the engine compile its .wasm; no JavaScript eval is allowed. style-src has
// no 'unsafe-inline': the page sets styles through the CSSOM only. img-src
// data: is the favicon (index.html), blob: the SVG drawn into a canvas for the
// PNG export (lib/download.mjs). No inline script is allowed. The one other host the page may contact is the Hugging Face Hub of the
// real-model view, when the reader loads a model by name: connect-src lists
// exactly the hub endpoints the server is given (MHA_HUB_ENDPOINTS) and, for
// huggingface.co, the hosts its downloads are redirected to.
/** The Hub the page offers by default, and where huggingface.co sends its large files (cdn-lfs*.hf.co, cas-bridge.xethub.hf.co). */
export const DEFAULT_HUB_ENDPOINTS = Object.freeze(['https://huggingface.co']);
const HUB_DOWNLOAD_HOSTS = { 'https://huggingface.co': ['https://*.huggingface.co', 'https://*.hf.co'] };

/**
 * The page's Content-Security-Policy, letting it reach `hubEndpoints` (origins), their download hosts
 * (huggingface.co's are known), and `downloadHosts` (a mirror's, which the server is told).
 */
export function contentSecurityPolicy(hubEndpoints = DEFAULT_HUB_ENDPOINTS, downloadHosts = []) {
  const hosts = [
    ...new Set([
      ...hubEndpoints.flatMap((origin) => [origin, ...(HUB_DOWNLOAD_HOSTS[origin] ?? [])]),
      ...downloadHosts,
    ]),
  ];
  return [
    "default-src 'self'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "worker-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    ["connect-src 'self'", ...hosts].join(' '),
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}
export const CONTENT_SECURITY_POLICY = contentSecurityPolicy();

/**
 * Hub endpoints as origins ('https://hf-mirror.com'), from a list of URLs;
 * a RangeError naming `what` for one that is not an http(s) origin.
 */
export function hubOrigins(urls, what = 'MHA_HUB_ENDPOINTS') {
  return urls.map((text) => {
    let url = null;
    try {
      url = new URL(text);
    } catch {
      // refused below
    }
    if (!url || !/^https?:$/.test(url.protocol) || (url.pathname !== '/' && url.pathname !== '') || url.search)
      throw new RangeError(`${what}: expected http(s) origins such as https://huggingface.co, got "${text}"`);
    return url.origin;
  });
}

const SECURITY_HEADERS = {
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

// A request's headers must arrive within this time, else Node answers 408 and
// closes the socket (Node checks every connectionsCheckingInterval).
export const HEADERS_TIMEOUT_MS = 10_000;

/** Ends the response with a short plain-text status. */
function fail(res, status, extraHeaders = {}) {
  const text = { 400: 'Bad request', 404: 'Not found', 405: 'Method not allowed', 416: 'Range not satisfiable' };
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', ...extraHeaders });
  res.end(`${text[status] ?? 'Internal server error'}\n`);
}

/**
 * The mount and the file names a request target may denote, or a status code.
 * Each segment is percent-decoded once; a segment that is empty (except the
 * last), starts with a dot (dotfiles, "." and "..") or decodes to a slash,
 * backslash or NUL is refused, so no path can leave its folder by name.
 * @returns {{ root: string, candidates: string[] } | number}
 */
function resolveUrl(target, mounts) {
  if (!target.startsWith('/')) return 400;
  const pathname = target.split(/[?#]/, 1)[0];
  const mount = mounts.find(({ prefix }) => pathname.startsWith(prefix));
  if (!mount) return 404;
  const segments = [];
  const raw = pathname.slice(mount.prefix.length).split('/');
  for (const [i, segment] of raw.entries()) {
    let name;
    try {
      name = decodeURIComponent(segment);
    } catch {
      return 400;
    }
    if (name === '' && i === raw.length - 1) break;
    if (name === '' || name.startsWith('.') || /[/\\\0]/.test(name)) return 404;
    segments.push(name);
  }
  const base = path.join(mount.root, ...segments);
  // A directory's index: "/x/" names only x/index.html; "/x" may also be the file x or x.html.
  const last = raw[raw.length - 1];
  const candidates =
    last === '' ? [path.join(base, 'index.html')] : [base, `${base}.html`, path.join(base, 'index.html')];
  return { root: mount.root, candidates };
}

/** Where an open descriptor really leads: /proc/self/fd on Linux, else the realpath of the name it was opened by. */
async function realPathOf(handle, name) {
  try {
    return await readlink(`/proc/self/fd/${handle.fd}`);
  } catch {
    return realpath(name);
  }
}

/**
 * Opens the first candidate that is a regular file. Every opened file's real
 * path must lie inside root, whatever links the name went through; one that
 * does not refuses the request. O_NONBLOCK: opening a FIFO does not wait for a writer.
 * @returns {Promise<{ handle: import('node:fs/promises').FileHandle, name: string, stats: import('node:fs').Stats } | null>}
 */
async function openInside(root, candidates) {
  for (const name of candidates) {
    let handle;
    try {
      handle = await open(name, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
    } catch {
      continue; // missing, not a folder on the way, name too long, no permission…
    }
    let verdict = 'refuse';
    try {
      const real = await realPathOf(handle, name);
      const stats = await handle.stat();
      if (real !== root && !real.startsWith(root + path.sep)) verdict = 'refuse';
      else if (stats.isFile()) return { handle, name, stats };
      else if (stats.isDirectory()) verdict = 'next';
      // else a FIFO, socket or device: refused
    } catch {
      // refused
    }
    await handle.close();
    if (verdict === 'refuse') return null;
  }
  return null;
}

/**
 * The byte range a Range header asks for (RFC 9110 §14.1.2, §14.2):
 * { start, end } inclusive, 'unsatisfiable', or null to send the whole file
 * (no Range, a unit other than bytes, malformed syntax, several ranges).
 */
export function parseRange(header, size) {
  const match = /^bytes=\s*(\d*)-(\d*)\s*$/i.exec(header ?? '');
  if (!match || (match[1] === '' && match[2] === '')) return null;
  if (match[1] === '') {
    // Suffix range: the last N bytes. An empty file has no last bytes to send; it is sent whole.
    const length = Number(match[2]);
    if (length === 0) return 'unsatisfiable';
    return size === 0 ? null : { start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Number(match[2]);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end: Math.min(end, size - 1) };
}

/** Whether an If-None-Match header lists the ETag (weak comparison, RFC 9110 §13.1.2). */
function etagMatches(header, etag) {
  const weak = (tag) => tag.trim().replace(/^W\//, '');
  return header.trim() === '*' || header.split(',').some((tag) => weak(tag) === weak(etag));
}

async function serveFile(req, res, { handle, name, stats }) {
  let streaming = false;
  try {
    // The sirv format, so that browsers' cached validators stay valid.
    const etag = `W/"${stats.size}-${stats.mtime.getTime()}"`;
    const headers = {
      'Content-Type': TYPES[path.extname(name).toLowerCase()] ?? 'application/octet-stream',
      'Last-Modified': stats.mtime.toUTCString(),
      ETag: etag,
      // Revalidated on every load: a rebuilt dist/ is picked up at once (304 when unchanged).
      'Cache-Control': 'no-cache',
      'Accept-Ranges': 'bytes',
    };
    const inm = req.headers['if-none-match'];
    const ims = Date.parse(req.headers['if-modified-since'] ?? '');
    if (inm ? etagMatches(inm, etag) : Math.floor(stats.mtimeMs / 1000) * 1000 <= ims) {
      res.writeHead(304, { ETag: etag, 'Last-Modified': headers['Last-Modified'], 'Cache-Control': 'no-cache' });
      return res.end();
    }
    // If-Range: the weak ETag never matches (RFC 9110 §13.1.5), so a conditional range gets the whole file.
    const range = req.headers['if-range'] ? null : parseRange(req.headers.range, stats.size);
    if (range === 'unsatisfiable') return fail(res, 416, { 'Content-Range': `bytes */${stats.size}` });
    const { start, end } = range ?? { start: 0, end: stats.size - 1 };
    if (range) headers['Content-Range'] = `bytes ${start}-${end}/${stats.size}`;
    headers['Content-Length'] = end - start + 1;
    res.writeHead(range ? 206 : 200, headers);
    if (req.method === 'HEAD' || end < start) return res.end();
    streaming = true;
    // pipeline closes the file and destroys the response on a read error or an early client close.
    pipeline(handle.createReadStream({ start, end }), res, () => {});
  } finally {
    if (!streaming) await handle.close();
  }
}

async function handle(req, res, { isolate, mounts, csp, hubJson }) {
  if (isolate) for (const [name, value] of Object.entries(ISOLATION_HEADERS)) res.setHeader(name, value);
  res.setHeader('Content-Security-Policy', csp);
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
  if (req.method !== 'GET' && req.method !== 'HEAD') return fail(res, 405, { Allow: 'GET, HEAD' });
  // The hubs this server lets the page reach (its CSP's), for the real-model view's endpoint menu.
  if (req.url.split('?')[0] === '/hub-endpoints.json') {
    res.writeHead(200, {
      'Content-Type': TYPES['.json'],
      'Content-Length': Buffer.byteLength(hubJson),
      'Cache-Control': 'no-cache',
    });
    return res.end(req.method === 'HEAD' ? undefined : hubJson);
  }
  const resolved = resolveUrl(req.url, mounts);
  if (typeof resolved === 'number') return fail(res, resolved);
  const file = await openInside(resolved.root, resolved.candidates);
  if (!file) return fail(res, 404);
  await serveFile(req, res, file);
}

/** Runs one request; an error ends that request (500, or the socket if the headers are out), never the process. */
function onRequest(req, res, options) {
  handle(req, res, options).catch((error) => {
    console.error(`mha-wasm demo: ${req.method} ${String(req.url).slice(0, 200)}: ${error?.message ?? error}`);
    if (res.headersSent) res.destroy();
    else fail(res, 500);
  });
}

/**
 * Starts the demo server.
 * @param {{ port?: number, host?: string, isolate?: boolean, folders?: Record<string, string>, hubEndpoints?: string[] }} [options]
 *   port 0 picks a free port; isolate false leaves out the cross-origin isolation
 *   headers (to test the page as a plain static host would serve it); folders
 *   replaces the folder of a URL prefix ('/dist/' …) or adds one (for tests);
 *   hubEndpoints: the Hugging Face Hubs (origins) the page may load models from,
 *   the first its default (DEFAULT_HUB_ENDPOINTS; [] for none); hubDownloadHosts:
 *   the origins their files are redirected to, beyond huggingface.co's known ones
 * @returns {Promise<import('node:http').Server>} the server, once it is listening
 */
export function startServer({
  port = 8080,
  host = '127.0.0.1',
  isolate = true,
  folders = {},
  hubEndpoints = DEFAULT_HUB_ENDPOINTS,
  hubDownloadHosts = [],
} = {}) {
  const origins = hubOrigins(hubEndpoints, 'hubEndpoints');
  const csp = contentSecurityPolicy(origins, hubOrigins(hubDownloadHosts, 'hubDownloadHosts'));
  const hubJson = JSON.stringify({ endpoints: origins });
  const mounts = Object.entries({ ...FOLDERS, ...folders })
    .map(([prefix, folder]) => ({ prefix, root: realpathSync(folder) }))
    .sort((a, b) => b.prefix.length - a.prefix.length);
  const server = createServer(
    { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: HEADERS_TIMEOUT_MS, connectionsCheckingInterval: 1000 },
    (req, res) => onRequest(req, res, { isolate, mounts, csp, hubJson }),
  );
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
  // MHA_HUB_ENDPOINTS: the Hubs the page may reach, space-separated ("" for none): a mirror for readers who cannot reach huggingface.co.
  const hubEndpoints =
    process.env.MHA_HUB_ENDPOINTS === undefined
      ? DEFAULT_HUB_ENDPOINTS
      : hubOrigins(process.env.MHA_HUB_ENDPOINTS.split(/\s+/).filter(Boolean));
  // MHA_HUB_DOWNLOAD_HOSTS: the hosts a mirror sends its large files to (huggingface.co's are known).
  const hubDownloadHosts = hubOrigins(
    (process.env.MHA_HUB_DOWNLOAD_HOSTS ?? '').split(/\s+/).filter(Boolean),
    'MHA_HUB_DOWNLOAD_HOSTS',
  );
  const server = await startServer({ port: portFromEnvironment(), host: '127.0.0.1', hubEndpoints, hubDownloadHosts });
  if (hubEndpoints.length) console.log(`mha-wasm demo: the page may load models from ${hubEndpoints.join(', ')}`);
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
