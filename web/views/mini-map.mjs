// A small attention map, for setting heads side by side (the training
// section's bridge and its collapsed runs): one 12-px cell per (query, key),
// the characters along both edges, the rows of the marked queries (the six 毒)
// labelled in bold. Read-only: the full heatmaps, with readouts and tables,
// are elsewhere on the page. Every cell carries data-q, data-k and
// data-weight (the engine's value, unrounded), as the heatmaps' do.
import { UI } from '../lib/palette.mjs';
import { weightRamp } from '../lib/scales.mjs';
import { SVG_NS, el } from '../lib/dom.mjs';
import { UI_FONTS, styleTokenText } from '../lib/tokens.mjs';

const CELL = 12;
const LABEL = 16;
const FONT = 10;
let instances = 0;

function svgNode(tag, attrs = {}) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

function label(token, attrs, marked) {
  const text = svgNode('text', { 'font-size': FONT, fill: marked ? UI.ink : UI.muted, ...attrs });
  if (marked) text.setAttribute('font-weight', 700);
  styleTokenText(text, token);
  text.textContent = token.text;
  return text;
}

/**
 * @param {{ name: string, title: string, caption: string, color: string, weights: ArrayLike<number>,
 *   tokens: { text: string, index: number, lang?: string }[], marked?: number[] }} options
 *   weights: [n, n] row-major (rows are queries); marked: query rows to label in bold
 * @returns {HTMLElement} <figure class="mini-map" data-head=name>
 */
export function miniMap({ name, title, caption, color, weights, tokens, marked = [] }) {
  const n = tokens.length;
  const size = LABEL + n * CELL;
  const ramp = weightRamp(color);
  const captionId = `mini-map-${++instances}`;
  const svg = svgNode('svg', {
    viewBox: `0 0 ${size + 1} ${size + 1}`,
    width: size + 1,
    height: size + 1,
    'font-family': UI_FONTS,
    role: 'img',
    'aria-labelledby': captionId,
  });
  const marks = new Set(marked);
  tokens.forEach((token, i) => {
    const at = LABEL + i * CELL + CELL / 2;
    svg.append(label(token, { x: at, y: LABEL - 4, 'text-anchor': 'middle' }, false));
    svg.append(label(token, { x: LABEL - 3, y: at + 3, 'text-anchor': 'end' }, marks.has(i)));
  });
  const cells = svgNode('g', { class: 'cells' });
  for (let q = 0; q < n; q++)
    for (let k = 0; k < n; k++) {
      const w = weights[q * n + k];
      cells.append(
        svgNode('rect', {
          x: LABEL + k * CELL,
          y: LABEL + q * CELL,
          width: CELL - 0.5,
          height: CELL - 0.5,
          fill: ramp(Math.min(1, Math.max(0, w))),
          'data-q': q,
          'data-k': k,
          'data-weight': w,
        }),
      );
    }
  svg.append(cells);
  // The marked rows outlined, so that the rows the task is measured on stand out.
  for (const q of marks)
    svg.append(
      svgNode('rect', {
        x: LABEL - 0.5,
        y: LABEL + q * CELL - 0.5,
        width: n * CELL,
        height: CELL,
        fill: 'none',
        stroke: UI.muted,
        'stroke-width': 0.6,
      }),
    );
  const figure = el(
    'figure',
    { className: 'mini-map' },
    el(
      'figcaption',
      { id: captionId },
      el('strong', { textContent: title }),
      ' ',
      el('span', { textContent: caption }),
    ),
  );
  figure.dataset.head = name;
  figure.append(svg);
  return figure;
}
