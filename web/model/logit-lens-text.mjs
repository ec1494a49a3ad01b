// What the logit lens (mha-wasm/analysis logitLens) says, in the page's
// words (views/logit-lens-view.mjs): where the model's own prediction first
// becomes a layer's top token and from which layer on it stays there, read
// from the ranks the lens computed. Pure: the e2e test writes the same
// sentences from Node's lens.
import { t } from '../lib/i18n.mjs';
import { percent } from '../lib/format.mjs';

/**
 * { first, settled, layers }: the first layer whose top token is the final one (null: none before the last
 * can be, the last always is), the layer from which every later layer keeps it first, and the last layer's index.
 */
export function lensDecided(lens) {
  const ranks = lens.layers.map((l) => l.finalTop.rank);
  const last = ranks.length - 1;
  let settled = last;
  while (settled > 0 && ranks[settled - 1] === 1) settled--;
  return { first: ranks.indexOf(1), settled, layers: last };
}

/** A token as the table shows it: its piece, quoted so that spaces and empty texts are seen. */
export const lensToken = ({ token }) => `“${token}”`;

/** The sentences under the table: where the prediction is decided, and the embeddings' rank of it. */
export function lensSentences(lens) {
  const { first, settled, layers } = lensDecided(lens);
  const token = lensToken(lens.finalTop);
  const at = lens.layers[settled].finalTop.probability;
  const out = [
    settled === layers
      ? t('lens.text.last', { token, layers })
      : t('lens.text.settled', { token, layer: settled, layers, probability: percent(at) }),
  ];
  if (first < settled) out.push(t('lens.text.first', { layer: first }));
  out.push(t('lens.text.embeddings', { rank: lens.layers[0].finalTop.rank }));
  return out;
}
