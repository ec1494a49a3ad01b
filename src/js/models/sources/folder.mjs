// A model folder in Node (engine.loadModel(path)): its files, each read when
// asked, into the loader's array or a fresh one (see sources/files.mjs for
// what read() promises). Node's openNamed (hub-node.mjs) opens a folder path
// with it, and a snapshot of the Hub cache file by file with fileAt; no
// browser bundle reaches node:fs.
import { opendir, open, stat } from 'node:fs/promises';
import path from 'node:path';
import { codedError } from '../../errors.mjs';

/** The files of a model folder, read when asked: [{ path, file: { name, size, read(begin, end) } }]. */
export async function readFolder(folder) {
  let dir;
  try {
    dir = await opendir(folder);
  } catch (error) {
    throw codedError('InvalidArgument', `source: cannot read the folder ${folder} (${error.code ?? error.message})`, {
      cause: error,
    });
  }
  const files = [];
  for await (const entry of dir) {
    // A sentence-transformers Pooling module's folder: its config.json (openSource keeps it by this path).
    if (entry.isDirectory() && /^\d+_Pooling$/.test(entry.name)) {
      const file = path.join(folder, entry.name, 'config.json');
      const info = await stat(file).catch(() => null);
      if (info?.isFile())
        files.push({ path: `${entry.name}/config.json`, file: fileAt(file, 'config.json', info.size) });
      continue;
    }
    if (!entry.isFile() && !entry.isSymbolicLink()) continue;
    const file = path.join(folder, entry.name);
    const info = await stat(file).catch(() => null);
    if (!info?.isFile()) continue;
    files.push({ path: entry.name, file: fileAt(file, entry.name, info.size) });
  }
  return files;
}

/** The file at `file` (a path) as the loader reads one: { name, size, read(begin, end, into?) } (sources/files.mjs). */
export function fileAt(file, name, size) {
  return {
    name,
    size,
    async read(begin, end, into) {
      const bytes =
        into && into.byteLength >= end - begin ? into.subarray(0, end - begin) : new Uint8Array(end - begin);
      const handle = await open(file, 'r');
      try {
        let done = 0;
        while (done < bytes.length) {
          const { bytesRead } = await handle.read(bytes, done, bytes.length - done, begin + done);
          if (bytesRead === 0) break;
          done += bytesRead;
        }
        return done === bytes.length ? bytes : bytes.subarray(0, done);
      } finally {
        await handle.close();
      }
    },
  };
}
