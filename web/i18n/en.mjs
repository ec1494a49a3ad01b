// The English catalogue: every text of the page, in seven parts (lib/i18n.mjs
// says how entries are written). zh.mjs has the same keys.
import page from './en/page.mjs';
import views from './en/views.mjs';
import train from './en/train.mjs';
import real from './en/real.mjs';
import translation from './en/translation.mjs';
import matter from './en/matter.mjs';
import lens from './en/lens.mjs';

/** The parts, for the catalogue test (no key in two parts). */
export const PARTS = Object.freeze({ page, views, train, real, translation, matter, lens });
export default Object.freeze({ ...page, ...views, ...train, ...real, ...translation, ...matter, ...lens });
