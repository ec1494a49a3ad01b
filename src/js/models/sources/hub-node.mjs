// Models by name in Node: a string or URL source that is not a folder is a
// Hugging Face Hub repo (sources/hub.mjs), kept in huggingface_hub's own
// cache folder, read and written in its layout, so that a model Python
// downloaded loads from it and one loaded here is found by Python:
//
//   {cacheDir}/models--{org}--{name}/
//     blobs/{etag}                 each file once, named by its ETag (an LFS file's sha256, else its git oid)
//     snapshots/{commit}/{file}    relative symlinks to the blobs (a copy where symlinks cannot be made)
//     refs/{revision}              the commit a branch or tag was at
//     trees/{commit}.json          the commit's file list (huggingface_hub ≥ 1.x writes and reads it)
//     .no_exist/{commit}/{file}    files known not to be in the repo at that commit (older huggingface_hub's)
//
// Settings as huggingface_hub reads them: HF_ENDPOINT, HF_HUB_CACHE (else
// HF_HOME/hub, else ~/.cache/huggingface/hub), HF_TOKEN (else the token file
// `huggingface-cli login` writes), HF_HUB_OFFLINE. A download goes to
// blobs/{etag}.incomplete (resumed with Range where an earlier one stopped),
// is checked (its size; its sha256 or git oid) and renamed into place, under
// a lock file so that two processes never write the same blob.
import { createHash } from 'node:crypto';
import { constants, createReadStream } from 'node:fs';
import {
  copyFile,
  lstat,
  mkdir,
  open,
  readFile,
  readdir,
  readlink,
  rename,
  rm,
  stat,
  symlink,
  unlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe } from '../../checks.mjs';
import { ArgumentTypeError, codedError } from '../../errors.mjs';
import { isGgufName } from '../checkpoint-files.mjs';
import { fileAt, readFolder } from './folder.mjs';
import { hubFetch, hubHeaders, openHub } from './hub.mjs';
import { COMMIT, DEFAULT_ENDPOINT, checkHubOptions, parseHubUrl, parseRepoId } from './hub-options.mjs';
import { repoFiles } from './repo-files.mjs';

/** A Hub repo's files and what loading it downloads (sources/repo-files.mjs), with Node's settings (HF_ENDPOINT, HF_TOKEN …). */
export const listModelFiles = async (name, options) => repoFiles(name, options, await hubEnvironment());

/** huggingface_hub's settings from the environment: { endpoint, cacheDir, token?, offline, offlineWhy? }. */
export async function hubEnvironment(env = process.env) {
  const home = env.HF_HOME || path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'huggingface');
  const cacheDir = env.HF_HUB_CACHE || env.HUGGINGFACE_HUB_CACHE || path.join(home, 'hub');
  let token = env.HF_TOKEN || env.HUGGING_FACE_HUB_TOKEN;
  if (!token) token = (await readFile(env.HF_TOKEN_PATH || path.join(home, 'token'), 'utf8').catch(() => '')).trim();
  const offline = /^(1|on|yes|true)$/i.test(env.HF_HUB_OFFLINE ?? '');
  return {
    endpoint: env.HF_ENDPOINT || DEFAULT_ENDPOINT,
    cacheDir,
    ...(token ? { token } : {}),
    offline,
    ...(offline ? { offlineWhy: `offline (HF_HUB_OFFLINE=${env.HF_HUB_OFFLINE})` } : {}),
  };
}

const isFolder = (p) =>
  stat(p).then(
    (s) => s.isDirectory(),
    () => false,
  );

/** A path's .gguf file as a source's one file ([{ path, file }]), or null when it is not one. */
async function ggufFileAt(p) {
  if (!isGgufName(p)) return null;
  const info = await stat(p).catch(() => null);
  return info?.isFile() ? [{ path: path.basename(p), file: fileAt(p, path.basename(p), info.size) }] : null;
}

/**
 * A string or URL source's files in Node: a folder (a path, or a file: URL)
 * when there is one; else a Hub repo id ('name', 'org/name') or a Hub
 * page's URL. `options`: loadModel's (revision, endpoint, cacheDir, token,
 * offline, signal, onProgress).
 */
export async function openNamed(source, options = {}) {
  let named;
  if (source instanceof URL) {
    if (source.protocol === 'file:')
      return (await ggufFileAt(fileURLToPath(source))) ?? readFolder(fileURLToPath(source));
    named = parseHubUrl(source);
    if (!named)
      throw new ArgumentTypeError(
        `source: expected a file: URL of a folder or a Hub model's URL (https://huggingface.co/org/name), got ${source.href}`,
      );
  } else if (await isFolder(source)) return readFolder(source);
  // A path to a .gguf file: the file alone, as a folder of one.
  else if (await ggufFileAt(source)) return ggufFileAt(source);
  else if (/^https?:\/\//i.test(source)) {
    named = parseHubUrl(source);
    if (!named)
      throw new ArgumentTypeError(
        `source: expected a Hub model's URL (https://huggingface.co/org/name, or …/tree/{revision}), got "${source}"`,
      );
  } else named = { repo: parseRepoId(source) };
  if (!named.repo)
    throw codedError(
      'InvalidArgument',
      `source: no folder ${source}, and "${source}" is not a Hugging Face model name ("name" or "org/name": ` +
        'letters, digits, "-", "_", ".")',
    );
  const env = await hubEnvironment();
  const settings = checkHubOptions(options, env, named);
  if (options.cacheDir !== undefined && (typeof options.cacheDir !== 'string' || options.cacheDir === ''))
    throw new ArgumentTypeError(`cacheDir: expected a folder path, got ${describe(options.cacheDir)}`);
  const hub = {
    ...settings,
    repo: named.repo,
    fetch: globalThis.fetch,
    signal: options.signal,
    onProgress: options.onProgress,
    file: options.file, // a GGUF file of the repo (checked by the loader's options)
  };
  const store = new NodeHubStore(options.cacheDir ?? env.cacheDir, named.repo);
  return Object.entries(await openHub(hub, store)).map(([name, file]) => ({ path: name, file }));
}

const exists = (p) =>
  lstat(p).then(
    () => true,
    () => false,
  );
const normalizeEtag = (etag) => etag?.replace(/^W\//, '').replace(/^"|"$/g, '');

/** One repo's folder of a huggingface_hub cache (the store openHub reads and fills). */
export class NodeHubStore {
  constructor(cacheDir, repo) {
    this.cacheDir = cacheDir;
    this.folderName = `models--${repo.replaceAll('/', '--')}`;
    this.root = path.join(cacheDir, this.folderName);
    this.where = this.root;
  }

  #snapshot = (commit, name = '') => path.join(this.root, 'snapshots', commit, name);

  async ref(revision) {
    const commit = (await readFile(path.join(this.root, 'refs', revision), 'utf8').catch(() => '')).trim();
    return COMMIT.test(commit) ? commit : undefined;
  }

  async state(commit, name) {
    // A snapshot's link whose blob is gone is no file.
    if (
      await stat(this.#snapshot(commit, name)).then(
        (s) => s.isFile(),
        () => false,
      )
    )
      return 'present';
    const tree = await this.#tree(commit);
    if (tree) return Object.hasOwn(tree, name) ? undefined : 'absent';
    if (await exists(path.join(this.root, '.no_exist', commit, name))) return 'absent';
    return undefined;
  }

  // The commit's file list of trees/{commit}.json (format_version 1), or null.
  #trees = new Map();
  async #tree(commit) {
    if (!this.#trees.has(commit)) {
      const text = await readFile(path.join(this.root, 'trees', `${commit}.json`), 'utf8').catch(() => null);
      let files = null;
      try {
        const json = text && JSON.parse(text);
        if (json?.format_version === 1 && json.files && typeof json.files === 'object') files = json.files;
      } catch {
        // A damaged list is no list, as huggingface_hub treats it.
      }
      this.#trees.set(commit, files);
    }
    return this.#trees.get(commit);
  }

  async names(commit) {
    const entries = await readdir(this.#snapshot(commit)).catch(() => []);
    const present = [];
    for (const name of entries) if ((await this.state(commit, name)) === 'present') present.push(name);
    return present;
  }

  async file(commit, name) {
    const file = this.#snapshot(commit, name);
    const info = await stat(file).catch(() => null);
    return info?.isFile() ? fileAt(file, name, info.size) : null;
  }

  /** What the listing says is not there, as both huggingface_hub generations record it. */
  async markAbsent(commit, names, listing) {
    const folder = path.join(this.root, '.no_exist', commit);
    await mkdir(folder, { recursive: true });
    for (const name of names) {
      await mkdir(path.dirname(path.join(folder, name)), { recursive: true }); // a module's folder (1_Pooling/)
      await writeFile(path.join(folder, name), '', { flag: 'a' });
    }
    if (await this.#tree(commit)) return;
    const files = {};
    for (const [name, f] of [...listing].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (f.size === undefined || f.blobId === undefined) return; // a list without sizes: not written
      files[name] = {
        size: f.size,
        blob_id: f.blobId,
        ...(f.sha256 ? { lfs_sha256: f.sha256, lfs_size: f.size } : {}),
      };
    }
    const file = path.join(this.root, 'trees', `${commit}.json`);
    await mkdir(path.dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    await writeFile(temporary, JSON.stringify({ format_version: 1, files }, null, 1));
    await rename(temporary, file);
    this.#trees.delete(commit);
  }

  async setRef(revision, commit) {
    const file = path.join(this.root, 'refs', revision);
    await mkdir(path.dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    await writeFile(temporary, commit);
    await rename(temporary, file);
  }

  /**
   * Downloads `name` of the repo at `commit` into the blobs and links it
   * into the snapshot, as huggingface_hub's hf_hub_download does: a HEAD of
   * /{repo}/resolve/{commit}/{name} for its ETag, size and where it is
   * (relative redirects followed, a CDN's Location kept), then a GET there.
   */
  async download(hub, commit, name, entry, onBytes, { force = false } = {}) {
    const meta = await this.#metadata(hub, commit, name);
    if (meta.commit && meta.commit !== commit)
      throw codedError(
        'HubError',
        `${hub.repo}: ${name}: the Hub answered for commit ${meta.commit}, not ${commit}; try again`,
        {
          repo: hub.repo,
          file: name,
        },
      );
    const size = meta.size ?? entry?.size;
    if (entry?.size !== undefined && meta.size !== undefined && entry.size !== meta.size)
      throw codedError(
        'HubError',
        `${hub.repo}: ${name}: the file list says ${entry.size} bytes, the file's headers ${meta.size}`,
        {
          repo: hub.repo,
          file: name,
        },
      );
    if (!/^[\w.-]+$/.test(meta.etag))
      throw codedError('HubError', `${hub.repo}: ${name}: the Hub gave no usable ETag ("${meta.etag}")`, {
        repo: hub.repo,
        file: name,
      });
    const blob = path.join(this.root, 'blobs', meta.etag);
    await mkdir(path.dirname(blob), { recursive: true });
    if (force || !(await exists(blob))) {
      const release = await this.#lock(meta.etag, hub.signal);
      try {
        // Another process may have finished it while this one waited; forced, it is fetched again from the start.
        if (force) await rm(`${blob}.incomplete`, { force: true });
        if (force || !(await exists(blob))) await this.#fetchBlob(hub, name, meta, size, blob, onBytes);
      } finally {
        await release();
      }
    }
    await this.#link(blob, this.#snapshot(commit, name));
  }

  async #metadata(hub, commit, name) {
    let url = `${hub.endpoint}/${hub.repo}/resolve/${commit}/${name.split('/').map(encodeURIComponent).join('/')}`;
    for (let hops = 0; ; hops++) {
      const response = await hubFetch(hub, url, name, {
        method: 'HEAD',
        redirect: 'manual',
        headers: { 'accept-encoding': 'identity' },
      });
      const location = response.headers.get('location');
      const redirected = response.status >= 300 && response.status < 400 && location;
      // A relative redirect is the Hub's own (a renamed repo): followed, as huggingface_hub does.
      if (redirected && location.startsWith('/') && hops < 5) {
        url = new URL(location, url).href;
        continue;
      }
      const h = response.headers;
      const etag = normalizeEtag(h.get('x-linked-etag') ?? h.get('etag'));
      const size = Number(h.get('x-linked-size') ?? h.get('content-length') ?? NaN);
      return {
        commit: h.get('x-repo-commit') ?? undefined,
        etag: etag ?? '',
        size: Number.isSafeInteger(size) ? size : undefined,
        url: redirected ? new URL(location, url).href : url,
      };
    }
  }

  // Into blobs/{etag}.incomplete, from where an earlier download stopped (Range), then
  // checked and renamed into place. A cut connection is resumed (3 times); bytes that
  // fail the check after a resume are fetched once more from the start.
  async #fetchBlob(hub, name, meta, size, blob, onBytes) {
    const partial = `${blob}.incomplete`;
    // The hash to check it against: an LFS file's ETag is its sha256, any other's its git oid.
    const kind = /^[0-9a-f]{64}$/.test(meta.etag) ? 'sha256' : /^[0-9a-f]{40}$/.test(meta.etag) ? 'git' : null;
    let restarted = false;
    for (let attempt = 0; ; attempt++) {
      let have = await stat(partial).then(
        (s) => s.size,
        () => 0,
      );
      if (size !== undefined && have > size) {
        await rm(partial, { force: true });
        have = 0;
      }
      const resumed = have > 0;
      let written = have;
      if (size === undefined || have < size) {
        const range = have > 0 ? { range: `bytes=${have}-` } : {};
        const response = await hubFetch(hub, meta.url, name, {
          headers: hubHeaders(hub, meta.url, { 'accept-encoding': 'identity', ...range }),
        });
        // A server that sends the file whole to a Range: written from the start.
        if (have > 0 && response.status !== 206) written = have = 0;
        onBytes(have);
        const handle = await open(partial, have > 0 ? 'a' : 'w');
        try {
          for await (const chunk of response.body) {
            await handle.write(chunk);
            written += chunk.byteLength;
            onBytes(written);
          }
        } catch (error) {
          if (hub.signal?.aborted) throw hub.signal.reason;
          // Cut off: resumed from where it stopped.
          if (attempt < 3) continue;
          throw codedError(
            'Interrupted',
            `${hub.repo}: ${name}: the download stopped at byte ${written} (${error.message}); load again to resume`,
            { cause: error, repo: hub.repo, file: name },
          );
        } finally {
          await handle.close();
        }
      } else onBytes(have);
      if (size !== undefined && written < size && attempt < 3) continue;
      let wrong = size !== undefined && written !== size ? `${written} bytes, but the Hub says it has ${size}` : null;
      if (!wrong && kind) {
        const got = await hashFile(partial, kind, written);
        if (got !== meta.etag)
          wrong = `bytes that do not match the Hub's ${kind === 'git' ? 'git oid' : 'sha256'} (${got}, expected ${meta.etag})`;
      }
      if (wrong) {
        await rm(partial, { force: true });
        if (resumed && !restarted) {
          restarted = true; // what an earlier download left may be what is wrong
          continue;
        }
        throw codedError('Interrupted', `${hub.repo}: ${name}: downloaded ${wrong}; it was deleted: load again`, {
          repo: hub.repo,
          file: name,
        });
      }
      await rename(partial, blob);
      return;
    }
  }

  // A lock file of this process beside huggingface_hub's (.locks/{repo}/{etag}.lock is
  // its fcntl lock, which Node cannot take): created exclusively, holding the pid, its
  // time renewed while the download runs; a lock whose process is gone (on this host)
  // or that has not been renewed for a minute (on another) is taken over.
  async #lock(etag, signal) {
    const folder = path.join(this.cacheDir, '.locks', this.folderName);
    await mkdir(folder, { recursive: true });
    const file = path.join(folder, `${etag}.mha-wasm.lock`);
    const me = `${process.pid}@${os.hostname()}`;
    for (;;) {
      signal?.throwIfAborted();
      try {
        const handle = await open(file, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY);
        await handle.write(me);
        await handle.close();
        const renew = setInterval(() => utimes(file, new Date(), new Date()).catch(() => {}), 5000);
        renew.unref?.();
        return async () => {
          clearInterval(renew);
          await unlink(file).catch(() => {});
        };
      } catch (error) {
        if (error.code !== 'EEXIST') throw error;
      }
      if (await stale(file)) await unlink(file).catch(() => {});
      else await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  async #link(blob, pointer) {
    await mkdir(path.dirname(pointer), { recursive: true });
    const target = path.relative(path.dirname(pointer), blob);
    if ((await readlink(pointer).catch(() => null)) === target) return;
    await rm(pointer, { force: true });
    try {
      await symlink(target, pointer);
    } catch {
      await copyFile(blob, pointer); // where symlinks cannot be made (Windows without developer mode), as huggingface_hub does
    }
  }
}

async function stale(file) {
  const [content, info] = await Promise.all([readFile(file, 'utf8').catch(() => ''), stat(file).catch(() => null)]);
  if (!info) return false;
  const [pid, host] = content.split('@');
  if (host === os.hostname() && /^\d+$/.test(pid)) {
    try {
      process.kill(Number(pid), 0);
      return false;
    } catch (error) {
      return error.code === 'ESRCH';
    }
  }
  return Date.now() - info.mtimeMs > 60_000;
}

async function hashFile(file, kind, size) {
  const hash = createHash(kind === 'git' ? 'sha1' : 'sha256');
  if (kind === 'git') hash.update(`blob ${size}\0`);
  for await (const chunk of createReadStream(file)) hash.update(chunk);
  return hash.digest('hex');
}
