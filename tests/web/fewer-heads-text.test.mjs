// What "Which heads matter" writes of fewer heads and of one head
// (web/model/fewer-heads-text.mjs), on made-up results: the masks it gives
// withHeadsOff (each layer's kept head; one head off), what a head writes read
// from run()'s valueNorms layout [layers, heads, tokens], and the sentences in
// both languages, same or changed output.
import {
  headOffMask,
  headOffSentence,
  headWrites,
  oneHeadMask,
  oneHeadSentence,
  singleSentences,
  verdict,
  writesSentence,
} from '../../web/model/fewer-heads-text.mjs';
import { setLanguage } from '../../web/lib/i18n.mjs';

afterEach(() => setLanguage('en'));

const GROUPS = { encoder: { shape: [2, 3] }, cross: { shape: [1, 2] } };
const out = (ids, text) => ({ outputIds: Int32Array.from(ids), text, tokens: ids.map(String) });
const REFERENCE = { ...out([5, 6], 'a cat'), score: -1.5 };

test('each layer keeps the head oneHeadPerLayer names; one head off is the only 0', () => {
  const layers = {
    encoder: [
      { layer: 0, head: 2 },
      { layer: 1, head: 0 },
    ],
    cross: [{ layer: 0, head: 1 }],
  };
  expect(oneHeadMask(layers, GROUPS)).toEqual({
    encoder: [
      [0, 0, 1],
      [1, 0, 0],
    ],
    cross: [[0, 1]],
  });
  expect(headOffMask(GROUPS, { group: 'encoder', layer: 1, head: 2 })).toEqual({
    encoder: [
      [1, 1, 1],
      [1, 1, 0],
    ],
    cross: [[1, 1]],
  });
});

test('what a head writes: its row of valueNorms, the decoder’s tokens for an encoder-decoder’s decoder', () => {
  // [layers 2, heads 2, tokens 3]: value = 100·layer + 10·head + position.
  const norms = (L) => ({
    data: Float32Array.from(
      { length: 2 * 2 * L },
      (_, i) => 100 * Math.floor(i / (2 * L)) + 10 * (Math.floor(i / L) % 2) + (i % L),
    ),
    shape: [2, 2, L],
  });
  const run = {
    tokens: ['用', '毒', '</s>'],
    decoderTokens: ['<pad>', 'Use'],
    headOutputs: {
      encoder: { valueNorms: norms(3) },
      decoder: { valueNorms: norms(2) },
      cross: { valueNorms: norms(3) },
    },
  };
  expect(headWrites(run, { group: 'encoder', layer: 1, head: 0 })).toEqual([
    { position: 0, token: '用', norm: 100 },
    { position: 1, token: '毒', norm: 101 },
    { position: 2, token: '</s>', norm: 102 },
  ]);
  expect(headWrites(run, { group: 'decoder', layer: 0, head: 1 }).map((r) => [r.token, r.norm])).toEqual([
    ['<pad>', 10],
    ['Use', 11],
  ]);
  expect(headWrites(run, { group: 'cross', layer: 1, head: 1 }).map((r) => r.token)).toEqual(run.tokens);
  const rows = headWrites(run, { group: 'encoder', layer: 0, head: 1 });
  expect(writesSentence(rows)).toBe('Largest: “</s>” (position 2), 12.000; the median token’s: 11.000.');
  setLanguage('zh');
  expect(writesSentence(rows)).toBe('最大：“</s>”（位置 2），12.000；中位数：11.000。');
});

test('the sentences say whether the output stays, in both languages', () => {
  expect(verdict(out([5, 6]), REFERENCE)).toBe('same');
  expect(verdict(out([5]), REFERENCE)).toBe('changed');
  const mask = { encoder: [[0, 1, 0]], cross: [[1, 0]] };
  expect(oneHeadSentence({ reference: REFERENCE, score: -2.25, output: out([5, 6], 'a cat') }, mask)).toBe(
    'Every layer reduced to one head at once (2 of 5 heads kept): log-probability -2.250 (with every head -1.500); ' +
      'the output stays “a cat”.',
  );
  const one = {
    reference: REFERENCE,
    single: { encoder: { layer: 1, head: 0, score: -3, output: out([9], 'a dog') } },
    singleAll: { score: -4, output: out([5, 6], 'a cat') },
  };
  expect(singleSentences(one)).toEqual([
    'The encoder with layer 1 · head 0 alone (its other heads off, the other groups whole): log-probability ' +
      '-3.000; the output becomes “a dog”.',
    'Each group with its one head at once: log-probability -4.000; the output stays “a cat”.',
  ]);
  const off = { reference: REFERENCE, delta: -0.5, output: out([9], 'a dog') };
  setLanguage('zh');
  expect(headOffSentence(off, { group: 'cross', layer: 0, head: 1 })).toBe(
    '只关掉这个头，分数变化 -0.500，输出变成“a dog”（有它时：“a cat”）。',
  );
});
