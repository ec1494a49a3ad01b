// Broken checkpoints: each is refused with an Error naming the file and the
// problem, nothing of it stays in the engine's memory, and a good load works
// right after. The broken files are made here from the tiny bert-zh and gpt2
// checkpoints of tests/fixtures/models (helpers/checkpoints.mjs). The inputs
// of issue 27 (hostile checkpoints: the safetensors file's padding, gaps and
// hidden overlaps, null JSON files, size caps, lying arrays, tokenizer ids)
// are the hostile-checkpoint suite's, on every build: hostile-checkpoints.test.mjs.
import { createAttention } from '../../src/js/node.mjs';
import { filesOf, jsonBytes as json, withHeader, withoutTensor as without } from './helpers/checkpoints.mjs';

const QUERY = 'bert.encoder.layer.1.attention.self.query.weight';
const KEY = 'bert.encoder.layer.1.attention.self.key.weight';
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

test('a weight_map naming a path outside the folder is refused naming the index', async () => {
  const files = filesOf('bert-zh');
  files['model.safetensors.index.json'] = json({ weight_map: { a: '../model.safetensors' } });
  await expect(engine.loadModel(files)).rejects.toThrow(
    /^model\.safetensors\.index\.json: a weight_map value is not a file name beside it: "\.\.\/model\.safetensors"$/,
  );
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
