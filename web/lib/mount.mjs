// A view that writes its own markup: into its (empty) root element, in the
// page's language, with the elements it works on found once.
import { translateDom } from './i18n.mjs';

/**
 * Writes `markup` into `root`, translates it (data-i18n …), and returns `selectors`' elements in it:
 * { key: root.querySelector(selector) } for `selectors` { key: selector }.
 */
export function mountView(root, markup, selectors) {
  root.innerHTML = markup;
  translateDom(root);
  return Object.fromEntries(Object.entries(selectors).map(([key, selector]) => [key, root.querySelector(selector)]));
}
