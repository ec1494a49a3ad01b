// A checkpoint's tokenizer.json is untrusted (tokenizers/check.mjs,
// tokenizers/node-host.mjs): a normalizer that would grow a text without end
// and components of unknown types are refused at load, naming the file and
// the component; in Node the tokenizer runs in a worker thread whose time and
// heap are bounded, so a regex that backtracks for ever or a tokenizer that
// eats memory becomes an Error, never a dead process; the engine and a good
// model go on, bit for bit.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';
import { checkTokenizerJson } from '../../src/js/models/tokenizers/check.mjs';
import { nodeTokenizerHost } from '../../src/js/models/tokenizers/node-host.mjs';

const FOLDER = fileURLToPath(new URL('../fixtures/models/bert-zh/', import.meta.url));
const files = () =>
  Object.fromEntries(
    readdirSync(FOLDER)
      .filter((n) => n !== 'reference.json')
      .map((n) => [n, new Uint8Array(readFileSync(path.join(FOLDER, n)))]),
  );
const tokenizerJson = () => JSON.parse(readFileSync(path.join(FOLDER, 'tokenizer.json'), 'utf8'));
const withTokenizer = (json) => ({ ...files(), 'tokenizer.json': new TextEncoder().encode(JSON.stringify(json)) });
const SENTENCE = '用毒毒毒蛇，毒蛇会不会被毒毒死';

let engine;
let good;
let want;
beforeAll(async () => {
  engine = await createAttention({ threads: 1 });
  good = await engine.loadModel(FOLDER);
  want = await good.run(SENTENCE);
});
afterAll(() => engine?.dispose());

/** The good model still gives bit-identical results. */
async function expectGoodModel() {
  const r = await good.run(SENTENCE);
  expect(Buffer.from(r.attention.buffer).equals(Buffer.from(want.attention.buffer))).toBe(true);
}

const replace = (pattern, content) => ({ type: 'Replace', pattern, content });

test.each([
  [
    'six Replace steps with an empty regex (each inserting 20 characters between every character)',
    (j) => (j.normalizer = { type: 'Sequence', normalizers: Array(6).fill(replace({ Regex: '' }, 'x'.repeat(20))) }),
    'tokenizer.json: normalizer.normalizers[0].pattern can match the empty string, so Replace would insert its content between every character; refused',
  ],
  [
    'a Replace whose regex matches the empty string somewhere (a*)',
    (j) => (j.normalizer = replace({ Regex: 'a*' }, 'bb')),
    'tokenizer.json: normalizer.pattern can match the empty string',
  ],
  [
    'Replace steps that grow a text 1000 times',
    (j) => (j.normalizer = { type: 'Sequence', normalizers: Array(3).fill(replace({ String: 'a' }, 'y'.repeat(10))) }),
    "tokenizer.json: normalizer.normalizers[2] makes the normalizer's Replace steps grow a text up to 1000 times, more than 256",
  ],
  [
    'a pre-tokenizer of a type no tokenizer has',
    (j) => (j.pre_tokenizer = { type: 'Eval', code: 'process.exit()' }),
    'tokenizer.json: pre_tokenizer has type "Eval", not one of BertPreTokenizer',
  ],
  [
    'Sequences nested 40 deep',
    (j) => {
      let n = { type: 'Lowercase' };
      for (let i = 0; i < 40; i++) n = { type: 'Sequence', normalizers: [n] };
      j.normalizer = n;
    },
    'nests Sequences more than 16 deep',
  ],
  [
    'a regex of 5,000 characters',
    (j) =>
      (j.pre_tokenizer = { type: 'Split', pattern: { Regex: 'a'.repeat(5000) }, behavior: 'Isolated', invert: false }),
    'tokenizer.json: pre_tokenizer.pattern is 5000 characters long, more than 2000',
  ],
  [
    'a regex that is not one',
    (j) => (j.pre_tokenizer = { type: 'Split', pattern: { Regex: '(' }, behavior: 'Isolated', invert: false }),
    'tokenizer.json: pre_tokenizer.pattern is not a valid regex',
  ],
  ['no model', (j) => delete j.model, 'tokenizer.json: model is missing'],
])('refused at load: %s', async (_, change, message) => {
  const json = tokenizerJson();
  change(json);
  await expect(engine.loadModel(withTokenizer(json))).rejects.toThrow(message);
  await expectGoodModel();
});

test('a pre-tokenizer regex that backtracks for ever stops the load after 10 s, not the process', async () => {
  const json = tokenizerJson();
  json.pre_tokenizer = {
    type: 'Split',
    pattern: { Regex: '([\\s\\S]|[\\s\\S]|[\\s\\S])*$x' },
    behavior: 'Isolated',
    invert: false,
  };
  const started = Date.now();
  await expect(engine.loadModel(withTokenizer(json))).rejects.toThrow(
    'tokenizer.json: tokenizing this text took more than 10 s, so the tokenizer was stopped',
  );
  expect(Date.now() - started).toBeLessThan(20_000);
  await expectGoodModel();
}, 40_000);

test('Node bounds a tokenizer in time and memory; a stopped one starts again for the next text', async () => {
  // (a|a)*$x backtracks on a run of a's only: the probe text passes, a run of 40 a's does not.
  const json = tokenizerJson();
  json.pre_tokenizer = { type: 'Split', pattern: { Regex: '(a|a)*$x' }, behavior: 'Isolated', invert: false };
  const host = await nodeTokenizerHost(json, {}, 'tokenizer.json', { seconds: 1, heapMb: 64 });
  try {
    await expect(host.encode('a'.repeat(40))).rejects.toThrow(
      'tokenizer.json: tokenizing this text took more than 1 s',
    );
    const { ids } = await host.encode('hello');
    expect(ids.length).toBeGreaterThan(2);
  } finally {
    host.dispose();
  }
  // Memory: the growth the checks refuse, given to the worker unchecked, ends at its heap limit.
  const bomb = tokenizerJson();
  bomb.normalizer = { type: 'Sequence', normalizers: Array(6).fill(replace({ Regex: '' }, 'x'.repeat(20))) };
  expect(() => checkTokenizerJson(bomb)).toThrow(/can match the empty string/);
  await expect(nodeTokenizerHost(bomb, {}, 'tokenizer.json', { seconds: 20, heapMb: 64 })).rejects.toThrow(
    /^tokenizer\.json: the tokenizer used more than its 64 MB of memory on this text/,
  );
  await expectGoodModel();
}, 60_000);

test('a model whose tokenizer runs in a worker tokenizes as before, and concurrent calls keep their order', async () => {
  const model = await engine.loadModel(FOLDER);
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
