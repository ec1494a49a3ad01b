// Models by name (engine.loadModel('org/name')): a Hugging Face Hub repo,
// spoken to as huggingface_hub speaks to it, in Node and in browsers alike.
// Here what is the same on both: a repo id and its options checked, the
// repo's file list (GET /api/models/{repo}/revision/{revision}?blobs=true:
// the commit, every file with its size and LFS sha256), the files of it the
// loader reads (checkpoint-files.mjs, formats/weights.mjs: no TensorFlow,
// Flax, ONNX or other file is fetched), the Hub's answers made into errors
// that say what to do, retries, and the download's progress. Where the
// files are kept is a store's (hub-node.mjs: huggingface_hub's cache
// folder; hub-browser.mjs: the Cache API), and a store fetches each file
// from /{repo}/resolve/{commit}/{path}.
//
// Written here, not taken from @huggingface/hub (2.17): its downloads report
// no progress, do not resume, lock or check what they wrote, write no
// refs/, read no HF_ENDPOINT or HF_HUB_OFFLINE, and it brings 5 MB with a
// wasm module for a few requests; what is used of the Hub's HTTP is small
// and documented (huggingface_hub's file_download.py and hf_api.py).
import { describe } from '../../checks.mjs';
import { ArgumentRangeError, ArgumentTypeError, codedError } from '../../errors.mjs';
import { READ_FILES, filesToRead, textFilesDecided } from '../checkpoint-files.mjs';
import { WEIGHT_FILE_NAMES, OTHER_WEIGHTS, shardNames, weightChoice } from '../formats/weights.mjs';
import { parseJsonObject } from './files.mjs';

export const DEFAULT_ENDPOINT = 'https://huggingface.co';
/** A full commit id: the revision a snapshot is stored under. */
export const COMMIT = /^[0-9a-f]{40}$/;
// huggingface_hub's validate_repo_id: "name" or "namespace/name", letters,
// digits, "-", "_" and ".", 96 characters at most, no "--" or "..", not
// starting or ending with "-" or ".".
const REPO_ID = /^(?:[\w.-]+\/)?[\w.-]+$/;

/** The repo id `s` names, or null when it is not one (a folder path, a typo with a space). */
export function parseRepoId(s) {
  if (typeof s !== 'string' || s.length > 96 || !REPO_ID.test(s)) return null;
  if (s.includes('--') || s.includes('..') || s.endsWith('.git') || /(^|\/)[-.]|[-.](\/|$)/.test(s)) return null;
  return s;
}

/**
 * The repo a Hub page's URL names (https://huggingface.co/org/name, with
 * /tree/{revision} or not): { repo, origin, revision? }, or null. `url`: a
 * URL, or a string that is an http(s) URL.
 */
export function parseHubUrl(url) {
  if (typeof url === 'string') {
    if (!/^https?:\/\//i.test(url)) return null;
    try {
      url = new URL(url);
    } catch {
      return null;
    }
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  const tree = parts.indexOf('tree');
  const name = (tree >= 0 ? parts.slice(0, tree) : parts).join('/');
  const repo = parseRepoId(name);
  if (!repo) return null;
  const revision = tree >= 0 ? parts.slice(tree + 1).join('/') : undefined;
  return { repo, origin: url.origin, ...(revision ? { revision } : {}) };
}

// Where a token may go: 127.0.0.0/8, localhost and [::1] over plain http, any other host over https only.
const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/**
 * Hub options (of loadModel's options) checked: { revision, endpoint, token,
 * tokenWithheld, offline }. `defaults`: the environment's (endpoint, token,
 * offline …). `named`: the source's { repo, origin?, revision? }: a Hub URL's
 * origin is where the files are asked for.
 *
 * The token (options.token, else the environment's) goes to the configured
 * endpoint (options.endpoint, else the environment's) and nowhere else: not
 * to a source URL's origin that is not the endpoint's, and not over plain http
 * unless the endpoint is loopback. Where it may not go, the load goes on
 * without it (a public model loads; a gated or private one is refused), and
 * `tokenWithheld` says why for the messages.
 */
export function checkHubOptions(options, defaults, named = {}) {
  const out = { revision: named.revision ?? 'main', ...defaults };
  for (const name of ['revision', 'endpoint', 'token']) {
    const value = options[name];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value === '')
      throw new ArgumentTypeError(`${name}: expected a non-empty string, got ${describe(value)}`);
    out[name] = value;
  }
  if (options.offline !== undefined) {
    if (typeof options.offline !== 'boolean')
      throw new ArgumentTypeError(`offline: expected true or false, got ${describe(options.offline)}`);
    out.offline = options.offline;
    out.offlineWhy = 'offline: true';
  }
  if (/(^|\/)\.\.?(\/|$)|^\/|\/$|[\\\0]/.test(out.revision))
    throw new ArgumentRangeError(`revision: expected a branch, tag or commit of the repo, got "${out.revision}"`);
  let endpoint;
  try {
    endpoint = new URL(out.endpoint);
  } catch {
    endpoint = null;
  }
  if (
    !endpoint ||
    (endpoint.protocol !== 'https:' && endpoint.protocol !== 'http:') ||
    endpoint.search ||
    endpoint.hash
  )
    throw new ArgumentRangeError(
      `endpoint: expected an http(s) URL such as ${DEFAULT_ENDPOINT}, got "${out.endpoint}"`,
    );
  out.endpoint = endpoint.href.replace(/\/+$/, '');
  if (out.token !== undefined && /[\s\0]/.test(out.token))
    throw new ArgumentRangeError(
      'token: expected a Hugging Face access token (hf_…), got a string with spaces or line breaks',
    );
  if (named.origin && named.origin !== endpoint.origin) {
    // The files come from the URL's origin; the token stays with the endpoint.
    out.endpoint = named.origin;
    if (out.token)
      out.tokenWithheld =
        `the token is sent to the endpoint (${endpoint.origin}) only, and the URL names ${named.origin}; ` +
        `to send it there, set options.endpoint to ${named.origin}`;
  } else if (out.token && endpoint.protocol === 'http:' && !LOOPBACK.test(endpoint.hostname))
    out.tokenWithheld = `the token is never sent over plain http (${endpoint.origin}): use an https endpoint`;
  if (out.tokenWithheld) delete out.token;
  return out;
}

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
 * The repo's file list at the revision: { commit, files: Map(name → { size,
 * blobId, sha256? }) } of its top-level files (a checkpoint's are there).
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
  for (const s of info.siblings) {
    if (!s || typeof s.rfilename !== 'string' || s.rfilename.includes('/')) continue;
    const size = s.lfs?.size ?? s.size;
    files.set(s.rfilename, {
      size: Number.isSafeInteger(size) && size >= 0 ? size : undefined,
      blobId: typeof s.blobId === 'string' ? s.blobId : undefined,
      sha256: typeof s.lfs?.sha256 === 'string' ? s.lfs.sha256 : undefined,
    });
  }
  return { commit: info.sha, files };
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
  if (choice.single) return [...names, choice.single];
  const file = await store.file(commit, choice.index);
  const shards = shardNames(choice.index, parseJsonObject(choice.index, await readAll(file)));
  for (const shard of shards) if ((await store.state(commit, shard)) !== 'present') return null;
  return [...names, choice.index, ...shards];
}

const readAll = async (file) => new TextDecoder().decode(await file.read(0, file.size));

/**
 * The files of repo `hub.repo` at `hub.revision` that the loader reads, as a
 * source's { [fileName]: file } (sources/files.mjs), from `store`: without
 * a request when the store holds them all (the revision's ref, its
 * snapshot, what it knows is absent), else listed and the missing ones
 * downloaded; offline, whatever the store holds.
 *
 * `hub`: { repo, revision, endpoint, token, offline, fetch, signal,
 * onProgress }. `store`: { where, ref(revision), state(commit, name),
 * file(commit, name), names(commit), download(hub, commit, name, entry,
 * onBytes: (the file's bytes so far) => void), markAbsent(commit, names,
 * files: the listing), setRef(revision, commit) }.
 */
export async function openHub(hub, store) {
  const pinned = COMMIT.test(hub.revision) ? hub.revision : await store.ref(hub.revision);
  if (pinned) {
    const names = await cachedCheckpoint(store, pinned);
    if (names) return filesOf(store, pinned, names);
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
  const { commit, files } = await listRepo(hub);
  const state = (name) => (files.has(name) ? 'present' : 'absent');
  const choice = weightChoice(state);
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
  const fetchOne = async (name) => {
    if ((await store.state(commit, name)) !== 'present')
      await store.download(hub, commit, name, files.get(name), progress.file(name, files.get(name).size));
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
  for (const name of names)
    if ((await store.state(commit, name)) !== 'present') progress.plan(name, files.get(name).size);
  for (const name of names) await fetchOne(name);
  await store.markAbsent(
    commit,
    [...READ_FILES, ...WEIGHT_FILE_NAMES].filter((n) => !files.has(n)),
    files,
  );
  if (hub.revision !== commit) await store.setRef(hub.revision, commit);
  return filesOf(store, commit, names);
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
