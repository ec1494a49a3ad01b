// The last query row of every head of an attention, for tests that compare a
// step's one row (a KV-cache step, the page's next-token view) with run()'s
// whole attention.

/**
 * The last query row of every head of an attention [numLayers, numHeads,
 * length, keys]: a new Float32Array [numLayers, numHeads, 1, keys], the
 * attention of the last position over every key.
 */
export function lastRows(attention, { numLayers, numHeads, length, keys = length }) {
  for (const [name, v] of Object.entries({ numLayers, numHeads, length, keys }))
    if (!Number.isInteger(v) || v < 1) throw new RangeError(`${name}: expected an integer ≥ 1, got ${v}`);
  const size = numLayers * numHeads * length * keys;
  if (attention?.length !== size)
    throw new RangeError(
      `attention: expected ${size} weights (${numLayers} × ${numHeads} × ${length} × ${keys}), got ${attention?.length}`,
    );
  const out = new Float32Array(numLayers * numHeads * keys);
  for (let block = 0; block < numLayers * numHeads; block++) {
    const start = (block * length + length - 1) * keys;
    out.set(attention.subarray(start, start + keys), block * keys);
  }
  return out;
}
