// The one place where the page calls the engine. A spec (designed-heads.mjs
// or free-mode.mjs) goes in; a frozen "run" comes out, holding the engine's
// own arrays and what the views derive from them (tops, entropy). Views only
// read runs: data flows engine → run → views, never back.
import { encoderSpec, decoderSpec } from './designed-heads.mjs';
import { crossSpec } from './cross-heads.mjs';
import { freeSpec } from './free-mode.mjs';
import { rowEntropy, rowTops } from './stats.mjs';

/** The spec that the UI state asks for. */
export function specFor(state) {
  switch (state.mode) {
    case 'decoder':
      return decoderSpec(state.sharpness);
    case 'cross':
      return crossSpec(state.sharpness);
    case 'free':
      return freeSpec({
        text: state.text,
        dModel: state.dModel,
        numHeads: state.numHeads,
        seed: state.seed,
        causal: state.causal,
      });
    default:
      return encoderSpec(state.sharpness);
  }
}

function headRecord(name, index, weights, rows, cols, causal, targets) {
  return Object.freeze({
    name,
    index,
    /** [rows, cols], row-major: the engine's weights for this head. */
    weights,
    tops: rowTops(weights, rows, cols, causal),
    entropy: rowEntropy(weights, rows, cols),
    targets: targets ?? null,
  });
}

/**
 * Runs a spec through the engine: the multi-head call, then (if the spec has
 * one) the single head with the summed score.
 * @param {{ multiHeadAttention: Function, variant: string, threads: number }} engine
 */
export async function runSpec(engine, spec) {
  const start = performance.now();
  const multi = await engine.multiHeadAttention({ ...spec.args, returnScores: true });
  const single = spec.single ? await engine.multiHeadAttention({ ...spec.single, returnProjections: false }) : null;
  const elapsedMs = performance.now() - start;

  const { seqLenQ: rows, numHeads, dK, dV, dModel } = spec.args;
  const cols = spec.args.seqLenK ?? rows;
  const causal = spec.args.causal === true;
  const block = rows * cols;
  const heads = spec.heads.map((name, h) =>
    headRecord(name, h, multi.attention.subarray(h * block, (h + 1) * block), rows, cols, causal, spec.targets?.[name]),
  );
  return Object.freeze({
    mode: spec.mode,
    spec,
    rows,
    cols,
    causal,
    dims: Object.freeze({ dModel, numHeads, dK, dV }),
    queryTokens: spec.queryTokens,
    keyTokens: spec.keyTokens,
    heads,
    single: single ? headRecord('single', numHeads, single.attention, rows, cols, causal, null) : null,
    /** The engine's intermediate matrices of the multi-head call: Q, K, V, concat. */
    projections: multi.projections,
    /** The engine's scores QKᵀ/√dK of the multi-head call before masking, [numHeads, rows, cols]. */
    scores: multi.scores,
    output: multi.output,
    engineCalls: single ? 2 : 1,
    elapsedMs,
    finishedAt: new Date(),
  });
}

/** Every head of a run, the single head last. */
export const allHeads = (run) => (run.single ? [...run.heads, run.single] : run.heads);
