// npm run bench: times mha-wasm's builds and thread counts on the same
// multi-head self-attention work, side by side in one process run.
// Prints a table (median and min–max of timed runs after warm-up, GFLOP/s,
// speed-up over one thread) and writes the figures to bench-output/bench.json.
// Usage: node bench/bench.mjs [--quick] [--runs N]
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { createAttention } from '../src/js/node.mjs';

const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const runs = Number(argv[argv.indexOf('--runs') + 1]) || (quick ? 5 : 15);

// (seqLen, dModel, numHeads, causal): the demo sentence up to long sequences.
const CONFIGS = [
  { L: 15, dModel: 64, numHeads: 3, dK: 16 }, // the demo sentence's size: 3 heads of 16
  { L: 128, dModel: 256, numHeads: 8 },
  { L: 512, dModel: 512, numHeads: 8 },
  { L: 512, dModel: 512, numHeads: 8, causal: true },
  ...(quick ? [] : [{ L: 2048, dModel: 512, numHeads: 8 }]),
];
const ENGINES = [
  { variant: 'scalar', threads: 1 },
  { variant: 'simd', threads: 1 },
  { variant: 'threaded-simd', threads: 1 },
  { variant: 'threaded-simd', threads: 2 },
];

// Seeded inputs (mulberry32), scaled like a trained layer's.
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32 - 0.5;
  };
}
function makeArgs({ L, dModel, numHeads, dK = dModel / numHeads, causal = false }) {
  const next = random(L * 7919 + dModel);
  const fill = (n, s) => Float32Array.from({ length: n }, () => next() * s);
  const w = () => fill(dModel * numHeads * dK, 2 / Math.sqrt(dModel));
  const [wQ, wK, wV, wO] = [w(), w(), w(), w()];
  return { query: fill(L * dModel, 2), seqLenQ: L, dModel, numHeads, dK, dV: dK, wQ, wK, wV, wO, causal };
}
// 8·L·d·H·dK for the four projections, 4·L²·H·dK for QKᵀ and A·V (the causal saving is not subtracted).
const flopsOf = ({ L, dModel, numHeads, dK = dModel / numHeads }) => 8 * L * dModel * numHeads * dK + 4 * L * L * numHeads * dK;

async function time(engine, args, n) {
  const warm = Math.max(2, Math.ceil(n / 5));
  for (let i = 0; i < warm; i++) await engine.multiHeadAttention(args);
  const t = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await engine.multiHeadAttention(args);
    t.push(performance.now() - t0);
  }
  t.sort((a, b) => a - b);
  return { median: t[Math.floor(n / 2)], min: t[0], max: t[n - 1] };
}

const engines = [];
for (const spec of ENGINES) engines.push(await createAttention(spec));

const rows = [];
for (const config of CONFIGS) {
  const args = makeArgs(config);
  const n = config.L >= 2048 ? Math.max(5, Math.floor(runs / 3)) : runs;
  let oneThread;
  for (const engine of engines) {
    if (engine.variant === 'scalar' && config.L >= 2048) continue; // minutes, and says nothing new
    const t = await time(engine, args, n);
    if (engine.variant === 'threaded-simd' && engine.threads === 1) oneThread = t.median;
    rows.push({
      ...config, causal: !!config.causal, variant: engine.variant, threads: engine.threads, runs: n,
      medianMs: t.median, minMs: t.min, maxMs: t.max, gflops: flopsOf(config) / t.median / 1e6,
      speedupOver1Thread: engine.threads > 1 && oneThread ? oneThread / t.median : undefined,
    });
  }
}
for (const engine of engines) engine.dispose();

const fmt = (x, d = 2) => (x === undefined ? '' : x.toFixed(d));
console.log(`mha-wasm bench: ${os.cpus()[0]?.model ?? 'cpu'} ×${os.availableParallelism()}, Node ${process.version}, ${new Date().toISOString()}`);
console.log('config                      build          thr   median ms      min–max ms   GFLOP/s  ×1 thread');
for (const r of rows) {
  const config = `L=${r.L} d=${r.dModel} H=${r.numHeads}${r.causal ? ' causal' : ''}`;
  console.log(
    `${config.padEnd(28)}${r.variant.padEnd(15)}${String(r.threads).padStart(3)}  ${fmt(r.medianMs, 3).padStart(10)}` +
      `  ${`${fmt(r.minMs, 3)}–${fmt(r.maxMs, 3)}`.padStart(15)}  ${fmt(r.gflops, 1).padStart(7)}  ${fmt(r.speedupOver1Thread).padStart(9)}`,
  );
}
await mkdir('bench-output', { recursive: true });
await writeFile('bench-output/bench.json', JSON.stringify({ date: new Date().toISOString(), node: process.version, cpu: os.cpus()[0]?.model, rows }, null, 2));
console.log('wrote bench-output/bench.json');
