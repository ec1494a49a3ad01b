// Which of the files a user gave make the checkpoint: a Hugging Face folder
// (config.json beside the weights and the tokenizer's files), possibly given
// with its parent or with subfolders (onnx/, .git/, a snapshot's refs). The
// one rule for the loader (sources/files.mjs, on the paths of a FileList,
// File[] or an object's keys) and for the page's real-model view (on what a
// reader dropped or picked), so both take the same files. Pure: works on
// records with a `path` (relative to what was given, '/' or '\' separated).

const partsOf = (path) => path.split(/[\\/]/);
/** The folder part of a relative path ('' at the top), '/'-separated. */
const folderOf = (path) => partsOf(path).slice(0, -1).join('/');
/** A path's file name. */
export const fileNameOf = (path) => partsOf(path).pop();
const hidden = (path) => partsOf(path).some((part) => part.startsWith('.'));
const depthOf = (folder) => (folder === '' ? 0 : folder.split('/').length);

/**
 * The files of the one folder that holds config.json, nearest the top (ties:
 * the first in path order); when none has it, the top folder's files (so
 * that the loader names what is missing). Hidden files and folders are left
 * out; of two files with the same name in that folder, the first.
 * @template {{ path: string }} T
 * @param {T[]} entries
 * @returns {{ folder: string, files: T[] }}
 */
export function pickCheckpointFiles(entries) {
  const visible = entries.filter((e) => !hidden(e.path));
  const configs = visible
    .filter((e) => fileNameOf(e.path) === 'config.json')
    .map((e) => folderOf(e.path))
    .sort((a, b) => depthOf(a) - depthOf(b) || (a < b ? -1 : a > b ? 1 : 0));
  let folder;
  if (configs.length) folder = configs[0];
  else {
    const folders = visible.map((e) => folderOf(e.path)).sort((a, b) => depthOf(a) - depthOf(b));
    folder = folders[0] ?? '';
  }
  const names = new Set();
  const files = visible.filter((e) => {
    const name = fileNameOf(e.path);
    if (folderOf(e.path) !== folder || names.has(name)) return false;
    names.add(name);
    return true;
  });
  return { folder, files };
}

/**
 * The text files of a checkpoint the loader reads (models/load.mjs): its
 * config, and the tokenizer's files (tokenizers/tokenizer.mjs takes
 * tokenizer.json, else BERT's vocab.txt, each with tokenizer_config.json).
 */
export const TEXT_FILES = Object.freeze(['config.json', 'tokenizer.json', 'tokenizer_config.json', 'vocab.txt']);

/**
 * Whether what is known of a checkpoint's files (`state(name)`: 'present',
 * 'absent' or undefined, not known) decides every text file the loader
 * would read: config.json there, tokenizer_config.json known, and
 * tokenizer.json there or known absent with vocab.txt known. A cache
 * that holds part of a repo (what one program downloaded) is complete when
 * this and the weights' choice (formats/weights.mjs) are decided.
 */
export function textFilesDecided(state) {
  if (state('config.json') !== 'present' || state('tokenizer_config.json') === undefined) return false;
  const json = state('tokenizer.json');
  return json === 'present' || (json === 'absent' && state('vocab.txt') !== undefined);
}
