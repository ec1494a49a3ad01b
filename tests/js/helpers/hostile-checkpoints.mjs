// The hostile-checkpoint suite's inputs (tests/js/hostile-checkpoints.test.mjs
// runs them in child processes, hostile-child.mjs): every input of issue 27
// ("Hostile checkpoints and tokenizers") that once crashed, hung, leaked,
// gave a silently wrong result or an unclear message, and the ones that the
// tokenizer's checks were later found to let through. Each case is
// { name, kind, act(engine, tools) → a JSON value, expect }, where `expect`
// is { refused: [error name, RegExp of its message] } (act must throw it) or
// { value(value, expect) } (act's result, checked with Jest's expect); a case
// with `heap: true` must also leave the heap's size where it was; one with
// `oneEngine: true` runs on the suite's first engine only (what it tests is
// not the engine's: the tokenizer's time bound). The child
// runs act on an engine holding a good model and checks, after each case,
// that the good model gives the same bits and the engine's wasm memory in use
// is where it was.
import { closeSync, ftruncateSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bertTensors } from '../../../bench/model-checkpoint.mjs';
import {
  MODELS,
  filesOf,
  jsonBytes,
  jsonOf,
  keepTensors,
  safetensorsOf,
  splitSafetensors,
  withHeader,
  withJson,
} from './checkpoints.mjs';
import { GGUF_ROWS } from './hostile-gguf.mjs';

export const SENTENCE = '用毒毒毒蛇，毒蛇会不会被毒毒死';
/** The good model each case is followed by, as a folder path. */
export const GOOD = path.join(MODELS, 'bert-zh');

/** The kinds of issue 27's list, and 'unbounded': a tokenizer component the checks must refuse before it runs. */
export const KINDS = ['crash', 'hang', 'leak', 'silent', 'message', 'unbounded'];

const QUERY = 'bert.encoder.layer.1.attention.self.query.weight';
const KEY = 'bert.encoder.layer.1.attention.self.key.weight';

const withTokenizer = (change, name = 'bert-zh') => withJson(filesOf(name), 'tokenizer.json', change);
const withConfig = (change, name = 'bert-zh') => withJson(filesOf(name), 'config.json', change);
const withWeights = (change) => {
  const files = filesOf('bert-zh');
  return { ...files, 'model.safetensors': change(files['model.safetensors']) };
};
const replace = (pattern, content) => ({ type: 'Replace', pattern, content });
const split = (Regex) => ({ type: 'Split', pattern: { Regex }, behavior: 'Isolated', invert: false });

/** An act that loads `source()` (with `options`) and, if that works, disposes the model: for refusals. */
const load = (source, options) => async (engine) => {
  const model = await engine.loadModel(source(), options);
  model.dispose();
  return { loaded: true };
};

/** An act that loads `source()`, hands the model to `use`, and disposes it. */
const withModel = (source, use) => async (engine, tools) => {
  const model = await engine.loadModel(source());
  try {
    return await use(model, tools);
  } finally {
    model.dispose();
  }
};

/** The good model's run of the sentence from `source()` as bits, and whether they are the path's. */
const sameAsPath = (source) =>
  withModel(source, async (model, tools) => ({ sameAsPath: tools.sameBits(await model.run(SENTENCE)) }));

const refused = (name, message) => ({ refused: [name, message] });

// A folder whose model.safetensors is a sparse file: the header of a BERT with hidden size 4096 and 40
// layers (10.7 GB of float32), the data segment never written (it takes no disk).
function sparseHugeFolder() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mha-huge-'));
  const config = { ...jsonOf(filesOf('bert-zh')['config.json']), hidden_size: 4096, num_attention_heads: 8 };
  Object.assign(config, { intermediate_size: 64, num_hidden_layers: 40 });
  writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config));
  const header = {};
  let offset = 0;
  for (const [name, shape] of bertTensors(config)) {
    const bytes = shape.reduce((a, b) => a * b, 4);
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  const start = safetensorsOf(header, new Uint8Array(0));
  const fd = openSync(path.join(dir, 'model.safetensors'), 'w');
  try {
    writeSync(fd, start);
    ftruncateSync(fd, start.length + offset);
  } finally {
    closeSync(fd);
  }
  return { dir, bytes: start.length + offset };
}

/** [name, kind, act, expect, extra] rows, made into cases below. */
const ROWS = [
  // ---- Crash: a tokenizer that grows a text without end took Node's heap (SIGABRT) and the page's tab.
  [
    'tokenizer.json: six Replace steps with an empty regex, each inserting 20 characters between every character',
    'crash',
    load(() =>
      withTokenizer((j) => {
        j.normalizer = { type: 'Sequence', normalizers: Array(6).fill(replace({ Regex: '' }, 'x'.repeat(20))) };
      }),
    ),
    refused('Error', /^tokenizer\.json: normalizer\.normalizers\[0\]\.pattern can match the empty string, so Replace/),
  ],
  [
    'tokenizer.json: a Replace whose regex matches the empty string somewhere (a*)',
    'crash',
    load(() => withTokenizer((j) => void (j.normalizer = replace({ Regex: 'a*' }, 'bb')))),
    refused('Error', /^tokenizer\.json: normalizer\.pattern can match the empty string/),
  ],
  [
    'tokenizer.json: 24 Replace steps at a lookahead, (?=[\\s\\S]), each doubling the text (they passed the empty-match check)',
    'crash',
    load(() =>
      withTokenizer((j) => {
        j.normalizer = { type: 'Sequence', normalizers: Array(24).fill(replace({ Regex: '(?=[\\s\\S])' }, 'x')) };
      }),
    ),
    refused('Error', /^tokenizer\.json: normalizer can grow a text up to 16777216 times, more than 256; refused/),
  ],
  [
    'tokenizer.json: Replace steps that grow a text 1000 times',
    'crash',
    load(() =>
      withTokenizer((j) => {
        j.normalizer = { type: 'Sequence', normalizers: Array(3).fill(replace({ String: 'a' }, 'y'.repeat(10))) };
      }),
    ),
    refused('Error', /^tokenizer\.json: normalizer can grow a text up to 1000 times, more than 256; refused/),
  ],
  [
    'tokenizer.json: NFKD after a Replace of every character by U+FDFA (18 characters in NFKD), ten times',
    'crash',
    load(() =>
      withTokenizer((j) => {
        const steps = Array.from({ length: 10 }, () => [replace({ Regex: '[\\s\\S]' }, '\uFDFA'), { type: 'NFKD' }]);
        j.normalizer = { type: 'Sequence', normalizers: steps.flat() };
      }),
    ),
    refused('Error', /^tokenizer\.json: normalizer can grow a text up to \d+ times, more than 256/),
  ],
  [
    'tokenizer.json: a Sequence of 30 ByteLevel pre-tokenizers (each makes a character up to 3)',
    'crash',
    load(() =>
      withTokenizer((j) => {
        const step = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false };
        j.pre_tokenizer = { type: 'Sequence', pretokenizers: Array(30).fill(step) };
      }, 'gpt2'),
    ),
    refused('Error', /^tokenizer\.json: pre_tokenizer can grow a text up to \d+ times, more than 256/),
  ],
  [
    "tokenizer.json: a Replace whose content is $' (the library's replaceAll writes the rest of the text at each match)",
    'crash',
    load(() => withTokenizer((j) => void (j.normalizer = replace({ Regex: '[\\s\\S]' }, "$'")))),
    refused(
      'Error',
      /^tokenizer\.json: normalizer\.content holds "\$'", which the tokenizers library reads as a replacement/,
    ),
  ],
  [
    'tokenizer.json: a decoder Replace with an empty regex',
    'crash',
    load(() =>
      withTokenizer((j) => {
        j.decoder = { type: 'Sequence', decoders: Array(6).fill(replace({ Regex: '' }, 'x'.repeat(20))) };
      }),
    ),
    refused('Error', /^tokenizer\.json: decoder\.decoders\[0\]\.pattern can match the empty string/),
  ],
  [
    'tokenizer.json: 40 decoder Replace steps that double every character',
    'crash',
    load(() =>
      withTokenizer((j) => {
        j.decoder = { type: 'Sequence', decoders: Array(40).fill(replace({ Regex: '[\\s\\S]' }, 'ab')) };
      }, 'gpt2'),
    ),
    refused('Error', /^tokenizer\.json: decoder can grow a text up to 1099511627776 times, more than 256/),
  ],
  [
    'tokenizer.json: a Metaspace pre-tokenizer whose replacement is 100 characters',
    'crash',
    load(() => withTokenizer((j) => void (j.pre_tokenizer = { type: 'Metaspace', replacement: '\u2581'.repeat(100) }))),
    refused('Error', /^tokenizer\.json: pre_tokenizer\.replacement is 100 characters long, more than 64; refused/),
  ],
  [
    'a text longer than the tokenizer may read at once (its growth times the text past 4M characters)',
    'crash',
    withModel(
      () => filesOf('bert-zh'),
      (model) => model.run('毒'.repeat(200_000)),
    ),
    refused(
      'RangeError',
      /^input\.text: 200000 characters, more than the \d+ that tokenizer\.json's tokenizer reads at once \(it can grow a text up to 24 times\)$/,
    ),
  ],
  // ---- Components the checks cannot bound, refused before the tokenizer is made.
  [
    'tokenizer.json: a pre-tokenizer of a type no tokenizer has',
    'unbounded',
    load(() => withTokenizer((j) => void (j.pre_tokenizer = { type: 'Eval', code: 'process.exit()' }))),
    refused('Error', /^tokenizer\.json: pre_tokenizer has type "Eval", not one of BertPreTokenizer/),
  ],
  [
    'tokenizer.json: Sequences nested 40 deep',
    'unbounded',
    load(() =>
      withTokenizer((j) => {
        let n = { type: 'Lowercase' };
        for (let i = 0; i < 40; i++) n = { type: 'Sequence', normalizers: [n] };
        j.normalizer = n;
      }),
    ),
    refused('Error', /^tokenizer\.json: normalizer(\.normalizers\[0\])+ nests Sequences more than 16 deep/),
  ],
  [
    'tokenizer.json: a regex of 5,000 characters',
    'unbounded',
    load(() => withTokenizer((j) => void (j.pre_tokenizer = split('a'.repeat(5000))))),
    refused('Error', /^tokenizer\.json: pre_tokenizer\.pattern is 5000 characters long, more than 2000/),
  ],
  [
    'tokenizer.json: a regex that is not one',
    'unbounded',
    load(() => withTokenizer((j) => void (j.pre_tokenizer = split('(')))),
    refused('Error', /^tokenizer\.json: pre_tokenizer\.pattern is not a valid regex/),
  ],
  [
    'tokenizer.json: no model',
    'unbounded',
    load(() => withTokenizer((j) => void delete j.model)),
    refused('Error', /^tokenizer\.json: model is missing; refused/),
  ],
  // ---- Hangs.
  [
    'tokenizer.json: a pre-tokenizer regex that backtracks exponentially, ([\\s\\S]|[\\s\\S]|[\\s\\S])*$x (23 characters never finished)',
    'hang',
    load(() => withTokenizer((j) => void (j.pre_tokenizer = split('([\\s\\S]|[\\s\\S]|[\\s\\S])*$x')))),
    refused(
      'Error',
      /^tokenizer\.json: pre_tokenizer\.pattern repeats \(\[\\s\\S\]\|\[\\s\\S\]\|\[\\s\\S\]\)\*, a group that holds an alternation or a repetition, whose backtracking can take exponential time; refused/,
    ),
  ],
  [
    'tokenizer.json: a pre-tokenizer regex with a repeated repetition, (a+)+b',
    'hang',
    load(() => withTokenizer((j) => void (j.pre_tokenizer = split('(a+)+b')))),
    refused('Error', /^tokenizer\.json: pre_tokenizer\.pattern repeats \(a\+\)\+, a group that holds/),
  ],
  [
    'tokenizer.json: a pre-tokenizer regex the checks accept that backtracks polynomially on a run of spaces: that call stops after 10 s, the next works',
    'hang',
    withModel(
      // Split on the whole text first (no match: one piece), then BERT's own pre-tokenizer.
      () =>
        withTokenizer((j) => {
          j.pre_tokenizer = {
            type: 'Sequence',
            pretokenizers: [split('\\s*\\s*\\s*\\s*\\s*\\s*\\u0001'), { type: 'BertPreTokenizer' }],
          };
        }),
      async (model) => {
        const started = Date.now();
        const error = await model.run(`a${' '.repeat(100)}b`).then(
          () => null,
          (e) => e.message,
        );
        const seconds = (Date.now() - started) / 1000;
        return { error, seconds, after: Array.from((await model.run('毒蛇')).inputIds) };
      },
    ),
    {
      value(v, expect) {
        expect(v.error).toMatch(
          /^tokenizer\.json: tokenizing this text took more than 10 s, so the tokenizer was stopped/,
        );
        expect(v.seconds).toBeLessThan(30); // the bound is 10 s; the text alone would take over a minute
        expect(v.after).toEqual([2, 6, 7, 3]); // [CLS] 毒 蛇 [SEP], from a fresh worker
      },
    },
    // The bound is the tokenizer's host's (a worker_thread of its own), whichever engine holds the model: its
    // 10 s of a busy core once, not once an engine.
    { oneEngine: true },
  ],
  [
    'Buffers (what fs.readFileSync gives) that are views into one 256 MiB ArrayBuffer: each chunk is copied alone, never the whole buffer',
    'hang',
    async (engine, tools) => {
      const pool = new ArrayBuffer(256 << 20); // untouched, so it takes no memory unless something copies it
      let at = 0;
      const files = {};
      for (const [name, bytes] of Object.entries(filesOf('bert-zh'))) {
        files[name] = Buffer.from(pool, at, bytes.length);
        files[name].set(bytes);
        at += bytes.length + 4096;
      }
      const before = process.memoryUsage().rss;
      const model = await engine.loadModel(files);
      const grownMiB = (process.memoryUsage().rss - before) / 2 ** 20;
      try {
        return { sameAsPath: tools.sameBits(await model.run(SENTENCE)), grownMiB };
      } finally {
        model.dispose();
      }
    },
    {
      value(v, expect) {
        expect(v.sameAsPath).toBe(true);
        expect(v.grownMiB).toBeLessThan(128); // a copy of the pool per chunk would be 256 MiB each
      },
    },
  ],
  [
    'a Uint8Array subclass whose length and byteLength lie and whose slice() gives { byteLength, length: 1e9 }',
    'hang',
    sameAsPath(() => {
      class Liar extends Uint8Array {
        get length() {
          return 1e9;
        }
        get byteLength() {
          return 1e9;
        }
        slice() {
          return { byteLength: 5, length: 1e9 };
        }
      }
      return Object.fromEntries(
        Object.entries(filesOf('bert-zh')).map(([name, bytes]) => {
          const liar = new Liar(bytes.length);
          Uint8Array.prototype.set.call(liar, bytes);
          return [name, liar];
        }),
      );
    }),
    { value: (v, expect) => expect(v).toEqual({ sameAsPath: true }) },
  ],
  // ---- Leaks.
  [
    'config.json: vocab_size 4194304 on a tiny checkpoint (its 517 MiB were allocated before the shapes were checked)',
    'leak',
    load(() => withConfig((c) => void (c.vocab_size = 4194304))),
    refused(
      'Error',
      /^model\.safetensors: tensor "bert\.embeddings\.word_embeddings\.weight" has shape \[26,32\], but config\.json's sizes make it \[4194304,32\]$/,
    ),
    { heap: true },
  ],
  [
    'a Uint8Array subclass whose getters throw, loaded 20 times (an exception across Model.write once left 17 B each)',
    'leak',
    async (engine, tools) => {
      class Thrower extends Uint8Array {
        get length() {
          throw new Error('length');
        }
        get byteLength() {
          throw new Error('byteLength');
        }
        get buffer() {
          throw new Error('buffer');
        }
      }
      const files = Object.fromEntries(
        Object.entries(filesOf('bert-zh')).map(([name, bytes]) => {
          const thrower = new Thrower(bytes.length);
          Uint8Array.prototype.set.call(thrower, bytes);
          return [name, thrower];
        }),
      );
      let same = 0;
      for (let i = 0; i < 20; i++) {
        const model = await engine.loadModel(files);
        if (tools.sameBits(await model.run(SENTENCE))) same++;
        model.dispose();
      }
      return { same };
    },
    { value: (v, expect) => expect(v).toEqual({ same: 20 }) },
  ],
  [
    "%TypedArray%.prototype.set replaced by a throwing one, 20 loads (the chunk's copy threw inside Model.write: ~94 KB left each)",
    'leak',
    async (engine, tools) => {
      const prototype = Object.getPrototypeOf(Uint8Array.prototype);
      const intrinsic = prototype.set;
      const outcomes = { loaded: 0, same: 0, refused: [] };
      // Only while the loader copies: the files are read before (filesOf), the checks run after.
      const files = filesOf('bert-zh');
      for (let i = 0; i < 20; i++) {
        prototype.set = function set() {
          throw new Error('a hostile set()');
        };
        let model;
        try {
          model = await engine.loadModel(files);
        } catch (error) {
          outcomes.refused.push(String(error?.message));
        } finally {
          prototype.set = intrinsic;
        }
        if (model) {
          outcomes.loaded++;
          if (tools.sameBits(await model.run(SENTENCE))) outcomes.same++;
          model.dispose();
        }
      }
      return outcomes;
    },
    // The engine copies with the set() it found: every load works, and gives the good model's bits.
    { value: (v, expect) => expect(v).toEqual({ loaded: 20, same: 20, refused: [] }) },
  ],
  // ---- Silent wrong results.
  [
    "model.safetensors: the header length lowered into the header's padding (every tensor shifted)",
    'silent',
    load(() =>
      withWeights((weights) => {
        const { header, data } = splitSafetensors(weights);
        const padded = safetensorsOf({ __metadata__: { format: 'pt' }, ...header }, data, 8);
        const claimed = new DataView(padded.buffer).getBigUint64(0, true) - 4n;
        new DataView(padded.buffer).setBigUint64(0, claimed, true);
        return padded;
      }),
    ),
    refused('Error', /^model\.safetensors: .*(inside the tensor before it|leaving bytes|after the last tensor)/),
  ],
  [
    'model.safetensors: an empty tensor between two that overlap',
    'silent',
    load(() =>
      withWeights((weights) =>
        withHeader(weights, (h) => {
          const [begin] = h[QUERY].data_offsets;
          h['bert.empty'] = { dtype: 'F32', shape: [0], data_offsets: [begin + 4, begin + 4] };
          h[KEY].data_offsets = [begin + 4, begin + 4 + (h[KEY].data_offsets[1] - h[KEY].data_offsets[0])];
        }),
      ),
    ),
    refused(
      'Error',
      /^model\.safetensors: tensor ".*" starts at byte \d+, inside the tensor before it \(data_offsets overlap\)$/,
    ),
  ],
  [
    'model.safetensors: a gap in the data segment (a tensor’s entry gone, its bytes left)',
    'silent',
    load(() => withWeights((w) => withHeader(w, (h) => delete h['bert.encoder.layer.1.output.dense.weight']))),
    refused(
      'Error',
      /^model\.safetensors: tensor ".*" starts at byte \d+, leaving bytes \d+–\d+ that no tensor holds$/,
    ),
  ],
  [
    'model.safetensors: bytes after the last tensor',
    'silent',
    load(() => withWeights((w) => new Uint8Array([...w, 0, 0, 0, 0]))),
    refused('Error', /^model\.safetensors: 4 bytes after the last tensor \(byte \d+ to the end\)/),
  ],
  ...[
    [2 ** 32 + 5, /has id 4294967301, not a token of the model \(0 to 25, config\.json's vocab_size\)$/],
    [5.5, /has id 5\.5, not a token of the model/],
  ].map(([id, message]) => [
    `tokenizer.json: an added token of id ${id} (it ran as row 5)`,
    'silent',
    load(() =>
      withTokenizer((j) => {
        j.added_tokens.push({ id, content: '蟒', single_word: false, lstrip: false, rstrip: false, normalized: false });
      }),
    ),
    refused('Error', new RegExp(`^tokenizer\\.json: added_tokens\\[5\\] \\("蟒"\\) ${message.source}`)),
  ]),
  [
    'tokenizer.json: a WordPiece unk_token that is not in its vocabulary (unknown words became id 0, [PAD])',
    'silent',
    load(() => withTokenizer((j) => void (j.model.unk_token = '[NOPE]'))),
    refused(
      'Error',
      /^tokenizer\.json: model\.unk_token "\[NOPE\]" is not in model\.vocab, so an unknown word would have no id$/,
    ),
  ],
  ...['"1"', '"abc"', '1.5'].map((pad) => [
    `config.json: a RoBERTa pad_token_id of ${pad} (positions offset by 11, 0 and 2)`,
    'silent',
    load(() => withConfig((c) => void (c.pad_token_id = JSON.parse(pad)), 'roberta')),
    refused(
      'Error',
      new RegExp(`^config\\.json: pad_token_id must be a non-negative integer, got ${pad.replace('.', '\\.')}$`),
    ),
  ]),
  [
    "vocab.txt: a line repeated: the last line's id wins, as transformers' load_vocab keeps it",
    'silent',
    withModel(
      () => {
        const files = filesOf('bert-zh-vocab');
        const lines = new TextDecoder().decode(files['vocab.txt']).split('\n');
        lines[lines.lastIndexOf('!')] = '毒'; // 毒 on its own line and again on the last one
        return { ...files, 'vocab.txt': new TextEncoder().encode(lines.join('\n')) };
      },
      async (model) => Array.from((await model.run('毒')).inputIds),
    ),
    { value: (v, expect) => expect(v).toEqual([2, 25, 3]) }, // [CLS], the last 毒 (line 26), [SEP]
  ],
  [
    'GPT-2: tokenTypeIds of zeros (transformers adds wte(token_type_ids))',
    'silent',
    withModel(
      () => filesOf('gpt2'),
      (model) => model.run({ inputIds: [1, 2, 3], tokenTypeIds: [0, 0, 0] }),
    ),
    refused('TypeError', /^input\.tokenTypeIds: a gpt2 has no token type embeddings; leave tokenTypeIds out$/),
  ],
  [
    '{ text, inputIds } together (the ids were ignored)',
    'silent',
    withModel(
      () => filesOf('bert-zh'),
      (model) => model.run({ text: '毒', inputIds: [2, 6, 3] }),
    ),
    refused('TypeError', /^input: give text or inputIds, not both/),
  ],
  [
    '{ inputIds, textPair } (the pair was ignored)',
    'silent',
    withModel(
      () => filesOf('bert-zh'),
      (model) => model.run({ inputIds: [2, 6, 3], textPair: '毒' }),
    ),
    refused('TypeError', /^input\.textPair: a second text goes with text, not with inputIds$/),
  ],
  [
    'config.json: model_type ["bert"] (config.modelType became a list)',
    'silent',
    load(() => withConfig((c) => void (c.model_type = ['bert']))),
    refused('Error', /^config\.json: model_type \["bert"\] is not supported/),
  ],
  ...['tokenizer.json', 'config.json', 'model.safetensors.index.json'].map((name) => [
    `${name} of null (tokenizer.json's was skipped)`,
    'silent',
    load(() => ({ ...filesOf('bert-zh'), [name]: jsonBytes(null) })),
    refused('Error', new RegExp(`^${name.replace(/\./g, '\\.')}: expected a JSON object, got null$`)),
  ]),
  // ---- Unclear messages: each names the file, the field, what was expected and given.
  [
    'model.safetensors.index.json: a weight_map naming constructor, __proto__ and toString',
    'message',
    load(() => ({
      ...filesOf('bert-zh'),
      'model.safetensors.index.json': jsonBytes({ weight_map: { a: 'constructor', b: '__proto__', c: 'toString' } }),
    })),
    refused(
      'Error',
      /^(?=.*__proto__)(?=.*constructor)(?=.*toString)model\.safetensors\.index\.json lists .*, which the folder does not have$/,
    ),
  ],
  [
    'model.safetensors.index.json: a weight_map of null',
    'message',
    load(() => ({ ...filesOf('bert-zh'), 'model.safetensors.index.json': jsonBytes({ weight_map: null }) })),
    refused('Error', /^model\.safetensors\.index\.json: no weight_map/),
  ],
  [
    'model.safetensors: 32 tensors missing (once ": 37 tensors missing", without the file)',
    'message',
    load(() =>
      withWeights((w) => keepTensors(w, (name) => name.startsWith('bert.embeddings.') && !name.endsWith('_ids'))),
    ),
    refused(
      'Error',
      /^model\.safetensors: 32 tensors missing: [\w.]+, [\w.]+, [\w.]+, … \(a bert of 2 layers, as config\.json says, needs 42\)$/,
    ),
  ],
  [
    'tokenizer_config.json: cls_token null beside vocab.txt (once "vocab.txt: no undefined token")',
    'message',
    withModel(
      () => ({ ...filesOf('bert-zh-vocab'), 'tokenizer_config.json': jsonBytes({ cls_token: null }) }),
      async (model) => (await model.run('毒')).tokens,
    ),
    { value: (v, expect) => expect(v).toEqual(['[CLS]', '毒', '[SEP]']) }, // BertTokenizer's default [CLS]
  ],
  ...[
    ['tokenizer.json', 'bert-zh'],
    ['vocab.txt', 'bert-zh-vocab'],
  ].map(([name, folder]) => [
    `${name} of 64 MiB + 1 byte (600 MB were read whole into a string)`,
    'message',
    load(() => ({ ...filesOf(folder), [name]: new Uint8Array((64 << 20) + 1).fill(32) })),
    refused(
      'Error',
      new RegExp(`^${name.replace('.', '\\.')}: 67108865 bytes, more than the 67108864 a checkpoint's text file has$`),
    ),
  ]),
  [
    'config.json: a RoBERTa pad_token_id of -5 (refused as "positionOffset: … got 4294967292")',
    'message',
    load(() => withConfig((c) => void (c.pad_token_id = -5), 'roberta')),
    refused('Error', /^config\.json: pad_token_id must be a non-negative integer, got -5$/),
  ],
  [
    'a text that is not a string (text-path errors were named after inputIds)',
    'message',
    withModel(
      () => filesOf('bert-zh'),
      (model) => model.run({ text: 42 }),
    ),
    refused('TypeError', /^input\.text: expected a string, got number 42$/),
  ],
  [
    "a text longer than the model's positions",
    'message',
    withModel(
      () => filesOf('bert-zh'),
      (model) => model.run('毒'.repeat(100)),
    ),
    refused('RangeError', /^input: 102 tokens, more than the 64 this model has positions for/),
  ],
  [
    'a model too large for the memory (10.7 GB of float32, a sparse file): refused before any weight is read, naming the sizes',
    'message',
    async (engine) => {
      const { dir } = sparseHugeFolder();
      try {
        const model = await engine.loadModel(dir);
        model.dispose();
        return { loaded: true };
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    refused('RangeError', /^model: needs \d+ bytes of WebAssembly memory, more than the \d+ bytes available/),
    { heap: true },
  ],
  [
    'a detached ArrayBuffer (was "offset is out of bounds")',
    'message',
    load(() => {
      const files = filesOf('bert-zh');
      structuredClone(files['model.safetensors'].buffer, { transfer: [files['model.safetensors'].buffer] });
      return files;
    }),
    refused('TypeError', /^source\["model\.safetensors"\]: its ArrayBuffer is detached/),
  ],
  [
    'config.json: layer_norm_eps "1e-12", a string (refused without saying so)',
    'message',
    load(() => withConfig((c) => void (c.layer_norm_eps = '1e-12'))),
    refused(
      'Error',
      /^config\.json: the layer norm epsilon must be a number > 0 and finite as a float32, got "1e-12"$/,
    ),
  ],
  [
    'loadModel(…, { maxLength }), which the README listed: refused by name (the README lists model.config.maxLength only)',
    'message',
    load(() => filesOf('bert-zh'), { maxLength: 32 }),
    refused('TypeError', /^loadModel: unknown argument "maxLength"/),
  ],
];

/** The cases: { name, kind, act, expect, heap, oneEngine }; GGUF files' last (hostile-gguf.mjs). */
export const CASES = [...ROWS, ...GGUF_ROWS].map(([name, kind, act, expect, extra = {}]) => {
  if (!KINDS.includes(kind)) throw new Error(`${name}: kind ${kind}`);
  return { name, kind, act, expect, heap: extra.heap === true, oneEngine: extra.oneEngine === true };
});
if (new Set(CASES.map((c) => c.name)).size !== CASES.length)
  throw new Error('hostile-checkpoints: two cases of one name');
