// The real-model view in the article's terms (web/model/real-article.mjs):
// reading a checkpoint's tokens against the sentence, the vocabulary's fit,
// near-uniform heads, and the real heads against the designed heads' targets.
// The token lists are what the repository's checkpoints give for the sentence
// (tests/fixtures/models: bert-zh, gpt2, hf-qwen2, hf-xlm-roberta, hf-roberta);
// the weights are made up so that the expected numbers follow by hand.
import { alignToText } from '../../web/model/token-text.mjs';
import {
  articleIndex,
  articleMap,
  articleRole,
  articleRows,
  bestRoleShare,
  closestHeads,
  duTokens,
  evenWeights,
  evenness,
  headEvenness,
  layerRun,
  neuronRun,
  roleShare,
  rowsScore,
  vocabularyFit,
} from '../../web/model/real-article.mjs';
import { SENTENCE, TOKENS, maskedSentence } from '../../web/sentence.mjs';
import { neuronPair } from '../../web/model/neuron.mjs';
import { pieceLetters, shortLabel, tokenName } from '../../web/lib/tokens.mjs';
import { articleNotes } from '../../web/views/real-article.mjs';

const BERT = ['[CLS]', ...SENTENCE, '[SEP]'];
const BERT_SPECIAL = BERT.map((t) => (t.startsWith('[') ? 1 : 0));
// prettier-ignore
const QWEN = ['用₁', '用₂', '用₃', '毒', '毒', '毒蛇', '，₁', '，₂', '，₃', '毒蛇', '会', '不₁', '不₂', '不₃', '会', '被', '毒', '毒死₁', '死₂'];
// prettier-ignore
const XLMR = ['<s>', '▁', '用', '毒', '毒', '毒蛇', '<unk>', '毒蛇', '会不会', '被', '毒', '毒死', '</s>'];
const XLMR_SPECIAL = XLMR.map((t) => (['<s>', '</s>', '<unk>'].includes(t) ? 1 : 0));
// prettier-ignore
const GPT2 = ['用₁', '用₂', '用₃', '毒', '毒', '毒', '蛇₁', '蛇₂', '，₁', '，₂', '，₃', '毒', '蛇₁', '蛇₂', '会₁', '会₂', '会₃', '不₁', '不₂', '不₃', '会₁', '会₂', '会₃', '被₁', '被₂', '被₃', '毒', '毒', '死₁', '死₂', '死₃'];
const zeros = (tokens) => tokens.map(() => 0);

test("BERT's characters: [CLS] and [SEP] stand for none, every other token for its own character", () => {
  const map = articleMap(BERT, BERT_SPECIAL, SENTENCE);
  expect(map.cover[0]).toEqual([]);
  expect(map.cover[2]).toEqual([1]);
  expect(map.cover.at(-1)).toEqual([]);
  // One numbering with the designed views: the first 毒 is 1, not 2, although [CLS] comes first.
  expect(BERT.map((_, i) => articleIndex(map, i))).toEqual(['', ...TOKENS.map((_, c) => String(c)), '']);
  expect(BERT.map((_, i) => articleRole(map, i)).filter(Boolean)).toEqual([
    'noun',
    'verb',
    'modifier',
    'modifier',
    'noun',
    'verb',
  ]);
  expect(vocabularyFit(map)).toMatchObject({ whole: 15, merged: 0, bytes: 0, unknown: 0, foreign: false });
});

test("byte pieces, and a token of two characters: Qwen's tokens", () => {
  const map = articleMap(QWEN, zeros(QWEN), SENTENCE);
  // 用 in three byte pieces: all three stand for character 0, numbered 1, 2, 3.
  expect(map.cover.slice(0, 3)).toEqual([[0], [0], [0]]);
  expect(map.pieces.slice(0, 4)).toEqual([1, 2, 3, 0]);
  expect(articleIndex(map, 5)).toBe('3–4'); // 毒蛇
  // 毒死₁ is all of 毒13 and the first piece of 死14; 死₂ the rest of 死.
  expect(map.cover.slice(17)).toEqual([[13, 14], [14]]);
  expect(map.tokensOf[14]).toEqual([17, 18]);
  expect(articleRole(map, 3)).toBe('noun');
  expect(articleRole(map, 5)).toBe(null); // 毒蛇 stands for two characters
  // Cut into bytes: 用, the comma, 不, 死; in a token with another: 毒3 蛇4 毒6 蛇7 毒13.
  expect(vocabularyFit(map)).toMatchObject({ whole: 6, merged: 5, bytes: 4, unknown: 0, foreign: false });
});

test("an unknown token stands for the characters up to where the text resumes; '▁' for none", () => {
  const map = articleMap(XLMR, XLMR_SPECIAL, SENTENCE);
  expect(map.cover[1]).toEqual([]);
  expect(map.cover[6]).toEqual([5]); // <unk> is the full-width comma
  expect(map.unknown[6]).toBe(true);
  expect(map.cover[8]).toEqual([8, 9, 10]); // 会不会
  expect(vocabularyFit(map).unknown).toBe(1);
  // At the end: an unknown token takes what is left.
  const tail = alignToText(['毒', '<unk>'], [0, 1], '毒蛇会');
  expect(tail.cover).toEqual([[0], [1, 2]]);
});

test("an English tokenizer's bytes: GPT-2 reads the sentence as byte pieces, and the view says so", () => {
  const map = articleMap(GPT2, zeros(GPT2), SENTENCE);
  const fit = vocabularyFit(map);
  // The repository's small GPT-2 has 毒 whole (its vocabulary was trained on the sentence); the rest is bytes.
  expect(fit).toMatchObject({ whole: 6, bytes: 9, foreign: true });
});

test('tokens that do not spell the text stand for it as unknown; a short tokenization or another sentence give no map', () => {
  // A piece that spells nothing where it stands (a second byte piece with no first, a lone byte) is read as unknown.
  expect(alignToText(['毒₂'], [0], '毒')).toMatchObject({ cover: [[0]], unknown: [true], complete: true });
  expect(alignToText(['<0xE6>', '蛇'], [0, 0], '毒蛇')).toMatchObject({ cover: [[0], [1]], unknown: [true, false] });
  // Tokens that stop before the text ends (a truncated run) do not map onto the sentence.
  expect(articleMap(['用', '毒'], [0, 0], SENTENCE)).toBe(null);
  expect(articleMap(BERT, BERT_SPECIAL, '毒蛇')).toBe(null);
  // Spaces in the text and WordPiece's ## are no token's characters; BERT's lowercasing and NFKC folding are undone.
  expect(alignToText(['un', '##able', ','], [0, 0, 0], 'Un able，').cover).toEqual([[0, 1], [3, 4, 5, 6], [7]]);
  // The sentence with spaces in it still maps, onto the sentence's own numbers.
  const spaced = articleMap(BERT, BERT_SPECIAL, `${SENTENCE.slice(0, 5)} ${SENTENCE.slice(5)}`);
  expect(articleIndex(spaced, 7)).toBe('6');
  // A piece of several characters ending in a byte piece: 毒死₁ is 毒 whole and the first piece of 死.
  expect(alignToText(['毒死₁', '死₂'], [0, 0], '毒死')).toMatchObject({ cover: [[0, 1], [1]], pieces: [1, 2] });
});

test('evenness: 1 for even rows, 0 for one-hot rows, causal rows over the keys they see', () => {
  const L = 4;
  expect(evenness(evenWeights(L, false), L, false)).toBeCloseTo(1, 12);
  expect(evenness(evenWeights(L, true), L, true)).toBeCloseTo(1, 12);
  const diag = new Float32Array(L * L);
  for (let i = 0; i < L; i++) diag[i * L + i] = 1;
  expect(evenness(diag, L, false)).toBe(0);
  // Row 1 of a causal map sees 2 keys: [0.5, 0.5] is even there.
  const two = new Float32Array(4);
  two.set([1, 0, 0.5, 0.5]);
  expect(evenness(two, 2, true)).toBeCloseTo(1, 12);
  const run = (attention, numHeads) => ({ attention, tokens: ['a', 'b'], numLayers: 1, numHeads, causal: false });
  const even = Float32Array.of(0.5, 0.5, 0.5, 0.5);
  const sharp = Float32Array.of(1, 0, 0, 1);
  expect(headEvenness(run(even, 1)).nearUniform).toBe(true);
  expect(headEvenness(run(Float32Array.of(...even, ...sharp), 2))).toMatchObject({ even: 1, nearUniform: false });
});

/** BERT's positions of sentence character c. */
const pos = (c) => c + 1;

test("the designed role head's targets, read in a real head: every 毒 onto its same-role 毒", () => {
  const map = articleMap(BERT, BERT_SPECIAL, SENTENCE);
  const L = BERT.length;
  const rows = articleRows(map, 'role', false);
  // 14 rows: every character with a role target (不, 死 and the comma have none), 毒1 → 毒12 among them.
  expect(rows.find((r) => r.char === 1)).toEqual({ char: 1, queries: [pos(1)], keys: [pos(12)] });
  // A head that does exactly what the designed role head's targets say scores 1 …
  const role = new Float32Array(L * L);
  for (const { queries, keys } of rows) for (const k of keys) role[queries[0] * L + k] = 1 / keys.length;
  expect(rowsScore(role, L, rows)).toBeCloseTo(1, 6);
  // … the even spread |keys| / L per row.
  const expected = rows.reduce((s, r) => s + r.keys.length / L, 0) / rows.length;
  expect(rowsScore(evenWeights(L, false), L, rows)).toBeCloseTo(expected, 12);
  // Causal: 毒1's partner 毒12 comes later and cannot be seen, so that row is left out.
  expect(articleRows(map, 'role', true).find((r) => r.char === 1)).toBeUndefined();
  expect(articleRows(map, 'role', true).find((r) => r.char === 12).keys).toEqual([pos(1)]);
});

test('a target inside the query\u2019s own token cannot be looked at: the row is left out', () => {
  const map = articleMap(QWEN, zeros(QWEN), SENTENCE);
  // 毒3 → 蛇4 (its dependency head) is inside the token 毒蛇.
  expect(articleRows(map, 'dependency', false).find((r) => r.char === 3)).toBeUndefined();
  // 蛇7 → 蛇4 (long distance): from the second 毒蛇 to the first.
  expect(articleRows(map, 'long-distance', false).find((r) => r.char === 7)).toEqual({
    char: 7,
    queries: [9],
    keys: [5],
  });
});

test('the closest real heads: the head built on the targets is found; even heads are not', () => {
  const map = articleMap(BERT, BERT_SPECIAL, SENTENCE);
  const L = BERT.length;
  const even = evenWeights(L, false);
  const dependency = new Float32Array(L * L);
  for (let q = 0; q < L; q++) {
    const head = q >= 1 && q <= 15 ? TOKENS[q - 1].head : null;
    dependency[q * L + (head === null ? q : pos(head))] = 1;
  }
  const attention = new Float32Array([...even, ...dependency]);
  const found = closestHeads({ attention, tokens: BERT, numLayers: 1, numHeads: 2, causal: false }, map);
  const byName = Object.fromEntries(found.map((f) => [f.name, f]));
  expect(byName.dependency).toMatchObject({ found: true, reached: 1, rows: 14 });
  expect(byName.dependency.best[0]).toMatchObject({ layer: 0, head: 1 });
  expect(byName.dependency.best[0].score).toBeCloseTo(1, 6);
  expect(byName.dependency.baseline).toBeCloseTo(1 / L, 6);
  // 毒13 → 毒2 is a dependency and a long-distance link at once: 1 of the 4 long-distance rows.
  expect(byName['long-distance'].best[0].score).toBeCloseTo(0.25, 6);
  // Even heads only: "no head does this", for every designed head.
  const evenRun = { attention: new Float32Array([...even, ...even]), tokens: BERT, numLayers: 1, numHeads: 2 };
  for (const f of closestHeads({ ...evenRun, causal: false }, map))
    expect([f.name, f.found, f.reached]).toEqual([f.name, false, 0]);
});

test("telling the 毒 apart: a head blind to roles shares evenly; a role head's share is 1", () => {
  const map = articleMap(BERT, BERT_SPECIAL, SENTENCE);
  const L = BERT.length;
  const du = TOKENS.flatMap((u, c) => (u.char === '毒' ? [c] : []));
  const blind = new Float32Array(L * L);
  const sighted = new Float32Array(L * L);
  for (const q of du) {
    for (const c of du) if (c !== q) blind[pos(q) * L + pos(c)] = 1 / 5;
    const partner = du.find((c) => c !== q && TOKENS[c].role === TOKENS[q].role);
    sighted[pos(q) * L + pos(partner)] = 1;
  }
  // Every 毒 has one same-role partner among the five others: 1/5.
  expect(roleShare(blind, L, map, false)).toMatchObject({ rows: 6 });
  expect(roleShare(blind, L, map, false).share).toBeCloseTo(0.2, 6);
  expect(roleShare(blind, L, map, false).blind).toBeCloseTo(0.2, 12);
  expect(roleShare(sighted, L, map, false).share).toBeCloseTo(1, 6);
  const attention = new Float32Array([...blind, ...sighted, ...evenWeights(L, false)]);
  const best = bestRoleShare({ attention, tokens: BERT, numLayers: 1, numHeads: 3, causal: false }, map);
  expect(best.best).toMatchObject({ layer: 0, head: 1 });
  expect(best.blind).toBeCloseTo(0.2, 12);
});

test("one layer as the head view and the export read it; hiding the special tokens keeps the head's own weights", () => {
  const tokens = ['[CLS]', '毒', '蛇', '[SEP]'];
  const L = 4;
  const attention = new Float32Array(2 * L * L);
  // Layer 0: head 0 even, head 1 every row 0.4 on [CLS], 0.3 on 毒, 0.2 on 蛇, 0.1 on [SEP].
  for (let q = 0; q < L; q++) {
    attention.set([0.25, 0.25, 0.25, 0.25], q * L);
    attention.set([0.4, 0.3, 0.2, 0.1], (1 * L + q) * L);
  }
  const records = tokens.map((text, index) => ({ text, index }));
  const run = { attention, tokens, special: [1, 0, 0, 1], records, numHeads: 2, causal: false };
  const all = layerRun(run, 0);
  expect(all).toMatchObject({ rows: 4, cols: 4, positions: [0, 1, 2, 3] });
  expect(all.hiddenWeight).toBeCloseTo(0, 6);
  expect(all.heads.map((h) => h.name)).toEqual(['head-0', 'head-1']);
  const hidden = layerRun(run, 0, { hideSpecial: true });
  expect(hidden.positions).toEqual([1, 2]);
  expect(hidden.queryTokens.map((r) => r.text)).toEqual(['毒', '蛇']);
  expect(Array.from(hidden.heads[1].weights)).toEqual([0.3, 0.2, 0.3, 0.2].map(Math.fround));
  // Both heads give the special tokens 0.5 of each row.
  expect(hidden.hiddenWeight).toBeCloseTo(0.5, 6);
});

test("a real layer for the neuron view: a grouped-query head reads its key head's keys; the scores' softmax is the weights", () => {
  // 2 query heads over 1 key head (numKVHeads 1), dK 2, L 3, causal; weights the softmax of the scores.
  const L = 3;
  const dK = 2;
  const query = Float32Array.of(1, 0, 0, 1, 1, 1, /* head 1 */ 2, 0, 0, 2, 1, -1);
  const key = Float32Array.of(1, 0, 0, 1, 0.5, 0.5);
  const scale = 1 / Math.sqrt(dK);
  const attention = new Float32Array(2 * L * L);
  for (let h = 0; h < 2; h++)
    for (let i = 0; i < L; i++) {
      const s = [0, 1, 2].map((j) =>
        j > i
          ? -Infinity
          : (query[(h * L + i) * dK] * key[j * dK] + query[(h * L + i) * dK + 1] * key[j * dK + 1]) * scale,
      );
      const m = Math.max(...s);
      const e = s.map((v) => Math.exp(v - m));
      const sum = e.reduce((a, b) => a + b, 0);
      e.forEach((v, j) => (attention[(h * L + i) * L + j] = v / sum));
    }
  const records = ['a', 'b', 'c'].map((text, index) => ({ text, index }));
  const run = {
    query,
    key,
    attention,
    tokens: ['a', 'b', 'c'],
    records,
    numHeads: 2,
    numKVHeads: 1,
    headDim: dK,
    queryKeyScale: scale,
    causal: true,
    article: null,
  };
  const n = neuronRun(run, 0);
  // Head 1's key for token 2 is the key head's: (0.5, 0.5), placed in head 1's columns.
  expect(Array.from(n.projections.K.subarray(2 * 4 + 2, 2 * 4 + 4))).toEqual([0.5, 0.5]);
  expect(Array.from(n.projections.Q.subarray(1 * 4 + 2, 1 * 4 + 4))).toEqual([0, 2]);
  expect(n.scores[(1 * L + 0) * L + 1]).toBe(-Infinity);
  expect(n.scores[(1 * L + 2) * L + 2]).toBeCloseTo((1 * 0.5 - 1 * 0.5) * scale, 6);
  // The neuron view's own check: its softmax of these scores is the engine's weight.
  const pair = neuronPair(n, 1, 2, 0);
  expect(pair.softmaxWeight).toBeCloseTo(pair.weight, 6);
  expect(pair.score).toBeCloseTo(1 * scale, 6); // (1, −1)·(1, 0)
  expect(n.heads[1].tops[2]).toEqual([0]);
  expect(neuronRun({ ...run, query: undefined }, 0)).toBe(null);
});

test('byte pieces are counted in letters, never digits beside a position; the 毒 question follows the tokens', () => {
  // "不₁" beside its position 9 read as 不19, and "毒₁ 毒₂" clashed with the numbering 毒1 毒2.
  expect(['不₁', '不₂', '不₃', '毒死₁', '死₂', '毒', '▁there'].map(pieceLetters)).toEqual([
    '不ᵃ',
    '不ᵇ',
    '不ᶜ',
    '毒死ᵃ',
    '死ᵇ',
    '毒',
    '▁there',
  ]);
  expect(shortLabel('毒死₁')).toBe('毒死ᵃ');
  expect(tokenName({ text: '不₁', index: 11, label: '9' })).toBe('不ᵃ 9');
  // Qwen makes 毒蛇 (twice) and 毒死 one token each: only 毒1, 毒2 and 毒12 are tokens of their own.
  expect(duTokens(articleMap(QWEN, zeros(QWEN), SENTENCE))).toEqual({ alone: 3, shared: 3 });
  expect(duTokens(articleMap(BERT, BERT_SPECIAL, SENTENCE))).toEqual({ alone: 6, shared: 0 });
  expect(duTokens(articleMap(GPT2, zeros(GPT2), SENTENCE))).toEqual({ alone: 6, shared: 0 });
});

test('a [MASK] on a 毒 keeps the sentence: the mask token stands for the character it hides', () => {
  expect(maskedSentence(`用毒[MASK]${SENTENCE.slice(3)}`, '[MASK]')).toEqual({ hidden: ['毒'] });
  expect(maskedSentence(`[MASK]毒毒${SENTENCE.slice(3, 14)}[MASK]`, '[MASK]')).toEqual({ hidden: ['用', '死'] });
  expect(maskedSentence(`用毒[MASK]毒${SENTENCE.slice(3)}`, '[MASK]')).toBe(null); // one character too many
  expect(maskedSentence(SENTENCE, '[MASK]')).toBe(null);
  expect(maskedSentence(`用毒[MASK]${SENTENCE.slice(3)}`, null)).toBe(null);
  const tokens = [...BERT];
  tokens[3] = '[MASK]';
  const special = tokens.map((t) => (t.startsWith('[') ? 1 : 0));
  const text = `用毒[MASK]${SENTENCE.slice(3)}`;
  const map = articleMap(tokens, special, text, '[MASK]');
  expect(map.cover[3]).toEqual([2]);
  expect(articleIndex(map, 3)).toBe('2');
  expect(articleRole(map, 3)).toBe('verb');
  expect(map.cover[0]).toEqual([]); // [CLS] still stands for none
  // Without the model's mask token it is another text.
  expect(articleMap(tokens, special, text)).toBe(null);
});

test('SentencePiece’s word-start mark ▁ is explained wherever the tokens show it, and only then', () => {
  const even = (tokens) => ({
    tokens,
    attention: new Float32Array(tokens.length * tokens.length).fill(1 / tokens.length),
    numLayers: 1,
    numHeads: 1,
    causal: false,
    fit: null,
  });
  const xlmr = even(XLMR);
  xlmr.article = articleMap(XLMR, XLMR_SPECIAL, SENTENCE);
  expect(articleNotes(xlmr, SENTENCE).map((n) => n.kind)).toContain('wordStart');
  const bert = even(BERT);
  bert.article = articleMap(BERT, BERT_SPECIAL, SENTENCE);
  expect(articleNotes(bert, SENTENCE).map((n) => n.kind)).not.toContain('wordStart');
  const other = even(['▁Once', '▁upon']);
  other.article = null;
  expect(articleNotes(other, 'Once upon').map((n) => n.kind)).toEqual(['random', 'other', 'wordStart']);
});
