// Errors carry a stable code (src/js/errors.mjs) and the names they are
// about, in the engine's own thread and across its worker alike: a model
// past the engine's limits (TooLarge, from C++), a model_type it does not run
// (UnsupportedModel with file, field and value, from C++), a bad argument
// (InvalidArgument on a TypeError or RangeError, from JS and from C++), a
// disposed engine (Disposed). Every code the sources throw is one of
// ERROR_CODES, and the declarations' ErrorCode (types/errors.d.ts) lists exactly those.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';
import { ERROR_CODES } from '../../src/js/errors.mjs';
import { folderFiles } from '../tools/hub-server.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const { 'reference.json': _, ...FILES } = folderFiles(path.join(ROOT, 'tests/fixtures/models/bert-zh'));
const CONFIG = JSON.parse(FILES['config.json']);
const withConfig = (changes) => ({ ...FILES, 'config.json': Buffer.from(JSON.stringify({ ...CONFIG, ...changes })) });
const rejection = (promise) =>
  promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e) => e,
  );

describe.each([false, true])('createAttention({ worker: %s })', (worker) => {
  let engine;
  beforeAll(async () => {
    engine = await createAttention({ worker, threads: 1 });
  });
  afterAll(() => engine?.dispose());

  test('a model past the engine’s limits: a RangeError with code TooLarge', async () => {
    const error = await rejection(
      engine.loadModel(withConfig({ vocab_size: 1e6, hidden_size: 4096, num_attention_heads: 16 })),
    );
    expect(error).toBeInstanceOf(RangeError);
    expect(error.code).toBe('TooLarge');
    expect(error.message).toMatch(/^the token embeddings: vocabSize×hiddenSize = 1000000×4096 = /);
  });

  test('a model_type the engine does not run: UnsupportedModel, naming the file, field and value', async () => {
    const error = await rejection(engine.loadModel(withConfig({ model_type: 'nope' })));
    expect(error).toBeInstanceOf(Error);
    expect({ code: error.code, file: error.file, field: error.field, value: error.value }).toEqual({
      code: 'UnsupportedModel',
      file: 'config.json',
      field: 'model_type',
      value: '"nope"',
    });
    const setting = await rejection(engine.loadModel(withConfig({ num_attention_heads: 0 })));
    expect([setting.code, setting.file]).toEqual(['BadConfig', 'config.json']);
  });

  test('a bad argument: a TypeError or RangeError with code InvalidArgument', async () => {
    const type = await rejection(engine.multiHeadAttention({ dModel: 5 }));
    expect(type).toBeInstanceOf(TypeError);
    expect([type.name, type.constructor.name, type.code]).toEqual(['TypeError', 'TypeError', 'InvalidArgument']);
    const range = await rejection(engine.loadModel(FILES, { weights: 'q3' }));
    expect(range.code).toBe('InvalidArgument');
  });

  test("a load stopped by its signal rejects with the signal's own reason, untouched", async () => {
    const controller = new AbortController();
    const mine = new Error('stopped by the user');
    const error = await rejection(
      engine.loadModel(FILES, {
        signal: controller.signal,
        onProgress: (e) => e.phase === 'load' && controller.abort(mine),
      }),
    );
    expect(error).toBe(mine);
    expect(error.code).toBeUndefined();
  });

  test('a disposed engine: Disposed', async () => {
    const other = await createAttention({ worker, threads: 1 });
    other.dispose();
    expect((await rejection(other.multiHeadAttention({}))).code).toBe('Disposed');
  });
});

/** Every file under `dir` whose name ends with one of `ends`. */
function filesUnder(dir, ends) {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return filesUnder(full, ends);
    return ends.some((e) => name.endsWith(e)) ? [full] : [];
  });
}

test('every code the sources give is one of ERROR_CODES, and the declarations type exactly those', () => {
  const given = new Set();
  for (const file of filesUnder(path.join(ROOT, 'src'), ['.mjs', '.js', '.cpp', '.hpp'])) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:codedError|coded|codeIfNone|step)\(\s*(?:[\w.]+,\s*)?'([A-Z]\w+)'/g))
      given.add(m[1]);
    for (const m of text.matchAll(/code(?:\(\))?\s*[:=]\s*['"]([A-Z]\w+)['"]/g)) given.add(m[1]);
    for (const m of text.matchAll(/ConfigError\([^;]*?"([A-Z]\w+)"/gs)) given.add(m[1]);
  }
  expect([...given].filter((code) => !ERROR_CODES.includes(code))).toEqual([]);
  expect(given.size).toBeGreaterThan(15);
  // ErrorCode is declared in types/errors.d.ts, which index.d.ts re-exports.
  expect(readFileSync(path.join(ROOT, 'src/js/index.d.ts'), 'utf8')).toContain("export * from './types/errors.js';");
  const types = readFileSync(path.join(ROOT, 'src/js/types/errors.d.ts'), 'utf8');
  const union = /export type ErrorCode =([^;]*);/.exec(types)[1];
  expect([...union.matchAll(/'(\w+)'/g)].map((m) => m[1]).sort()).toEqual([...ERROR_CODES].sort());
});
