// The hostile-checkpoint suite's GGUF files (issue 39, item 1), made here in
// code from the committed fixtures or from nothing: each damaged in one way a
// reader can be attacked — counts and lengths far beyond the file or the
// memory (a string of 2⁶³ bytes, 2⁴⁰ tensors, a chat template of 1 GiB
// declared or really there in a sparse file, 2²³ tokens), dimensions whose
// product wraps in 64 bits, a header cut inside its token list, and a
// tokenizer that lies (merges naming tokens it lacks, a NaN score, token
// types or ids that do not match its tokens, pieces too long to rebuild
// merges from). Each must be refused through loadModel with an Error naming
// the file and the field, coded, in bounded time and memory (boundedLoad:
// the case's own wall time and the process's peak resident memory). The
// reader's own refusals of single fields (unknown value and ggml types,
// nested arrays, alignment, misaligned, overlapping and outside offsets) are
// tests/js/gguf-reader.test.mjs's, not repeated here.
import { closeSync, ftruncateSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readGgufHeader } from '../../../src/js/models/formats/gguf/reader.mjs';
import { typeNamed } from '../../../src/js/models/formats/gguf/types.mjs';
import { QWEN2_KVS, bytes, f32, gguf, info, kv, str, u32, u64 } from './gguf-bytes.mjs';

const GGUF = fileURLToPath(new URL('../../fixtures/gguf/', import.meta.url));
const NAME = 'hostile.gguf';
// A refusal's bounds: wall time, and growth of the process's peak resident memory.
const MAX_MS = 10_000;
const MAX_GROWTH = 256 << 20;

const bytesOf = (name) => new Uint8Array(readFileSync(path.join(GGUF, name)));
const fileOf = (data) => ({ name: NAME, size: data.length, read: async (b, e) => data.subarray(b, e) });

// A value as the format writes it, of the type the reader named ('uint32', 'array' …).
const TYPE_IDS = { uint8: 0, int8: 1, uint16: 2, int16: 3, uint32: 4, int32: 5, float32: 6, bool: 7, string: 8 };
Object.assign(TYPE_IDS, { uint64: 10, int64: 11, float64: 12 });
const typeId = (name) => TYPE_IDS[name];
function scalarBytes(type, v) {
  const size = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 }[type];
  if (type === 8) return str(v);
  const view = new DataView(new ArrayBuffer(size));
  [
    () => view.setUint8(0, v),
    () => view.setInt8(0, v),
    () => view.setUint16(0, v, true),
    () => view.setInt16(0, v, true),
    () => view.setUint32(0, v, true),
    () => view.setInt32(0, v, true),
    () => view.setFloat32(0, v, true),
    () => view.setUint8(0, v ? 1 : 0),
  ][type]?.();
  if (type === 10) view.setBigUint64(0, BigInt(v), true);
  if (type === 11) view.setBigInt64(0, BigInt(v), true);
  if (type === 12) view.setFloat64(0, v, true);
  return new Uint8Array(view.buffer);
}
/** One key/value: { type, value, elementType? } (elementType: an array's, by name). */
function kvBytes(key, { type, value, elementType }) {
  if (type !== 'array') return kv(key, typeId(type), scalarBytes(typeId(type), value));
  const element = typeId(elementType);
  return kv(key, 9, [u32(element), u64(value.length), value.map((v) => scalarBytes(element, v))]);
}
// The element type of each array the fixtures hold (the reader keeps an array's values, not its type).
const ELEMENTS = {
  'tokenizer.ggml.tokens': 'string',
  'tokenizer.ggml.merges': 'string',
  'tokenizer.ggml.scores': 'float32',
  'tokenizer.ggml.token_type': 'int32',
};

/**
 * Fixture `name` rewritten with its metadata changed by `change(metadata)`
 * (a Map of key → { type, value, elementType? }, changed in place): the same
 * tensors and data, the header written again.
 */
export async function withMetadata(name, change) {
  const data = bytesOf(name);
  const header = await readGgufHeader(fileOf(data));
  const metadata = new Map(
    [...header.metadata].map(([key, entry]) => [key, { ...entry, elementType: ELEMENTS[key] ?? 'uint32' }]),
  );
  change(metadata);
  const infos = header.tensors.map((t) => info(t.name, t.dims, typeNamed(t.type).id, t.offset));
  return gguf({
    kvs: [...metadata].map(([key, entry]) => kvBytes(key, entry)),
    infos,
    data: data.subarray(header.dataStart),
    alignment: header.alignment,
  });
}

/** A sparse file of `size` bytes (no disk taken) starting with `head`, in a fresh folder: { file, dir }. */
function sparseFile(head, size) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mha-gguf-'));
  const file = path.join(dir, NAME);
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, head);
    ftruncateSync(fd, size);
  } finally {
    closeSync(fd);
  }
  return { file, dir };
}

/**
 * An act that loads what `make()` gives ({ source, cleanup? }: bytes or a
 * path) and, if that works, disposes the model; a refusal that took more
 * than MAX_MS or grew the process's peak memory by more than MAX_GROWTH is
 * reported as unbounded instead of as itself.
 */
const boundedLoad = (make) => async (engine) => {
  const { source, cleanup } = await make();
  const peak = process.resourceUsage().maxRSS * 1024;
  const started = performance.now();
  try {
    const model = await engine.loadModel(source);
    model.dispose();
    return { loaded: true };
  } catch (error) {
    const ms = performance.now() - started;
    const grew = process.resourceUsage().maxRSS * 1024 - peak;
    if (ms > MAX_MS || grew > MAX_GROWTH)
      throw new Error(`unbounded: ${Math.round(ms)} ms, peak memory up ${grew} bytes, for: ${error.message}`);
    throw error;
  } finally {
    cleanup?.();
  }
};
const inMemory = (data) => async () => ({ source: { [NAME]: await data() } });
const onDisk = (head, size) => async () => {
  const { file, dir } = sparseFile(await head(), size);
  return { source: file, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
};

// A refusal coded `code` of `field` (a RegExp: of the fields it matches), its message `problem`.
const escape = (field) => field.replace(/[()[\]".]/g, '\\$&');
const says = (field, problem) => new RegExp(`^${escape(NAME)}: ${field}: ${problem}`);
const refusedAs = (code, field, problem) => {
  const pattern = field instanceof RegExp ? field.source : escape(field);
  const named = field instanceof RegExp ? new RegExp(`^${field.source}$`) : field;
  return { refused: ['Error', says(pattern, problem), { code, file: NAME, field: named }] };
};

const GiB = 2 ** 30;
const setArray = (key, change) => (m) => {
  const entry = m.get(key);
  m.set(key, { ...entry, value: change([...entry.value]) });
};

/** [name, kind, act, expect, extra] rows of the hostile-checkpoint suite. */
export const GGUF_ROWS = [
  [
    'GGUF: a string of 2⁶³ bytes (general.name)',
    'crash',
    boundedLoad(inMemory(() => gguf({ kvs: [kv('general.name', 8, u64(2n ** 63n))] }))),
    refusedAs('BadCheckpoint', 'general.name (its length)', '9223372036854775808 is larger than any file'),
  ],
  [
    'GGUF: 2⁴⁰ tensors declared',
    'crash',
    boundedLoad(inMemory(() => bytes(new TextEncoder().encode('GGUF'), u32(3), u64(2 ** 40), u64(0)))),
    refusedAs('BadCheckpoint', 'tensor_count', '1099511627776 tensor infos cannot fit'),
  ],
  [
    'GGUF: tokenizer.ggml.tokens, an array of 2⁴⁰ strings declared',
    'crash',
    boundedLoad(inMemory(() => gguf({ kvs: [...QWEN2_KVS, kv('tokenizer.ggml.tokens', 9, [u32(8), u64(2 ** 40)])] }))),
    refusedAs('BadCheckpoint', 'tokenizer.ggml.tokens', 'an array of 1099511627776 strings, more than'),
  ],
  [
    'GGUF: a chat template of 1 GiB declared in a file of a few hundred bytes',
    'crash',
    boundedLoad(inMemory(() => gguf({ kvs: [...QWEN2_KVS, kv('tokenizer.chat_template', 8, u64(GiB))] }))),
    refusedAs('BadCheckpoint', 'tokenizer.chat_template', 'a string of 1073741824 bytes goes past the end'),
  ],
  [
    'GGUF: a chat template of 1 GiB, there (a sparse file of 1 GiB): refused before it is read',
    'crash',
    boundedLoad(onDisk(() => gguf({ kvs: [...QWEN2_KVS, kv('tokenizer.chat_template', 8, u64(GiB))] }), GiB + 4096)),
    refusedAs(
      'BadCheckpoint',
      'tokenizer.chat_template',
      '1073741824 bytes at byte \\d+ take the header past 67108864',
    ),
  ],
  [
    'GGUF: 2²³ empty tokens, there (a sparse file of 80 MiB): refused before they are read',
    'hang',
    boundedLoad(
      onDisk(() => gguf({ kvs: [...QWEN2_KVS, kv('tokenizer.ggml.tokens', 9, [u32(8), u64(2 ** 23)])] }), 80 << 20),
    ),
    refusedAs('BadCheckpoint', 'tokenizer.ggml.tokens', 'an array of 8388608 values, more than the 4194304'),
  ],
  [
    'GGUF: dimensions whose product wraps to 0 in 64 bits ([2³³, 2³¹])',
    'silent',
    boundedLoad(inMemory(() => gguf({ infos: [info('token_embd.weight', [2 ** 33, 2 ** 31], 0, 0)], data: f32(0) }))),
    refusedAs(
      'BadCheckpoint',
      'tensor "token_embd.weight" (dimensions)',
      '\\[8589934592,2147483648\\] is more elements',
    ),
  ],
  [
    'GGUF: a tensor offset of 2⁶⁴ − 32 (aligned; its end wraps in 64 bits)',
    'silent',
    boundedLoad(
      inMemory(() =>
        gguf({ infos: [[str('token_embd.weight'), u32(1), u64(32), u32(0), u64(2n ** 64n - 32n)]], data: f32(0) }),
      ),
    ),
    refusedAs('BadCheckpoint', 'tensor "token_embd.weight" (offset)', '18446744073709551584 is larger than any file'),
  ],
  [
    "GGUF: stories260K's header cut inside its token list",
    'crash',
    boundedLoad(inMemory(async () => bytesOf('stories260K-q8_0.gguf').subarray(0, 5000))),
    refusedAs('BadCheckpoint', /tokenizer\.ggml\.tokens\[\d+\]( \(its length\))?/, '.*past the end of the file'),
  ],
  [
    'GGUF tokenizer: a merge naming tokens the vocabulary lacks (llama-bpe)',
    'silent',
    boundedLoad(
      inMemory(() =>
        withMetadata(
          'llama-bpe-f32.gguf',
          setArray('tokenizer.ggml.merges', (m) => m.with(5, 'zzz qqq')),
        ),
      ),
    ),
    refusedAs('BadTokenizer', 'tokenizer.ggml.merges[5]', '"zzz qqq" is not two tokens of the vocabulary'),
  ],
  [
    'GGUF tokenizer: merges a string, not an array (llama-bpe)',
    'message',
    boundedLoad(
      inMemory(() =>
        withMetadata('llama-bpe-f32.gguf', (m) => m.set('tokenizer.ggml.merges', { type: 'string', value: 'a b' })),
      ),
    ),
    refusedAs('BadTokenizer', 'tokenizer.ggml.merges', 'a string, expected an array of strings'),
  ],
  [
    'GGUF tokenizer: a NaN score (stories260K, whose merges are made from the scores)',
    'silent',
    boundedLoad(
      inMemory(() =>
        withMetadata(
          'stories260K-q8_0.gguf',
          setArray('tokenizer.ggml.scores', (s) => s.with(300, NaN)),
        ),
      ),
    ),
    refusedAs('BadTokenizer', 'tokenizer.ggml.scores[300]', 'NaN, in what should be an array of finite numbers'),
  ],
  [
    'GGUF tokenizer: one token type fewer than the tokens (stories260K)',
    'silent',
    boundedLoad(
      inMemory(() =>
        withMetadata(
          'stories260K-q8_0.gguf',
          setArray('tokenizer.ggml.token_type', (t) => t.slice(1)),
        ),
      ),
    ),
    refusedAs('BadTokenizer', 'tokenizer.ggml.token_type', '511 values for the 512 tokens'),
  ],
  [
    'GGUF tokenizer: a token twice (stories260K)',
    'silent',
    boundedLoad(
      inMemory(() =>
        withMetadata(
          'stories260K-q8_0.gguf',
          setArray('tokenizer.ggml.tokens', (t) => t.with(300, t[299])),
        ),
      ),
    ),
    refusedAs('BadTokenizer', 'tokenizer.ggml.tokens[300]', 'token ".*" is there twice'),
  ],
  [
    'GGUF tokenizer: an unknown-token id past the tokens (stories260K)',
    'silent',
    boundedLoad(
      inMemory(() =>
        withMetadata('stories260K-q8_0.gguf', (m) =>
          m.set('tokenizer.ggml.unknown_token_id', { type: 'uint32', value: 4294967295 }),
        ),
      ),
    ),
    refusedAs('BadTokenizer', 'tokenizer.ggml.unknown_token_id', '4294967295 is not the id of one of the 512 tokens'),
  ],
  [
    'GGUF tokenizer: 20 pieces of 4500 characters, merges to be rebuilt from the scores (stories260K)',
    'hang',
    boundedLoad(
      inMemory(() =>
        withMetadata(
          'stories260K-q8_0.gguf',
          setArray('tokenizer.ggml.tokens', (t) => t.map((x, i) => (i >= 400 && i < 420 ? `${i}`.repeat(1500) : x))),
        ),
      ),
    ),
    refusedAs('BadTokenizer', /tokenizer\.ggml\.tokens\[401\]/, 'a piece of 4500 characters takes the work'),
  ],
];
