// One Tab stop per widget, arrow keys inside it (WAI-ARIA's roving tabindex):
// of a group of items (the pipeline's stages, the formula's terms, a bar of
// export buttons, the head view's tokens) only the active one has
// tabindex="0", the others "-1"; arrow keys, Home and End move the focus and
// the active item. nextIndex is pure; roving() wires it to the DOM.

const FORWARD = { horizontal: ['ArrowRight'], vertical: ['ArrowDown'], both: ['ArrowRight', 'ArrowDown'] };
const BACK = { horizontal: ['ArrowLeft'], vertical: ['ArrowUp'], both: ['ArrowLeft', 'ArrowUp'] };

/**
 * The index a key moves to among count items, from index (clamped at the
 * ends), or null if the key is not a moving key for this orientation.
 * @param {'horizontal' | 'vertical' | 'both'} orientation
 */
export function nextIndex(key, index, count, orientation = 'both') {
  if (count <= 0) return null;
  if (key === 'Home') return 0;
  if (key === 'End') return count - 1;
  if (FORWARD[orientation].includes(key)) return Math.min(count - 1, index + 1);
  if (BACK[orientation].includes(key)) return Math.max(0, index - 1);
  return null;
}

/**
 * Makes the items (matching selector) inside container one Tab stop. Call the
 * returned refresh() after the items change: it keeps one item tabbable (the
 * focused one, else the one matching `preferred`, else the first).
 * @param {HTMLElement | SVGElement} container
 * @param {string} selector
 * @param {{ orientation?: 'horizontal' | 'vertical' | 'both', preferred?: string }} [options]
 * @returns {() => void} refresh
 */
export function roving(container, selector, { orientation = 'both', preferred } = {}) {
  const items = () => [...container.querySelectorAll(selector)];
  const activate = (list, active) =>
    list.forEach((item) => item.setAttribute('tabindex', item === active ? '0' : '-1'));
  const refresh = () => {
    const list = items();
    const focused = list.find((item) => item === document.activeElement);
    const chosen = focused ?? (preferred && list.find((item) => item.matches(preferred))) ?? list[0];
    activate(list, chosen);
  };
  container.addEventListener('keydown', (event) => {
    const list = items();
    const index = list.findIndex((item) => item.contains(event.target));
    if (index < 0) return;
    const next = nextIndex(event.key, index, list.length, orientation);
    if (next === null) return;
    event.preventDefault();
    activate(list, list[next]);
    list[next].focus();
  });
  container.addEventListener('focusin', (event) => {
    const list = items();
    const item = list.find((i) => i.contains(event.target));
    if (item) activate(list, item);
  });
  refresh();
  return refresh;
}
