// pytorch_model.bin (models/formats/pytorch.mjs): the checkpoints torch.save
// wrote (tests/fixtures/models/hf-xlm-roberta-bin and -bin-sharded, matched
// against transformers by model.test.mjs like every folder) read tensor for
// tensor as their safetensors twin; and the hostile archives of
// tests/fixtures/pickles (made by tests/tools/make_hf_fixtures.py; torch.load
// reads their well-formed sibling good.bin) each refused with the file and
// the reason, running nothing, the engine usable afterwards.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';
import { readPytorchTensors } from '../../src/js/models/formats/pytorch.mjs';
import { readHeader } from '../../src/js/models/formats/safetensors.mjs';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const MODELS = path.join(FIXTURES, 'models');
const PICKLES = path.join(FIXTURES, 'pickles');

/** A file as the loader's sources give one. */
function fileOf(name, bytes) {
  return {
    name,
    size: bytes.length,
    read: async (begin, end) => new Uint8Array(bytes.subarray(begin, end)),
  };
}
const load = (folder, name) => {
  const bytes = new Uint8Array(readFileSync(path.join(folder, name)));
  return fileOf(name, bytes);
};

test("torch.save's pytorch_model.bin holds the same tensors, bytes for bytes, as its safetensors twin", async () => {
  const bin = load(path.join(MODELS, 'hf-xlm-roberta-bin'), 'pytorch_model.bin');
  const safe = load(path.join(MODELS, 'hf-xlm-roberta'), 'model.safetensors');
  const fromBin = await readPytorchTensors(bin);
  const fromSafe = await readHeader(safe);
  const byName = new Map(fromSafe.map((t) => [t.name, t]));
  // The state_dict may hold buffers that save_pretrained leaves out (position_ids): every saved tensor is there.
  for (const t of fromSafe) expect(fromBin.some((b) => b.name === t.name)).toBe(true);
  for (const t of fromBin) {
    const twin = byName.get(t.name);
    if (!twin) continue;
    expect([t.dtype, t.shape]).toEqual([twin.dtype, twin.shape]);
    const a = await bin.read(t.begin, t.end);
    const b = await safe.read(twin.begin, twin.end);
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
  }
});

const HOSTILE = [
  ['os-system', /^os-system\.bin: data\.pkl names posix\.system, which a state_dict does not use: refused/],
  ['builtins-eval', /^builtins-eval\.bin: data\.pkl names builtins\.eval, which a state_dict does not use: refused/],
  ['recursion-bomb', /^recursion-bomb\.bin: data\.pkl: nested more than 1000 deep$/],
  ['storage-past-end', /^storage-past-end\.bin: tensor "w": storage data\/0 holds 16 bytes, but 40 F32 need 160$/],
  ['tensor-past-storage', /^tensor-past-storage\.bin: tensor "w": elements \[2, 6\) go past its storage's 4$/],
  ['member-dotdot', /^member-dotdot\.bin: zip member named "\.\.\/x": not a path inside the archive$/],
  ['non-contiguous', /^non-contiguous\.bin: tensor "w": its strides \[1,2\] are not those of a contiguous \[2,2\]/],
  ['legacy', /^legacy\.bin: this is the legacy torch\.save format \(torch before 1\.6\)/],
];

test.each(HOSTILE)('%s.bin is refused, naming the file and the reason', async (name, message) => {
  rmSync('/tmp/pwned', { force: true });
  await expect(readPytorchTensors(load(PICKLES, `${name}.bin`))).rejects.toThrow(message);
  expect(existsSync('/tmp/pwned')).toBe(false);
});

test('their well-formed sibling reads: the format is what is refused, not the writer', async () => {
  const tensors = await readPytorchTensors(load(PICKLES, 'good.bin'));
  expect(tensors.map(({ name, dtype, shape }) => ({ name, dtype, shape }))).toEqual([
    { name: 'w', dtype: 'F32', shape: [2, 2] },
  ]);
  const file = load(PICKLES, 'good.bin');
  expect(Array.from(new Float32Array((await file.read(tensors[0].begin, tensors[0].end)).buffer))).toEqual([
    0, 1, 2, 3,
  ]);
});

test('two tensors on one storage (tied weights) both read its bytes', async () => {
  const file = load(PICKLES, 'tied.bin');
  const tensors = await readPytorchTensors(file);
  expect(tensors.map(({ name, shape }) => [name, shape]).sort()).toEqual([
    ['tied', [4]],
    ['w', [2, 2]],
  ]);
  expect(tensors[0].begin).toBe(tensors[1].begin);
  expect(tensors[0].end).toBe(tensors[1].end);
});

test('a hostile pytorch_model.bin through loadModel: an Error naming it, and the engine goes on', async () => {
  const engine = await createAttention({ variant: 'simd' });
  const folder = path.join(MODELS, 'hf-xlm-roberta-bin');
  const files = {};
  for (const name of ['config.json', 'tokenizer.json', 'tokenizer_config.json'])
    files[name] = new Uint8Array(readFileSync(path.join(folder, name)));
  for (const [name, message] of HOSTILE.slice(0, 3)) {
    const hostile = { ...files, 'pytorch_model.bin': new Uint8Array(readFileSync(path.join(PICKLES, `${name}.bin`))) };
    // The same reason, named for the folder's file.
    const reason = message.source.slice(message.source.indexOf(':'));
    await expect(engine.loadModel(hostile)).rejects.toThrow(new RegExp(`^pytorch_model\\.bin${reason}`));
  }
  const model = await engine.loadModel(folder);
  const ref = JSON.parse(readFileSync(path.join(folder, 'reference.json'), 'utf8'));
  const r = await model.run(ref.cases[0].input);
  expect(Array.from(r.inputIds)).toEqual(ref.cases[0].inputIds);
  engine.dispose();
});
