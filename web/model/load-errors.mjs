// What went wrong when the real-model view could not load a model, in the
// reader's language: the package's errors carry a stable code and the names
// they are about (error.code, error.file, error.field, error.value,
// error.repo, error.endpoint: src/js/errors.mjs), so the view says which
// kind of problem it is in words of the page's catalogue
// (real.loadError.<kind>) and keeps the engine's own English text as a
// detail. No message is read: tests/web/load-errors.test.mjs makes each
// kind with the package itself (and the test Hub). Pure: no DOM.

/** Each code's kind and the parameters of its message, from the error's fields. */
const BY_CODE = {
  NoConfig: () => ({ kind: 'noConfig', params: { file: 'config.json' } }),
  UnsupportedModel: (e) =>
    e.value === 'undefined'
      ? { kind: 'noModelType', params: { file: e.file, field: e.field } }
      : { kind: 'modelType', params: { file: e.file, field: e.field, type: e.value } },
  BadConfig: (e) => ({ kind: 'config', params: { file: e.file ?? 'config.json' } }),
  NoWeights: () => ({ kind: 'noWeights', params: { single: 'model.safetensors', other: 'pytorch_model.bin' } }),
  BadCheckpoint: (e) => (e.file ? { kind: 'badFile', params: { file: e.file } } : null),
  BadTokenizer: (e) => (e.file ? { kind: 'badFile', params: { file: e.file } } : null),
  EntryNotFound: (e) => (e.file ? { kind: 'badFile', params: { file: e.file } } : null),
  RepoNotFound: (e) => ({ kind: 'notFound', params: { repo: e.repo, endpoint: e.endpoint } }),
  GatedRepo: (e) => ({ kind: 'gated', params: { repo: e.repo } }),
  Forbidden: (e) => ({ kind: 'refused', params: { repo: e.repo } }),
  Unreachable: (e) => ({ kind: 'unreachable', params: { endpoint: e.endpoint } }),
  Interrupted: (e) => ({ kind: 'interrupted', params: { file: e.file } }),
  StorageFull: () => ({ kind: 'storage', params: {} }),
  HubError: () => ({ kind: 'hub', params: {} }),
};

/** Every kind the view may write (real.loadError.<kind> in both catalogues). */
export const LOAD_ERROR_KINDS = Object.freeze([
  'noFiles',
  'noConfig',
  'noModelType',
  'modelType',
  'config',
  'noWeights',
  'badFile',
  'notFound',
  'gated',
  'refused',
  'unreachable',
  'interrupted',
  'storage',
  'hub',
  'other',
]);

/**
 * The kind of a loading error and the parameters of its message (the names
 * of files, fields, repos and Hubs it is about: the view keeps them from
 * translation): { kind, params, detail } — detail is the engine's own text
 * ("Error: …"), which the view keeps beside the translation. A cancelled
 * load (the reader's AbortError) is { kind: 'cancelled' }: not an error to
 * show. An error without a code, or whose code names no file where its kind
 * needs one, is 'other'.
 */
export function loadErrorReason(error) {
  if (error?.name === 'AbortError') return { kind: 'cancelled', params: {}, detail: '' };
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const reason = (error instanceof Error && Object.hasOwn(BY_CODE, error.code) && BY_CODE[error.code](error)) || {
    kind: 'other',
    params: {},
  };
  return { ...reason, detail };
}
