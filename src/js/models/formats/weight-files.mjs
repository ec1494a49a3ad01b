// Which files of a checkpoint folder hold its weights, and their tensors, in
// either format: safetensors (model.safetensors, or the shards of
// model.safetensors.index.json), preferred, else torch.save's zip
// (pytorch_model.bin, or the shards of pytorch_model.bin.index.json). Every
// tensor comes out as { name, dtype, shape, elements, begin, end }, so the
// loader matches and streams both alike.
import { codedError, fileError } from '../../errors.mjs';
import { readJson } from '../sources/files.mjs';
import { readPytorchTensors } from './pytorch.mjs';
import { readHeader } from './safetensors.mjs';

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

/**
 * The weight files of a folder's files ({ [fileName]: file }), safetensors
 * first. Throws an Error saying what the folder lacks (and what it has).
 */
export async function weightFiles(files) {
  const choice = weightChoice((name) => (Object.hasOwn(files, name) ? 'present' : 'absent'));
  if (choice?.single) return [files[choice.single]];
  if (choice?.index) {
    const names = shardNames(choice.index, await readJson(files[choice.index]));
    // (Own names only: a weight_map naming "constructor" or "__proto__" names no file.)
    const absent = names.filter((n) => !Object.hasOwn(files, n));
    if (absent.length)
      throw fileError(choice.index, `${choice.index} lists ${absent.join(', ')}, which the folder does not have`);
    return names.map((n) => files[n]);
  }
  const others = Object.keys(files).filter((n) => OTHER_WEIGHTS.test(n));
  throw codedError(
    'NoWeights',
    `no model.safetensors or pytorch_model.bin in the folder${others.length ? ` (it has ${others.join(', ')})` : ''}: ` +
      "download the weights from the model's page on the Hugging Face Hub (Files and versions), as " +
      'model.safetensors (preferred) or pytorch_model.bin',
  );
}

/** Weight files of formats the engine does not read (TensorFlow, Flax, ONNX, raw torch). */
export const OTHER_WEIGHTS = /\.(bin|h5|msgpack|ckpt|pt|pth|onnx|ot)$/;

/** The tensors of one weight file, by its format (its name says which). */
export const readTensors = (file) => (/\.safetensors$/.test(file.name) ? readHeader(file) : readPytorchTensors(file));
