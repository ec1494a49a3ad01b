// Which of the files a reader dropped or picked are the checkpoint: a Hugging
// Face folder (config.json beside the weights and the tokenizer's files),
// possibly dropped with its parent or with subfolders (onnx/, .git/, a
// snapshot's refs). Pure: works on { path, size } records (path relative to
// what was dropped, '/'-separated) and returns the chosen ones.

/** The folder part of a relative path ('' at the top). */
const folderOf = (path) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');
const nameOf = (path) => path.slice(path.lastIndexOf('/') + 1);
const hidden = (path) => path.split('/').some((part) => part.startsWith('.'));

/**
 * The files of the one folder that holds config.json, nearest the top (ties:
 * the first in path order); when none has it, the top folder's files (so
 * that the engine names what is missing). Hidden files and folders are left
 * out.
 * @template {{ path: string }} T
 * @param {T[]} entries
 * @returns {{ folder: string, files: T[] }}
 */
export function pickModelFiles(entries) {
  const visible = entries.filter((e) => !hidden(e.path));
  const configs = visible
    .filter((e) => nameOf(e.path) === 'config.json')
    .map((e) => folderOf(e.path))
    .sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : a > b ? 1 : 0));
  let folder;
  if (configs.length) folder = configs[0];
  else {
    const folders = visible.map((e) => folderOf(e.path)).sort((a, b) => a.split('/').length - b.split('/').length);
    folder = folders[0] ?? '';
  }
  return { folder, files: visible.filter((e) => folderOf(e.path) === folder) };
}

/** The files' total size in bytes. */
export const totalBytes = (entries) => entries.reduce((sum, e) => sum + (e.size ?? 0), 0);

/** Bytes as the view writes them: "812 B", "3.4 KB", "418.9 MB", "1.32 GB" (decimal units). */
export function formatBytes(bytes) {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1e6) return `${(bytes / 1e3).toFixed(1)} KB`;
  if (bytes < 1e9) return `${(bytes / 1e6).toFixed(1)} MB`;
  return `${(bytes / 1e9).toFixed(2)} GB`;
}
