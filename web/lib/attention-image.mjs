// Attention weights as pixels, for the real-model view's thumbnails: one
// pixel per (query, key), the weight looked up in a table of 256 colours of
// the heatmaps' ramp (lib/scales.mjs), so that 144 heads of a 12 × 12 model
// are drawn as ImageData in a few milliseconds instead of as SVG. Pure: the
// view puts the bytes into a canvas (CSS scales it up, pixelated).

/** The number of colours in a table. */
export const LEVELS = 256;

/**
 * A colour table: LEVELS RGB triples from a ramp (0…1 → any CSS colour that
 * `parse` turns into { r, g, b }; d3.color in the view).
 * @returns {Uint8Array} [LEVELS · 3]
 */
export function colourTable(ramp, parse) {
  const table = new Uint8Array(LEVELS * 3);
  for (let i = 0; i < LEVELS; i++) {
    const { r, g, b } = parse(ramp(i / (LEVELS - 1)));
    table.set([Math.round(r), Math.round(g), Math.round(b)], i * 3);
  }
  return table;
}

/**
 * The RGBA bytes of an L × K block of weights (row-major, rows are queries;
 * K is L for self-attention): weight w (clamped to 0…1; NaN as 0) takes
 * colour round(w · 255).
 * @returns {Uint8ClampedArray} [L · K · 4], for new ImageData(bytes, K, L)
 */
export function weightPixels(weights, length, table, keys = length) {
  const n = length * keys;
  const out = new Uint8ClampedArray(n * 4);
  for (let i = 0; i < n; i++) {
    const w = weights[i];
    const level = w > 0 ? (w >= 1 ? LEVELS - 1 : Math.round(w * (LEVELS - 1))) : 0;
    out[i * 4] = table[level * 3];
    out[i * 4 + 1] = table[level * 3 + 1];
    out[i * 4 + 2] = table[level * 3 + 2];
    out[i * 4 + 3] = 255;
  }
  return out;
}
