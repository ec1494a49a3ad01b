// The sizes the real-model view writes about the checkpoint's files (which
// files those are, and which of them the loader reads besides the weights, is
// the package's rule: pickModelFiles of 'mha-wasm/model').

/** The files' total size in bytes. */
export const totalBytes = (entries) => entries.reduce((sum, e) => sum + (e.size ?? 0), 0);

/** An entry's file name: the page's paths are '/'-separated (lib/dropped-files.mjs). */
const nameOf = (entry) => entry.path.slice(entry.path.lastIndexOf('/') + 1);

/**
 * The entries ({ path, size }) the loader read of a checkpoint: of
 * pickModelFiles' result, its `read` (the text and tokenizer files: not
 * GPT-2's vocab.json and merges.txt beside its tokenizer.json, not BERT's
 * vocab.txt beside one) and the weight files the loader reported reading
 * (`weightNames`: the `file` of onProgress's 'load' phase), with their index
 * when they are shards. A folder's other weights (TensorFlow, Flax, a second
 * format) and files are not read, so they are not counted.
 */
export function filesRead({ files, read }, weightNames) {
  const weights = new Set(weightNames);
  const names = new Set([...read.map(nameOf), ...weights]);
  // An index (model.safetensors.index.json) is read when the weights read are its shards, not its single file.
  for (const name of files.map(nameOf)) {
    const single = name.replace(/\.index\.json$/, '');
    const format = single.replace(/^.*(?=\.)/, '');
    if (single !== name && [...weights].some((w) => w !== single && w.endsWith(format))) names.add(name);
  }
  return files.filter((e) => names.has(nameOf(e)));
}

/** Bytes as the view writes them: "812 B", "3.4 KB", "418.9 MB", "1.32 GB" (decimal units). */
export function formatBytes(bytes) {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1e6) return `${(bytes / 1e3).toFixed(1)} KB`;
  if (bytes < 1e9) return `${(bytes / 1e6).toFixed(1)} MB`;
  return `${(bytes / 1e9).toFixed(2)} GB`;
}
