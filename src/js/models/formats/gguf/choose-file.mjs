// Which GGUF file of a folder or Hub repo a load reads: the one rule for the
// loader (models/load.mjs, on a source's files) and the Hub (sources/hub.mjs,
// on a repo's file list). Apart from checkpoint-files.mjs, which the
// tokenizer's worker bundles: nothing of GGUF goes into that bundle.
import { codedError } from '../../../errors.mjs';

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
