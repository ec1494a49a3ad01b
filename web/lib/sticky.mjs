// Labels that stay in view while a drawing scrolls inside its box (the
// heatmaps and matrices of long sentences on a phone): CSS sticky does not
// reach into an SVG, so every group marked data-sticky="x", "y" or "xy" is
// moved by the box's scroll offset, in the SVG's own units. Its background
// rect (paper) hides what passes under it. An exported copy drops the
// transforms (lib/download.mjs).

/**
 * Keeps the sticky groups of the svg in box in place while box scrolls (the
 * box's first svg, looked up on every scroll, so the drawing may be replaced).
 * @returns {() => void} re-applies the offsets (after the drawing changed)
 */
export function stickLabels(box) {
  const update = () => {
    const svg = box.querySelector('svg');
    if (!svg) return;
    const width = svg.viewBox.baseVal?.width;
    const scale = width ? svg.getBoundingClientRect().width / width : 1;
    if (!scale) return;
    const x = box.scrollLeft / scale;
    const y = box.scrollTop / scale;
    for (const group of svg.querySelectorAll('[data-sticky]')) {
      const axes = group.dataset.sticky;
      const dx = axes.includes('x') ? x : 0;
      const dy = axes.includes('y') ? y : 0;
      if (dx || dy) group.setAttribute('transform', `translate(${dx},${dy})`);
      else group.removeAttribute('transform');
    }
  };
  box.addEventListener('scroll', update, { passive: true });
  return update;
}

/**
 * The sticky label layers of a grid drawing (d3 selection `svg`, cells from
 * x0, y0 on, the whole drawing width × height): row labels (sticky in x),
 * column labels (in y) and the corner (both), each over a rect of `paper`.
 * Append them after the cells and marks, so they stay on top.
 */
export function appendLabelLayers(svg, { x0, y0, width, height, paper }) {
  const layer = (axes, w, h) => {
    const group = svg.append('g').attr('data-sticky', axes);
    group.append('rect').attr('width', w).attr('height', h).attr('fill', paper);
    return group;
  };
  return { rowLayer: layer('x', x0, height), colLayer: layer('y', width, y0), corner: layer('xy', x0, y0) };
}
