// The sizes the real-model view writes about the checkpoint's files (which
// files those are is the package's rule, src/js/models/checkpoint-files.mjs).
import { fileNameOf, filesToRead } from '../../src/js/models/checkpoint-files.mjs';

/** The files' total size in bytes. */
export const totalBytes = (entries) => entries.reduce((sum, e) => sum + (e.size ?? 0), 0);

/**
 * The entries ({ path, size }) the loader read of a checkpoint: its text and
 * tokenizer files (filesToRead: not GPT-2's vocab.json and merges.txt beside
 * its tokenizer.json, not BERT's vocab.txt beside one) and the weight files it
 * reported reading (`weightNames`: the `file` of onProgress's 'load' phase),
 * with their index when they are shards. A folder's other weights (TensorFlow,
 * Flax, a second format) and files are not read, so they are not counted.
 */
export function filesRead(entries, weightNames) {
  const weights = new Set(weightNames);
  const names = new Set(entries.map((e) => fileNameOf(e.path)));
  const read = new Set([...filesToRead((n) => names.has(n)), ...weights]);
  // An index (model.safetensors.index.json) is read when the weights read are its shards, not its single file.
  for (const name of names) {
    const single = name.replace(/\.index\.json$/, '');
    const format = single.replace(/^.*(?=\.)/, '');
    if (single !== name && [...weights].some((w) => w !== single && w.endsWith(format))) read.add(name);
  }
  return entries.filter((e) => read.has(fileNameOf(e.path)));
}

/** Bytes as the view writes them: "812 B", "3.4 KB", "418.9 MB", "1.32 GB" (decimal units). */
export function formatBytes(bytes) {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1e6) return `${(bytes / 1e3).toFixed(1)} KB`;
  if (bytes < 1e9) return `${(bytes / 1e6).toFixed(1)} MB`;
  return `${(bytes / 1e9).toFixed(2)} GB`;
}
