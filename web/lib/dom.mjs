// Small DOM helpers shared by the views.

export const SVG_NS = 'http://www.w3.org/2000/svg';

/** An HTML element with properties (className, textContent, ariaLabel, …) and children (nodes or strings). */
export function el(tag, props = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

/**
 * Replaces every <span data-number="name"> under root with the text of
 * numbers[name]: numbers in index.html's prose that the code defines are
 * written once, there. The number joins the text around it (one text node),
 * so the line is laid out exactly as if index.html spelled it.
 */
export function fillNumbers(root, numbers) {
  for (const node of root.querySelectorAll('[data-number]')) {
    const value = numbers[node.dataset.number];
    if (value === undefined) throw new RangeError(`index.html asks for number "${node.dataset.number}": none given`);
    const parent = node.parentNode;
    node.replaceWith(String(value));
    parent.normalize();
  }
}
