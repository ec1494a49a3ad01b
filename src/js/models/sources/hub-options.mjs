// A Hub source's names and options (sources/hub.mjs, hub-node.mjs,
// hub-browser.mjs, repo-files.mjs): a repo id and a Hub page's URL read as
// huggingface_hub reads them, loadModel's Hub options checked, and the one
// rule of where a token may go (checkHubOptions).
import { describe } from '../../checks.mjs';
import { ArgumentRangeError, ArgumentTypeError } from '../../errors.mjs';

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
  if (options.forceDownload !== undefined && typeof options.forceDownload !== 'boolean')
    throw new ArgumentTypeError(`forceDownload: expected true or false, got ${describe(options.forceDownload)}`);
  out.forceDownload = options.forceDownload === true;
  if (out.forceDownload && out.offline)
    throw new ArgumentRangeError(`forceDownload: downloads again, which ${out.offlineWhy} forbids`);
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
