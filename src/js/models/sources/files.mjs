// The files of a model source, as the loader reads them: { [fileName]: { name,
// size, read(begin, end, into?) } }, those of the checkpoint among what was
// given (checkpoint-files.mjs, the rule the page applies too). read(begin,
// end, into) resolves to a Uint8Array of those bytes that the loader owns,
// never a view of the caller's memory (the loader hands it to the engine's
// Worker, transferred): a view of `into` (an array of the loader's, at least
// end - begin long, which the source may fill) or a fresh array; fewer bytes
// only at the file's end. Sources here: what a browser gives (a
// FileList, File[]) and bytes in memory ({ fileName: ArrayBuffer |
// Uint8Array | Blob }); a name (a Hub repo id, or Node's folder path) is the
// platform's `openNamed` (sources/hub-node.mjs, sources/hub-browser.mjs).
import { describe } from '../../checks.mjs';
import { fileNameOf, pickCheckpointFiles, POOLING_CONFIG } from '../checkpoint-files.mjs';
import { ArgumentTypeError } from '../../errors.mjs';
import { blobFile } from './blob-file.mjs';

const isBlob = (x) => typeof Blob === 'function' && x instanceof Blob;

// The intrinsic getters of every typed array: what a subclass (or a Buffer)
// defines of its own never decides which bytes are read.
const typedArray = Object.getPrototypeOf(Uint8Array.prototype);
const intrinsic = (name) => Object.getOwnPropertyDescriptor(typedArray, name).get;
const [bufferOf, offsetOf, lengthOf] = ['buffer', 'byteOffset', 'byteLength'].map(intrinsic);
// And their methods, as this module found them (a caller's patched set() never copies a chunk).
const { slice, subarray, set } = typedArray;

function bytesFile(name, bytes, path) {
  // A plain Uint8Array over the bytes, whose slice() copies the range: Node's
  // Buffer is a Uint8Array whose slice() is a view of the caller's memory, and
  // a subclass's getters or slice() may say anything.
  let view;
  try {
    view =
      bytes instanceof ArrayBuffer
        ? new Uint8Array(bytes)
        : new Uint8Array(bufferOf.call(bytes), offsetOf.call(bytes), lengthOf.call(bytes)); // a Uint8Array
  } catch {
    // Only a detached buffer (transferred to a Worker, say) refuses a view of itself.
    throw new ArgumentTypeError(
      `source["${path}"]: its ArrayBuffer is detached (transferred elsewhere), so it holds no bytes; pass the file's bytes`,
    );
  }
  return {
    name,
    size: view.byteLength,
    async read(begin, end, into) {
      if (!into || into.byteLength < end - begin) return slice.call(view, begin, end);
      const bytes = subarray.call(view, begin, end);
      set.call(into, bytes);
      return subarray.call(into, 0, bytes.length);
    },
  };
}

/**
 * { [fileName]: { name, size, read(begin, end) } } of a source: a FileList,
 * File[], an object of name → ArrayBuffer | Uint8Array | Blob, or a name
 * (a string or URL: a Hub repo, or Node's folder), opened by the platform's
 * `openNamed(source, options)`; of those, the checkpoint's files
 * (pickCheckpointFiles).
 */
export async function openSource(source, openNamed, options) {
  const entries = await sourceFiles(source, openNamed, options);
  const { folder, files } = pickCheckpointFiles(entries);
  // Besides, a sentence-transformers Pooling module's config.json in its subfolder (tasks/task-config.mjs), by
  // its path in the folder ('1_Pooling/config.json').
  const inFolder = (path) => path.replaceAll('\\', '/').slice(folder ? folder.length + 1 : 0);
  const pooling = entries.filter(
    ({ path }) =>
      (!folder || path.replaceAll('\\', '/').startsWith(`${folder}/`)) && POOLING_CONFIG.test(inFolder(path)),
  );
  return Object.fromEntries([
    ...files.map(({ path, file }) => [fileNameOf(path), file]),
    ...pooling.map(({ path, file }) => [inFolder(path), file]),
  ]);
}

// Every file of a source, as [{ path, file }].
async function sourceFiles(source, openNamed, options) {
  if (typeof source === 'string' || (typeof URL === 'function' && source instanceof URL)) {
    if (source === '')
      throw new ArgumentTypeError('source: expected a Hugging Face model name or a folder, got the empty string');
    if (!openNamed)
      throw new ArgumentTypeError(
        "source: a name works with the engine of 'mha-wasm/model' (a Hub repo id, or a folder path in Node); or pass the files",
      );
    return openNamed(source, options);
  }
  const list =
    Array.isArray(source) || (typeof FileList === 'function' && source instanceof FileList) ? Array.from(source) : null;
  if (list)
    return list.map((file, i) => {
      if (!isBlob(file) || typeof file.name !== 'string')
        throw new ArgumentTypeError(`source[${i}]: expected a File (with a name), got ${describe(file)}`);
      return { path: file.webkitRelativePath || file.name, file: blobFile(file.name, file) };
    });
  if (source && typeof source === 'object' && !ArrayBuffer.isView(source) && !isBlob(source))
    return Object.entries(source).map(([path, value]) => {
      if (isBlob(value)) return { path, file: blobFile(fileNameOf(path), value) };
      if (value instanceof ArrayBuffer || value instanceof Uint8Array)
        return { path, file: bytesFile(fileNameOf(path), value, path) };
      throw new ArgumentTypeError(
        `source["${path}"]: expected an ArrayBuffer, Uint8Array or Blob with the file's bytes, got ${describe(value)}`,
      );
    });
  throw new ArgumentTypeError(
    "source: expected a Hugging Face model name ('org/name'), a folder, or a model folder's files " +
      `(a folder path or file: URL in Node, a FileList, File[] or { fileName: ArrayBuffer | Uint8Array | Blob }), got ${describe(source)}`,
  );
}
