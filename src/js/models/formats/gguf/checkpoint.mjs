// A GGUF file as the loader reads a checkpoint (models/load.mjs's
// folderCheckpoint gives a Hugging Face folder's the same way): its config,
// its tokenizer's files and its weights, all from the one file — the header
// read once (reader.mjs), the model from its metadata (model.mjs), the
// tensors under their Hugging Face names with their ggml type as the dtype
// they are written as (chunks.mjs writes them).
import { ggufModel } from './model.mjs';
import { readGgufHeader } from './reader.mjs';
import { READ_TYPES } from './types.mjs';
import { ggufTokenizerFiles } from './tokenizer.mjs';

/**
 * { json, configFile, tokenizerFiles(), weights() } of GGUF file `file`
 * ({ name, size, read(begin, end) }); an Error coded 'BadCheckpoint' or
 * 'UnsupportedModel' naming the file and the field it refuses.
 */
export async function openGguf(file) {
  const header = await readGgufHeader(file);
  const { config, tensors } = ggufModel(file.name, header);
  const headers = [
    tensors.map((t) => ({
      ...t,
      name: t.hfName,
      nameInFile: t.name, // what the loader's messages call it
      dtype: t.type,
    })),
  ];
  return {
    json: config,
    configFile: file.name,
    // What the loader's messages call the config and its sizes.
    words: { config: `${file.name}'s metadata`, sizes: `the sizes in ${file.name}'s metadata` },
    // The tensor types it may hold (the engine reads each: src/core/dtype.hpp).
    dtypes: READ_TYPES,
    tokenizerFiles: async () => ggufTokenizerFiles(file.name, header.metadata),
    // Its tokenizer.chat_template, given to the tokenizer as tokenizer_config.json's chat_template.
    chatTemplateSource: { file: file.name, field: 'tokenizer.chat_template' },
    weights: async () => ({
      sources: [file],
      headers,
      // generate()'s settings: the config's token ids (GGUF files hold no generation_config.json).
      generation: { json: config, file: file.name },
    }),
  };
}
