// The files a reader hands the page, as [{ path, size, file }]: from a drop
// (folders walked through webkitGetAsEntry, hidden files and folders left out)
// or from an <input type="file"> (webkitdirectory or plain files).

/** Folders deeper than this inside a dropped folder are not read (a dropped parent of many models). */
const MAX_DEPTH = 4;

/** A file entry's File, whatever the browser's callback style. */
const fileOf = (entry) => new Promise((resolve, reject) => entry.file(resolve, reject));
const readBatch = (reader) => new Promise((resolve, reject) => reader.readEntries(resolve, reject));

/** Every file under a dropped entry, appended to out. */
async function walk(entry, prefix, out, depth = 0) {
  if (entry.name.startsWith('.')) return;
  if (entry.isFile) {
    const file = await fileOf(entry);
    out.push({ path: `${prefix}${file.name}`, size: file.size, file });
  } else if (entry.isDirectory && depth < MAX_DEPTH) {
    const reader = entry.createReader();
    for (let batch = await readBatch(reader); batch.length; batch = await readBatch(reader))
      for (const child of batch) await walk(child, `${prefix}${entry.name}/`, out, depth + 1);
  }
}

/** True when a drag carries files (not text or a link). */
export const carriesFiles = (event) => [...(event.dataTransfer?.types ?? [])].includes('Files');

/** The files of a drop: folders walked, else the plain file list. */
export async function droppedFiles(transfer) {
  // The entries must be taken while the drop event runs; reading them may wait.
  const entries = [...(transfer.items ?? [])]
    .filter((item) => item.kind === 'file')
    .map((item) => item.webkitGetAsEntry?.())
    .filter(Boolean);
  if (!entries.length) return [...transfer.files].map((file) => ({ path: file.name, size: file.size, file }));
  const out = [];
  for (const entry of entries) await walk(entry, '', out);
  return out;
}

/** The files an <input type="file"> holds (its folder-relative paths when a folder was picked). */
export const inputFiles = (input) =>
  [...input.files].map((file) => ({ path: file.webkitRelativePath || file.name, size: file.size, file }));
