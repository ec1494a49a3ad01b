// Seeded random inputs: mulberry32 for uniforms, Box–Muller for normals (both
// from the page's web/model/random.mjs, the project's one copy of them).
// Scales follow the fixtures: inputs ~N(0,1), weights ~N(0, 1/dModel) resp.
// N(0, 1/(numHeads*dV)) for wO, biases ~N(0, 0.25).
import { mulberry32, normal } from '../../../web/model/random.mjs';

export { mulberry32 };

/** Standard normals from a uniform generator (Box–Muller, one value per pair). */
export const gaussian = (uniform) => () => normal(uniform);

export function randomFloat32(normal, count, std = 1) {
  const a = new Float32Array(count);
  for (let i = 0; i < count; i++) a[i] = normal() * std;
  return a;
}

/**
 * Random call arguments. `config`: batch, seqLenQ, seqLenK (default seqLenQ),
 * dModel, numHeads, dK, dV (default dModel/numHeads), causal, bias (all four
 * biases), self (key and value are the query array), padding (a probability
 * of masking each key), queryScale (multiplies the query).
 */
export function randomCase(seed, config) {
  const normal = gaussian(mulberry32(seed));
  const uniform = mulberry32(seed ^ 0x9e3779b9);
  const { batch = 1, seqLenQ, dModel, numHeads, causal = false, bias = false, self = false } = config;
  const seqLenK = config.seqLenK ?? seqLenQ;
  const dK = config.dK ?? dModel / numHeads;
  const dV = config.dV ?? dModel / numHeads;
  const query = randomFloat32(normal, batch * seqLenQ * dModel, config.queryScale ?? 1);
  const args = {
    batch,
    seqLenQ,
    seqLenK,
    dModel,
    numHeads,
    dK,
    dV,
    causal,
    query,
    key: self ? query : randomFloat32(normal, batch * seqLenK * dModel),
    value: self ? query : randomFloat32(normal, batch * seqLenK * dModel),
    wQ: randomFloat32(normal, dModel * numHeads * dK, 1 / Math.sqrt(dModel)),
    wK: randomFloat32(normal, dModel * numHeads * dK, 1 / Math.sqrt(dModel)),
    wV: randomFloat32(normal, dModel * numHeads * dV, 1 / Math.sqrt(dModel)),
    wO: randomFloat32(normal, numHeads * dV * dModel, 1 / Math.sqrt(numHeads * dV)),
  };
  if (bias) {
    args.bQ = randomFloat32(normal, numHeads * dK, 0.5);
    args.bK = randomFloat32(normal, numHeads * dK, 0.5);
    args.bV = randomFloat32(normal, numHeads * dV, 0.5);
    args.bO = randomFloat32(normal, dModel, 0.5);
  }
  if (config.padding !== undefined) {
    args.keyPaddingMask = new Uint8Array(batch * seqLenK);
    for (let i = 0; i < args.keyPaddingMask.length; i++) args.keyPaddingMask[i] = uniform() < config.padding ? 1 : 0;
  }
  return args;
}
