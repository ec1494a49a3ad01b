// The real translation's numbers (web/model/translation.mjs): which
// characters each source piece covers (the pieces of transformers'
// MarianTokenizer on the fixture, tests/fixtures/models/hf-marian), the six 毒
// and their roles, a head's, a layer's and the whole model's cross-attention,
// where each English token looks among the 毒, and the head-mask presets.
import { readFileSync } from 'node:fs';
import { SENTENCE } from '../../web/sentence.mjs';
import {
  crossWeights,
  duCharacters,
  duReadings,
  keepsAll,
  keptHeads,
  pieceText,
  presetMask,
  sourceSpans,
} from '../../web/model/translation.mjs';

const reference = JSON.parse(readFileSync(new URL('../fixtures/models/hf-marian/reference.json', import.meta.url)));
const tokenizerCase = (name) => reference.tokenizer.find((c) => c.name === name);

test('each piece of MarianTokenizer covers the characters it spells (， folded to ",")', () => {
  const c = tokenizerCase('sentence');
  expect(c.text).toBe(SENTENCE);
  const special = c.tokens.map((t) => (t === '</s>' ? 1 : 0));
  const spans = sourceSpans(c.tokens, special, c.text);
  const chars = [...c.text];
  const covered = spans.map((s) => (s ? chars.slice(s.start, s.end).join('') : null));
  // '▁用毒', '毒毒蛇', ',', '毒蛇', '会不会', '被毒', '毒死', '</s>'
  expect(covered).toEqual([...c.pieces.map((p) => p.replaceAll('▁', '').replace(',', '，')), null]);
  expect(spans.at(-2)).toEqual({ start: 13, end: 15 });
});

test('an unknown piece covers the characters up to the next piece; spaces are skipped', () => {
  expect(sourceSpans(['▁毒', '<unk>', '蛇', '</s>'], [0, 0, 0, 1], '毒 龘龘蛇')).toEqual([
    { start: 0, end: 1 },
    { start: 2, end: 4 },
    { start: 4, end: 5 },
    null,
  ]);
  expect(sourceSpans(['▁', '毒', '<unk>'], [0, 0, 0], '毒🐍')).toEqual([
    null,
    { start: 0, end: 1 },
    { start: 1, end: 2 },
  ]);
});

test('the six 毒 with the roles of the page’s annotation, for its sentence only', () => {
  expect(duCharacters(SENTENCE)).toEqual([
    { index: 1, role: 'noun' },
    { index: 2, role: 'verb' },
    { index: 3, role: 'modifier' },
    { index: 6, role: 'modifier' },
    { index: 12, role: 'noun' },
    { index: 13, role: 'verb' },
  ]);
  expect(duCharacters('毒蛇')).toEqual([]);
  expect(pieceText('▁venom')).toBe('venom');
});

test('one head, a layer’s mean and every head’s mean', () => {
  // 2 layers × 2 heads, T 1, S 2.
  const cross = { data: Float32Array.of(1, 0, 0, 1, 0.5, 0.5, 0.25, 0.75), shape: [2, 2, 1, 2] };
  expect(Array.from(crossWeights(cross, { layer: 1, head: 0 }))).toEqual([0.5, 0.5]);
  expect(Array.from(crossWeights(cross, { layer: 0, head: 'mean' }))).toEqual([0.5, 0.5]);
  expect(Array.from(crossWeights(cross, 'mean'))).toEqual([0.4375, 0.5625]);
});

test('where each English token looks among the 毒, through the pieces that hold them', () => {
  const c = tokenizerCase('sentence');
  const special = c.tokens.map((t) => (t === '</s>' ? 1 : 0));
  const spans = sourceSpans(c.tokens, special, c.text);
  const S = c.tokens.length;
  // Token 0 looks at piece 0 (▁用毒: 毒1); token 1 at piece 1 (毒毒蛇: 毒2 and 毒3 share it); token 2 is </s>.
  const weights = new Float32Array(3 * S);
  weights[0] = 1;
  weights[S + 1] = 0.6;
  weights[S + 6] = 0.4;
  const readings = duReadings(weights, ['▁venom', '▁poison', '</s>'], [0, 0, 1], spans, duCharacters(SENTENCE));
  expect(readings[0].best).toMatchObject({ index: 1, role: 'noun', piece: 0, weight: 1 });
  expect(readings[1].best).toBeNull(); // 毒2 and 毒3 are one piece: the model cannot tell them apart here
  expect(readings[1].weights.map((d) => d.weight)).toEqual([
    0, 0.6000000238418579, 0.6000000238418579, 0, 0, 0.4000000059604645,
  ]);
  expect(readings[2]).toEqual({ token: '</s>', weights: [], best: null });
});

test('head-mask presets', () => {
  expect(presetMask({ layers: 2, heads: 3 }, 'all')).toEqual([
    [1, 1, 1],
    [1, 1, 1],
  ]);
  const only = presetMask({ layers: 2, heads: 3 }, { only: 1 });
  expect(only).toEqual([
    [0, 1, 0],
    [0, 1, 0],
  ]);
  expect(keepsAll(only)).toBe(false);
  expect(keptHeads(only)).toEqual({ kept: 2, all: 6 });
});
