// A Hub repo's files before loading it (listModelFiles of 'mha-wasm/model'
// and of Node's entry): its commit, every top-level file with its size, and
// what loadModel would download of them — for a page that shows a model's
// size before the reader downloads it, or a program that picks a file. One
// request (the file list), with the same options, token rules and errors as
// loadModel's (sources/hub.mjs).
import { describe, rejectUnknown } from '../../checks.mjs';
import { ArgumentTypeError } from '../../errors.mjs';
import { checkpointDownload, listRepo } from './hub.mjs';
import { checkHubOptions, parseHubUrl, parseRepoId } from './hub-options.mjs';

/**
 * The repo a name or Hub URL names: { repo, revision? } ('org/name',
 * 'https://huggingface.co/org/name/tree/v1', a URL), or null.
 */
export function parseModelName(name) {
  if (name instanceof URL || (typeof name === 'string' && /^https?:\/\//i.test(name))) {
    const named = parseHubUrl(name);
    return named && { repo: named.repo, ...(named.revision ? { revision: named.revision } : {}) };
  }
  const repo = parseRepoId(name);
  return repo && { repo };
}

/**
 * { repo, revision, commit, endpoint, files: [{ name, size }], download: { names,
 * bytes, exact } | null } of the repo `name` names. `defaults`: the
 * platform's settings (Node's environment: HF_ENDPOINT, HF_TOKEN …).
 */
export async function repoFiles(name, options = {}, defaults = {}) {
  if (options === null || typeof options !== 'object')
    throw new ArgumentTypeError(`listModelFiles options: expected an object, got ${describe(options)}`);
  rejectUnknown(options, new Set(['revision', 'endpoint', 'token', 'signal']), 'listModelFiles');
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal))
    throw new ArgumentTypeError(`signal: expected an AbortSignal, got ${describe(options.signal)}`);
  const isUrl = name instanceof URL || (typeof name === 'string' && /^https?:\/\//i.test(name));
  const named = isUrl ? parseHubUrl(name) : { repo: parseRepoId(name) };
  if (!named?.repo)
    throw new ArgumentTypeError(
      `name: expected a Hugging Face model name ("org/name") or a Hub model's URL, got ${describe(
        name instanceof URL ? name.href : name,
      )}`,
    );
  const settings = checkHubOptions(options, defaults, named);
  const hub = { ...settings, repo: named.repo, fetch: globalThis.fetch.bind(globalThis), signal: options.signal };
  const { commit, files } = await listRepo(hub);
  return {
    repo: named.repo,
    revision: settings.revision,
    commit,
    endpoint: settings.endpoint,
    files: [...files].map(([file, entry]) => ({ name: file, size: entry.size })),
    download: checkpointDownload(files),
  };
}
