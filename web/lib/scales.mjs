// Colour scales of the heatmaps and matrices: a head's weights on a ramp of
// its hue (lib/palette.mjs), signed values on a diverging scale.
import d3 from './d3.mjs';

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
