// One colour-blind-safe hue per head, and the heatmap ramp built from it.
// Hues are Okabe & Ito's palette (2008), designed to stay distinguishable
// under the common colour-vision deficiencies; the weight itself is encoded
// by lightness, which every reader sees, so the hue only names the head.
import d3 from './d3.mjs';

const OKABE_ITO = {
  blue: '#0072B2',
  vermillion: '#D55E00',
  green: '#009E73',
  purple: '#CC79A7',
  orange: '#E69F00',
  sky: '#56B4E9',
  yellow: '#F0E442',
  black: '#000000',
};

const NAMED = {
  role: OKABE_ITO.blue,
  dependency: OKABE_ITO.vermillion,
  'long-distance': OKABE_ITO.green,
  single: OKABE_ITO.purple,
  'previous-word': OKABE_ITO.orange,
  'same-lemma': OKABE_ITO.blue,
  alignment: OKABE_ITO.green,
};

// Free mode's heads in order (purple stays the single head's); past 7 heads, grey.
const BY_INDEX = ['blue', 'vermillion', 'green', 'orange', 'sky', 'yellow', 'black'].map((n) => OKABE_ITO[n]);

/** The hue of a head, from its name (designed heads) or its index (free mode). */
export function headColor(name, index = 0) {
  return NAMED[name] ?? BY_INDEX[index] ?? '#8c8c8c';
}

/**
 * weight 0..1 → fill: from near-white to the head's hue at a fixed dark
 * lightness (CIELAB L 38), interpolated in Lab so that equal weight steps look
 * equal, and every head's 1.0 is equally dark.
 */
export function weightRamp(color) {
  const end = d3.lab(color);
  end.l = 38;
  return d3.interpolateLab(d3.lab(97.5, 0, 0), end);
}

/** Signed values (Q, K, scores…) → fill, diverging around 0 (PuOr, colour-blind safe). */
export function divergingScale(maxAbs) {
  const m = maxAbs > 0 ? maxAbs : 1;
  return d3.scaleDiverging([-m, 0, m], (t) => d3.interpolatePuOr(1 - t));
}
