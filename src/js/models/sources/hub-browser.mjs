// Models by name in browsers: a string (or URL) source is a Hugging Face Hub
// repo (sources/hub.mjs), its files kept in the Cache API, so that a second
// visit downloads nothing and offline: true loads from it alone. Weights are
// read back in slices of the cached Blob (browsers keep large cache entries
// on disk), never as a second whole copy in memory.
//
// The cache "mha-wasm-hub" holds, under the Hub's own URLs:
//   {endpoint}/{repo}/resolve/{commit}/{file}               a file's record: its size and parts, once complete
//   {endpoint}/{repo}/resolve/{commit}/{file}?part=N        its bytes, 32 MB a part
//   {endpoint}/api/models/{repo}/tree/{commit}?mha-wasm     the commit's file list (what is absent)
//   {endpoint}/api/models/{repo}/revision/{rev}?mha-wasm    the commit a branch or tag was at
// A file comes in parts so that a download cut off goes on (with Range) from
// the last whole part, in the same load or the next, and so that no more than
// a part is held in memory; it is read back as one Blob of the parts' Blobs.
//
// How much a page may keep is the browser's: Chromium lets an origin use up to
// 60% of the disk, Firefox 10% (or 10 GiB), Safari about 60% after asking; the
// space left (navigator.storage.estimate) is checked before a download, and
// persistent storage is asked for, so that the browser does not evict a model
// under pressure. A download is checked against the file list's size; its
// sha256 is not (browsers have no streaming digest).
import { describe } from '../../checks.mjs';
import { ArgumentTypeError, codedError } from '../../errors.mjs';
import { blobFile } from './blob-file.mjs';
import { hubFetch, openHub } from './hub.mjs';
import { checkHubOptions, parseHubUrl, parseRepoId, DEFAULT_ENDPOINT } from './hub-options.mjs';
import { repoFiles } from './repo-files.mjs';

export const CACHE_NAME = 'mha-wasm-hub';

/** A Hub repo's files and what loading it downloads (sources/repo-files.mjs); the endpoint's default is huggingface.co. */
export const listModelFiles = (name, options) => repoFiles(name, options, { endpoint: DEFAULT_ENDPOINT });

/** A string or URL source's files in a browser: a Hub repo ('org/name', or a Hub page's URL). */
export async function openNamed(source, options = {}) {
  const named =
    source instanceof URL || /^https?:\/\//i.test(source) ? parseHubUrl(source) : { repo: parseRepoId(source) };
  if (!named?.repo)
    throw new ArgumentTypeError(
      `source: expected a Hugging Face model name ("org/name") or a Hub model's URL, got ${describe(String(source))}; ` +
        'a folder on disk is loaded by passing its files (a FileList from <input type=file webkitdirectory>, File[])',
    );
  if (options.cacheDir !== undefined)
    throw new ArgumentTypeError('cacheDir: works in Node only; browsers keep models in the Cache API ("mha-wasm-hub")');
  if (typeof caches === 'undefined')
    throw codedError(
      'Unsupported',
      `${named.repo}: this page has no Cache API (it needs a secure context: https or localhost), where models are kept`,
      { repo: named.repo },
    );
  const settings = checkHubOptions(options, { endpoint: DEFAULT_ENDPOINT, offline: false }, named);
  const hub = {
    ...settings,
    repo: named.repo,
    fetch: globalThis.fetch.bind(globalThis),
    signal: options.signal,
    onProgress: options.onProgress,
    file: options.file, // a GGUF file of the repo (checked by the loader's options)
  };
  if (hub.offline) hub.offlineWhy = 'offline: true';
  const store = new BrowserHubStore(await caches.open(CACHE_NAME), hub);
  return Object.entries(await openHub(hub, store)).map(([name, file]) => ({ path: name, file }));
}

/** One repo in the Cache API (the store openHub reads and fills). */
export class BrowserHubStore {
  /** The bytes of a file's part in the cache: what a cut-off download keeps, and the most held in memory (tests set it smaller). */
  static partBytes = 32 << 20;
  #cache;
  #base;
  #api;
  #lists = new Map();

  constructor(cache, hub) {
    this.#cache = cache;
    this.#base = `${hub.endpoint}/${hub.repo}`;
    this.#api = `${hub.endpoint}/api/models/${hub.repo}`;
    this.where = `the browser's Cache API ("${CACHE_NAME}") for ${hub.endpoint}`;
  }

  #fileKey = (commit, name) => `${this.#base}/resolve/${commit}/${encodeURIComponent(name)}`;
  #listKey = (commit) => `${this.#api}/tree/${commit}?mha-wasm`;
  #refKey = (revision) => `${this.#api}/revision/${encodeURIComponent(revision)}?mha-wasm`;

  async ref(revision) {
    const response = await this.#cache.match(this.#refKey(revision));
    const commit = response ? (await response.text()).trim() : '';
    return /^[0-9a-f]{40}$/.test(commit) ? commit : undefined;
  }

  async #list(commit) {
    if (!this.#lists.has(commit)) {
      const response = await this.#cache.match(this.#listKey(commit));
      let names = null;
      try {
        names = response ? new Set(JSON.parse(await response.text())) : null;
      } catch {
        names = null;
      }
      this.#lists.set(commit, names);
    }
    return this.#lists.get(commit);
  }

  async state(commit, name) {
    if (await this.#record(commit, name)) return 'present';
    const names = await this.#list(commit);
    return names && !names.has(name) ? 'absent' : undefined;
  }

  // A complete file's record { size, parts }, or null.
  async #record(commit, name) {
    const response = await this.#cache.match(this.#fileKey(commit, name));
    try {
      const record = response && JSON.parse(await response.text());
      return Number.isSafeInteger(record?.size) && Number.isSafeInteger(record?.parts) ? record : null;
    } catch {
      return null;
    }
  }

  async names(commit) {
    const prefix = `${this.#base}/resolve/${commit}/`;
    const keys = await this.#cache.keys();
    const names = keys
      .map((k) => k.url)
      .filter((url) => url.startsWith(prefix) && !url.includes('?'))
      .map((url) => decodeURIComponent(url.slice(prefix.length)));
    const present = [];
    for (const name of names) if (await this.#record(commit, name)) present.push(name);
    return present;
  }

  async file(commit, name) {
    const record = await this.#record(commit, name);
    if (!record) return null;
    const parts = [];
    for (let i = 0; i < record.parts; i++) {
      const part = await this.#cache.match(this.#partKey(commit, name, i));
      if (!part) return null;
      parts.push(await part.blob());
    }
    const blob = new Blob(parts);
    if (blob.size !== record.size) return null;
    return blobFile(name, blob);
  }

  #partKey = (commit, name, i) => `${this.#fileKey(commit, name)}?part=${i}`;

  async markAbsent(commit, names, listing) {
    await this.#cache.put(this.#listKey(commit), new Response(JSON.stringify([...listing.keys()])));
    this.#lists.delete(commit);
  }

  async setRef(revision, commit) {
    await this.#cache.put(this.#refKey(revision), new Response(commit));
  }

  /**
   * GET /{repo}/resolve/{commit}/{name} (redirects followed by the browser),
   * from the first part not yet cached (Range), each part put as it fills;
   * cut off, it goes on from the last whole part (3 times).
   */
  async download(hub, commit, name, entry, onBytes, { force = false } = {}) {
    const size = entry?.size;
    if (force) {
      // Fetched again from the start: the file's record and every part it had go first.
      await this.#cache.delete(this.#fileKey(commit, name));
      for (let i = 0; await this.#cache.delete(this.#partKey(commit, name, i)); i++);
    }
    await checkSpace(hub, name, size);
    const url = `${this.#base}/resolve/${commit}/${name.split('/').map(encodeURIComponent).join('/')}`;
    const PART_BYTES = BrowserHubStore.partBytes;
    for (let attempt = 0; ; attempt++) {
      // The whole parts already here (of an earlier, cut-off download).
      let part = 0;
      while (
        size !== undefined &&
        (part + 1) * PART_BYTES <= size &&
        (await this.#cache.match(this.#partKey(commit, name, part)))
      )
        part++;
      let at = part * PART_BYTES;
      onBytes(at);
      const response = await hubFetch(hub, url, name, at > 0 ? { headers: { range: `bytes=${at}-` } } : {});
      if (at > 0 && response.status !== 206) at = part = 0; // sent whole: from the start
      let chunks = [];
      let filled = 0;
      const flush = async () => {
        await this.#cache.put(this.#partKey(commit, name, part), new Response(new Blob(chunks)));
        part++;
        chunks = [];
        filled = 0;
      };
      try {
        const reader = response.body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          for (let offset = 0; offset < value.byteLength;) {
            const take = Math.min(value.byteLength - offset, PART_BYTES - filled);
            chunks.push(value.subarray(offset, offset + take));
            filled += take;
            offset += take;
            at += take;
            if (filled === PART_BYTES) await flush();
          }
          onBytes(at);
        }
        if (filled > 0 || part === 0) await flush();
      } catch (error) {
        if (hub.signal?.aborted) throw hub.signal.reason;
        if (error?.name === 'QuotaExceededError')
          throw codedError(
            'StorageFull',
            `${hub.repo}: ${name}: the browser's storage for this page is full (${error.message})`,
            {
              repo: hub.repo,
              file: name,
            },
          );
        if (attempt < 3) continue;
        throw codedError(
          'Interrupted',
          `${hub.repo}: ${name}: the download stopped at byte ${at} (${error.message}); load again to go on`,
          { cause: error, repo: hub.repo, file: name },
        );
      }
      if (size !== undefined && at !== size) {
        if (at < size && attempt < 3) continue;
        for (let i = 0; i < part; i++) await this.#cache.delete(this.#partKey(commit, name, i));
        throw codedError(
          'Interrupted',
          `${hub.repo}: ${name}: downloaded ${at} bytes, but the Hub says it has ${size}; load again`,
          {
            repo: hub.repo,
            file: name,
          },
        );
      }
      await this.#cache.put(this.#fileKey(commit, name), new Response(JSON.stringify({ size: at, parts: part })));
      return;
    }
  }
}

let persisted = false;
async function checkSpace(hub, name, size) {
  const storage = typeof navigator !== 'undefined' ? navigator.storage : undefined;
  if (!storage?.estimate || size === undefined) return;
  if (!persisted) {
    persisted = true;
    await storage.persist?.().catch(() => false);
  }
  const { quota, usage } = await storage.estimate();
  if (Number.isFinite(quota) && Number.isFinite(usage) && quota - usage < size)
    throw codedError(
      'StorageFull',
      `${hub.repo}: ${name} is ${(size / 2 ** 20).toFixed(1)} MB, but the browser allows this page ` +
        `${((quota - usage) / 2 ** 20).toFixed(1)} MB more storage: free some (the browser's site settings) or load the files from disk`,
      { repo: hub.repo, file: name },
    );
}
