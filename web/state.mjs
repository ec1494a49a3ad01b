// All UI state in one object that round-trips to the URL (as exBERT does), so
// a link reproduces the view. Parsing never throws: anything missing or
// invalid takes its default, and readLink() also says which parameters of a
// link could not be used. Pure: works on URLSearchParams strings.
import { DEFAULT_SHARPNESS, MAX_SHARPNESS } from './model/designed-heads.mjs';
import { DEFAULT_FREE, MAX_HEADS, D_MODEL_CHOICES, MAX_TEXT, MAX_SEED, fitHeads } from './model/free-mode.mjs';
import { DEFAULT_OPTIONS as TRAIN_DEFAULTS, STEP_CHOICES, MAX_SEEDS } from './model/train-options.mjs';
import { ORDERS as REAL_ORDERS } from './model/real-model-scores.mjs';
import { LANGUAGES } from './lib/i18n.mjs';

export const MODES = Object.freeze(['encoder', 'decoder', 'cross', 'free']);
export const LAYOUTS = Object.freeze(['columns', 'rows']);
export const STAGES = Object.freeze('x q k v scores masked weights head concat wo output'.split(' '));

export const DEFAULTS = Object.freeze({
  /** The page's language; '' = the browser's (lib/i18n.mjs preferredLanguage). */
  lang: '',
  mode: 'encoder',
  sharpness: DEFAULT_SHARPNESS,
  /** The current head (heatmap export, pipeline); '' = the run's first head. */
  head: '',
  /** Heads drawn in the head view; null = every head but the single one. */
  lines: null,
  /** The token whose lines the head view keeps: { side: 'query' | 'key', index } or null. */
  lock: null,
  layout: 'columns',
  overlay: true,
  stage: 'weights',
  /** The neuron view's query and key, { q, k }; null = the spec's focus query and its top key. */
  pair: null,
  text: DEFAULT_FREE.text,
  dModel: DEFAULT_FREE.dModel,
  numHeads: DEFAULT_FREE.numHeads,
  seed: DEFAULT_FREE.seed,
  causal: DEFAULT_FREE.causal,
  /** The "Train it yourself" experiment's options (a link sets them; it does not start training). */
  train: TRAIN_DEFAULTS,
  /** The real-model view's chosen head, { layer, head }; null = the head that scores highest on "same token". */
  realHead: null,
  /** The real-model view's order of thumbnails: 'grid' (layer × head) or a score (model/real-model-scores.mjs). */
  realOrder: 'grid',
});

// URL parameter ↔ state field, with a parser (string → value or undefined) and a formatter.
const integer = (min, max) => (s) => (/^\d+$/.test(s) && Number(s) >= min && Number(s) <= max ? Number(s) : undefined);
const oneOf = (values) => (s) => (values.includes(s) ? s : undefined);
const bit = (s) => (s === '1' ? true : s === '0' ? false : undefined);
const FIELDS = [
  ['lang', 'lang', oneOf(LANGUAGES), String],
  ['mode', 'mode', oneOf(MODES), String],
  [
    'sharpness',
    'sharpness',
    (s) => (/^\d+(\.\d+)?$/.test(s) && Number(s) <= MAX_SHARPNESS ? Number(s) : undefined),
    String,
  ],
  ['head', 'head', (s) => (/^[a-z0-9-]{1,24}$/.test(s) ? s : undefined), String],
  ['lines', 'lines', (s) => (/^[a-z0-9,-]{0,200}$/.test(s) ? (s ? s.split(',') : []) : undefined), (v) => v.join(',')],
  [
    'lock',
    'lock',
    (s) => (/^[qk]\d{1,3}$/.test(s) ? { side: s[0] === 'q' ? 'query' : 'key', index: Number(s.slice(1)) } : undefined),
    (v) => `${v.side[0]}${v.index}`,
  ],
  ['layout', 'layout', oneOf(LAYOUTS), String],
  ['overlay', 'overlay', bit, (v) => (v ? '1' : '0')],
  ['stage', 'stage', oneOf(STAGES), String],
  [
    'pair',
    'pair',
    (s) =>
      /^q\d{1,3}k\d{1,3}$/.test(s) ? { q: Number(s.slice(1, s.indexOf('k'))), k: Number(s.split('k')[1]) } : undefined,
    (v) => `q${v.q}k${v.k}`,
  ],
  ['text', 'text', (s) => (s.length <= MAX_TEXT ? s : undefined), String],
  ['dmodel', 'dModel', (s) => D_MODEL_CHOICES.find((d) => String(d) === s), String],
  ['heads', 'numHeads', integer(1, MAX_HEADS), String],
  ['seed', 'seed', integer(0, MAX_SEED), String],
  ['causal', 'causal', bit, (v) => (v ? '1' : '0')],
  // seeds × steps, then the optional settings: "5x3000", "3x1500-4-mlp".
  ['train', 'train', parseTrain, (v) => `${v.seeds}x${v.steps}${v.fourHeads ? '-4' : ''}${v.mlp ? '-mlp' : ''}`],
  // The real model's head, "l3h11": it applies once a model is loaded (a link cannot carry the model itself).
  [
    'rhead',
    'realHead',
    (s) =>
      /^l\d{1,2}h\d{1,2}$/.test(s)
        ? { layer: Number(s.slice(1, s.indexOf('h'))), head: Number(s.split('h')[1]) }
        : undefined,
    (v) => `l${v.layer}h${v.head}`,
  ],
  ['rorder', 'realOrder', oneOf(REAL_ORDERS), String],
];

function parseTrain(s) {
  const m = /^(\d{1,2})x(\d{1,5})(-4)?(-mlp)?$/.exec(s);
  if (!m) return undefined;
  const seeds = Number(m[1]),
    steps = Number(m[2]);
  if (seeds < 1 || seeds > MAX_SEEDS || !STEP_CHOICES.includes(steps)) return undefined;
  return { seeds, steps, fourHeads: !!m[3], mlp: !!m[4] };
}

/**
 * The state a URL query string describes, and what in it could not be used:
 * problems lists { param, value } for every invalid value and unknown
 * parameter, and { param: 'heads', heads, dModel, used } when the head count
 * does not divide d_model (the largest one that does, below it, is used).
 */
export function readLink(search) {
  const params = new URLSearchParams(search);
  const state = { ...DEFAULTS };
  const problems = [];
  const known = new Set(FIELDS.map(([param]) => param));
  for (const [param, value] of params) if (!known.has(param)) problems.push({ param, value });
  for (const [param, field, parse] of FIELDS) {
    const text = params.get(param);
    if (text === null) continue;
    const value = parse(text);
    if (value !== undefined) state[field] = value;
    else problems.push({ param, value: text });
  }
  if (state.dModel % state.numHeads !== 0) {
    const used = fitHeads(state.dModel, state.numHeads);
    problems.push({ param: 'heads', heads: state.numHeads, dModel: state.dModel, used });
    state.numHeads = used;
  }
  return { state, problems };
}

/** The state a URL query string describes (readLink without the problems). */
export const parseState = (search) => readLink(search).state;

/** The query string of a state: only fields that differ from the defaults, in a fixed order. */
export function formatState(state) {
  const params = new URLSearchParams();
  for (const [param, field, , format] of FIELDS) {
    const value = state[field];
    if (value === null || value === undefined || JSON.stringify(value) === JSON.stringify(DEFAULTS[field])) continue;
    params.set(param, format(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}
