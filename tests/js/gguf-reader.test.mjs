// The GGUF reader (src/js/models/formats/gguf/reader.mjs) on the fixtures
// (written by llama.cpp's converter and llama-quantize; their header read by
// gguf-py's GGUFReader, tests/tools/make_gguf_fixtures.py), and on a hostile
// set: files made byte by byte (helpers/gguf-bytes.mjs), each breaking one
// field — a truncated header, huge counts and lengths, unknown types, nested
// arrays, misaligned, overlapping and out-of-file offsets — each refused as
// an Error coded BadCheckpoint (UnsupportedModel for what is well formed but
// not run) naming the file and the field, quickly: never a crash, a hang or
// an allocation of what a count claims.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readGgufHeader } from '../../src/js/models/formats/gguf/reader.mjs';
import { ggufModel } from '../../src/js/models/formats/gguf/model.mjs';
import { chooseGgufFile } from '../../src/js/models/checkpoint-files.mjs';
import { QWEN2_KVS, bytes, gguf, info, kv, kvStr, kvU32, u32, u64 } from './helpers/gguf-bytes.mjs';

const DIR = fileURLToPath(new URL('../fixtures/gguf/', import.meta.url));
/** A file as the loader reads one, over `data`, counting its reads and their bytes. */
function fileOf(name, data) {
  const file = {
    name,
    size: data.length,
    reads: 0,
    bytesRead: 0,
    async read(begin, end) {
      file.reads++;
      file.bytesRead += end - begin;
      return data.slice(begin, end);
    },
  };
  return file;
}
const fixture = (n) => fileOf(n, new Uint8Array(readFileSync(DIR + n)));

describe('the fixtures', () => {
  test.each(['llama-f32.gguf', 'qwen2-q4_0.gguf', 'qwen3-q8_0.gguf'])('%s: header, metadata and tensors', async (n) => {
    const file = fixture(n);
    const h = await readGgufHeader(file);
    expect(h.version).toBe(3);
    expect(h.alignment).toBe(32);
    expect(h.dataStart % 32).toBe(0);
    const arch = h.metadata.get('general.architecture').value;
    expect(n.startsWith(arch)).toBe(true);
    expect(h.metadata.get(`${arch}.embedding_length`)).toEqual({ type: 'uint32', value: 32 });
    expect(h.metadata.get('tokenizer.ggml.tokens').value.length).toBe(arch === 'llama' ? 303 : 289);
    const embd = h.tensors.find((t) => t.name === 'token_embd.weight');
    expect(embd.dims).toEqual([32, arch === 'llama' ? 303 : 289]);
    expect(embd.shape).toEqual([...embd.dims].reverse());
    // The tensors fill the data: the last ends within one alignment of the end of the file.
    const last = Math.max(...h.tensors.map((t) => t.end));
    expect(file.size - last).toBeLessThan(32);
    // Streamed: the header read in bounded pieces, the tensors' data never.
    expect(file.bytesRead).toBeLessThanOrEqual(Math.max(h.dataStart, 1 << 20));
    const { config, tensors } = ggufModel(n, h);
    expect(config.model_type).toBe(arch);
    expect(tensors.every((t) => t.hfName.startsWith('model.') || t.hfName === 'lm_head.weight')).toBe(true);
  });
});

const header = (...parts) => bytes(new TextEncoder().encode('GGUF'), ...parts);
const tensor = (name, dims, type, offset) => info(name, dims, type, offset);
const ONE = new Uint8Array(4 * 32);

// [what, the file's bytes, the field named, a pattern of the message]
const HOSTILE = [
  ['an empty file', new Uint8Array(0), 'magic', /past the end of the file \(0 bytes\)/],
  ['not GGUF', new TextEncoder().encode('PK\x03\x04 something else'), 'magic', /not a GGUF file/],
  ['version 1', header(u32(1)), 'version', /version 1; versions 2 and 3/],
  ['big-endian', header(new Uint8Array([0, 0, 0, 3])), 'version', /big-endian/],
  ['cut in the counts', header(u32(3), u64(1), new Uint8Array(3)), 'metadata_kv_count', /past the end/],
  ['2⁶⁰ key/values', header(u32(3), u64(0), u64(2n ** 60n)), 'metadata_kv_count', /larger than any file/],
  ['a million key/values', header(u32(3), u64(0), u64(1e6)), 'metadata_kv_count', /cannot fit/],
  ['a billion tensors', header(u32(3), u64(1e9), u64(0)), 'tensor_count', /cannot fit/],
  [
    'a key longer than the file',
    header(u32(3), u64(0), u64(1), u64(1e12), u32(0), new Uint8Array(64)),
    'metadata key 0',
    /more than the 65535/,
  ],
  [
    'a key of bad UTF-8',
    header(u32(3), u64(0), u64(1), u64(2), new Uint8Array([0xff, 0xfe]), u32(4), u32(0)),
    'metadata key 0',
    /UTF-8/,
  ],
  ['an unknown value type', gguf({ kvs: [kv('a.b', 13, u32(0))] }), 'a.b', /unknown value type 13/],
  ['a string value past the end', gguf({ kvs: [kv('a.b', 8, u64(1e15))] }), 'a.b', /past the end/],
  [
    'an array longer than the file',
    gguf({ kvs: [kv('a.b', 9, [u32(4), u64(1e12)])] }),
    'a.b',
    /an array of 1000000000000 uint32s/,
  ],
  [
    'an array of strings longer than the file',
    gguf({ kvs: [kv('a.b', 9, [u32(8), u64(1e9)])] }),
    'a.b',
    /strings, more than/,
  ],
  [
    'an array of arrays',
    gguf({ kvs: [kv('a.b', 9, [u32(9), u64(1), u32(4), u64(1), u32(7)])] }),
    'a.b',
    /array of arrays/,
  ],
  ['an array of an unknown type', gguf({ kvs: [kv('a.b', 9, [u32(77), u64(1)])] }), 'a.b', /unknown value type 77/],
  ['a bool of 2', gguf({ kvs: [kv('a.b', 7, new Uint8Array([2]))] }), 'a.b', /neither 0 nor 1/],
  ['a key twice', gguf({ kvs: [kvU32('a.b', 1), kvU32('a.b', 2)] }), 'a.b', /twice/],
  ['an alignment of 0', gguf({ kvs: [kvU32('general.alignment', 0)] }), 'general.alignment', /power of two/],
  ['an alignment of 48', gguf({ kvs: [kvU32('general.alignment', 48)] }), 'general.alignment', /power of two/],
  [
    'an alignment as a string',
    gguf({ kvs: [kvStr('general.alignment', '32')] }),
    'general.alignment',
    /uint32 power of two/,
  ],
  [
    'a tensor name of 64 bytes',
    gguf({ infos: [tensor('x'.repeat(64), [32], 0, 0)], data: ONE }),
    'tensor info 0 (its name)',
    /more than the 63/,
  ],
  [
    'five dimensions',
    gguf({ infos: [tensor('a', [1, 1, 1, 1, 32], 0, 0)], data: ONE }),
    'tensor "a" (n_dimensions)',
    /5; expected 1 to 4/,
  ],
  ['no dimensions', gguf({ infos: [tensor('a', [], 0, 0)], data: ONE }), 'tensor "a" (n_dimensions)', /0; expected/],
  [
    'an empty dimension',
    gguf({ infos: [tensor('a', [32, 0], 0, 0)], data: ONE }),
    'tensor "a" (dimensions)',
    /empty dimension/,
  ],
  [
    '2⁸⁰ elements',
    gguf({ infos: [tensor('a', [2 ** 40, 2 ** 40], 0, 0)], data: ONE }),
    'tensor "a" (dimensions)',
    /more elements than the file/,
  ],
  [
    'an unknown ggml type',
    gguf({ infos: [tensor('a', [32], 99, 0)], data: ONE }),
    'tensor "a" (type)',
    /unknown ggml type 99/,
  ],
  [
    'rows not whole blocks',
    gguf({ infos: [tensor('a', [48, 2], 8, 0)], data: ONE }),
    'tensor "a" (dimensions)',
    /not whole Q8_0 blocks of 32/,
  ],
  [
    'a misaligned offset',
    gguf({ infos: [tensor('a', [8], 0, 4)], data: ONE }),
    'tensor "a" (offset)',
    /not a multiple of the alignment \(32\)/,
  ],
  [
    'data past the end',
    gguf({ infos: [tensor('a', [64], 0, 0)], data: ONE }),
    'tensor "a" (offset)',
    /past the end of the file/,
  ],
  [
    'an offset far past the end',
    gguf({ infos: [tensor('a', [8], 0, 2 ** 50)], data: ONE }),
    'tensor "a" (offset)',
    /past the end of the file/,
  ],
  [
    'overlapping tensors',
    gguf({ infos: [tensor('a', [32], 0, 0), tensor('b', [32], 0, 64)], data: new Uint8Array(256) }),
    'tensor "b" (offset)',
    /inside tensor "a"/,
  ],
  [
    'a tensor twice',
    gguf({ infos: [tensor('a', [8], 0, 0), tensor('a', [8], 0, 32)], data: ONE }),
    'tensor "a"',
    /twice/,
  ],
  ['a header cut short', gguf({ kvs: QWEN2_KVS }).subarray(0, 150), 'metadata key 3', /past the end/],
];

describe('hostile files: refused with the file and the field named', () => {
  test.each(HOSTILE)('%s', async (what, data, field, message) => {
    const file = fileOf('hostile.gguf', data);
    const error = await readGgufHeader(file).then(
      () => null,
      (e) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect({ code: error.code, file: error.file, field: error.field }).toEqual({
      code: 'BadCheckpoint',
      file: 'hostile.gguf',
      field,
    });
    expect(error.message).toMatch(new RegExp(`^hostile\\.gguf: ${field.replace(/[()".]/g, '\\$&')}: `));
    expect(error.message).toMatch(message);
    // Nothing a count claims was read or made: at most the file itself, in bounded pieces.
    expect(file.bytesRead).toBeLessThanOrEqual(Math.max(data.length, 1));
  });
});

describe('well formed, but not a model the loader reads', () => {
  const refused = async (kvs, infos, data = ONE) => {
    const file = fileOf('m.gguf', gguf({ kvs, infos, data }));
    return Promise.resolve()
      .then(async () => ggufModel(file.name, await readGgufHeader(file)))
      .then(
        () => null,
        (e) => e,
      );
  };
  const embd = tensor('token_embd.weight', [32, 1], 0, 0);
  test('another architecture', async () => {
    const e = await refused([kvStr('general.architecture', 'mamba')], [embd]);
    expect([e.code, e.file, e.field, e.value]).toEqual(['UnsupportedModel', 'm.gguf', 'general.architecture', 'mamba']);
  });
  test('a size missing from the metadata', async () => {
    const e = await refused(
      QWEN2_KVS.filter((k) => !/embedding_length/.test(new TextDecoder().decode(k[0]))),
      [embd],
    );
    expect([e.code, e.field]).toEqual(['BadCheckpoint', 'qwen2.embedding_length']);
  });
  test('a size of the wrong type', async () => {
    const e = await refused(
      [...QWEN2_KVS.slice(0, 3), kvStr('qwen2.embedding_length', '32'), ...QWEN2_KVS.slice(4)],
      [embd],
    );
    expect([e.code, e.field, e.message]).toEqual([
      'BadCheckpoint',
      'qwen2.embedding_length',
      'm.gguf: qwen2.embedding_length: a string, expected a integer',
    ]);
  });
  test('a tensor llama.cpp does not name so', async () => {
    const e = await refused(QWEN2_KVS, [embd, tensor('blk.0.attn_qkv.weight', [32], 0, 32 * 4)], new Uint8Array(256));
    expect([e.code, e.field]).toEqual(['BadCheckpoint', 'tensor "blk.0.attn_qkv.weight"']);
  });
  test('a type that is not read (IQ2_XXS)', async () => {
    const e = await refused(QWEN2_KVS, [tensor('token_embd.weight', [256, 1], 16, 0)], new Uint8Array(96));
    expect([e.code, e.field, e.value]).toEqual(['UnsupportedModel', 'tensor "token_embd.weight" (type)', 'IQ2_XXS']);
  });
});

describe('which GGUF file a folder gives', () => {
  const f = (size) => ({ size });
  test('the one .gguf of a folder without config.json; none beside config.json unless named', () => {
    const one = f(10);
    expect(chooseGgufFile({ 'a.gguf': one, 'README.md': f(1) })).toBe(one);
    expect(chooseGgufFile({ 'a.gguf': one, 'config.json': f(1) })).toBe(null);
    expect(chooseGgufFile({ 'a.gguf': one, 'config.json': f(1) }, 'a.gguf')).toBe(one);
    expect(chooseGgufFile({ 'config.json': f(1) })).toBe(null);
  });
  test('several: an Error listing them with their sizes; a name not there: the same list', () => {
    const files = { 'm-q8_0.gguf': f(1000), 'm-q4_k_m.gguf': f(600) };
    expect(() => chooseGgufFile(files)).toThrow(
      'the folder has 2 GGUF files: m-q8_0.gguf (1000 bytes), m-q4_k_m.gguf (600 bytes); choose one with { file }',
    );
    expect(() => chooseGgufFile(files, 'm-f16.gguf')).toThrow(
      'file: no m-f16.gguf in the folder (its GGUF files: m-q8_0.gguf (1000 bytes), m-q4_k_m.gguf (600 bytes))',
    );
  });
});
