// How the loader writes a checkpoint's chunks (writeChunks, src/js/models/load.mjs),
// against an engine written here that checks each chunk's bytes when it has
// finished with them: every chunk arrives whole and in order, read into the
// loader's arrays, which the engine gives back and later reads fill again (at
// most 1 + READ_AHEAD arrays for any number of chunks; a new one for each
// chunk when the engine keeps them), never written into while the engine
// still has them; the progress adds up; a failed write rejects the load with
// the file named, and the reads still in flight end quietly.
import { writeChunks } from '../../src/js/models/load.mjs';
import { CALLS } from '../../src/js/protocol.mjs';

const READ_AHEAD = 3; // load.mjs's
const byteOf = (chunk, k) => (chunk * 37 + k * 11) & 255;

/** `count` chunks of files a.safetensors and b.safetensors, 100–1,000 bytes each; `reads` records each read's array. */
function makeChunks(count, reads) {
  let at = 0;
  return Array.from({ length: count }, (_, i) => {
    const size = 100 + ((i * 389) % 901);
    const chunk = {
      file: i < count / 2 ? 'a.safetensors' : 'b.safetensors',
      tensor: { index: i % 7 },
      at,
      end: at + size,
      first: i,
      dtype: 'F32',
      async read(into) {
        reads.push(into);
        await new Promise((resolve) => setTimeout(resolve, i % 3));
        const view = into.subarray(0, size);
        for (let k = 0; k < size; k++) view[k] = byteOf(i, k);
        return view;
      },
    };
    at += size;
    return chunk;
  });
}

/** An engine's calls that takes a while over each chunk and checks its bytes at the end; `giveBack`: as engine-host.js. */
function engine({ giveBack = true, failAt = -1 } = {}) {
  const writes = [];
  const call = async (method, [id, index, dtype, first, bytes]) => {
    expect(method).toBe(CALLS.modelWrite);
    const i = first;
    if (i === failAt) throw new Error('the engine refused chunk 5');
    await new Promise((resolve) => setTimeout(resolve, 2));
    writes.push({ id, index, dtype, i, whole: bytes.every((b, k) => b === byteOf(i, k)), length: bytes.length });
    return giveBack ? { bytes } : undefined;
  };
  return { call, writes };
}

test('every chunk arrives whole and in order, read into at most 1 + READ_AHEAD arrays', async () => {
  const reads = [];
  const chunks = makeChunks(40, reads);
  const { call, writes } = engine();
  const progress = [];
  await writeChunks(call, 9, chunks, { onProgress: (p) => progress.push(p) });
  expect(writes.map((w) => w.i)).toEqual(chunks.map((_, i) => i));
  expect(
    writes.every((w, i) => w.whole && w.id === 9 && w.index === i % 7 && w.length === chunks[i].end - chunks[i].at),
  ).toBe(true);
  const largest = Math.max(...chunks.map((c) => c.end - c.at));
  expect(reads.every((into) => into.buffer.byteLength === largest)).toBe(true);
  expect(new Set(reads.map((into) => into.buffer)).size).toBe(1 + READ_AHEAD);
  const total = chunks.at(-1).end;
  expect(progress.at(-1)).toEqual({ phase: 'load', loadedBytes: total, totalBytes: total, file: 'b.safetensors' });
  expect(progress.map((p) => p.loadedBytes)).toEqual(chunks.map((c) => c.end));
});

test('an engine that keeps the arrays gets a new one each chunk', async () => {
  const reads = [];
  const chunks = makeChunks(12, reads);
  const { call, writes } = engine({ giveBack: false });
  await writeChunks(call, 1, chunks);
  expect(writes.every((w) => w.whole)).toBe(true);
  expect(new Set(reads.map((into) => into.buffer)).size).toBe(12);
});

test('a failed write rejects with the file named; the reads in flight end quietly', async () => {
  const unhandled = [];
  const onUnhandled = (e) => unhandled.push(e);
  process.on('unhandledRejection', onUnhandled);
  try {
    const chunks = makeChunks(12, []);
    const failing = chunks[7].read;
    chunks[7].read = async (into) => {
      await failing(into);
      throw new Error('never awaited');
    };
    const { call, writes } = engine({ failAt: 5 });
    const error = await writeChunks(call, 1, chunks).catch((e) => e);
    expect(error).toMatchObject({
      message: expect.stringContaining('the engine refused chunk 5'),
      code: 'BadCheckpoint',
    });
    expect(error.file).toBe('a.safetensors');
    expect(writes.map((w) => w.i)).toEqual([0, 1, 2, 3, 4]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(unhandled).toEqual([]);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});

test('an aborted load stops before its next write', async () => {
  const controller = new AbortController();
  const chunks = makeChunks(10, []);
  const { call, writes } = engine();
  const error = await writeChunks(call, 1, chunks, {
    signal: controller.signal,
    onProgress: ({ loadedBytes }) => loadedBytes >= chunks[2].end && controller.abort(),
  }).catch((e) => e);
  expect(error.name).toBe('AbortError');
  expect(writes).toHaveLength(3);
});
