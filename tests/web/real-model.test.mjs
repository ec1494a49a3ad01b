// The real-model view's pure parts: the head scores (model/real-model-scores.mjs)
// on small made-up attention, the sizes it writes (model/real-model-files.mjs;
// which files are the checkpoint is tests/js/checkpoint-files.test.mjs's), and
// the thumbnails' pixels (lib/attention-image.mjs).
import {
  SCORES,
  allHeadScores,
  baseText,
  focusRows,
  headScores,
  headWeights,
  median,
  occurrences,
  rankHeads,
  repeatedTokens,
  scoreSummary,
  standOut,
  tokenRecords,
  topKeys,
  uniformScores,
} from '../../web/model/real-model-scores.mjs';
import { tokenLanguage } from '../../web/model/tokenize.mjs';
import { pickModelFiles } from '../../src/js/node.mjs';
import { filesRead, formatBytes, totalBytes } from '../../web/model/real-model-files.mjs';
import { LEVELS, colourTable, weightPixels } from '../../web/lib/attention-image.mjs';
import { DEFAULTS, formatState, readLink } from '../../web/state.mjs';

const SENTENCE = ['[CLS]', ...'用毒毒毒蛇，毒蛇会不会被毒毒死', '[SEP]'];
// Which positions are special: the model's tokenizer says so (a run's `special`), not the text.
const specialOf = (tokens, names = ['[CLS]', '[SEP]', '<s>', '</s>']) => tokens.map((t) => (names.includes(t) ? 1 : 0));
const SPECIAL = specialOf(SENTENCE);
const close = (a, b) => expect(Math.abs(a - b)).toBeLessThan(1e-12);

/** An L × L block whose row i puts all its weight on key pick(i). */
const oneHot = (L, pick) => {
  const w = new Float32Array(L * L);
  for (let i = 0; i < L; i++) w[i * L + pick(i)] = 1;
  return w;
};

test('byte pieces', () => {
  expect(baseText('毒₁')).toBe('毒');
  expect(baseText('毒₁₂')).toBe('毒');
  expect(baseText(' snake')).toBe(' snake');
  // The three pieces of one 毒 are one occurrence; the next 毒 is another.
  expect(occurrences(['<s>', '毒₁', '毒₂', '毒₃', '毒₁', '毒₂', '蛇']).map((o) => o.occurrence)).toEqual([
    0, 1, 1, 1, 2, 2, 3,
  ]);
  expect(occurrences(['毒', '毒']).map((o) => o.occurrence)).toEqual([0, 1]);
});

test("the heatmap's token records: a piece's language is its character's, special tokens and words have none", () => {
  const records = tokenRecords(['[CLS]', '毒₁', '毒₂', ' snake', '<0xE7>']);
  expect(records.map((r) => r.index)).toEqual([0, 1, 2, 3, 4]);
  expect(records.map((r) => r.text)).toEqual(['[CLS]', '毒₁', '毒₂', ' snake', '<0xE7>']);
  expect(tokenLanguage('毒')).toBeTruthy();
  expect(records.map((r) => r.lang)).toEqual([
    undefined,
    tokenLanguage('毒'),
    tokenLanguage('毒'),
    undefined,
    undefined,
  ]);
});

test('the repeated tokens of the sentence: the six 毒 first, then 蛇 and 会; special tokens never', () => {
  const repeated = repeatedTokens(SENTENCE, SPECIAL);
  expect(repeated.map((r) => [r.text, r.count])).toEqual([
    ['毒', 6],
    ['蛇', 2],
    ['会', 2],
  ]);
  expect(repeated[0].positions).toEqual([2, 3, 4, 7, 13, 14]);
  expect(repeatedTokens(['[CLS]', '[CLS]', 'a', 'b'], [1, 1, 0, 0])).toEqual([]);
  // What is special is the run's word: the same texts, not special, repeat.
  expect(repeatedTokens(['[CLS]', '[CLS]', 'a', 'b'], [0, 0, 0, 0])[0]).toMatchObject({ text: '[CLS]', count: 2 });
  // Byte pieces: one 毒 in three pieces is not a repetition; two are.
  expect(repeatedTokens(['毒₁', '毒₂', '毒₃'], [0, 0, 0])).toEqual([]);
  expect(repeatedTokens(['毒₁', '毒₂', '毒₁', '毒₂'], [0, 0, 0, 0])[0]).toEqual({
    text: '毒',
    positions: [0, 1, 2, 3],
    count: 2,
  });
  expect(focusRows(SENTENCE, '毒', SPECIAL)).toEqual([2, 3, 4, 7, 13, 14]);
  expect(focusRows(SENTENCE, '', SPECIAL)).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
});

test('head scores: a previous-token head, a same-token head, a [CLS] head, a self head', () => {
  const L = SENTENCE.length;
  const rows = focusRows(SENTENCE, '毒', SPECIAL);
  const previous = headScores(
    oneHot(L, (i) => Math.max(0, i - 1)),
    SENTENCE,
    rows,
    SPECIAL,
  );
  expect(previous).toEqual({ neighbour: 1, same: 3 / 6, far: 0, special: 0, self: 0 });
  const toCls = headScores(
    oneHot(L, () => 0),
    SENTENCE,
    rows,
    SPECIAL,
  );
  // 毒2 and 毒3 are 2 and 3 places from [CLS]: not far.
  expect(toCls).toEqual({ neighbour: 0, same: 0, far: 4 / 6, special: 1, self: 0 });
  // Each 毒 looks at the 毒 six places on (or back): all of it to another 毒, far.
  const partner = { 2: 7, 3: 13, 4: 14, 7: 2, 13: 3, 14: 4 };
  const same = headScores(
    oneHot(L, (i) => partner[i] ?? i),
    SENTENCE,
    rows,
    SPECIAL,
  );
  expect(same).toEqual({ neighbour: 0, same: 1, far: 1, special: 0, self: 0 });
  expect(
    headScores(
      oneHot(L, (i) => i),
      SENTENCE,
      rows,
      SPECIAL,
    ),
  ).toEqual({ neighbour: 0, same: 0, far: 0, special: 0, self: 1 });
  expect(Object.keys(same)).toEqual(SCORES);
});

test('uniform rows: the baseline to read the heads against (causal: keys up to the query)', () => {
  const rows = focusRows(SENTENCE, '毒', SPECIAL);
  const L = SENTENCE.length;
  const base = uniformScores(SENTENCE, rows, SPECIAL);
  close(base.special, 2 / L);
  close(base.self, 1 / L);
  close(base.same, 5 / L);
  // Rows 2, 3, 4, 7, 13, 14: neighbours 2 each; far keys (|i−j| ≥ 4): 11+10+10+10+10+11 = 62.
  close(base.neighbour, 2 / L);
  close(base.far, 62 / 6 / L);
  const causal = uniformScores(['a', 'b', 'a'], [0, 2], [0, 0, 0], true);
  close(causal.same, (0 + 1 / 3) / 2);
  close(causal.neighbour, (0 + 1 / 3) / 2);
});

test('every head of a model, ranked by a score, with its top keys and a summary', () => {
  const tokens = ['[CLS]', 'a', 'b', 'a', '[SEP]'];
  const L = tokens.length;
  const heads = [
    oneHot(L, (i) => i),
    oneHot(L, (i) => (i === 1 ? 3 : i === 3 ? 1 : i)),
    oneHot(L, () => 0),
    oneHot(L, (i) => Math.min(L - 1, i + 1)),
  ];
  const attention = new Float32Array(4 * L * L);
  heads.forEach((w, i) => attention.set(w, i * L * L));
  expect(headWeights(attention, { numHeads: 2, length: L }, 1, 0)).toEqual(heads[2]);
  const special = specialOf(tokens);
  const rows = focusRows(tokens, 'a', special);
  const all = allHeadScores({ attention, tokens, special, numLayers: 2, numHeads: 2 }, rows);
  expect(all.map((h) => [h.layer, h.head])).toEqual([
    [0, 0],
    [0, 1],
    [1, 0],
    [1, 1],
  ]);
  expect(all[1].scores.same).toBe(1);
  expect(rankHeads(all, 'same').map((h) => `${h.layer}.${h.head}`)).toEqual(['0.1', '0.0', '1.0', '1.1']);
  expect(rankHeads(all, 'special')[0]).toBe(all[2]);
  const summary = scoreSummary(all, 'same', uniformScores(tokens, rows, special));
  expect(summary).toMatchObject({ best: all[1], median: 0, aboveHalf: 1, count: 4, applies: true });
  close(summary.baseline, 1 / 5);
  expect(summary.bar).toMatchObject({ rule: 'twice', count: 1 });
  close(summary.bar.threshold, 2 / 5);
  expect(topKeys(new Float32Array([0.1, 0.5, 0.2, 0.2]), 2, 1, 2)).toEqual([
    { k: 0, weight: new Float32Array([0.2])[0] },
    { k: 1, weight: new Float32Array([0.2])[0] },
  ]);
  expect(topKeys(new Float32Array([0.1, 0.5, 0.2, 0.2]), 2, 0, 1)).toEqual([{ k: 1, weight: 0.5 }]);
  expect(median([3, 1, 2])).toBe(2);
  expect(median([4, 1, 2, 3])).toBe(2.5);
  expect(median([])).toBe(0);
});

test('a bar a head can reach: twice the even spread, or halfway to 1 where twice is out of reach (far: 0.608)', () => {
  const L = SENTENCE.length;
  const rows = focusRows(SENTENCE, '毒', SPECIAL);
  const base = uniformScores(SENTENCE, rows, SPECIAL);
  close(base.far, 62 / 6 / L); // 0.608: twice it is 1.216, which no score (at most 1) can exceed
  // A head whose 毒 rows all look at a key 6 or more places away: the far score 1, the most any head can have.
  const farthest = { 2: 14, 3: 14, 4: 14, 7: 14, 13: 2, 14: 2 };
  const far = headScores(
    oneHot(L, (i) => farthest[i] ?? i),
    SENTENCE,
    rows,
    SPECIAL,
  );
  expect(far.far).toBe(1);
  const even = headScores(
    Float32Array.from({ length: L * L }, () => 1 / L),
    SENTENCE,
    rows,
    SPECIAL,
  );
  const heads = [far, even].map((scores, head) => ({ layer: 0, head, scores }));
  const summary = scoreSummary(heads, 'far', base);
  expect(summary.bar.rule).toBe('halfway');
  close(summary.bar.threshold, (1 + base.far) / 2);
  expect(summary.bar.count).toBe(1);
  // Below 1/3 the bar is twice the baseline; the two rules meet there; the bar is below 1 for any baseline below 1.
  expect(standOut(0.1)).toEqual({ rule: 'twice', threshold: 0.2 });
  close(standOut(1 / 3).threshold, 2 / 3);
  for (const b of [0.01, 0.3, 0.34, 0.6, 0.9, 0.999]) expect(standOut(b).threshold).toBeLessThan(1);
});

test('a score the sentence gives no key for (GPT-2: no special tokens) has no best head and no bar', () => {
  const tokens = [...'用毒毒毒蛇'];
  const special = tokens.map(() => 0);
  const rows = focusRows(tokens, '毒', special);
  const L = tokens.length;
  const heads = [0, 1].map((head) => ({
    layer: 0,
    head,
    scores: headScores(
      oneHot(L, (i) => Math.max(0, i - head)),
      tokens,
      rows,
      special,
    ),
  }));
  const base = uniformScores(tokens, rows, special, true);
  expect(base.special).toBe(0);
  expect(scoreSummary(heads, 'special', base)).toMatchObject({ applies: false, best: null, bar: null });
  expect(scoreSummary(heads, 'neighbour', base)).toMatchObject({ applies: true, best: heads[1] });
});

test("the files the loader read: its text files (pickModelFiles' read) and the weight files it reported, a shards' index with them", () => {
  const entry = (path, size = 1) => ({ path, size });
  // A BERT folder from the Hub: vocab.txt is not read beside tokenizer.json, nor the other formats' weights.
  const bert = [
    'config.json',
    'tokenizer.json',
    'tokenizer_config.json',
    'vocab.txt',
    'model.safetensors',
    'pytorch_model.bin',
    'tf_model.h5',
    'flax_model.msgpack',
    'README.md',
  ].map((n) => entry(`bert/${n}`));
  expect(filesRead(pickModelFiles(bert), ['model.safetensors']).map((e) => e.path)).toEqual([
    'bert/config.json',
    'bert/tokenizer.json',
    'bert/tokenizer_config.json',
    'bert/model.safetensors',
  ]);
  // GPT-2: vocab.json and merges.txt are not read beside its tokenizer.json; generation_config.json is.
  const gpt2 = [
    'config.json',
    'generation_config.json',
    'merges.txt',
    'vocab.json',
    'tokenizer.json',
    'model.safetensors',
    '64-8bits.tflite',
  ].map((n) => entry(n));
  expect(filesRead(pickModelFiles(gpt2), ['model.safetensors']).map((e) => e.path)).toEqual([
    'config.json',
    'generation_config.json',
    'tokenizer.json',
    'model.safetensors',
  ]);
  const shards = ['model-00001-of-00002.safetensors', 'model-00002-of-00002.safetensors'];
  const sharded = [
    'config.json',
    'tokenizer.json',
    'model.safetensors.index.json',
    ...shards,
    'pytorch_model.bin.index.json',
    'pytorch_model-00001-of-00002.bin',
  ].map((n) => entry(n));
  expect(filesRead(pickModelFiles(sharded), shards).map((e) => e.path)).toEqual([
    'config.json',
    'tokenizer.json',
    'model.safetensors.index.json',
    ...shards,
  ]);
});

test("the files' total size, and bytes as the view writes them", () => {
  expect(totalBytes([{ size: 4 }, { size: 5 }, {}, { size: 6 }])).toBe(4 + 5 + 6);
  expect(totalBytes([])).toBe(0);
  expect([812, 3400, 418_900_000, 1_320_000_000].map(formatBytes)).toEqual(['812 B', '3.4 KB', '418.9 MB', '1.32 GB']);
});

test('thumbnail pixels: one RGBA pixel per weight, from the colour table', () => {
  const table = colourTable(
    (t) => t,
    (t) => ({ r: 255 * t, g: 0, b: 255 - 255 * t }),
  );
  expect(table.length).toBe(LEVELS * 3);
  const pixels = weightPixels(new Float32Array([0, 1, 0.5, Number.NaN]), 2, table);
  expect([...pixels]).toEqual([0, 0, 255, 255, 255, 0, 0, 255, 128, 0, 127, 255, 0, 0, 255, 255]);
});

test('the link keeps the chosen head and the order (the model itself it cannot carry)', () => {
  const state = { ...DEFAULTS, realHead: { layer: 11, head: 3 }, realOrder: 'same' };
  expect(formatState(state)).toBe('?rhead=l11h3&rorder=same');
  expect(readLink('?rhead=l11h3&rorder=same').state).toEqual(state);
  const { state: bad, problems } = readLink('?rhead=l1&rorder=size');
  expect([bad.realHead, bad.realOrder]).toEqual([null, 'grid']);
  expect(problems.map((p) => p.param)).toEqual(['rhead', 'rorder']);
});
