// Which files of a checkpoint folder hold its weights, and their tensors, in
// either format: safetensors (model.safetensors, or the shards of
// model.safetensors.index.json), preferred, else torch.save's zip
// (pytorch_model.bin, or the shards of pytorch_model.bin.index.json). Every
// tensor comes out as { name, dtype, shape, elements, begin, end }, so the
// loader matches and streams both alike.
import { readJson } from '../sources/files.mjs';
import { readPytorchTensors } from './pytorch.mjs';
import { readHeader } from './safetensors.mjs';

const FORMATS = [
  { single: 'model.safetensors', index: 'model.safetensors.index.json' },
  { single: 'pytorch_model.bin', index: 'pytorch_model.bin.index.json' },
];

/**
 * The weight files of a folder's files ({ [fileName]: file }), safetensors
 * first. Throws an Error saying what the folder lacks (and what it has).
 */
export async function weightFiles(files) {
  for (const { single, index } of FORMATS) {
    if (files[index]) {
      const map = (await readJson(files[index])).weight_map;
      if (!map || typeof map !== 'object' || Array.isArray(map)) throw new Error(`${index}: no weight_map`);
      const names = [...new Set(Object.values(map))];
      if (!names.every((n) => typeof n === 'string'))
        throw new Error(`${index}: a weight_map value is not a file name`);
      // (Own names only: a weight_map naming "constructor" or "__proto__" names no file.)
      const absent = names.filter((n) => !Object.hasOwn(files, n));
      if (absent.length) throw new Error(`${index} lists ${absent.join(', ')}, which the folder does not have`);
      return names.map((n) => files[n]);
    }
    if (files[single]) return [files[single]];
  }
  const others = Object.keys(files).filter((n) => /\.(bin|h5|msgpack|ckpt|pt|pth|onnx)$/.test(n));
  throw new Error(
    `no model.safetensors or pytorch_model.bin in the folder${others.length ? ` (it has ${others.join(', ')})` : ''}: ` +
      "download the weights from the model's page on the Hugging Face Hub (Files and versions), as " +
      'model.safetensors (preferred) or pytorch_model.bin',
  );
}

/** The tensors of one weight file, by its format (its name says which). */
export const readTensors = (file) => (/\.safetensors$/.test(file.name) ? readHeader(file) : readPytorchTensors(file));
