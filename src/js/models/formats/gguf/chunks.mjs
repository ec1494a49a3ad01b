// A GGUF tensor's bytes as the loader writes them into the engine, chunk by
// chunk (whole rows, whole row groups for the reordered query and key rows),
// as the file holds them: the engine takes F32, F16, BF16 and ggml's block
// types alike (src/model/ggml_blocks.hpp decodes the blocks, into a matrix
// held in them or into floats). The rows are put back in the model's order
// (model.mjs's rowOrder) on the raw blocks.
import { fileError } from '../../../errors.mjs';
import { typeNamed } from './types.mjs';

/**
 * The chunks of GGUF tensor `tensor` (model.mjs's, with begin, end, dims,
 * type, rowsPerGroup?, rowOrder?) of `file`, each at most about `chunkBytes`
 * written: [{ at, end, first, dtype, read(into) → Promise<Uint8Array> }] — the
 * file's bytes [at, end) and, once read, the bytes written from element
 * `first` on as `dtype`.
 */
export function ggufChunks(tensor, file, chunkBytes) {
  const type = typeNamed(tensor.type);
  const rowElements = tensor.dims.length > 1 ? tensor.dims[0] : type.blockElements;
  const rowBytes = (rowElements / type.blockElements) * type.blockBytes;
  const rows = tensor.elements / rowElements;
  const group = tensor.rowsPerGroup ?? 1;
  const perChunk = Math.max(1, Math.floor(chunkBytes / (rowBytes * group))) * group;
  const chunks = [];
  for (let row = 0; row < rows; row += perChunk) {
    const count = Math.min(perChunk, rows - row);
    const at = tensor.begin + row * rowBytes;
    const end = at + count * rowBytes;
    chunks.push({
      at,
      end,
      first: row * rowElements,
      dtype: tensor.type,
      async read(into) {
        let bytes = await file.read(at, end, into);
        if (bytes.byteLength !== end - at)
          throw fileError(
            file.name,
            `${file.name}: ended at byte ${at + bytes.byteLength} while reading "${tensor.name}"`,
          );
        if (tensor.rowOrder) bytes = reorderRows(bytes, rowBytes, tensor.rowOrder);
        return bytes;
      },
    });
  }
  return chunks;
}

/** Rows of `rowBytes` in groups of rowOrder.length, row i of each group taken from its row rowOrder[i]. */
function reorderRows(bytes, rowBytes, rowOrder) {
  const out = new Uint8Array(bytes.byteLength);
  const groupBytes = rowBytes * rowOrder.length;
  for (let g = 0; g < bytes.byteLength; g += groupBytes)
    rowOrder.forEach((from, i) =>
      out.set(bytes.subarray(g + from * rowBytes, g + (from + 1) * rowBytes), g + i * rowBytes),
    );
  return out;
}
