// The data-table alternative of a heatmap: the same numbers as an HTML table
// (query tokens as row headers, key tokens as column headers), for screen
// readers, copying, and anyone who prefers numbers to shades.
import { tokenName } from '../lib/tokens.mjs';
import { t } from '../lib/i18n.mjs';
import { fixed } from '../lib/format.mjs';
import { captionedTable } from '../lib/dom.mjs';

function header(token, scope) {
  const th = document.createElement('th');
  th.scope = scope;
  th.title = token.title ?? '';
  if (token.lang) th.lang = token.lang;
  th.textContent = tokenName(token);
  th.translate = false;
  return th;
}

/**
 * @param {{ caption: string, queryTokens: object[], keyTokens: object[],
 *   weights: Float32Array, causal: boolean }} view weights row-major [query, key]
 * @returns {HTMLElement} the table in its scroll box, its caption outside (lib/dom.mjs captionedTable)
 */
export function weightsTable({ caption, queryTokens, keyTokens, weights, causal }) {
  const table = document.createElement('table');
  table.className = 'weights';
  const head = table.createTHead().insertRow();
  const corner = document.createElement('td');
  corner.textContent = t('table.corner');
  head.append(corner, ...keyTokens.map((t) => header(t, 'col')));
  const body = table.createTBody();
  queryTokens.forEach((token, q) => {
    const row = body.insertRow();
    row.append(header(token, 'row'));
    keyTokens.forEach((_, k) => {
      const cell = row.insertCell();
      const w = weights[q * keyTokens.length + k];
      cell.textContent = causal && k > q ? t('table.masked') : fixed(w);
    });
  });
  return captionedTable(caption, table);
}
