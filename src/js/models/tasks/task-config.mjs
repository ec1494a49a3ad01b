// What a checkpoint says about its task: the labels of its task head (config.json's id2label, by index) and
// the pooling and normalisation of a sentence-transformers folder (modules.json, 1_Pooling/config.json).
import { readJson, readText } from '../read-file.mjs';
import { codedError } from '../../errors.mjs';
import { poolingConfigFile } from '../checkpoint-files.mjs';

/** id2label as a list by index: "0" … "numLabels − 1" (C++ counted them: bert.cpp); LABEL_i when absent. */
export function taskLabels(json, numLabels, file) {
  const id2label = json.id2label ?? {};
  const labels = Array.from({ length: numLabels }, (_, i) => id2label[i] ?? `LABEL_${i}`);
  const bad = labels.findIndex((label) => typeof label !== 'string');
  if (bad >= 0 || Object.keys(id2label).length > numLabels)
    throw codedError(
      'BadConfig',
      `${file}: id2label must map "0" … "${numLabels - 1}" to strings, got ${JSON.stringify(id2label).slice(0, 200)}`,
      { file, field: 'id2label' },
    );
  return Object.freeze(labels);
}

// sentence-transformers' Pooling modes (pooling_mode_*) as embed()'s pooling.
const POOLING_MODES = {
  pooling_mode_cls_token: 'cls',
  pooling_mode_mean_tokens: 'mean',
  pooling_mode_max_tokens: 'max',
};

/**
 * A sentence-transformers folder's embedding: { pooling ('mean', 'cls', 'max', or null: not known — a mode
 * embed() does not compute, such as mean_sqrt_len or several at once, or a Pooling config.json the source did not
 * give: a folder's, files' or Hub repo's N_Pooling/config.json, checkpoint-files.mjs), normalize (a Normalize
 * module follows), file (the Pooling module's config.json) }, or null when the folder has no modules.json (or no
 * Pooling module in it). `files` are the checkpoint's, by name.
 */
export async function readSentenceTransformers(files) {
  if (!files['modules.json']) return null;
  let modules;
  try {
    modules = JSON.parse(await readText(files['modules.json']));
  } catch (error) {
    throw codedError('BadCheckpoint', `modules.json: not JSON (${error.message})`, { file: 'modules.json' });
  }
  if (!Array.isArray(modules))
    throw codedError('BadCheckpoint', 'modules.json: expected a list of modules', { file: 'modules.json' });
  const file = poolingConfigFile(modules);
  if (!file) return null;
  const normalize = modules.some((m) => typeof m?.type === 'string' && m.type.endsWith('models.Normalize'));
  if (!files[file]) return Object.freeze({ pooling: null, normalize, file });
  const settings = await readJson(files[file]);
  const on = Object.keys(settings).filter((k) => k.startsWith('pooling_mode_') && settings[k] === true);
  const mode = on.length === 1 ? (POOLING_MODES[on[0]] ?? null) : null;
  return Object.freeze({ pooling: mode, normalize, file });
}
