// npm run bench -- --profile: where a forward call's time goes, per config, on
// one thread: each stage's median milliseconds and GFLOP/s (the stages timed
// inside the engine by the bench build, which compiles them with MHA_PROFILE),
// the JS ↔ wasm crossing (the public API's resident-layer call minus the
// engine's own time), and the whole call's rate beside the 512³ GEMM's.
// FLOPs as the speed issue counts them: 8·L·d² + 4·L²·d (causal: half the L² part;
// numHeads·dK in place of d where the heads are narrower, as in the demo).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../src/js/node.mjs';
import { CONFIGS, headsOf, makeInputs, median, time } from './inputs.mjs';

const here = (file) => fileURLToPath(new URL(file, import.meta.url));
const require = createRequire(import.meta.url);
const factory = require(here('../build/wasm/bench/mha-bench-simd.js'));
const bench = await factory({ wasmBinary: readFileSync(here('../build/wasm/bench/mha-bench-simd.wasm')) });
const STAGES = ['projections', 'packing', 'scores', 'softmax', 'weighted', 'output', 'copies'];

// The 512³ GEMM's rate. A shared machine's speed drifts, so the whole call
// is compared with the GEMM sample by sample: each timed call sits between
// two GEMM timings, and its share is its rate over theirs (median of the samples).
const kb = new bench.KernelBenchmark(512, 512, 512);
const gemmGflops = kb.gemmFlops() / (await time(() => kb.gemm(), { samples: 15 })).medianMs / 1e6;
const gemmOnce = () => {
  const t0 = performance.now();
  for (let i = 0; i < 3; i++) kb.gemm();
  return (3 * kb.gemmFlops()) / (performance.now() - t0) / 1e6;
};

const engine = await createAttention({ variant: 'simd' });
const rows = [];
for (const config of CONFIGS) {
  const { L, dModel: d, numHeads, causal = false } = config;
  const { dK } = headsOf(config);
  const profiled = new bench.ProfiledForward(L, d, numHeads, dK, causal);
  for (let warm = 0; warm < 3; warm++) profiled.run(false);
  const half = causal ? 0.5 : 1;
  const hk = numHeads * dK; // = d but for the demo's heads
  const all = 8 * L * d * hk + 4 * L * L * hk * half;
  const runs = [];
  const totals = [];
  const shares = [];
  const samples = L >= 2048 ? 7 : 15;
  for (let i = 0; i < samples; i++) {
    runs.push(profiled.run(true));
    const before = gemmOnce();
    // A small call is timed as a batch, so the clock's resolution does not count.
    const repeat = Math.max(1, Math.ceil(2 / profiled.run(false).total));
    let total = 0;
    for (let r = 0; r < repeat; r++) total += profiled.run(false).total;
    totals.push(total / repeat);
    shares.push(all / (total / repeat) / 1e6 / ((before + gemmOnce()) / 2));
  }
  profiled.delete();
  // The stages with their timers on; the whole call with them off.
  const stage = Object.fromEntries(STAGES.map((s) => [s, median(runs.map((r) => r[s]))]));
  stage.total = median(totals);
  const { query, ...weights } = makeInputs(config);
  const layer = await engine.createLayer({ ...headsOf(config), ...weights });
  const api = await time(() => layer.forward({ query, seqLenQ: L, causal }), { samples: L >= 2048 ? 5 : 15 });
  const output = new Float32Array(query.length);
  const into = await time(() => layer.forward({ query, seqLenQ: L, causal, output }), { samples: L >= 2048 ? 5 : 15 });
  layer.dispose();
  const flops = {
    projections: 6 * L * d * hk,
    scores: 2 * L * L * hk * half,
    weighted: 2 * L * L * hk * half,
    output: 2 * L * hk * d,
  };
  rows.push({
    config: config.name,
    share: median(shares),
    stage,
    apiMs: api.medianMs,
    intoMs: into.medianMs,
    flops,
    gflops: all / stage.total / 1e6,
  });
}
engine.dispose();
kb.delete();

const fmt = (x, digits = 3) => (x >= 100 ? x.toFixed(0) : x.toPrecision(digits));
const lines = [
  `mha-wasm profile — ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, simd build, 1 thread`,
  `GEMM 512³ alone: ${gemmGflops.toFixed(1)} GFLOP/s`,
  'median ms per stage (GFLOP/s where the stage is a product); crossing = public API call − engine time,',
  "the call returning a new array and writing into the caller's (layer.forward({ output }))",
];
for (const r of rows) {
  const cell = (s) => `${s} ${fmt(r.stage[s])}${r.flops[s] ? ` (${(r.flops[s] / r.stage[s] / 1e6).toFixed(1)})` : ''}`;
  lines.push(`${r.config}:`);
  lines.push(`  ${STAGES.map(cell).join(', ')}`);
  const crossing = (ms) =>
    ms > r.stage.total
      ? `${fmt(ms)} ms, crossing ${fmt((ms - r.stage.total) * 1000)} µs`
      : `${fmt(ms)} ms, within the noise of the engine's own time`;
  lines.push(
    `  engine ${fmt(r.stage.total)} ms = ${r.gflops.toFixed(1)} GFLOP/s (${(100 * r.share).toFixed(0)} % of the GEMM's rate timed around it); ` +
      `public API ${crossing(r.apiMs)}; into output ${crossing(r.intoMs)}`,
  );
}
console.log(lines.join('\n'));
