// Models by name (engine.loadModel('org/name')): a Hugging Face Hub repo,
// spoken to as huggingface_hub speaks to it, in Node and in browsers alike.
// Here what is the same on both (a repo id and its options: hub-options.mjs):
// the repo's file list (GET /api/models/{repo}/revision/{revision}?blobs=true:
// the commit, every file with its size and LFS sha256), the files of it the
// loader reads (checkpoint-files.mjs: no TensorFlow,
// Flax, ONNX or other file is fetched), the Hub's answers made into errors
// that say what to do, retries, whether a cached branch moved (one HEAD), and
// the download's progress. Where the
// files are kept is a store's (hub-node.mjs: huggingface_hub's cache
// folder; hub-browser.mjs: the Cache API), and a store fetches each file
// from /{repo}/resolve/{commit}/{path}.
//
// Written here, not taken from @huggingface/hub (2.17): its downloads report
// no progress, do not resume, lock or check what they wrote, write no
// refs/, read no HF_ENDPOINT or HF_HUB_OFFLINE, and it brings 5 MB with a
// wasm module for a few requests; what is used of the Hub's HTTP is small
// and documented (huggingface_hub's file_download.py and hf_api.py).
import { codedError } from '../../errors.mjs';
import { COMMIT } from './hub-options.mjs';
import { POOLING_CONFIG, READ_FILES, filesToRead, poolingConfigFile, textFilesDecided } from '../checkpoint-files.mjs';
import { chooseGgufFile, OTHER_WEIGHTS, shardNames, WEIGHT_FILE_NAMES, weightChoice } from '../checkpoint-files.mjs';
import { parseJsonObject } from '../read-file.mjs';

// ---- Requests -----------------------------------------------------------------

const RETRIES = 3;
const sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

/** `init`'s headers plus the token's, for a URL of the endpoint (never another host's: a CDN's link is signed). */
export function hubHeaders(hub, url, headers = {}) {
  const out = { ...headers };
  if (hub.token && new URL(url).origin === new URL(hub.endpoint).origin) out.authorization = `Bearer ${hub.token}`;
  return out;
}

/**
 * fetch() of a Hub URL with the token, retried on a network error, 429 or a
 * 5xx answer (3 times, waiting 0.5, 1, 2 s or the Retry-After); any other
 * answer that is not 2xx or 3xx becomes the Error hubError() makes. `what`:
 * what was asked, for the messages ("the file list", "config.json").
 */
export async function hubFetch(hub, url, what, init = {}) {
  for (let attempt = 0; ; attempt++) {
    hub.signal?.throwIfAborted();
    let response;
    try {
      response = await hub.fetch(url, { ...init, headers: hubHeaders(hub, url, init.headers), signal: hub.signal });
    } catch (error) {
      if (hub.signal?.aborted) throw hub.signal.reason;
      if (attempt < RETRIES) {
        await sleep(500 << attempt, hub.signal);
        continue;
      }
      throw codedError(
        'Unreachable',
        `${hub.repo}: cannot reach ${hub.endpoint} for ${what} (${error.cause?.code ?? error.cause?.message ?? error.message}): ` +
          'check the network, set the endpoint (options.endpoint or HF_ENDPOINT) to a mirror you can reach, ' +
          'or load from the cache with offline: true',
        { cause: error, repo: hub.repo, endpoint: hub.endpoint },
      );
    }
    if (response.ok || (response.status >= 300 && response.status < 400) || response.type === 'opaqueredirect')
      return response;
    if ((response.status === 429 || response.status >= 500) && attempt < RETRIES) {
      const after = Number(response.headers.get('retry-after'));
      await response.body?.cancel();
      await sleep(Number.isFinite(after) && after > 0 ? Math.min(after, 10) * 1000 : 500 << attempt, hub.signal);
      continue;
    }
    throw await hubError(hub, response, what);
  }
}

/** The Error of a Hub answer that is not a success, saying what to do (huggingface_hub's X-Error-Code). */
async function hubError(hub, response, what) {
  const code = response.headers.get('x-error-code');
  const detail = response.headers.get('x-error-message') ?? (await response.text().catch(() => '')).slice(0, 300);
  await response.body?.cancel().catch(() => {});
  const page = `${hub.endpoint}/${hub.repo}`;
  const tokenHint = hub.token
    ? 'the token given (options.token or HF_TOKEN) has no access to it'
    : hub.tokenWithheld
      ? `no token was sent: ${hub.tokenWithheld}`
      : 'pass a token of an account that has access (options.token, or HF_TOKEN, or `huggingface-cli login`)';
  let message;
  let kind = code;
  if (code === 'GatedRepo')
    message =
      `${hub.repo} is a gated model: accept its conditions on ${page} while logged in` +
      (hub.token
        ? ', then the token given has no access yet (accept them with the account of the token)'
        : hub.tokenWithheld
          ? `; ${tokenHint}`
          : `, then ${tokenHint}`);
  else if (code === 'RepoNotFound' || (response.status === 401 && !code)) {
    kind = 'RepoNotFound';
    message =
      `${hub.repo}: no model of that name on ${hub.endpoint}, or it is private (${tokenHint}); ` +
      'a name is "org/name" as the model\'s page shows it, e.g. google-bert/bert-base-chinese';
  } else if (code === 'RevisionNotFound')
    message = `${hub.repo}: no revision "${hub.revision}" (a branch, tag or commit of ${page})`;
  else if (code === 'EntryNotFound') message = `${hub.repo}: ${what} is not in the repo at revision "${hub.revision}"`;
  else if (response.status === 403) {
    kind = 'Forbidden';
    message = `${hub.repo}: ${what} refused (HTTP 403): ${tokenHint}`;
  } else {
    kind = 'HubError';
    message = `${hub.repo}: ${what} failed: HTTP ${response.status} from ${hub.endpoint}`;
  }
  return codedError(kind, detail && !message.includes(detail) ? `${message} (the Hub says: ${detail})` : message, {
    repo: hub.repo,
    endpoint: hub.endpoint,
    ...(code === 'EntryNotFound' && what !== 'the file list' ? { file: what } : {}),
  });
}

// ---- The repo's files ---------------------------------------------------------

/**
 * The repo's file list at the revision: { commit, files: Map(name → { size, blobId, sha256? }) } of its
 * top-level files (a checkpoint's are there), and `inFolders`, those in its folders by path (1_Pooling/…).
 */
export async function listRepo(hub) {
  const url = `${hub.endpoint}/api/models/${hub.repo}/revision/${encodeURIComponent(hub.revision)}?blobs=true`;
  const response = await hubFetch(hub, url, 'the file list');
  const what = `${hub.endpoint}/api/models/${hub.repo}/revision/${hub.revision}`;
  const info = parseJsonObject(what, await response.text());
  if (typeof info.sha !== 'string' || !COMMIT.test(info.sha))
    throw codedError(
      'HubError',
      `${what}: no commit id ("sha") in the answer; is ${hub.endpoint} a Hugging Face Hub?`,
      {
        repo: hub.repo,
        endpoint: hub.endpoint,
      },
    );
  if (!Array.isArray(info.siblings))
    throw codedError('HubError', `${what}: no file list ("siblings") in the answer`, {
      repo: hub.repo,
      endpoint: hub.endpoint,
    });
  const files = new Map();
  const inFolders = new Map();
  for (const s of info.siblings) {
    if (!s || typeof s.rfilename !== 'string') continue;
    const parts = s.rfilename.split('/');
    if (parts.some((p) => p === '' || p === '.' || p === '..' || p.includes('\\'))) continue;
    const size = s.lfs?.size ?? s.size;
    (parts.length === 1 ? files : inFolders).set(s.rfilename, {
      size: Number.isSafeInteger(size) && size >= 0 ? size : undefined,
      blobId: typeof s.blobId === 'string' ? s.blobId : undefined,
      sha256: typeof s.lfs?.sha256 === 'string' ? s.lfs.sha256 : undefined,
    });
  }
  return { commit: info.sha, files, inFolders };
}

/**
 * The Pooling module's config.json a sentence-transformers checkpoint's modules.json (held by `store` at
 * `commit`) names (checkpoint-files.mjs poolingConfigFile) in a folder the loader reads (POOLING_CONFIG), or null:
 * no modules.json, none named, or a modules.json that is not JSON (the loader names that).
 */
async function poolingToRead(store, commit) {
  const file = await store.file(commit, 'modules.json');
  if (!file) return null;
  let modules;
  try {
    modules = JSON.parse(await readAll(file));
  } catch {
    return null;
  }
  const name = poolingConfigFile(modules);
  return name && POOLING_CONFIG.test(name) ? name : null;
}

// The shards an index of either format names, by the names save_pretrained gives them.
const SHARD = /^(model|pytorch_model)-\d+-of-\d+\.(safetensors|bin)$/;

/**
 * What loading a repo downloads, from its file list (listRepo's `files`):
 * { names, bytes, exact } — the files the loader reads (a sharded checkpoint's
 * shards by their names, `exact` false: the index says for sure), or null
 * when the repo has no weights the engine reads. For the page's suggestions.
 */
export function checkpointDownload(files) {
  const choice = weightChoice((name) => (files.has(name) ? 'present' : 'absent'));
  if (!choice || !files.has('config.json')) return null;
  const names = filesToRead((n) => files.has(n));
  if (choice.single) names.push(choice.single);
  else {
    const format = choice.index.startsWith('model.') ? 'model-' : 'pytorch_model-';
    names.push(choice.index, ...[...files.keys()].filter((n) => SHARD.test(n) && n.startsWith(format)));
  }
  const bytes = names.reduce((sum, n) => sum + (files.get(n).size ?? 0), 0);
  return { names, bytes, exact: Boolean(choice.single) && names.every((n) => files.get(n).size !== undefined) };
}

/** What a cache holds of a checkpoint at `commit`: the names the loader reads, when they are decided, else null. */
async function cachedCheckpoint(store, commit) {
  const states = new Map();
  for (const name of [...READ_FILES, ...WEIGHT_FILE_NAMES]) states.set(name, await store.state(commit, name));
  const state = (name) => states.get(name);
  if (!textFilesDecided(state)) return null;
  const choice = weightChoice(state);
  if (!choice) return null;
  const names = filesToRead((n) => state(n) === 'present');
  // The Pooling config.json its modules.json names: known there or known absent.
  const pooling = names.includes('modules.json') ? await poolingToRead(store, commit) : null;
  if (pooling) {
    const held = await store.state(commit, pooling);
    if (held === undefined) return null;
    if (held === 'present') names.push(pooling);
  }
  if (choice.single) return [...names, choice.single];
  const file = await store.file(commit, choice.index);
  const shards = shardNames(choice.index, parseJsonObject(choice.index, await readAll(file)));
  for (const shard of shards) if ((await store.state(commit, shard)) !== 'present') return null;
  return [...names, choice.index, ...shards];
}

const readAll = async (file) => new TextDecoder().decode(await file.read(0, file.size));

/**
 * The files of repo `hub.repo` at `hub.revision` that the loader reads, as a
 * source's { [fileName]: file } (sources/files.mjs), from `store`: when the
 * store holds them all (the revision's ref, its snapshot, what it knows is
 * absent), with no request for a commit and one HEAD for a branch or tag
 * (revisionCommit: has it moved?); else listed and the missing ones
 * downloaded (every one with forceDownload); offline, whatever the store
 * holds.
 *
 * `hub`: { repo, revision, endpoint, token, offline, forceDownload, fetch,
 * signal, onProgress }. `store`: { where, ref(revision), state(commit, name),
 * file(commit, name), names(commit), download(hub, commit, name, entry,
 * onBytes: (the file's bytes so far) => void, { force }: fetched again even
 * when held), markAbsent(commit, names, files: the listing),
 * setRef(revision, commit) }.
 */
export async function openHub(hub, store) {
  if (hub.file !== undefined) return openGgufFile(hub, store);
  const byCommit = COMMIT.test(hub.revision);
  const pinned = byCommit ? hub.revision : await store.ref(hub.revision);
  if (pinned && !hub.forceDownload) {
    const names = await cachedCheckpoint(store, pinned);
    // A commit, or offline: the cache as it is. A branch or tag online: one HEAD says whether it moved.
    if (names && (byCommit || hub.offline || (await revisionCommit(hub, pinned)) === pinned))
      return filesOf(store, pinned, names);
  }
  if (hub.offline) {
    if (!pinned)
      throw codedError(
        'Offline',
        `${hub.repo}: ${hub.offlineWhy}, and the cache (${store.where}) has no revision "${hub.revision}" of it: ` +
          `load it once online (or download it with \`huggingface-cli download ${hub.repo}\`)`,
        { repo: hub.repo },
      );
    // What the snapshot holds, as a folder: the loader names what it lacks.
    return filesOf(store, pinned, await store.names(pinned));
  }
  const { commit, files, inFolders } = await listRepo(hub);
  const state = (name) => (files.has(name) ? 'present' : 'absent');
  const choice = weightChoice(state);
  // A repo of GGUF files and no transformers checkpoint: its one .gguf, or an Error listing them (the
  // loader's rule for a folder, checkpoint-files.mjs's chooseGgufFile).
  const gguf = choice ? null : chooseGgufFile(Object.fromEntries(files), undefined, hub.repo);
  if (gguf) return openGgufFile({ ...hub, file: [...files.keys()].find((n) => files.get(n) === gguf) }, store);
  if (!choice) {
    const others = [...files.keys()].filter((n) => OTHER_WEIGHTS.test(n) || /\.safetensors$/.test(n));
    throw codedError(
      'NoWeights',
      `${hub.repo}: no model.safetensors or pytorch_model.bin at revision "${hub.revision}"` +
        `${others.length ? ` (it has ${others.join(', ')})` : ''}: the engine reads those two formats only`,
      { repo: hub.repo },
    );
  }
  if (!files.has('config.json'))
    throw codedError(
      'NoConfig',
      `${hub.repo}: no config.json at revision "${hub.revision}": not a transformers model`,
      {
        repo: hub.repo,
        file: 'config.json',
      },
    );
  const names = filesToRead((n) => files.has(n));
  const progress = downloadProgress(hub);
  const wanted = async (name) => hub.forceDownload || (await store.state(commit, name)) !== 'present';
  const fetchOne = async (name) => {
    if (await wanted(name))
      await store.download(hub, commit, name, files.get(name), progress.file(name, files.get(name).size), {
        force: hub.forceDownload,
      });
  };
  // The index first: its shards are the files to fetch.
  if (choice.index) {
    progress.plan(choice.index, files.get(choice.index).size);
    await fetchOne(choice.index);
    const index = await store.file(commit, choice.index);
    const shards = shardNames(choice.index, parseJsonObject(choice.index, await readAll(index)));
    const absent = shards.filter((n) => !files.has(n));
    if (absent.length)
      throw codedError(
        'EntryNotFound',
        `${hub.repo}: ${choice.index} lists ${absent.join(', ')}, which the repo does not have`,
        {
          repo: hub.repo,
          file: absent[0],
        },
      );
    names.push(choice.index, ...shards);
  } else names.push(choice.single);
  for (const name of names) if (await wanted(name)) progress.plan(name, files.get(name).size);
  for (const name of names) await fetchOne(name);
  // modules.json first, then the Pooling module's config.json it names (absent: the loader says so when embedding).
  const pooling = names.includes('modules.json') ? await poolingToRead(store, commit) : null;
  if (pooling && inFolders.has(pooling)) {
    const entry = inFolders.get(pooling);
    if (await wanted(pooling)) {
      progress.plan(pooling, entry.size);
      await store.download(hub, commit, pooling, entry, progress.file(pooling, entry.size), {
        force: hub.forceDownload,
      });
    }
    names.push(pooling);
  }
  const listing = new Map([...files, ...inFolders]);
  const absent = [...READ_FILES, ...WEIGHT_FILE_NAMES, ...(pooling ? [pooling] : [])].filter((n) => !listing.has(n));
  await store.markAbsent(commit, absent, listing);
  if (hub.revision !== commit) await store.setRef(hub.revision, commit);
  return filesOf(store, commit, names);
}

/**
 * GGUF file `hub.file` of the repo, as a source's { [fileName]: file }: from
 * the store when it holds it at the revision (a branch or tag online: the
 * file list says whether it moved), else downloaded. Not there: an Error
 * listing the repo's GGUF files and their sizes.
 */
async function openGgufFile(hub, store) {
  const byCommit = COMMIT.test(hub.revision);
  const pinned = byCommit ? hub.revision : await store.ref(hub.revision);
  const held = pinned && !hub.forceDownload && (await store.state(pinned, hub.file)) === 'present';
  if (held && (byCommit || hub.offline)) return filesOf(store, pinned, [hub.file]);
  if (hub.offline)
    throw codedError(
      'Offline',
      `${hub.repo}: ${hub.offlineWhy}, and the cache (${store.where}) does not hold ${hub.file} at revision "${hub.revision}"`,
      { repo: hub.repo, file: hub.file },
    );
  const { commit, files } = await listRepo(hub);
  if (!files.has(hub.file)) {
    const ggufs = [...files.keys()].filter((n) => /\.gguf$/i.test(n));
    throw codedError(
      'EntryNotFound',
      `${hub.repo}: no ${hub.file} at revision "${hub.revision}" (${
        ggufs.length
          ? `its GGUF files: ${ggufs.map((n) => `${n} (${files.get(n).size} bytes)`).join(', ')}`
          : 'it has no GGUF file'
      })`,
      { repo: hub.repo, file: hub.file },
    );
  }
  if (!(held && pinned === commit) || hub.forceDownload) {
    const progress = downloadProgress(hub);
    const entry = files.get(hub.file);
    progress.plan(hub.file, entry.size);
    await store.download(hub, commit, hub.file, entry, progress.file(hub.file, entry.size), {
      force: hub.forceDownload,
    });
  }
  if (hub.revision !== commit) await store.setRef(hub.revision, commit);
  return filesOf(store, commit, [hub.file]);
}

/**
 * The commit `hub.revision` (a branch or tag) is at now, by one HEAD of its
 * config.json (X-Repo-Commit), as huggingface_hub revalidates a cached
 * file; `cached` (the commit the cache holds) when the Hub cannot say: no
 * answer after the retries, or an answer without the header (the cache is
 * used, as huggingface_hub uses it then). A repo that is gone, gated or
 * without that revision is refused as a load would be.
 */
async function revisionCommit(hub, cached) {
  const url = `${hub.endpoint}/${hub.repo}/resolve/${encodeURIComponent(hub.revision)}/config.json`;
  try {
    const response = await hubFetch(hub, url, 'config.json', {
      method: 'HEAD',
      headers: { 'accept-encoding': 'identity' },
    });
    const commit = response.headers.get('x-repo-commit');
    return commit && COMMIT.test(commit) ? commit : cached;
  } catch (error) {
    if (['RepoNotFound', 'GatedRepo', 'RevisionNotFound', 'Forbidden'].includes(error?.code)) throw error;
    if (hub.signal?.aborted) throw error;
    return error?.code === 'EntryNotFound' ? null : cached;
  }
}

async function filesOf(store, commit, names) {
  const out = {};
  for (const name of names) {
    const file = await store.file(commit, name);
    if (file) out[name] = file;
  }
  return out;
}

/**
 * onProgress of the downloads: { phase: 'download', file, fileLoadedBytes,
 * fileTotalBytes, loadedBytes, totalBytes }, the totals over the files
 * downloaded by this load (their sizes as the file list gives them). A
 * store reports each file's bytes so far; a download that starts a file
 * again (a resume the server answered whole) never moves the bar back.
 */
function downloadProgress(hub) {
  const sizes = new Map();
  let planned = 0;
  let done = 0;
  return {
    plan(name, size) {
      if (!sizes.has(name)) planned += size ?? 0;
      sizes.set(name, size ?? 0);
    },
    file(name, size) {
      let got = 0;
      return (bytesSoFar) => {
        if (bytesSoFar <= got) return;
        done += bytesSoFar - got;
        got = bytesSoFar;
        hub.onProgress?.({
          phase: 'download',
          file: name,
          fileLoadedBytes: got,
          fileTotalBytes: size,
          loadedBytes: done,
          totalBytes: Math.max(planned, done),
        });
      };
    },
  };
}
