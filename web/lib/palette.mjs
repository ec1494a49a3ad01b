// Every colour of the page, in one place. style.css reads the UI colours as
// custom properties (--ink, --muted, …), which theme.mjs sets on :root from
// this module; the SVG views set them as attributes, so that an exported SVG
// looks the same on its own. Pure: no DOM.
//
// Head hues are Okabe & Ito's palette (2008), designed to stay distinguishable
// under the common colour-vision deficiencies; the weight itself is encoded by
// lightness (scales.mjs), which every reader sees, so the hue only names the head.

/** The page's UI colours; each is also the CSS custom property of its name in kebab case (inkSoft → --ink-soft). */
export const UI = Object.freeze({
  ink: '#1b1b1f',
  /** Body text that is a step quieter than ink: explanations, captions, readouts. */
  inkSoft: '#33333b',
  muted: '#5b5b66',
  /** Column labels of the pipeline's matrices. */
  axisLabel: '#3b3b44',
  line: '#d9d9e0',
  paper: '#ffffff',
  panel: '#f5f5f8',
  accent: '#0b5cad',
  /** Pressed and hovered things: a pale and a stronger wash of the accent. */
  accentWash: '#e7f0fb',
  accentWashStrong: '#cfe1f7',
  focus: '#1f6feb',
  error: '#a4161a',
  ok: '#1a7f37',
  controlBorder: '#a9a9b4',
  controlHover: '#e9e9ef',
  tableRule: '#ececf1',
  /** The comparison's rows where the single head looks where no head does. */
  highlight: '#fff4d6',
  /** The grammar's roles, as pale washes of their head hues (blue, vermillion, green). */
  roleNoun: '#e3eefa',
  roleVerb: '#fbe6da',
  roleModifier: '#dcf2ea',
  /** Masked cells: a hatch of lines on a pale ground. */
  hatchGround: '#f2f2f2',
  hatchLine: '#b8b8c0',
  legendOutline: '#c8c8d0',
});

export const OKABE_ITO = Object.freeze({
  blue: '#0072B2',
  vermillion: '#D55E00',
  green: '#009E73',
  purple: '#CC79A7',
  orange: '#E69F00',
  sky: '#56B4E9',
  yellow: '#F0E442',
  black: '#000000',
});

/** Heads past the seventh of free mode. */
const GREY = '#8c8c8c';

const NAMED = {
  role: OKABE_ITO.blue,
  dependency: OKABE_ITO.vermillion,
  'long-distance': OKABE_ITO.green,
  single: OKABE_ITO.purple,
  'previous-word': OKABE_ITO.orange,
  'same-lemma': OKABE_ITO.blue,
  alignment: OKABE_ITO.green,
};

// Free mode's heads in order (purple stays the single head's).
const BY_INDEX = ['blue', 'vermillion', 'green', 'orange', 'sky', 'yellow', 'black'].map((n) => OKABE_ITO[n]);

/** The hue of a head, from its name (designed heads) or its index (free mode, learned heads). */
export function headColor(name, index = 0) {
  return NAMED[name] ?? BY_INDEX[index] ?? GREY;
}

// The training experiment's settings, one hue per head count: one head in the single head's purple.
const BY_HEAD_COUNT = { 1: NAMED.single, 2: OKABE_ITO.blue, 4: OKABE_ITO.green };

/** The hue of a training setting with numHeads heads (its MLP variant is drawn dashed, in the same hue). */
export const settingColor = (numHeads) => BY_HEAD_COUNT[numHeads];

/** UI as CSS custom properties: [['--ink', '#1b1b1f'], …]. */
export const cssVariables = () =>
  Object.entries(UI).map(([name, value]) => [`--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`, value]);
