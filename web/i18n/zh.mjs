// The Chinese catalogue: every text of the page, in seven parts (lib/i18n.mjs
// says how entries are written). en.mjs has the same keys.
import page from './zh/page.mjs';
import views from './zh/views.mjs';
import train from './zh/train.mjs';
import real from './zh/real.mjs';
import translation from './zh/translation.mjs';
import matter from './zh/matter.mjs';
import lens from './zh/lens.mjs';

/** The parts, for the catalogue test (no key in two parts). */
export const PARTS = Object.freeze({ page, views, train, real, translation, matter, lens });
export default Object.freeze({ ...page, ...views, ...train, ...real, ...translation, ...matter, ...lens });
