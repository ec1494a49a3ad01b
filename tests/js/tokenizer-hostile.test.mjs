// Where a checkpoint's tokenizer runs (tokenizers/bounded-host.mjs, and in
// Node tokenizers/node-host.mjs): a worker whose calls are bounded in time,
// and in Node whose heap is bounded too, so that a tokenizer that gets past
// the load-time checks (tokenizers/check.mjs) and still runs away becomes an
// Error naming its file, never a dead process; the next call starts a fresh
// worker, a model's calls keep their order, and the engine and a good model
// go on bit for bit. What the checks refuse at load, and a runaway through
// loadModel and run on every build, is the hostile-checkpoint suite's
// (hostile-checkpoints.test.mjs); the same contract in a browser is
// tests/e2e/tokenizer-browser.test.mjs.
import { createAttention } from '../../src/js/node.mjs';
import { nodeTokenizerHost } from '../../src/js/models/tokenizers/node-host.mjs';
import { inThreadTokenizerHost } from '../../src/js/models/tokenizers/in-thread-host.mjs';
import { GOOD, SENTENCE } from './helpers/hostile-checkpoints.mjs';
import { filesOf, jsonOf } from './helpers/checkpoints.mjs';

const tokenizerJson = () => jsonOf(filesOf('bert-zh')['tokenizer.json']);
const replace = (pattern, content) => ({ type: 'Replace', pattern, content });
// Accepted by the checks (no repeated group), but it backtracks polynomially on a run of spaces:
// the probe text (single spaces) takes no time, 100 spaces over a minute.
const SPACES = {
  type: 'Sequence',
  pretokenizers: [
    { type: 'Split', pattern: { Regex: '\\s*\\s*\\s*\\s*\\s*\\s*\\u0001' }, behavior: 'Isolated', invert: false },
    { type: 'BertPreTokenizer' },
  ],
};

let engine;
let good;
let want;
beforeAll(async () => {
  engine = await createAttention({ threads: 1 });
  good = await engine.loadModel(GOOD);
  want = await good.run(SENTENCE);
});
afterAll(() => engine?.dispose());

/** The good model still gives bit-identical results. */
async function expectGoodModel() {
  const r = await good.run(SENTENCE);
  expect(Buffer.from(r.attention.buffer).equals(Buffer.from(want.attention.buffer))).toBe(true);
}

test('Node bounds a tokenizer in time and memory; a stopped one starts again for the next text', async () => {
  const json = tokenizerJson();
  json.pre_tokenizer = SPACES;
  const host = await nodeTokenizerHost(json, {}, 'tokenizer.json', { seconds: 1, heapMb: 64 });
  try {
    await expect(host.encode(`a${' '.repeat(100)}b`)).rejects.toThrow(
      'tokenizer.json: tokenizing this text took more than 1 s, so the tokenizer was stopped',
    );
    const { ids } = await host.encode('毒蛇');
    expect(ids).toEqual([2, 6, 7, 3]);
  } finally {
    host.dispose();
  }
  // Memory: a growth the checks allow (two Replace steps of 16 characters a character: 256 times) on a text
  // given to the host without the per-call bound that createTokenizer adds (tokenizer.mjs) ends at the
  // worker's heap limit.
  const grows = tokenizerJson();
  grows.normalizer = { type: 'Sequence', normalizers: Array(2).fill(replace({ Regex: '[\\s\\S]' }, 'y'.repeat(16))) };
  const big = await nodeTokenizerHost(grows, {}, 'tokenizer.json', { seconds: 20, heapMb: 64 });
  try {
    expect(big.growth.encode).toEqual({ factor: 256, extra: 0 });
    await expect(big.encode('毒'.repeat(1 << 20))).rejects.toThrow(
      /^tokenizer\.json: the tokenizer used more than its 64 MB of memory on this text/,
    );
    expect((await big.encode('毒')).ids.length).toBeGreaterThan(2); // a fresh worker
  } finally {
    big.dispose();
  }
  await expectGoodModel();
}, 60_000);

test('the worker and the calling thread refuse a tokenizer.json alike (both check it through serve.mjs)', async () => {
  const json = tokenizerJson();
  // Two Replace steps at a lookahead, each inserting 20 characters before every one: 21 × 21 times.
  json.normalizer = {
    type: 'Sequence',
    normalizers: Array(2).fill(replace({ Regex: '(?=[\\s\\S])' }, 'x'.repeat(20))),
  };
  const refusals = await Promise.all(
    [nodeTokenizerHost, inThreadTokenizerHost].map((host) =>
      host(json, {}, 'tokenizer.json').then(
        () => null,
        (e) => e.message,
      ),
    ),
  );
  expect(refusals[0]).toMatch(/^tokenizer\.json: normalizer can grow a text up to 441 times, more than 256; refused/);
  expect(refusals[1]).toBe(refusals[0]);
});

test('a model whose tokenizer runs in a worker tokenizes as before, and concurrent calls keep their order', async () => {
  const model = await engine.loadModel(GOOD);
  try {
    // A decoder-free check of order: ids and text runs issued together each give their own result.
    const [a, b, c] = await Promise.all([
      model.run(SENTENCE),
      model.run({ inputIds: want.inputIds }),
      model.run({ text: '用毒毒毒蛇', textPair: '蛇会被毒死吗？' }),
    ]);
    expect(Array.from(a.inputIds)).toEqual(Array.from(want.inputIds));
    expect(Buffer.from(b.attention.buffer).equals(Buffer.from(want.attention.buffer))).toBe(true);
    expect(c.inputIds.length).toBe(15);
  } finally {
    model.dispose();
  }
  await expect(model.run(SENTENCE)).rejects.toThrow('this model was disposed');
});
