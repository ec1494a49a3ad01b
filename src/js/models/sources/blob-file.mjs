// A Blob (a File the user gave, or a Hub file kept in the Cache API) as the
// loader reads a file: { name, size, read(begin, end, into?) }.
//
// The loader reads a weight file front to back in chunks and hands each back
// to be read into again (load.mjs): so a read with `into` continues one byte
// stream of the Blob from where the last read ended (a new stream where it
// does not), filling the loader's array in place with a BYOB reader. Reading
// into a fresh array each time, as blob.slice().arrayBuffer() does, makes the
// browser hand out new memory for every 8 MB: on a machine where touching new
// memory is slow that, not the disk, bounded a load (Chromium 156 here: a
// 406.7 MB File read at 180–280 MB/s into fresh arrays, at 690–980 MB/s into
// one array again; docs/performance.md). Where a Blob's stream is not a byte
// stream (no BYOB reader), every read is a slice's arrayBuffer().
//
// A byte stream's read that gives nothing for STALL_MS is given up: Chromium 156
// left the first read of a File's stream unanswered for good, about one load in
// five with the machine's two cores busy (bench/llama.mjs's test, beside a page
// suite; root cause not found). That read, and every later one of the Blob, is
// then a slice's arrayBuffer() (a new array, not the loader's).

/** Whether `blob.stream()` gives a byte stream (one a BYOB reader reads). */
function hasByteStreams(blob) {
  try {
    blob
      .slice(0, 0)
      .stream()
      .getReader({ mode: 'byob' })
      .cancel()
      .catch(() => {});
    return true;
  } catch {
    return false;
  }
}

/** How long a byte stream's read may give nothing before the Blob is read by slices instead. */
export const STALL_MS = 10_000;
const STALLED = Symbol('stalled');

export function blobFile(name, blob, { stallMs = STALL_MS } = {}) {
  let byteStreams; // hasByteStreams(blob), asked at the first read into an array; false after a stall
  let stream = null; // { reader, at }: the byte stream the last read continued, and where it is
  let queue = Promise.resolve(); // reads into arrays run one after another, on the one stream

  const restart = (begin) => {
    stream?.reader.cancel().catch(() => {});
    stream = { reader: blob.slice(begin).stream().getReader({ mode: 'byob' }), at: begin };
  };

  /** The bytes [begin, end) into `into`'s memory: a view of them (fewer at the Blob's end). */
  async function readInto(begin, end, into) {
    if (byteStreams === false) return sliced(begin, end); // a read queued before a stall
    if (stream?.at !== begin) restart(begin);
    const length = end - begin;
    const offset = into.byteOffset; // read now: a detached array's is 0
    let { buffer } = into;
    let filled = 0;
    while (filled < length) {
      // The reader takes the array's memory and gives it back as a new ArrayBuffer over the same bytes.
      const pending = stream.reader.read(new Uint8Array(buffer, offset + filled, length - filled));
      let timer;
      const stall = new Promise((resolve) => {
        timer = setTimeout(resolve, stallMs, STALLED);
      });
      const answer = await Promise.race([pending, stall]).finally(() => clearTimeout(timer));
      if (answer === STALLED) {
        pending.catch(() => {});
        stream.reader.cancel().catch(() => {});
        stream = null;
        byteStreams = false;
        return sliced(begin, end);
      }
      const { done, value } = answer;
      if (value) buffer = value.buffer; // at the end, an empty view that still gives the memory back
      if (done) break;
      filled += value.byteLength;
    }
    stream.at = begin + filled;
    return new Uint8Array(buffer, offset, filled);
  }

  const sliced = (begin, end) =>
    blob
      .slice(begin, end)
      .arrayBuffer()
      .then((bytes) => new Uint8Array(bytes));

  return {
    name,
    size: blob.size,
    read(begin, end, into) {
      if (!into || into.byteLength < end - begin || !(byteStreams ??= hasByteStreams(blob))) return sliced(begin, end);
      const read = queue.then(() => readInto(begin, end, into));
      // A failed read leaves no stream half read behind: the next read starts a new one.
      queue = read.catch(() => {
        stream?.reader.cancel().catch(() => {});
        stream = null;
      });
      return read;
    },
  };
}
