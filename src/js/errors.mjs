// The library's errors carry a stable `code`, so that a program (and the
// page, in its two languages) tells them apart without reading the English:
// error.code, and where the error is about one, error.file, error.field,
// error.repo, error.endpoint, error.value. The codes are listed here, typed
// in types/errors.d.ts (ErrorCode, exported by index.d.ts) and documented in docs/api-errors.md; a code set at the
// throw keeps its place when the error crosses the engine's worker
// (describeError / rebuildError).

/** Every code an error of the library may carry. */
export const ERROR_CODES = Object.freeze([
  // The Hub.
  'RepoNotFound', // no such repo, or private without a token that reaches it (repo, endpoint)
  'GatedRepo', // its conditions are not accepted by the token's account, or no token (repo)
  'RevisionNotFound', // no such branch, tag or commit (repo)
  'EntryNotFound', // a file the repo or its index names is not there (repo, file)
  'Forbidden', // HTTP 403 (repo)
  'HubError', // any other answer that is not a success (repo, endpoint)
  'Unreachable', // no answer at all, after the retries (repo, endpoint)
  'Offline', // offline, and the cache does not hold the revision (repo)
  'Interrupted', // a download stopped, or its bytes were not the Hub's, after the retries (repo, file)
  'StorageFull', // the browser's storage for the page is full (repo)
  // A checkpoint's files.
  'NoConfig', // no config.json
  'UnsupportedModel', // config.json's model_type is none the engine runs (file, field, value)
  'BadConfig', // config.json holds a setting the engine refuses (file)
  'NoWeights', // no weights in a format the engine reads
  'BadCheckpoint', // a file cannot be read: cut short, damaged, not this config's (file)
  'BadTokenizer', // a tokenizer file is refused (file)
  'NoChatTemplate', // a chat needs a template the checkpoint does not have (file)
  'NoTaskHead', // a task call (classify, classifyTokens, answer) needs a head the checkpoint does not have
  'TooLarge', // past the engine's memory or a limit
  // Calls.
  'InvalidArgument', // a TypeError or RangeError: an argument, option or input the call refuses
  'Disposed', // the engine or model was disposed
  'WorkerFailed', // the engine's worker stopped
  'Unsupported', // the platform lacks what the call needs (a Cache API, threads, relaxed SIMD)
]);

const FIELDS = ['file', 'field', 'repo', 'endpoint', 'value'];

/** `error` with its `code` and the fields given ({ file, repo, … }); returned, for `throw coded(…)`. */
export function coded(error, code, fields = {}) {
  error.code = code;
  for (const name of FIELDS) if (fields[name] !== undefined) error[name] = fields[name];
  return error;
}

/** An Error with `message`, `code` and fields (`fields.cause` as the cause). */
export const codedError = (code, message, fields = {}) =>
  coded(new Error(message, fields.cause ? { cause: fields.cause } : undefined), code, fields);

/** An Error about file `file` (error.file), its code left to the step that read the file (codeIfNone). */
export const fileError = (file, message, options) => Object.assign(new Error(message, options), { file });

/**
 * `error` given `code`, and the `fields` it does not have, unless it has a
 * code already (or, with `recode`, its code is 'InvalidArgument': a file's
 * content the engine refused as an argument): what a step of a load says of
 * the errors it did not name itself. A signal's reason (an AbortError, the
 * caller's own object) is left as it is.
 */
export function codeIfNone(error, code, fields = {}, recode = false) {
  if (!(error instanceof Error) || error.name === 'AbortError') return error;
  if (error.code !== undefined && !(recode && error.code === 'InvalidArgument')) return error;
  const missing = Object.fromEntries(Object.entries(fields).filter(([name]) => error[name] === undefined));
  return coded(error, code, missing);
}

/** An error as it crosses a worker's messages: { name, message, code?, file?, … }. */
export function describeError(error) {
  const out = { name: error?.name ?? 'Error', message: String(error?.message ?? error) };
  if (error && typeof error === 'object')
    for (const name of ['code', ...FIELDS]) if (typeof error[name] === 'string') out[name] = error[name];
  return out;
}

/** The Error a worker described (describeError): a TypeError or RangeError as such, any other as an Error. */
export function rebuildError(described) {
  const Type = { TypeError: ArgumentTypeError, RangeError: ArgumentRangeError }[described.name] ?? Error;
  const error = new Type(described.message);
  if (described.code) coded(error, described.code, described);
  return error;
}

// A TypeError or RangeError of an argument, option or input the call
// refuses: code 'InvalidArgument'. Named as the classes they extend
// (error.name and error.constructor.name 'TypeError', 'RangeError'): what a
// caller sees is a TypeError with a code.
export class ArgumentTypeError extends TypeError {
  code = 'InvalidArgument';
}
export class ArgumentRangeError extends RangeError {
  code = 'InvalidArgument';
}
Object.defineProperty(ArgumentTypeError, 'name', { value: 'TypeError' });
Object.defineProperty(ArgumentRangeError, 'name', { value: 'RangeError' });
