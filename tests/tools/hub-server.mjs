// A local server that speaks the Hugging Face Hub's HTTP, for the tests of
// loading models by name (tests/js/hub.test.mjs, tests/e2e/page-hub.test.mjs)
// and for checking it against huggingface_hub itself
// (tests/tools/check_hub_cache.py, in the transformers chroot). What it
// answers is what huggingface_hub's hf_api.py and file_download.py read:
//
//   GET  /api/models/{repo}/revision/{rev}[?blobs=true]   { id, sha, siblings: [{ rfilename, size, blobId, lfs }] }
//   GET  /api/models/{repo}/tree/{rev}                     [{ type, path, oid, size, lfs }]
//   HEAD|GET /{repo}/resolve/{rev}/{file}                  a small file: 200, ETag "{git oid}", X-Repo-Commit;
//                                                          an LFS file (weights): 302 to the "CDN" (another port),
//                                                          X-Linked-Etag "{sha256}", X-Linked-Size, X-Repo-Commit
//   GET  /cdn/{sha256}                                     the bytes, with Range (206, Content-Range)
//   a renamed repo: 307 to its new name (a relative Location); a gated repo: its files 401 (no token) or
//   403 (a token without access), X-Error-Code GatedRepo; unknown: 401 RepoNotFound, 404 RevisionNotFound,
//   404 EntryNotFound; CORS as the Hub sends it (for the page's tests in Chromium).
//
// Faults for the tests: cut(sha256, bytes) ends the next download of that file after `bytes`;
// corrupt(sha256) changes its first byte; throttle(sha256, ms) sends it 1 KB per `ms`;
// fail(path, status, times, headers) answers `status` the next `times` requests of a path; push(repo,
// files) moves main to a new commit. Every request
// is logged in `requests` ({ method, path, range, authorization, port }).
//
// Run alone: node tests/tools/hub-server.mjs [port] serves the fixture folders
// of tests/fixtures/models as repos "mha-wasm-tests/{folder}" (and prints its URL).
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const LFS = /\.(safetensors|bin|h5|msgpack|onnx|ot|model|spm|gguf)$/;
const sha = (kind, ...parts) => {
  const h = createHash(kind);
  for (const p of parts) h.update(p);
  return h.digest('hex');
};
const gitOid = (bytes) => sha('sha1', `blob ${bytes.length}\0`, bytes);

/** The files of a folder as { name: Buffer } (top level, no hidden files). */
export function folderFiles(folder) {
  return Object.fromEntries(
    readdirSync(folder)
      .filter((n) => !n.startsWith('.') && statSync(path.join(folder, n)).isFile())
      .map((n) => [n, readFileSync(path.join(folder, n))]),
  );
}

/**
 * A repo: { files: { name: Buffer }, gated?: true, revisions?: { name: files } }. The
 * revision "main" is `files`; each other revision its own files, with a commit of its own.
 */
function makeRepo(id, spec) {
  const repo = { id, gated: Boolean(spec.gated), revisions: new Map() };
  addRevision(repo, ['main'], spec.files);
  for (const [name, files] of Object.entries(spec.revisions ?? {})) addRevision(repo, [name], files);
  return repo;
}

/** `files` as a commit of `repo`, which the revisions `names` then point at; returns the revision. */
function addRevision(repo, names, files) {
  const entries = Object.entries(files).map(([name, bytes]) => {
    const lfs = LFS.test(name);
    return [name, { bytes, oid: gitOid(bytes), sha256: lfs ? sha('sha256', bytes) : undefined, lfs }];
  });
  const commit = sha('sha1', repo.id, ...entries.map(([n, e]) => `${n}:${e.oid}`));
  const revision = { commit, files: new Map(entries) };
  for (const name of names) repo.revisions.set(name, revision);
  repo.revisions.set(commit, revision);
  return revision;
}

/** The environment variables huggingface_hub's settings come from: a test clears them so that nothing of the machine's is read. */
export const HUB_ENVIRONMENT = Object.freeze([
  'HF_HOME',
  'HF_HUB_CACHE',
  'HUGGINGFACE_HUB_CACHE',
  'HF_TOKEN',
  'HUGGING_FACE_HUB_TOKEN',
  'HF_HUB_OFFLINE',
  'HF_ENDPOINT',
  'HF_TOKEN_PATH',
  'XDG_CACHE_HOME',
]);

export class HubServer {
  /** `repos`: { id: spec } (makeRepo); `renamed`: { oldId: newId }; `tokens`: tokens with access to the gated repos. */
  constructor({ repos = {}, renamed = {}, tokens = ['hf_granted'] } = {}) {
    this.repos = new Map(Object.entries(repos).map(([id, spec]) => [id, makeRepo(id, spec)]));
    this.renamed = new Map(Object.entries(renamed));
    this.tokens = new Set(tokens);
    this.requests = [];
    this.cuts = new Map();
    this.corrupted = new Set();
    this.throttled = new Map();
    this.failures = new Map();
    this.blobs = new Map();
    for (const repo of this.repos.values())
      for (const revision of repo.revisions.values())
        for (const file of revision.files.values()) if (file.lfs) this.blobs.set(file.sha256, file.bytes);
  }

  /** Starts the Hub and its "CDN" on two ports of 127.0.0.1 (0: any free one); resolves to this. */
  async start(port = 0) {
    const listen = (server, p) => new Promise((resolve) => server.listen(p, '127.0.0.1', resolve));
    this.hub = http.createServer((req, res) => this.#handle(req, res, 'hub'));
    this.cdn = http.createServer((req, res) => this.#handle(req, res, 'cdn'));
    await listen(this.hub, port);
    await listen(this.cdn, 0);
    this.url = `http://127.0.0.1:${this.hub.address().port}`;
    this.cdnUrl = `http://127.0.0.1:${this.cdn.address().port}`;
    return this;
  }

  async stop() {
    for (const server of [this.hub, this.cdn]) {
      server?.closeAllConnections?.();
      await new Promise((resolve) => (server ? server.close(resolve) : resolve()));
    }
  }

  /** The next download of the file whose sha256 is `sha256` stops after `bytes` (the connection is cut). */
  cut(sha256, bytes) {
    this.cuts.set(sha256, bytes);
  }

  /** Every download of the file whose sha256 is `sha256` has its first byte changed (until `corrupt(sha256, false)`). */
  corrupt(sha256, on = true) {
    if (on) this.corrupted.add(sha256);
    else this.corrupted.delete(sha256);
  }

  /** Downloads of the file whose sha256 is `sha256` send 1 KB every `ms` milliseconds (0: at once again). */
  throttle(sha256, ms) {
    if (ms) this.throttled.set(sha256, ms);
    else this.throttled.delete(sha256);
  }

  /** A new commit of `repo` holding `files`, which its main branch moves to (the old commit stays reachable); its id. */
  push(repo, files) {
    const revision = addRevision(this.repos.get(repo), ['main'], files);
    for (const file of revision.files.values()) if (file.lfs) this.blobs.set(file.sha256, file.bytes);
    return revision.commit;
  }

  /** The next `times` requests of `pathname` are answered `status` (with `headers`: a Location, say). */
  fail(pathname, status, times = 1, headers = {}) {
    this.failures.set(pathname, { status, times, headers });
  }

  /** The sha256 of a file of a repo's main revision. */
  sha256Of(repo, name) {
    return this.repos.get(repo).revisions.get('main').files.get(name).sha256;
  }

  commitOf(repo, revision = 'main') {
    return this.repos.get(repo).revisions.get(revision).commit;
  }

  #handle(req, res, port) {
    const url = new URL(req.url, 'http://hub');
    const pathname = decodeURIComponent(url.pathname);
    this.requests.push({
      method: req.method,
      path: pathname,
      range: req.headers.range,
      authorization: req.headers.authorization,
      port,
    });
    // CORS as the Hub answers it: any origin, the headers a client reads exposed.
    res.setHeader('access-control-allow-origin', '*');
    res.setHeader(
      'access-control-expose-headers',
      'x-repo-commit,x-linked-etag,x-linked-size,etag,x-error-code,x-error-message,content-range,content-length,accept-ranges',
    );
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        'access-control-allow-headers': 'authorization,range,accept-encoding',
        'access-control-allow-methods': 'GET,HEAD',
      });
      return res.end();
    }
    const failure = this.failures.get(pathname);
    if (failure && failure.times > 0) {
      failure.times--;
      res.writeHead(failure.status, { 'retry-after': '0', ...failure.headers });
      return res.end('injected failure');
    }
    if (port === 'cdn') return this.#cdn(req, res, pathname);
    // Matched on the path as sent: a revision is one segment, "/" in it percent-encoded.
    const raw = url.pathname;
    const api = /^\/api\/models\/(.+)\/(revision|tree)\/([^/]+)(?:\/(.*))?$/.exec(raw);
    if (api)
      return this.#api(req, res, decodeURIComponent(api[1]), api[2], decodeURIComponent(api[3]), url, api[4] ?? '');
    const resolve = /^\/(.+?)\/resolve\/([^/]+)\/(.+)$/.exec(raw);
    if (resolve)
      return this.#resolve(
        req,
        res,
        decodeURIComponent(resolve[1]),
        decodeURIComponent(resolve[2]),
        decodeURIComponent(resolve[3]),
      );
    return error(res, 404, null, 'not a Hub path');
  }

  #repo(res, id, withAccess, auth) {
    if (this.renamed.has(id)) return { moved: this.renamed.get(id) };
    const repo = this.repos.get(id);
    if (!repo) return error(res, 401, 'RepoNotFound', 'Repository Not Found');
    if (withAccess && repo.gated) {
      const token = /^Bearer (.+)$/.exec(auth ?? '')?.[1];
      if (!token)
        return error(
          res,
          401,
          'GatedRepo',
          `Access to model ${id} is restricted. You must have access to it and be authenticated to access it. Please log in.`,
        );
      if (!this.tokens.has(token))
        return error(
          res,
          403,
          'GatedRepo',
          `Access to model ${id} is restricted and you are not in the authorized list.`,
        );
    }
    return { repo };
  }

  #api(req, res, id, kind, rev, url, folder) {
    const found = this.#repo(res, id, false, req.headers.authorization);
    if (!found) return;
    if (found.moved) return redirect(res, `/api/models/${found.moved}/${kind}/${encodeURIComponent(rev)}${url.search}`);
    const revision = found.repo.revisions.get(rev);
    if (!revision) return error(res, 404, 'RevisionNotFound', `Invalid rev id: ${rev}`);
    // The files are all at the top: a tree of any folder below is not found.
    if (kind === 'tree' && folder) return error(res, 404, 'EntryNotFound', `${folder} does not exist on "${rev}"`);
    const blobs = url.searchParams.get('blobs') === 'true';
    const files = [...revision.files].sort(([a], [b]) => (a < b ? -1 : 1));
    const body =
      kind === 'tree'
        ? files.map(([name, f]) => ({
            type: 'file',
            oid: f.oid,
            size: f.bytes.length,
            path: name,
            ...(f.lfs ? { lfs: { oid: f.sha256, size: f.bytes.length, pointerSize: 134 } } : {}),
          }))
        : {
            _id: revision.commit.slice(0, 24),
            id,
            modelId: id,
            sha: revision.commit,
            private: false,
            gated: found.repo.gated ? 'manual' : false,
            siblings: files.map(([name, f]) => ({
              rfilename: name,
              ...(blobs
                ? {
                    size: f.bytes.length,
                    blobId: f.oid,
                    ...(f.lfs ? { lfs: { sha256: f.sha256, size: f.bytes.length, pointerSize: 134 } } : {}),
                  }
                : {}),
            })),
          };
    const text = JSON.stringify(body);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(req.method === 'HEAD' ? undefined : text);
  }

  #resolve(req, res, id, rev, name) {
    const found = this.#repo(res, id, true, req.headers.authorization);
    if (!found) return;
    if (found.moved) return redirect(res, `/${found.moved}/resolve/${encodeURIComponent(rev)}/${name}`);
    const revision = found.repo.revisions.get(rev);
    if (!revision) return error(res, 404, 'RevisionNotFound', `Invalid rev id: ${rev}`);
    const file = revision.files.get(name);
    if (!file) return error(res, 404, 'EntryNotFound', `Entry not found: ${name}`);
    const headers = { 'x-repo-commit': revision.commit, 'accept-ranges': 'bytes' };
    if (file.lfs) {
      res.writeHead(302, {
        ...headers,
        etag: `"${file.oid}"`,
        'x-linked-etag': `"${file.sha256}"`,
        'x-linked-size': String(file.bytes.length),
        location: `${this.cdnUrl}/cdn/${file.sha256}?signature=test`,
        'content-length': 0,
      });
      return res.end();
    }
    return send(req, res, file.bytes, { ...headers, etag: `"${file.oid}"` });
  }

  #cdn(req, res, pathname) {
    const match = /^\/cdn\/([0-9a-f]{64})$/.exec(pathname);
    let bytes = match && this.blobs.get(match[1]);
    if (!bytes) return error(res, 404, null, 'no such blob');
    if (this.corrupted.has(match[1])) {
      bytes = Buffer.from(bytes);
      bytes[0] ^= 0xff;
    }
    const cut = this.cuts.get(match[1]);
    if (cut !== undefined && req.method === 'GET') {
      this.cuts.delete(match[1]);
      return send(req, res, bytes, {}, cut);
    }
    return send(req, res, bytes, {}, undefined, this.throttled.get(match[1]));
  }
}

function error(res, status, code, message) {
  res.writeHead(status, {
    'content-type': 'application/json',
    ...(code ? { 'x-error-code': code } : {}),
    'x-error-message': message,
  });
  res.end(JSON.stringify({ error: message }));
  return null;
}

function redirect(res, location) {
  res.writeHead(307, { location, 'content-length': 0 });
  res.end();
}

// The bytes (or the Range asked for: 206, or 416 past the end); `cutAfter` bytes and the connection ends.
function send(req, res, bytes, headers, cutAfter, tickMs) {
  let begin = 0;
  let end = bytes.length;
  let status = 200;
  const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
  if (range) {
    begin = Number(range[1]);
    end = range[2] ? Math.min(Number(range[2]) + 1, bytes.length) : bytes.length;
    if (begin >= bytes.length) {
      res.writeHead(416, { 'content-range': `bytes */${bytes.length}` });
      return res.end();
    }
    status = 206;
    headers['content-range'] = `bytes ${begin}-${end - 1}/${bytes.length}`;
  }
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/octet-stream',
    'content-length': end - begin,
    'accept-ranges': 'bytes',
  });
  if (req.method === 'HEAD') return res.end();
  if (tickMs) {
    let at = begin;
    const timer = setInterval(() => {
      if (res.destroyed || at >= end) {
        clearInterval(timer);
        if (!res.destroyed) res.end();
        return;
      }
      res.write(bytes.subarray(at, Math.min(end, at + 1024)));
      at += 1024;
    }, tickMs);
    res.on('close', () => clearInterval(timer));
    return;
  }
  if (cutAfter !== undefined) {
    res.write(bytes.subarray(begin, Math.min(end, begin + cutAfter)), () =>
      setTimeout(() => res.socket?.destroy(), 20),
    );
    return;
  }
  res.end(bytes.subarray(begin, end));
}

// Run alone: the fixture folders as repos mha-wasm-tests/{folder}.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const models = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
  const repos = {};
  for (const name of readdirSync(models))
    if (statSync(path.join(models, name)).isDirectory())
      repos[`mha-wasm-tests/${name}`] = { files: folderFiles(path.join(models, name)) };
  const server = await new HubServer({ repos }).start(Number(process.argv[2] ?? 0));
  console.log(server.url);
}
