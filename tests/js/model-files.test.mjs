// Broken checkpoints: each is refused with an Error naming the file and the
// problem, nothing of it stays in the engine's memory, and a good load works
// right after. The broken files are made here from the tiny bert-zh and gpt2
// checkpoints of tests/fixtures/models.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';

const MODELS = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
const filesOf = (name) =>
  Object.fromEntries(
    readdirSync(path.join(MODELS, name)).map((f) => [f, new Uint8Array(readFileSync(path.join(MODELS, name, f)))]),
  );

const reference = (name) => JSON.parse(readFileSync(path.join(MODELS, name, 'reference.json'), 'utf8'));

/** A safetensors file split into its header (parsed) and data segment. */
function split(bytes) {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  return { header: JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n))), data: bytes.subarray(8 + n) };
}

/** The file again with `change(header)` applied (the data segment as it was). */
function withHeader(bytes, change) {
  const { header, data } = split(bytes);
  change(header);
  return concat(header, data);
}

/** The file again without tensor `name`: its bytes cut out and the later offsets moved up (still exactly tiled). */
function without(bytes, name) {
  const { header, data } = split(bytes);
  const [begin, end] = header[name].data_offsets;
  delete header[name];
  for (const [key, info] of Object.entries(header))
    if (key !== '__metadata__' && info.data_offsets[0] >= end)
      info.data_offsets = info.data_offsets.map((o) => o - (end - begin));
  const kept = new Uint8Array(data.length - (end - begin));
  kept.set(data.subarray(0, begin));
  kept.set(data.subarray(end), begin);
  return concat(header, kept);
}

/** A safetensors file of `header` and `data`. */
function concat(header, data) {
  const json = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + json.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  out.set(data, 8 + json.length);
  return out;
}

const QUERY = 'bert.encoder.layer.1.attention.self.query.weight';
const KEY = 'bert.encoder.layer.1.attention.self.key.weight';
const json = (value) => new TextEncoder().encode(JSON.stringify(value));
const configOf = (files) => JSON.parse(new TextDecoder().decode(files['config.json']));

/** [what, files of a broken folder, the error's message must match]. */
function brokenFolders() {
  const bert = filesOf('bert-zh');
  const weights = bert['model.safetensors'];
  const config = configOf(bert);
  const gpt2 = filesOf('gpt2');
  const cases = [
    [
      'a truncated file',
      { ...bert, 'model.safetensors': weights.subarray(0, weights.length - 100) },
      /^model\.safetensors: tensor ".*" ends at byte \d+, past the end of the file \(\d+ bytes\): the file is truncated$/,
    ],
    [
      'a file shorter than its 8-byte length',
      { ...bert, 'model.safetensors': weights.subarray(0, 5) },
      /^model\.safetensors: 5 bytes, too short/,
    ],
    [
      'a header length past the end',
      {
        ...bert,
        'model.safetensors': (() => {
          const b = weights.slice(0, 4000);
          new DataView(b.buffer).setBigUint64(0, 9000n, true);
          return b;
        })(),
      },
      /^model\.safetensors: header length 9000 goes past the end of the file \(4000 bytes\)/,
    ],
    [
      'a header that is not JSON',
      {
        ...bert,
        'model.safetensors': (() => {
          const b = weights.slice();
          b[9] = 0x7b;
          b[10] = 0x7b;
          return b;
        })(),
      },
      /^model\.safetensors: the header is not valid UTF-8 JSON/,
    ],
    [
      'offsets out of range',
      {
        ...bert,
        'model.safetensors': withHeader(weights, (h) => {
          const [b, e] = h[QUERY].data_offsets;
          h[QUERY].data_offsets = [b + 1e9, e + 1e9];
        }),
      },
      new RegExp(
        `^model\\.safetensors: tensor "${QUERY.replace(/\./g, '\\.')}" ends at byte \\d+, past the end of the file`,
      ),
    ],
    [
      'offsets that disagree with the shape',
      {
        ...bert,
        'model.safetensors': withHeader(weights, (h) => {
          h[QUERY].data_offsets[1] -= 4;
        }),
      },
      /hold 4092 bytes, but F32 \[32,32\] needs 4096/,
    ],
    [
      'overlapping tensors',
      {
        ...bert,
        'model.safetensors': withHeader(weights, (h) => {
          h[KEY].data_offsets = [...h[QUERY].data_offsets];
        }),
      },
      /^model\.safetensors: tensor ".*" starts at byte \d+, inside the tensor before it \(data_offsets overlap\)$/,
    ],
    [
      'a tensor missing',
      {
        ...bert,
        'model.safetensors': without(weights, 'bert.encoder.layer.1.output.dense.weight'),
      },
      /^model\.safetensors: tensor missing: encoder\.layer\.1\.output\.dense\.weight \(a bert of 2 layers, as config\.json says, needs \d+\)$/,
    ],
    [
      // A tensor's header entry gone but its bytes left: a gap no tensor holds.
      'a gap in the data segment',
      {
        ...bert,
        'model.safetensors': withHeader(weights, (h) => delete h['bert.encoder.layer.1.output.dense.weight']),
      },
      /^model\.safetensors: tensor ".*" starts at byte \d+, leaving bytes \d+–\d+ that no tensor holds$/,
    ],
    [
      'bytes after the last tensor',
      { ...bert, 'model.safetensors': new Uint8Array([...weights, 0, 0, 0, 0]) },
      /^model\.safetensors: 4 bytes after the last tensor \(byte \d+ to the end\)/,
    ],
    [
      // Two tensors over the same bytes with an empty one between them (it once hid the overlap).
      'an empty tensor between two that overlap',
      {
        ...bert,
        'model.safetensors': withHeader(weights, (h) => {
          const [begin] = h[QUERY].data_offsets;
          h['bert.empty'] = { dtype: 'F32', shape: [0], data_offsets: [begin + 4, begin + 4] };
          h[KEY].data_offsets = [begin + 4, begin + 4 + (h[KEY].data_offsets[1] - h[KEY].data_offsets[0])];
        }),
      },
      /^model\.safetensors: tensor ".*" starts at byte \d+, inside the tensor before it \(data_offsets overlap\)$/,
    ],
    [
      // The header length lowered into the header's own padding: every tensor would shift by those bytes.
      'a header length moved into its padding',
      {
        ...bert,
        'model.safetensors': (() => {
          const padded = withHeader(weights, (h) => {
            h.__metadata__ = { format: 'pt' };
          });
          // Pad the JSON with spaces (legal JSON), then claim 4 bytes less of it.
          const { header, data } = split(padded);
          const text = new TextEncoder().encode(JSON.stringify(header) + '        ');
          const out = new Uint8Array(8 + text.length + data.length);
          new DataView(out.buffer).setBigUint64(0, BigInt(text.length - 4), true);
          out.set(text, 8);
          out.set(data, 8 + text.length);
          return out;
        })(),
      },
      /^model\.safetensors: .*(inside the tensor before it|leaving bytes|after the last tensor)/,
    ],
    [
      'a used tensor stored as I64',
      {
        ...bert,
        'model.safetensors': withHeader(weights, (h) => {
          h[QUERY].dtype = 'I64';
          h[QUERY].shape = [16, 32];
        }),
      },
      /tensor "bert\.encoder\.layer\.1\.attention\.self\.query\.weight" has dtype I64; expected one of F32, F16, BF16/,
    ],
    [
      'a shape that disagrees with config.json',
      { ...bert, 'config.json': json({ ...config, intermediate_size: 48 }) },
      /^model\.safetensors: tensor "bert\.encoder\.layer\.0\.intermediate\.dense\.weight" has shape \[64,32\], but config\.json's sizes make it \[48,32\]$/,
    ],
    [
      'more layers than config.json',
      { ...bert, 'config.json': json({ ...config, num_hidden_layers: 1 }) },
      /tensor "bert\.encoder\.layer\.1\..*" is not part of a bert with config\.json's sizes \(1 layers/,
    ],
    [
      'a pytorch_model.bin that is not a zip',
      { 'config.json': bert['config.json'], 'vocab.txt': bert['vocab.txt'], 'pytorch_model.bin': new Uint8Array(10) },
      /^pytorch_model\.bin: not a zip archive: not a pytorch_model\.bin written by torch\.save/,
    ],
    [
      'no weights at all',
      { 'config.json': bert['config.json'], 'vocab.txt': bert['vocab.txt'], 'model.ckpt': new Uint8Array(10) },
      /^no model\.safetensors or pytorch_model\.bin in the folder \(it has model\.ckpt\): download the weights/,
    ],
    [
      'no config.json',
      { 'model.safetensors': weights },
      /^no config\.json in the folder \(it has model\.safetensors\)/,
    ],
    [
      'config.json that is not JSON',
      { ...bert, 'config.json': new Uint8Array([123, 44]) },
      /^config\.json: not valid JSON/,
    ],
    [
      'an unsupported model_type',
      { ...bert, 'config.json': json({ ...config, model_type: 't5' }) },
      /^config\.json: model_type "t5" is not supported; mha-wasm runs "bert", "roberta", "xlm-roberta", "camembert", "gpt2", "marian", "llama", "qwen2", "qwen3"$/,
    ],
    [
      'relative position embeddings',
      { ...bert, 'config.json': json({ ...config, position_embedding_type: 'relative_key' }) },
      /^config\.json: position_embedding_type "relative_key" is not supported; mha-wasm runs "absolute"$/,
    ],
    [
      'an unsupported activation',
      { ...gpt2, 'config.json': json({ ...configOf(gpt2), activation_function: 'relu' }) },
      /^config\.json: activation_function "relu" is not supported; mha-wasm runs "gelu", "gelu_new", "gelu_pytorch_tanh"$/,
    ],
    [
      'an index naming a shard the folder lacks',
      { ...filesOf('gpt2-sharded'), 'model-00002-of-00002.safetensors': undefined },
      /^model\.safetensors\.index\.json lists model-00002-of-00002\.safetensors, which the folder does not have$/,
    ],
  ];
  for (const [, files] of cases) for (const [k, v] of Object.entries(files)) if (v === undefined) delete files[k];
  return cases;
}

let engine;
beforeAll(async () => {
  engine = await createAttention({ variant: 'simd' });
});
afterAll(() => engine?.dispose());

test.each(brokenFolders())('%s is refused by name, and a good load works after it', async (what, files, message) => {
  const warm = await engine.loadModel(filesOf('bert-zh'));
  await warm.run('毒');
  warm.dispose();
  const before = (await engine.memoryStats()).models.inUseBytes;
  const error = await engine.loadModel(files).catch((e) => e);
  expect(error).toBeInstanceOf(Error);
  expect(error.message).toMatch(message);
  expect((await engine.memoryStats()).models.inUseBytes).toBe(before);
  const model = await engine.loadModel(filesOf('bert-zh'));
  expect((await model.run('用毒毒毒蛇')).tokens).toEqual(['[CLS]', '用', '毒', '毒', '毒', '蛇', '[SEP]']);
  model.dispose();
});

// Files a stranger's folder can hold, each refused naming the file (or read as transformers reads it).
test.each([
  ['config.json of null', (f) => (f['config.json'] = json(null)), /^config\.json: expected a JSON object, got null$/],
  [
    'tokenizer.json of null',
    (f) => (f['tokenizer.json'] = json(null)),
    /^tokenizer\.json: expected a JSON object, got null$/,
  ],
  [
    'a 65 MB tokenizer.json',
    (f) => (f['tokenizer.json'] = new Uint8Array((64 << 20) + 1).fill(32)),
    /^tokenizer\.json: 67108865 bytes, more than the 67108864 a checkpoint's text file has$/,
  ],
  [
    'a weight_map naming __proto__ and constructor',
    (f) => {
      f['model.safetensors.index.json'] = json({ weight_map: { a: '__proto__', b: 'constructor' } });
    },
    /^model\.safetensors\.index\.json lists __proto__, constructor, which the folder does not have$/,
  ],
  [
    'a weight_map naming a path outside the folder',
    (f) => {
      f['model.safetensors.index.json'] = json({ weight_map: { a: '../model.safetensors' } });
    },
    /^model\.safetensors\.index\.json: a weight_map value is not a file name beside it: "\.\.\/model\.safetensors"$/,
  ],
  [
    'an index of null',
    (f) => (f['model.safetensors.index.json'] = json(null)),
    /^model\.safetensors\.index\.json: expected a JSON object, got null$/,
  ],
])('%s', async (_, change, message) => {
  const files = filesOf('bert-zh');
  change(files);
  await expect(engine.loadModel(files)).rejects.toThrow(message);
});

test("a tokenizer id that is not the model's is refused naming tokenizer.json (it once ran as another row)", async () => {
  const files = filesOf('bert-zh');
  const tokenizer = JSON.parse(new TextDecoder().decode(files['tokenizer.json']));
  tokenizer.added_tokens.push({
    id: 2 ** 32 + 5,
    content: '蟒',
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: false,
  });
  files['tokenizer.json'] = json(tokenizer);
  const model = await engine.loadModel(files);
  await expect(model.run('蟒')).rejects.toThrow(
    /^tokenizer\.json: the tokenizer gave id 4294967301 for this text, not a token of the model \(0 to 25, config\.json's vocab_size\)$/,
  );
  expect((await model.run('毒')).tokens).toEqual(['[CLS]', '毒', '[SEP]']);
  model.dispose();
});

test("vocab.txt read as transformers' load_vocab reads it: a repeated line's last id wins, a missing special falls back", async () => {
  const files = filesOf('bert-zh-vocab');
  const lines = new TextDecoder().decode(files['vocab.txt']).split('\n');
  const du = lines.indexOf('毒');
  // 毒 again at the end of the file: transformers maps 毒 to that last line.
  files['vocab.txt'] = new TextEncoder().encode([...lines.filter((l) => l !== ''), '毒'].join('\n') + '\n');
  files['tokenizer_config.json'] = json({ cls_token: null, do_lower_case: true });
  const last = lines.filter((l) => l !== '').length;
  const model = await engine.loadModel(files).catch((e) => e);
  // The vocabulary is now one longer than config.json's: the model refuses the id, naming tokenizer.json.
  if (model instanceof Error) throw model;
  await expect(model.run('毒')).rejects.toThrow(new RegExp(`^vocab\\.txt: the tokenizer gave id ${last} `));
  expect(du).toBeGreaterThan(0);
  model.dispose();
});

test("a Uint8Array subclass's own getters and slice() never decide which bytes are read", async () => {
  // Its length lies (it once sized a 959 MiB copy from it), its slice() returns a stand-in.
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
  const files = {};
  for (const [name, bytes] of Object.entries(filesOf('bert-zh'))) {
    const liar = new Liar(bytes.buffer.byteLength);
    Uint8Array.prototype.set.call(liar, bytes);
    files[name] = liar;
  }
  const ref = reference('bert-zh');
  const model = await engine.loadModel(files);
  const r = await model.run(ref.cases[0].input);
  expect(Array.from(r.inputIds)).toEqual(ref.cases[0].inputIds);
  const want = ref.cases[0].lastHiddenState;
  expect(Math.max(...Array.from(r.lastHiddenState, (x, i) => Math.abs(x - want[i])))).toBeLessThan(1e-4);
  model.dispose();
});

test('a tiny checkpoint whose config.json claims a huge vocabulary is refused before anything is allocated', async () => {
  // Once the model was allocated from config.json first (517 MiB here) and the heap never shrank.
  const files = filesOf('bert-zh');
  files['config.json'] = new TextEncoder().encode(JSON.stringify({ ...configOf(files), vocab_size: 4194304 }));
  const warm = await engine.loadModel(filesOf('bert-zh'));
  warm.dispose();
  const before = (await engine.memoryStats()).models;
  await expect(engine.loadModel(files)).rejects.toThrow(
    /^model\.safetensors: tensor "bert\.embeddings\.word_embeddings\.weight" has shape \[26,32\], but config\.json's sizes make it \[4194304,32\]$/,
  );
  const after = (await engine.memoryStats()).models;
  expect(after.heapBytes).toBe(before.heapBytes);
  expect(after.inUseBytes).toBe(before.inUseBytes);
});

test.each([
  [
    undefined,
    TypeError,
    /^source: expected a Hugging Face model name \('org\/name'\), a folder, or a model folder's files/,
  ],
  [42, TypeError, /^source: expected a Hugging Face model name .*got number 42$/],
  [{ 'config.json': 'text' }, TypeError, /^source\["config\.json"\]: expected an ArrayBuffer, Uint8Array or Blob/],
  [[new Blob(['x'])], TypeError, /^source\[0\]: expected a File \(with a name\)/],
  [
    '/no/such/folder',
    Error,
    /^source: no folder \/no\/such\/folder, and "\/no\/such\/folder" is not a Hugging Face model name/,
  ],
  ['', TypeError, /^source: expected a Hugging Face model name or a folder, got the empty string$/],
  [new URL('ftp://example.com/x'), TypeError, /^source: expected a file: URL of a folder or a Hub model's URL/],
])('source %p is refused', async (source, Type, message) => {
  const error = await engine.loadModel(source).catch((e) => e);
  expect(error).toBeInstanceOf(Type);
  expect(error.message).toMatch(message);
});

test('loadModel options are checked', async () => {
  await expect(engine.loadModel(filesOf('gpt2'), { onProgres: () => {} })).rejects.toThrow(
    /unknown argument "onProgres" \(did you mean "onProgress"\?\)/,
  );
  await expect(engine.loadModel(filesOf('gpt2'), { onProgress: 1 })).rejects.toThrow(TypeError);
});
