// A GGUF tensor's bytes as the loader writes them into the engine, chunk by
// chunk (whole rows, whole row groups for the reordered query and key rows):
// F32, F16 and BF16 as the file holds them (the engine takes those dtypes),
// every other type dequantized to float32 (dequantize.mjs). The rows are put
// back in the model's order (model.mjs's rowOrder) on the raw blocks, before
// dequantization: a later engine that keeps blocks as they are writes the
// same reordered bytes and skips the dequantization.
import { fileError } from '../../../errors.mjs';
import { dequantize } from './dequantize.mjs';
import { typeNamed } from './types.mjs';

const AS_IS = ['F32', 'F16', 'BF16'];

/** The dtype the loader writes a GGUF tensor of ggml type `type` as. */
export const writtenDtype = (type) => (AS_IS.includes(type) ? type : 'F32');

/**
 * The chunks of GGUF tensor `tensor` (model.mjs's, with begin, end, dims,
 * type, rowsPerGroup?, rowOrder?) of `file`, each at most about `chunkBytes`
 * written: [{ at, end, first, dtype, read() → Promise<Uint8Array> }] — the
 * file's bytes [at, end) and, once read, the bytes written from element
 * `first` on as `dtype`.
 */
export function ggufChunks(tensor, file, chunkBytes) {
  const type = typeNamed(tensor.type);
  const rowElements = tensor.dims.length > 1 ? tensor.dims[0] : type.blockElements;
  const rowBytes = (rowElements / type.blockElements) * type.blockBytes;
  const rows = tensor.elements / rowElements;
  const group = tensor.rowsPerGroup ?? 1;
  const dtype = writtenDtype(tensor.type);
  const writtenRowBytes = dtype === 'F32' ? 4 * rowElements : rowBytes;
  const perChunk = Math.max(1, Math.floor(chunkBytes / (writtenRowBytes * group))) * group;
  const chunks = [];
  for (let row = 0; row < rows; row += perChunk) {
    const count = Math.min(perChunk, rows - row);
    const at = tensor.begin + row * rowBytes;
    const end = at + count * rowBytes;
    chunks.push({
      at,
      end,
      first: row * rowElements,
      dtype,
      async read() {
        let bytes = await file.read(at, end);
        if (bytes.byteLength !== end - at)
          throw fileError(
            file.name,
            `${file.name}: ended at byte ${at + bytes.byteLength} while reading "${tensor.name}"`,
          );
        if (tensor.rowOrder) bytes = reorderRows(bytes, rowBytes, tensor.rowOrder);
        if (dtype !== 'F32' || tensor.type === 'F32') return bytes;
        const values = dequantize(tensor.type, bytes, count * rowElements);
        return new Uint8Array(values.buffer);
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
