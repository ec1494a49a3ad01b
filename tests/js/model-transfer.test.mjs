// The weight chunks go to an engine's Worker transferred, not copied: each
// chunk is in one of the loader's own arrays, as long as the largest chunk (a
// Buffer source's chunks do not carry the whole file, or Node's pool), detached
// once posted, and never a buffer the caller still owns (the caller's bytes
// stay as they were).
// The model loaded so still runs as PyTorch does (tests/fixtures/models).
import { jest } from '@jest/globals';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageChannel, Worker } from 'node:worker_threads';
import { createAttention } from '../../src/js/node.mjs';
import { WorkerBackend } from '../../src/js/worker-backend.mjs';
import { compareClose } from './helpers/compare.mjs';

const MODELS = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
const NAME = 'bert-zh';
const names = readdirSync(path.join(MODELS, NAME)).filter((f) => f !== 'reference.json');
const reference = JSON.parse(readFileSync(path.join(MODELS, NAME, 'reference.json'), 'utf8'));

// Every file as a Buffer inside one larger buffer (padding around each), as
// a Buffer from a bigger read or Node's pool would be.
function bufferViews() {
  const pad = Buffer.alloc(4096, 0xee);
  const files = names.map((n) => readFileSync(path.join(MODELS, NAME, n)));
  const all = Buffer.concat(files.flatMap((f) => [pad, f]).concat(pad));
  const views = {};
  let at = 0;
  files.forEach((f, i) => {
    at += pad.length;
    views[names[i]] = all.subarray(at, at + f.length);
    at += f.length;
  });
  return { all, views };
}

async function expectReference(model) {
  const c = reference.cases[0];
  const r = await model.run(c.input, { returnAttention: true });
  expect(r.tokens).toEqual(c.readable ?? c.tokens);
  expect(compareClose(r.attention, c.attention, { abs: reference.tolerance.attentionAbs, rel: 0 })).toBeNull();
  expect(
    compareClose(r.lastHiddenState, c.lastHiddenState, {
      abs: reference.tolerance.hiddenAbs,
      rel: reference.tolerance.hiddenRel,
    }),
  ).toBeNull();
}

test('WorkerBackend moves the buffers it is told to transfer, and copies the others', async () => {
  const { port1, port2 } = new MessageChannel();
  port2.on('message', ({ id, args }) => port2.postMessage({ id, result: args.map((a) => a.byteLength) }));
  const backend = new WorkerBackend({
    post: (message, transfer) => port1.postMessage(message, transfer),
    listen: (onMessage) => port1.on('message', onMessage),
    terminate: () => port1.close(),
  });
  try {
    const chunk = new Uint8Array(1000).fill(7);
    const kept = new Uint8Array(10).fill(3);
    const answer = backend.call('modelWrite', [chunk, kept], [chunk.buffer]);
    expect(chunk.byteLength).toBe(0); // detached as soon as posted
    expect(kept).toEqual(new Uint8Array(10).fill(3));
    expect(await answer).toEqual([1000, 10]);
    expect(await backend.call('memoryStats', [kept])).toEqual([10]);
  } finally {
    backend.dispose();
    port2.close();
  }
});

describe("a Worker's engine loading a model", () => {
  let engine;
  let posted; // the modelWrite chunks posted: what each was when posted, and after
  beforeAll(async () => {
    engine = await createAttention({ variant: 'simd', worker: true });
  });
  afterAll(() => engine?.dispose());
  beforeEach(() => {
    posted = [];
    const post = Worker.prototype.postMessage;
    jest.spyOn(Worker.prototype, 'postMessage').mockImplementation(function (message, transfer) {
      const chunk = message?.method === 'modelWrite' ? message.args.at(-1) : null;
      const seen = chunk && {
        chunk,
        bytes: chunk.byteLength,
        bufferBytes: chunk.buffer.byteLength,
        transfer: transfer ?? [],
      };
      post.call(this, message, transfer);
      if (seen) posted.push({ ...seen, after: chunk.byteLength });
    });
  });
  afterEach(() => jest.restoreAllMocks());

  function expectTransferred(caller = []) {
    expect(posted.length).toBeGreaterThan(0);
    const largest = Math.max(...posted.map((p) => p.bytes));
    expect(largest).toBeLessThan(20_000); // bert-zh's largest tensor: 8,192 bytes, its file many times that
    for (const p of posted) {
      expect(p.bufferBytes).toBe(largest); // one of the loader's arrays, not the file it came from
      expect(p.transfer).toEqual([p.chunk.buffer]);
      expect(p.after).toBe(0); // detached here: moved, not copied
      for (const buffer of caller) expect(p.chunk.buffer).not.toBe(buffer);
    }
  }

  test('from Buffers inside a larger buffer: chunks of their own; the caller keeps its bytes', async () => {
    const { all, views } = bufferViews();
    const before = Buffer.from(all);
    const model = await engine.loadModel(views);
    expectTransferred([all.buffer]);
    expect(all.byteLength).toBe(before.byteLength);
    expect(Buffer.compare(all, before)).toBe(0);
    await expectReference(model);
    model.dispose();
  });

  test.each([
    ['a folder path', () => path.join(MODELS, NAME)],
    ['File[]', () => names.map((n) => new File([readFileSync(path.join(MODELS, NAME, n))], n))],
    [
      '{ name: ArrayBuffer }',
      () => Object.fromEntries(names.map((n) => [n, new Uint8Array(readFileSync(path.join(MODELS, NAME, n))).buffer])),
    ],
  ])('from %s: every chunk transferred, and the model runs as PyTorch does', async (_, source) => {
    const given = source();
    const buffers = typeof given === 'object' && !Array.isArray(given) ? Object.values(given) : [];
    const sizes = buffers.map((b) => b.byteLength);
    const model = await engine.loadModel(given);
    expectTransferred(buffers);
    expect(buffers.map((b) => b.byteLength)).toEqual(sizes);
    await expectReference(model);
    model.dispose();
  });
});

test('an engine on this thread loads the same Buffers as PyTorch runs them', async () => {
  const engine = await createAttention({ variant: 'simd' });
  try {
    const { views } = bufferViews();
    const model = await engine.loadModel(views);
    await expectReference(model);
  } finally {
    engine.dispose();
  }
});
