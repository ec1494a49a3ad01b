// The weight files of a checkpoint folder (which ones: checkpoint-files.mjs's
// weightChoice) and their tensors, in either format: safetensors
// (model.safetensors, or the shards of model.safetensors.index.json),
// preferred, else torch.save's zip (pytorch_model.bin, or the shards of
// pytorch_model.bin.index.json). Every tensor comes out as { name, dtype,
// shape, elements, begin, end }, so the loader matches and streams both alike.
import { codedError, fileError } from '../../errors.mjs';
import { OTHER_WEIGHTS, shardNames, weightChoice } from '../checkpoint-files.mjs';
import { readJson } from '../read-file.mjs';
import { readPytorchTensors } from './pytorch.mjs';
import { readHeader } from './safetensors.mjs';

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

/** The tensors of one weight file, by its format (its name says which). */
export const readTensors = (file) => (/\.safetensors$/.test(file.name) ? readHeader(file) : readPytorchTensors(file));
