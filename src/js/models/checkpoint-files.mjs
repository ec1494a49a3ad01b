// Which of the files a user gave make the checkpoint: a Hugging Face folder
// (config.json beside the weights and the tokenizer's files), possibly given
// with its parent or with subfolders (onnx/, .git/, a snapshot's refs). The
// one rule for the loader (sources/files.mjs, on the paths of a FileList,
// File[] or an object's keys) and for the page's real-model view (on what a
// reader dropped or picked), so both take the same files. Pure: works on
// records with a `path` (relative to what was given, '/' or '\' separated).
// pickModelFiles, public in 'mha-wasm/model' and Node's entry, gives a page
// both: the checkpoint among a reader's files, and which of them are read.
import { describe } from '../checks.mjs';
import { ArgumentTypeError, codedError, fileError } from '../errors.mjs';

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
  // (A sentence-transformers Pooling module's config.json is not a checkpoint's: sources/files.mjs reads it.)
  const configs = visible
    .filter((e) => fileNameOf(e.path) === 'config.json' && !/(^|\/)\d+_Pooling$/.test(folderOf(e.path)))
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
 * config, generation_config.json (what generate() starts from, when there is
 * one), and the tokenizer's files (tokenizers/tokenizer.mjs takes
 * tokenizer.json, else Marian's source.spm with vocab.json (and
 * target_vocab.json when its vocabularies are separate), else BERT's
 * vocab.txt, each with tokenizer_config.json, and chat_template.jinja: the chat
 * template, which transformers takes before tokenizer_config.json's), and a
 * sentence-transformers folder's modules.json (embed()'s pooling: tasks/task-config.mjs).
 */
export const TEXT_FILES = Object.freeze([
  'config.json',
  'generation_config.json',
  'modules.json',
  'tokenizer.json',
  'tokenizer_config.json',
  'chat_template.jinja',
  'vocab.txt',
  'vocab.json',
  'target_vocab.json',
]);

/** A sentence-transformers Pooling module's config.json by its path in the checkpoint's folder (N_Pooling/). */
export const POOLING_CONFIG = /^\d+_Pooling\/config\.json$/;

/**
 * The config.json of the Pooling module a sentence-transformers folder's modules.json (`modules`, its parsed
 * list) names: `{path}/config.json` by the module's `path` (config.json without one), or null when it names none.
 * The loader reads it (tasks/task-config.mjs) when the source gives it: a folder's or files' N_Pooling/config.json
 * (POOLING_CONFIG: sources/files.mjs), and a Hub repo's, which sources/hub.mjs downloads after modules.json.
 */
export function poolingConfigFile(modules) {
  const pooling = Array.isArray(modules)
    ? modules.find((m) => typeof m?.type === 'string' && m.type.endsWith('models.Pooling'))
    : undefined;
  if (!pooling) return null;
  return `${typeof pooling.path === 'string' && pooling.path ? `${pooling.path}/` : ''}config.json`;
}

/** The binary files of a tokenizer the loader reads: a Marian tokenizer's SentencePiece models. */
export const BINARY_FILES = Object.freeze(['source.spm', 'target.spm']);

/** Every file besides the weights that the loader may read. */
export const READ_FILES = Object.freeze([...TEXT_FILES, ...BINARY_FILES]);

/**
 * The kinds of tokenizer a checkpoint may have, in the order the loader
 * chooses among them (the one rule: tokenizers/tokenizer.mjs builds the kind
 * this picks): `marker`, the file that makes a folder that kind, and `files`,
 * every file of it the loader reads (with tokenizer_config.json).
 */
export const TOKENIZER_KINDS = Object.freeze([
  // tokenizers' own file (so GPT-2's vocab.json, which it makes needless, is not read).
  Object.freeze({ kind: 'tokenizer.json', marker: 'tokenizer.json', files: Object.freeze(['tokenizer.json']) }),
  // MarianTokenizer's: two SentencePiece models and the vocabularies (target_vocab.json with separate_vocabs).
  Object.freeze({
    kind: 'marian',
    marker: 'source.spm',
    files: Object.freeze(['source.spm', 'target.spm', 'vocab.json', 'target_vocab.json']),
  }),
  // BertTokenizer's.
  Object.freeze({ kind: 'wordpiece', marker: 'vocab.txt', files: Object.freeze(['vocab.txt']) }),
]);

/** The kind of tokenizer (TOKENIZER_KINDS) of a checkpoint that has the files `has(name)` is true of, or null. */
export const tokenizerKind = (has) => TOKENIZER_KINDS.find((k) => has(k.marker)) ?? null;

/**
 * The tokenizer's files the loader reads of a checkpoint that has the files
 * `has(name)` is true of: tokenizer_config.json and its kind's (tokenizerKind), and with a tokenizer
 * chat_template.jinja. (A cache that does not say whether a repo has chat_template.jinja — made before it was
 * read — is taken as lacking it: textFilesDecided does not ask for it.)
 */
export function tokenizerFilesToRead(has) {
  const kind = tokenizerKind(has);
  const wanted = new Set(['tokenizer_config.json', ...(kind ? ['chat_template.jinja', ...kind.files] : [])]);
  return READ_FILES.filter((name) => wanted.has(name) && has(name));
}

/**
 * Every file besides the weights that the loader reads of such a checkpoint
 * (what a Hub source downloads with the weights): config.json,
 * generation_config.json, modules.json and the tokenizer's.
 */
export function filesToRead(has) {
  return [...['config.json', 'generation_config.json', 'modules.json'].filter(has), ...tokenizerFilesToRead(has)];
}

/**
 * Whether what is known of a checkpoint's files (`state(name)`: 'present',
 * 'absent' or undefined, not known) decides every file besides the weights
 * that the loader would read (generation_config.json aside: config.json has
 * the same settings, and caches made before it was read stay complete):
 * config.json there, tokenizer_config.json known, and the tokenizer's kind
 * decided: of TOKENIZER_KINDS in order, each marker known absent up to one
 * that is there with every file of its kind known (or all absent: no
 * tokenizer). A cache that holds part of a repo (what one program
 * downloaded) is complete when this and the weights' choice
 * (weightChoice, below) are decided.
 */
export function textFilesDecided(state) {
  if (state('config.json') !== 'present' || state('tokenizer_config.json') === undefined) return false;
  for (const { marker, files } of TOKENIZER_KINDS) {
    const there = state(marker);
    if (there === 'present') return files.every((n) => state(n) !== undefined);
    if (there !== 'absent') return false;
  }
  return true;
}

/**
 * Which of a user's local files loadModel() takes as the checkpoint, before
 * loading them (public: 'mha-wasm/model', and Node's entries): `entries`,
 * records with a `path` relative to what was given ('/' or '\' separated:
 * a dropped or picked folder's files), give `files`, the records of the one
 * folder the loader takes (pickCheckpointFiles, the rule loadModel applies to
 * a FileList, File[] or an object's keys), `folder` its path, and `read`, those
 * of `files` the loader reads besides the weights (filesToRead: config.json,
 * generation_config.json, the tokenizer's). The records are returned
 * themselves, in their order. Pure: no file is read.
 * @template {{ path: string }} T
 * @param {T[]} entries
 * @returns {{ folder: string, files: T[], read: T[] }}
 */
export function pickModelFiles(entries) {
  if (!Array.isArray(entries))
    throw new ArgumentTypeError(`pickModelFiles: expected an array of { path }, got ${describe(entries)}`);
  entries.forEach((entry, i) => {
    if (typeof entry?.path !== 'string')
      throw new ArgumentTypeError(
        `pickModelFiles: entries[${i}].path: expected a string, got ${describe(entry?.path)}`,
      );
  });
  const { folder, files } = pickCheckpointFiles(entries);
  const names = new Set(files.map((e) => fileNameOf(e.path)));
  const read = new Set(filesToRead((name) => names.has(name)));
  return { folder, files, read: files.filter((e) => read.has(fileNameOf(e.path))) };
}

// Which files hold the weights: of a Hugging Face checkpoint (safetensors
// preferred, else torch.save's zip; one file or the shards an index lists),
// or the GGUF file of a folder or repo. Read by the loader (formats/
// weight-files.mjs, models/load.mjs) and by the Hub (sources/hub.mjs, on a
// repo's file list).

const FORMATS = [
  { single: 'model.safetensors', index: 'model.safetensors.index.json' },
  { single: 'pytorch_model.bin', index: 'pytorch_model.bin.index.json' },
];

/**
 * Which weight files a checkpoint's loader reads, from what is known of its
 * files: `state(name)` is 'present', 'absent' or undefined (not known: a
 * cache that holds part of a repo). The first format of FORMATS with its
 * index or single file decides: { index } or { single }; null when neither
 * format is there; undefined when it cannot be decided from what is known.
 */
export function weightChoice(state) {
  for (const { single, index } of FORMATS) {
    const hasIndex = state(index);
    if (hasIndex === 'present') return { index };
    if (hasIndex === undefined) return undefined;
    const hasSingle = state(single);
    if (hasSingle === 'present') return { single };
    if (hasSingle === undefined) return undefined;
  }
  return null;
}

/** Every file name a checkpoint's weights may be under (a Hub repo's list is filtered by these). */
export const WEIGHT_FILE_NAMES = FORMATS.flatMap(({ single, index }) => [index, single]);

/**
 * The shard file names of a sharded checkpoint's index (the JSON object of
 * file `index`), each once, in the order the weight_map first names them.
 * An Error naming the file when it has no weight_map or a value is not a
 * plain file name.
 */
export function shardNames(index, json) {
  const map = json.weight_map;
  if (!map || typeof map !== 'object' || Array.isArray(map)) throw fileError(index, `${index}: no weight_map`);
  const names = [...new Set(Object.values(map))];
  // A plain file name beside the index: never a path (a Hub source joins it onto its cache folder).
  const bad = names.find((n) => typeof n !== 'string' || !/^[^/\\]+$/.test(n) || n === '.' || n === '..');
  if (bad !== undefined)
    throw fileError(index, `${index}: a weight_map value is not a file name beside it: ${JSON.stringify(bad)}`);
  return names;
}

/** Weight files of formats the engine does not read (TensorFlow, Flax, ONNX, raw torch). */
export const OTHER_WEIGHTS = /\.(bin|h5|msgpack|ckpt|pt|pth|onnx|ot)$/;

/** Whether a file name is a GGUF file's. */
export const isGgufName = (name) => /\.gguf$/i.test(name);

/**
 * The GGUF file a load reads of a source's files ({ [fileName]: file }):
 * the one `file` names (an Error listing the folder's .gguf files when it
 * has none of that name), else the folder's only .gguf when it has no
 * config.json (a folder with config.json is a Hugging Face checkpoint even
 * beside a .gguf), else null. With several and no `file`: an Error listing
 * them and their sizes, so that the caller picks one.
 */
export function chooseGgufFile(files, file, where = 'the folder') {
  const ggufs = Object.keys(files).filter(isGgufName);
  const list = () => ggufs.map((n) => `${n} (${files[n].size} bytes)`).join(', ');
  if (file !== undefined) {
    if (Object.hasOwn(files, file)) return files[file];
    throw codedError(
      'NoWeights',
      `file: no ${file} in ${where} (${ggufs.length ? `its GGUF files: ${list()}` : 'it has no GGUF file'})`,
      { file, field: 'file' },
    );
  }
  if (files['config.json'] || ggufs.length === 0) return null;
  if (ggufs.length === 1) return files[ggufs[0]];
  throw codedError('InvalidArgument', `${where} has ${ggufs.length} GGUF files: ${list()}; choose one with { file }`, {
    field: 'file',
  });
}
