// What went wrong when the real-model view could not load a model, in the
// reader's language: the engine's errors are English sentences written for a
// developer (src/js/models/, src/model/config.cpp, the Hub's answers in
// src/js/models/sources/hub.mjs), so the view says which kind of problem it
// is, in words of the page's catalogue (real.loadError.<kind>), and keeps the
// engine's own text as a detail. The kinds are recognized from those
// sentences: tests/web/load-errors.test.mjs makes each of them with the
// package itself (and the test Hub), so a reworded message fails there
// rather than falling back unnoticed. Pure: no DOM.

/** A file of a checkpoint, as the engine's messages name it first. */
const FILE = String.raw`[\w.-]+\.(?:json|safetensors|bin|txt|spm|model)`;
/** A Hub source's messages start with the repo ("org/name: …"). */
const REPO = String.raw`(?:[\w.-]+\/)?[\w.-]+`;

/**
 * The kinds, most specific first: each { kind, pattern, params(match) }; the
 * first whose pattern matches the message is the error's kind.
 */
const KINDS = [
  {
    kind: 'noConfig',
    pattern: /^no config\.json in the folder\b|: no config\.json at revision /,
    params: () => ({ file: 'config.json' }),
  },
  {
    kind: 'noModelType',
    pattern: /^config\.json: model_type undefined is not supported;/,
    params: () => ({ file: 'config.json', field: 'model_type' }),
  },
  {
    kind: 'modelType',
    pattern: /^config\.json: model_type (.+?) is not supported;/,
    params: (m) => ({ file: 'config.json', field: 'model_type', type: m[1] }),
  },
  {
    kind: 'noWeights',
    pattern: /\bno model\.safetensors or pytorch_model\.bin\b/,
    params: () => ({ single: 'model.safetensors', other: 'pytorch_model.bin' }),
  },
  {
    kind: 'notFound',
    pattern: new RegExp(String.raw`^(${REPO}): no model of that name on (\S+?),`),
    params: (m) => ({ repo: m[1], endpoint: m[2] }),
  },
  {
    kind: 'gated',
    pattern: new RegExp(String.raw`^(${REPO}) is a gated model:`),
    params: (m) => ({ repo: m[1] }),
  },
  {
    kind: 'refused',
    pattern: new RegExp(String.raw`^(${REPO}): .*? refused \(HTTP 403\)`),
    params: (m) => ({ repo: m[1] }),
  },
  {
    kind: 'unreachable',
    pattern: new RegExp(String.raw`^${REPO}: cannot reach (\S+) for `),
    params: (m) => ({ endpoint: m[1] }),
  },
  {
    kind: 'interrupted',
    pattern: new RegExp(
      String.raw`^${REPO}: (${FILE}): (?:the download stopped at byte|downloaded \d+ bytes, but the Hub says)`,
    ),
    params: (m) => ({ file: m[1] }),
  },
  {
    kind: 'storage',
    pattern: /the browser's storage for this page is full|the browser allows this page [\d.]+ MB more storage/,
  },
  { kind: 'hub', pattern: new RegExp(String.raw`^${REPO}: .*? failed: HTTP \d+ from `) },
  // config.json that is not JSON is a damaged file; any other config.json message names a setting.
  {
    kind: 'badFile',
    pattern: /^(config\.json): (?:not valid JSON|expected a JSON object)/,
    params: (m) => ({ file: m[1] }),
  },
  { kind: 'config', pattern: /^config\.json: /, params: () => ({ file: 'config.json' }) },
  // A file the engine could not read (cut short, damaged, not this config's): its messages start with its name.
  {
    kind: 'badFile',
    pattern: new RegExp(String.raw`^(?:${REPO}: )?(${FILE})(?:, ${FILE})*(?::| lists )`),
    params: (m) => ({ file: m[1] }),
  },
];

/** Every kind the view may write (real.loadError.<kind> in both catalogues). */
export const LOAD_ERROR_KINDS = Object.freeze([...new Set(['noFiles', ...KINDS.map((k) => k.kind), 'other'])]);

/**
 * The kind of a loading error and the parameters of its message (the names
 * of files, fields, repos and Hubs it is about: the view keeps them from
 * translation):
 * { kind, params, detail } — detail is the engine's own text ("Error: …"),
 * which the view keeps beside the translation. A cancelled load (the
 * reader's AbortError) is { kind: 'cancelled' }: not an error to show.
 */
export function loadErrorReason(error) {
  if (error?.name === 'AbortError') return { kind: 'cancelled', params: {}, detail: '' };
  const message = error instanceof Error ? error.message : String(error);
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : message;
  for (const { kind, pattern, params } of KINDS) {
    const match = pattern.exec(message);
    if (match) return { kind, params: params ? params(match) : {}, detail };
  }
  return { kind: 'other', params: {}, detail };
}
