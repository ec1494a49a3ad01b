// A Blob as the loader reads it (src/js/models/sources/blob-file.mjs): a read
// into the loader's array fills that array's memory (a BYOB reader on one byte
// stream, continued while the reads follow each other) and gives exactly the
// Blob's bytes, wherever the reads jump, however many are asked at once, at
// the Blob's end, across the parts a Blob is made of; with no array, one too
// small, or a Blob whose stream is no byte stream, a slice's bytes; a stream
// that fails fails its read only. The bytes are checked against the array
// the Blob was made from.
import { blobFile } from '../../src/js/models/sources/blob-file.mjs';

const SIZE = 100_000;
const data = Uint8Array.from({ length: SIZE }, (_, i) => (i * 131 + (i >> 8)) & 255);
// A Blob of several parts, as the Cache API's files are (hub-browser.mjs).
const blob = () => new Blob([data.subarray(0, 30_000), data.subarray(30_000, 30_001), data.subarray(30_001)]);
const want = (begin, end) => data.subarray(begin, Math.min(end, SIZE));

/** Reads [begin, end) into a new array of `length` bytes; checks the bytes, and whether it was that array's memory. */
async function readInto(file, begin, end, length = end - begin) {
  const into = new Uint8Array(length);
  const bytes = await file.read(begin, end, into);
  expect(bytes).toEqual(want(begin, end));
  return { bytes, intoMemory: bytes.buffer.byteLength === length && into.byteLength === 0 };
}

test('reads that follow each other fill the loader’s arrays with the Blob’s bytes', async () => {
  const file = blobFile('model.safetensors', blob());
  expect(file).toMatchObject({ name: 'model.safetensors', size: SIZE });
  for (let at = 0; at < SIZE; at += 8192) {
    const { intoMemory } = await readInto(file, at, Math.min(SIZE, at + 8192), 8192);
    expect(intoMemory).toBe(true); // the array was taken (detached) and its memory given back
  }
});

test('reads that jump back and forth, and reads asked all at once, each get their own bytes', async () => {
  const file = blobFile('w', blob());
  for (const [begin, end] of [
    [50_000, 60_000],
    [10, 20],
    [29_990, 30_010],
    [99_000, 100_000],
    [0, 1],
  ])
    expect((await readInto(file, begin, end)).intoMemory).toBe(true);
  const ranges = [
    [0, 40_000],
    [40_000, 70_000],
    [5, 9],
    [70_000, 100_000],
  ];
  const all = await Promise.all(ranges.map(([b, e]) => file.read(b, e, new Uint8Array(40_000))));
  all.forEach((bytes, i) => expect(bytes).toEqual(want(...ranges[i])));
});

test('at the Blob’s end a read gives the bytes there are', async () => {
  const file = blobFile('w', blob());
  const into = new Uint8Array(10_000);
  const bytes = await file.read(SIZE - 300, SIZE + 700, into);
  expect(bytes).toHaveLength(300);
  expect(bytes).toEqual(want(SIZE - 300, SIZE));
  expect(await file.read(SIZE, SIZE + 10, new Uint8Array(10))).toHaveLength(0);
});

test('an array at an offset of its memory is filled there', async () => {
  const file = blobFile('w', blob());
  const memory = new Uint8Array(5000).fill(7);
  const bytes = await file.read(1000, 2000, memory.subarray(100, 1100));
  expect(bytes.byteOffset).toBe(100);
  expect(bytes).toEqual(want(1000, 2000));
  expect(new Uint8Array(bytes.buffer, 0, 100).every((x) => x === 7)).toBe(true);
});

test('with no array, or one too small, a read gives a fresh array of exactly the bytes', async () => {
  const file = blobFile('w', blob());
  const small = new Uint8Array(10);
  for (const into of [undefined, small]) {
    const bytes = await file.read(2000, 2100, into);
    expect(bytes).toEqual(want(2000, 2100));
    expect(bytes.buffer.byteLength).toBe(100);
  }
  expect(small.byteLength).toBe(10); // not taken
});

/** A Blob-like object over `data` whose slices' streams are made by `stream(begin)` (slices of slices not needed). */
function fakeBlob(stream) {
  const whole = blob();
  return {
    size: whole.size,
    slice: (begin = 0, end = SIZE) => ({
      size: Math.min(end, SIZE) - begin,
      arrayBuffer: () => whole.slice(begin, end).arrayBuffer(),
      stream: () => stream(begin, () => whole.slice(begin, end).stream()),
    }),
  };
}

test('a Blob whose stream is no byte stream is read a slice at a time', async () => {
  const file = blobFile(
    'w',
    fakeBlob(() => new ReadableStream({ pull: (c) => c.close() })),
  );
  const into = new Uint8Array(5000);
  const bytes = await file.read(4000, 9000, into);
  expect(bytes).toEqual(want(4000, 9000));
  expect(into.byteLength).toBe(5000); // not taken: a slice's own bytes
});

test('a stream that fails fails its read; the next read starts a stream of its own', async () => {
  let streams = 0;
  const file = blobFile(
    'w',
    fakeBlob((begin, real) => {
      streams += 1;
      if (streams !== 2) return real(); // the first one only tells a byte stream apart
      return new ReadableStream({
        type: 'bytes',
        pull: (c) => c.error(new Error('the disk went away')),
      });
    }),
  );
  await expect(file.read(0, 100, new Uint8Array(100))).rejects.toThrow('the disk went away');
  expect((await readInto(file, 100, 200)).intoMemory).toBe(true);
  expect((await readInto(file, 200, 300)).intoMemory).toBe(true);
  expect(streams).toBe(3); // the failed stream is not read again; the last two reads share one
});

test('a byte stream whose read gives nothing for the stall time: that read and the later ones are slices', async () => {
  const source = blob();
  let streams = 0;
  // The Blob's byte stream answers its first read, then never again (as Chromium's did under load).
  const hung = {
    size: source.size,
    slice: (...args) => {
      const part = source.slice(...args);
      return {
        size: part.size,
        arrayBuffer: () => part.arrayBuffer(),
        stream: () => {
          streams++;
          let reads = 0;
          const real = part.stream().getReader({ mode: 'byob' });
          return {
            getReader: () => ({
              read: (view) => (reads++ === 0 ? real.read(view) : new Promise(() => {})),
              cancel: () => real.cancel(),
            }),
          };
        },
      };
    },
  };
  const file = blobFile('w', hung, { stallMs: 200 });
  const started = Date.now();
  // Asked at once: the first read stalls after its first piece; the others were queued behind it.
  const ranges = [
    [0, 40_000],
    [40_000, 70_000],
    [70_000, 100_000],
  ];
  const all = await Promise.all(ranges.map(([b, e]) => file.read(b, e, new Uint8Array(40_000))));
  all.forEach((bytes, i) => expect(bytes).toEqual(want(...ranges[i])));
  expect(Date.now() - started).toBeLessThan(5000); // one stall's wait, not one a read
  const later = await readInto(file, 10, 20);
  expect(later.intoMemory).toBe(false); // a slice: no byte stream after the stall
  expect(streams).toBeLessThanOrEqual(2); // the probe's and the first read's
});
