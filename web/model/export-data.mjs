// A head's weights as CSV and JSON, for the page's export buttons. Pure.
import { allHeads } from './compute.mjs';
import { tokenNumber } from '../lib/tokens.mjs';

// "毒 1"; the real view's special tokens carry no number ("[CLS]"): lib/tokens.mjs's tokenNumber.
const tokenLabel = (t) => (tokenNumber(t) ? `${t.text} ${tokenNumber(t)}` : t.text);

// RFC 4180: quote a field that holds a comma, quote or line break.
const csvField = (text) => (/[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);

function headOf(run, name) {
  const head = allHeads(run).find((h) => h.name === name);
  if (!head) throw new RangeError(`export: no head "${name}" in this view`);
  return head;
}

/**
 * CSV: a header row of key tokens, then one row per query token; the values are
 * the engine's float32 weights written in full (the shortest decimal that reads
 * back as the same float32, via the double it widens to). It starts with a
 * UTF-8 byte order mark: without it Excel reads the file as ANSI and garbles
 * the CJK headers. corner: the label of the top-left cell (the page passes its language's).
 */
export function headCsv(run, name, { corner = 'query \\ key' } = {}) {
  const head = headOf(run, name);
  const lines = [[corner, ...run.keyTokens.map(tokenLabel)].map(csvField).join(',')];
  run.queryTokens.forEach((t, q) => {
    const row = Array.from(head.weights.subarray(q * run.cols, (q + 1) * run.cols), String);
    lines.push([csvField(tokenLabel(t)), ...row].join(','));
  });
  return `\ufeff${lines.join('\r\n')}\r\n`;
}

/** JSON: the head, the call's shapes, the tokens and the weights as nested rows. */
export function headJson(run, name, extra = {}) {
  const head = headOf(run, name);
  const rows = run.queryTokens.map((_, q) => Array.from(head.weights.subarray(q * run.cols, (q + 1) * run.cols)));
  return JSON.stringify(
    {
      head: name,
      mode: run.mode,
      causal: run.causal,
      ...run.dims,
      ...extra,
      queryTokens: run.queryTokens.map((t) => t.text),
      keyTokens: run.keyTokens.map((t) => t.text),
      weights: rows,
    },
    null,
    1,
  );
}
