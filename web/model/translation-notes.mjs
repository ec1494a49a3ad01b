// What the translation view (views/translation.mjs) may say about the loaded
// checkpoint, from its own run: whether its heads look anywhere (the same
// near-uniform test as the other real-model views, model/real-article.mjs, on
// the encoder's and the decoder's self-attention, the two square groups), and
// the source's tokenization. A translation model's own output always scores
// better than chance (the search chose it), so its score says nothing about
// whether the weights were trained; the page never calls the model trained or
// "real" from it. Pure: no DOM, no engine.
import { UNIFORM_SHARE, headEvenness } from './real-article.mjs';

/**
 * The checkpoint's notes from one generate() result with attentions:
 * `kind` 'random' (most heads of the self-attention groups near uniform:
 * { even, count }) or 'unmeasured' (nothing here measures training), and the
 * source pieces as the encoder read them (SentencePiece's ▁ kept, specials included).
 * @param {{ attentions: Record<string, { data: Float32Array, shape: number[] }>, inputTokens: string[] }} generated
 */
export function translationNotes(generated) {
  let even = 0;
  let count = 0;
  for (const group of ['encoder', 'decoder']) {
    const attention = generated.attentions?.[group];
    if (!attention) continue;
    const [numLayers, numHeads, L] = attention.shape;
    const tokens = { length: L };
    const e = headEvenness({ attention: attention.data, tokens, numLayers, numHeads, causal: group === 'decoder' });
    even += e.even;
    count += e.count;
  }
  const nearUniform = count > 0 && even >= UNIFORM_SHARE * count;
  return {
    kind: nearUniform ? 'random' : 'unmeasured',
    even,
    count,
    source: [...generated.inputTokens],
  };
}
