// Small DOM helpers shared by the views.

export const SVG_NS = 'http://www.w3.org/2000/svg';

/** An HTML element with properties (className, textContent, ariaLabel, …) and children (nodes or strings). */
export function el(tag, props = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

let captions = 0;

/**
 * A table in a horizontal scroll box with its caption above and outside the
 * box, so that a wide table scrolls while its caption stays whole on a phone.
 * The caption names the table (aria-labelledby), as <caption> would.
 * @returns {HTMLElement} <figure class="table-figure">
 */
export function captionedTable(caption, table) {
  const id = `table-caption-${++captions}`;
  table.setAttribute('aria-labelledby', id);
  return el(
    'figure',
    { className: 'table-figure' },
    el('figcaption', { id, textContent: caption }),
    el('div', { className: 'table-scroll' }, table),
  );
}
