// The files of a model source, as the loader reads them: { [fileName]: { name,
// size, read(begin, end) } }, read(begin, end) resolving to a Uint8Array of
// those bytes that the loader owns (a fresh array, never a view of the
// caller's memory: the loader hands it to the engine's Worker, transferred).
// Sources here: what a browser gives (a FileList, File[]) and bytes in memory
// ({ fileName: ArrayBuffer | Uint8Array | Blob }); Node's folder path is read
// by sources/folder.mjs, which node.mjs passes in as `readFolder`.
import { describe } from '../../checks.mjs';

const isBlob = (x) => typeof Blob === 'function' && x instanceof Blob;

function blobFile(name, blob) {
  return {
    name,
    size: blob.size,
    read: async (begin, end) => new Uint8Array(await blob.slice(begin, end).arrayBuffer()),
  };
}

function bytesFile(name, bytes) {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  // A copy of the range (not a view): a view would carry the whole buffer to a Worker.
  return { name, size: view.byteLength, read: async (begin, end) => view.slice(begin, end) };
}

const baseName = (path) => path.split(/[\\/]/).pop();

/**
 * { [fileName]: { name, size, read(begin, end) } } of a source: a FileList,
 * File[], an object of name → ArrayBuffer | Uint8Array | Blob, or (with
 * `readFolder`, Node's) a folder path.
 */
export async function openSource(source, readFolder) {
  if (typeof source === 'string') {
    if (!readFolder)
      throw new TypeError(
        'source: a folder path works in Node only; in browsers pass the files (a FileList from <input type=file webkitdirectory>, File[] or { fileName: Blob })',
      );
    return readFolder(source);
  }
  const files = {};
  const depth = {};
  const add = (path, file) => {
    const name = baseName(path);
    const d = path.split(/[\\/]/).length;
    if (files[name] && depth[name] <= d) return; // a file of a subfolder (onnx/…) does not replace the folder's own
    files[name] = file;
    depth[name] = d;
  };
  const list =
    Array.isArray(source) || (typeof FileList === 'function' && source instanceof FileList) ? Array.from(source) : null;
  if (list) {
    list.forEach((file, i) => {
      if (!isBlob(file) || typeof file.name !== 'string')
        throw new TypeError(`source[${i}]: expected a File (with a name), got ${describe(file)}`);
      add(file.webkitRelativePath || file.name, blobFile(file.name, file));
    });
  } else if (source && typeof source === 'object' && !ArrayBuffer.isView(source) && !isBlob(source)) {
    for (const [name, value] of Object.entries(source)) {
      if (isBlob(value)) add(name, blobFile(baseName(name), value));
      else if (value instanceof ArrayBuffer || value instanceof Uint8Array) add(name, bytesFile(baseName(name), value));
      else
        throw new TypeError(
          `source["${name}"]: expected an ArrayBuffer, Uint8Array or Blob with the file's bytes, got ${describe(value)}`,
        );
    }
  } else {
    throw new TypeError(
      `source: expected a model folder's files (a folder path in Node, a FileList, File[] or { fileName: ArrayBuffer | Uint8Array | Blob }), got ${describe(source)}`,
    );
  }
  return files;
}

/** A file's bytes as UTF-8 text. */
export async function readText(file) {
  return new TextDecoder().decode(await file.read(0, file.size));
}

/** A file's JSON; an Error naming the file when it is not JSON. */
export async function readJson(file) {
  try {
    return JSON.parse(await readText(file));
  } catch (error) {
    throw new Error(`${file.name}: not valid JSON (${error.message})`);
  }
}
