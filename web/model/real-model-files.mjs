// The sizes the real-model view writes about the checkpoint's files (which
// files those are is the package's rule, src/js/models/checkpoint-files.mjs).

/** The files' total size in bytes. */
export const totalBytes = (entries) => entries.reduce((sum, e) => sum + (e.size ?? 0), 0);

/** Bytes as the view writes them: "812 B", "3.4 KB", "418.9 MB", "1.32 GB" (decimal units). */
export function formatBytes(bytes) {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1e6) return `${(bytes / 1e3).toFixed(1)} KB`;
  if (bytes < 1e9) return `${(bytes / 1e6).toFixed(1)} MB`;
  return `${(bytes / 1e9).toFixed(2)} GB`;
}
