// One runner (mha-wasm or a peer) at one thread count, in its own process
// (onnxruntime-web fixes its thread count once per process). For each config:
// check the runner's output against mha-wasm's (simd build) on the same
// inputs, then time it. Prints one JSON object on stdout.
// Usage: node bench/run.mjs <mha-wasm|mha-wasm-relaxed|onnxruntime|tfjs|plain-js> <threads> [--quick]
// (mha-wasm-relaxed: the threaded-relaxed-simd build, in a Node that runs relaxed SIMD.)
import { createAttention } from '../src/js/node.mjs';
import { CONFIGS, flopsOf, headsOf, makeInputs, maxRelativeError, time } from './inputs.mjs';

const [runnerName, threadsArg, ...flags] = process.argv.slice(2);
const threads = Number(threadsArg);
const quick = flags.includes('--quick');
const relaxed = runnerName === 'mha-wasm-relaxed';
const { createPeer } = await import(`./peers/${relaxed ? 'mha-wasm' : runnerName}.mjs`);
const peer = await createPeer({ threads, relaxed });
if (!peer) {
  console.log(JSON.stringify({ runner: runnerName, threads, skipped: 'does not run with this many threads in Node' }));
  process.exit(0);
}
const checker = await createAttention({ variant: 'simd' });
const results = [];
let slowest = 0;
for (const config of CONFIGS) {
  if (quick && config.L > 512) continue;
  // A runner already past 3 s per call is left out of the larger configs.
  if (slowest > 3000 && config.L > 512) {
    results.push({ config: config.name, skipped: 'over 3 s per call at a smaller size' });
    continue;
  }
  const inputs = makeInputs(config);
  const layer = await checker.createLayer({
    ...headsOf(config),
    wQ: inputs.wQ,
    wK: inputs.wK,
    wV: inputs.wV,
    wO: inputs.wO,
  });
  const want = (await layer.forward({ query: inputs.query, seqLenQ: config.L, causal: !!config.causal })).output;
  layer.dispose();
  const forms = runnerName === 'onnxruntime' ? ['standard', 'contrib'] : [undefined];
  let best;
  for (const form of forms) {
    const prepared = await peer.prepare(config, inputs, form);
    const error = maxRelativeError(await prepared.run(), want);
    const row = { config: config.name, form, error, createMs: prepared.createMs };
    if (!(error <= 1e-3)) {
      row.failed = `output differs from mha-wasm by ${error} (relative)`;
    } else {
      const slow = config.L >= 2048 || runnerName === 'plain-js';
      const timing = { samples: slow ? 5 : quick ? 7 : 15, warmupMs: slow ? 0 : 300 };
      Object.assign(row, await time(prepared.run, timing));
      row.gflops = flopsOf(config) / row.medianMs / 1e6;
      slowest = Math.max(slowest, row.medianMs);
      if (prepared.runInto) {
        // mha-wasm's layer.forward({ output }): checked, then timed the same way.
        const intoError = maxRelativeError(await prepared.runInto(), want);
        row.intoOutput =
          intoError <= 1e-3 ? await time(prepared.runInto, timing) : { failed: `output differs by ${intoError}` };
      }
    }
    if (peer.engine) row.heapBytes = (await peer.engine.memoryStats()).heapBytes;
    prepared.dispose();
    if (!best || (row.medianMs ?? Infinity) < (best.medianMs ?? Infinity)) best = row;
  }
  results.push(best);
}
checker.dispose();
peer.dispose?.();
console.log(JSON.stringify({ runner: peer.name, version: peer.version, threads, results }));
process.exit(0);
