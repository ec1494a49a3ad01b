// Which files make the checkpoint (src/js/models/checkpoint-files.mjs): the
// one rule that the loader applies to a FileList, File[] or an object's keys,
// and that the page's real-model view applies to what a reader dropped. The
// rule on made-up paths, then the loader on the bert-zh fixture given with a
// parent folder, a subfolder with another config.json and a hidden one: it
// loads the folder the rule picks, and runs as PyTorch does. pickModelFiles,
// the rule's public form ('mha-wasm/model', Node's entries), against folders
// as the Hub holds them: which files are the checkpoint, which of them the
// loader reads besides the weights.
import path from 'node:path';
import { pickCheckpointFiles } from '../../src/js/models/checkpoint-files.mjs';
import { createAttention, pickModelFiles } from '../../src/js/node.mjs';
import { filesOf, reference } from './helpers/checkpoints.mjs';
import { compareClose } from './helpers/compare.mjs';

const paths = (entries) => pickCheckpointFiles(entries.map((p) => ({ path: p }))).files.map((e) => e.path);

test('the folder with config.json nearest the top, hidden files and folders left out', () => {
  const files = [
    'bert/.git/config.json',
    'bert/onnx/config.json',
    'bert/onnx/model.onnx',
    'bert/config.json',
    'bert/model.safetensors',
    'bert/vocab.txt',
    'bert/.gitattributes',
  ].map((p, i) => ({ path: p, size: i + 1 }));
  const picked = pickCheckpointFiles(files);
  expect(picked.folder).toBe('bert');
  expect(picked.files).toEqual([files[3], files[4], files[5]]); // the records themselves, in their order
  // Loose files (a plain multi-file picker) are one folder, ''.
  expect(pickCheckpointFiles([{ path: 'config.json' }, { path: 'model.safetensors' }]).folder).toBe('');
  expect(paths(['config.json', 'model.safetensors'])).toEqual(['config.json', 'model.safetensors']);
  expect(pickCheckpointFiles([])).toEqual({ folder: '', files: [] });
});

test('of two folders with config.json at one depth, the first in path order; a shallower one wins', () => {
  expect(paths(['m/b/config.json', 'm/b/x', 'm/a/config.json', 'm/a/y'])).toEqual(['m/a/config.json', 'm/a/y']);
  expect(paths(['z/a/config.json', 'y/config.json', 'y/w'])).toEqual(['y/config.json', 'y/w']);
  expect(paths(['a/b/config.json', 'config.json', 'w'])).toEqual(['config.json', 'w']);
});

test("no config.json: the top folder's files (so that the loader can name what is missing)", () => {
  expect(paths(['x/pytorch_model.bin', 'x/y/z.txt'])).toEqual(['x/pytorch_model.bin']);
  expect(paths(['x/y/z.txt', 'w.bin', 'x/v'])).toEqual(['w.bin']);
  expect(paths(['.cache/config.json', 'q.bin'])).toEqual(['q.bin']);
});

test('Windows separators are separators; a name twice in the folder counts once, the first', () => {
  expect(paths(['m\\onnx\\config.json', 'm\\config.json', 'm\\vocab.txt'])).toEqual(['m\\config.json', 'm\\vocab.txt']);
  expect(paths(['config.json', 'vocab.txt', 'vocab.txt'])).toHaveLength(2);
  const first = { path: 'vocab.txt', n: 1 };
  expect(pickCheckpointFiles([first, { path: 'vocab.txt', n: 2 }]).files).toEqual([first]);
});

test("pickModelFiles: the checkpoint's files among a user's, and those read besides the weights", () => {
  const records = (paths) => paths.map((p, i) => ({ path: p, size: i }));
  // bert-base-chinese as the Hub holds it, dropped with its parent and a .git folder: vocab.txt is not read
  // beside tokenizer.json, nor any weights (the loader chooses those), nor README.md.
  const bert = records([
    'models/.git/config.json',
    'models/bert/config.json',
    'models/bert/tokenizer.json',
    'models/bert/tokenizer_config.json',
    'models/bert/vocab.txt',
    'models/bert/model.safetensors',
    'models/bert/pytorch_model.bin',
    'models/bert/README.md',
    'models/bert/onnx/config.json',
  ]);
  const picked = pickModelFiles(bert);
  expect(picked.folder).toBe('models/bert');
  expect(picked.files).toEqual(bert.slice(1, 8)); // the records themselves, in their order
  expect(picked.read.map((e) => e.path)).toEqual([
    'models/bert/config.json',
    'models/bert/tokenizer.json',
    'models/bert/tokenizer_config.json',
  ]);
  expect(picked.read[0]).toBe(bert[1]);
  // gpt2 picked as loose files: generation_config.json is read; vocab.json and merges.txt are not beside
  // tokenizer.json.
  const gpt2 = [
    'config.json',
    'generation_config.json',
    'merges.txt',
    'vocab.json',
    'tokenizer.json',
    'model.safetensors',
  ];
  expect(pickModelFiles(records(gpt2)).read.map((e) => e.path)).toEqual([
    'config.json',
    'generation_config.json',
    'tokenizer.json',
  ]);
  // opus-mt-zh-en (Windows paths): MarianTokenizer's files; a BERT folder without tokenizer.json: vocab.txt.
  const marian = [
    'config.json',
    'source.spm',
    'target.spm',
    'vocab.json',
    'tokenizer_config.json',
    'pytorch_model.bin',
  ];
  expect(pickModelFiles(records(marian.map((n) => `opus\\${n}`))).read.map((e) => e.path)).toEqual(
    marian.slice(0, 5).map((n) => `opus\\${n}`),
  );
  expect(pickModelFiles(records(['config.json', 'vocab.txt', 'model.safetensors'])).read.map((e) => e.path)).toEqual([
    'config.json',
    'vocab.txt',
  ]);
  // Nothing given: nothing picked. Not records with a path: a TypeError with the code.
  expect(pickModelFiles([])).toEqual({ folder: '', files: [], read: [] });
  expect(() => pickModelFiles('config.json')).toThrow(
    new TypeError('pickModelFiles: expected an array of { path }, got the string "config.json"'),
  );
  expect(() => pickModelFiles([{ path: 'config.json' }, { name: 'vocab.txt' }])).toThrow(
    expect.objectContaining({ code: 'InvalidArgument', message: expect.stringContaining('entries[1].path') }),
  );
});

describe('the loader takes the files the rule picks', () => {
  let engine;
  beforeAll(async () => {
    engine = await createAttention({ variant: 'simd' });
  });
  afterAll(() => engine?.dispose());

  // bert-zh inside a parent folder, beside a hidden folder and with a
  // subfolder whose config.json and tokenizer are another model's (gpt2's):
  // taking any of those would load another model or none.
  function nested() {
    const bert = filesOf('bert-zh');
    const gpt2 = filesOf('gpt2');
    const source = {
      'parent/.git/config.json': new Uint8Array([1, 2, 3]),
      'parent/README.md': new Uint8Array(4),
      'parent/bert-zh/onnx/config.json': gpt2['config.json'],
      'parent/bert-zh/onnx/tokenizer.json': gpt2['tokenizer.json'],
    };
    for (const [name, bytes] of Object.entries(bert)) source[`parent/bert-zh/${name}`] = bytes;
    return source;
  }

  test.each([
    ['an object by path', (source) => source],
    [
      'File[] with their folder-relative paths',
      (source) =>
        Object.entries(source).map(([p, bytes]) => {
          const file = new File([bytes], path.basename(p));
          Object.defineProperty(file, 'webkitRelativePath', { value: p });
          return file;
        }),
    ],
  ])('%s: bert-zh, run as PyTorch does', async (_, form) => {
    const model = await engine.loadModel(form(nested()));
    const ref = reference('bert-zh');
    expect(model.config.modelType).toBe('bert');
    const c = ref.cases[0];
    const r = await model.run(c.input, { returnAttention: true });
    expect(r.tokens).toEqual(c.readable ?? c.tokens);
    expect(compareClose(r.attention, c.attention, { abs: ref.tolerance.attentionAbs, rel: 0 })).toBeNull();
    model.dispose();
  });

  test('without config.json the loader names the files the rule picked, and only those', async () => {
    const source = {
      'x/.gitattributes': new Uint8Array(1),
      'x/pytorch_model.bin': new Uint8Array(2),
      'x/onnx/model.onnx': new Uint8Array(3),
    };
    expect(paths(Object.keys(source))).toEqual(['x/pytorch_model.bin']);
    await expect(engine.loadModel(source)).rejects.toThrow(
      new Error('no config.json in the folder (it has pytorch_model.bin): download config.json with the weights'),
    );
  });
});
