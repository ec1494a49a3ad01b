// The real-model view's error box (#real-error): what went wrong in the
// reader's words, the sentence of its kind (model/load-errors.mjs) inside
// the view's own ("could not load the model: …"), with the names it is about
// (files, repos, Hubs, a config value) kept from translation, and the
// engine's own English text as a detail to open (for a report, or a search).
// It keeps what it shows, so that a change of language writes it again.
import { el } from '../lib/dom.mjs';
import { t } from '../lib/i18n.mjs';
import { loadErrorReason } from '../model/load-errors.mjs';

const MARK = '\u0000';

/** The text of `key` as nodes, each parameter in a span marked translate="no". */
function withNames(key, params) {
  const names = Object.keys(params);
  const marked = Object.fromEntries(names.map((name, i) => [name, `${MARK}${i}${MARK}`]));
  return t(key, marked)
    .split(MARK)
    .map((part, i) =>
      i % 2 ? el('span', { translate: false, textContent: String(params[names[Number(part)]]) }) : part,
    );
}

/** The reason of an error that is not a load's (a run, a translation): its text as the detail of "other". */
export const otherError = (error) => ({ ...loadErrorReason(error), kind: 'other', params: {} });

export class ErrorBox {
  /** What is shown: { key, reason } or null. */
  #shown = null;

  /** @param {HTMLElement} element the box, hidden until an error */
  constructor(element) {
    this.element = element;
  }

  /**
   * Shows an error: `key`'s sentence (a {message} placeholder) around the
   * reason's ({ kind, params, detail }: loadErrorReason, otherError).
   */
  show(key, reason) {
    this.#shown = { key, reason };
    this.#write();
    this.element.hidden = false;
  }

  hide() {
    this.#shown = null;
    this.element.hidden = true;
  }

  /** Writes the error shown again in the page's (new) language. */
  relabel() {
    if (this.#shown) this.#write();
  }

  #write() {
    const { key, reason } = this.#shown;
    const [before, after] = t(key, { message: MARK }).split(MARK);
    const message = el('p', {}, before, ...withNames(`real.loadError.${reason.kind}`, reason.params), after);
    const detail = reason.detail
      ? el(
          'details',
          {},
          el('summary', { textContent: t('real.error.detail') }),
          el('code', { lang: 'en', translate: false, textContent: reason.detail }),
        )
      : '';
    this.element.replaceChildren(message, detail);
  }
}
