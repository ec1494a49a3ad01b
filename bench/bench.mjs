// npm run bench: mha-wasm and the runtimes a JS developer would otherwise
// pick (onnxruntime-web, tfjs-backend-wasm, plain JS) on the same multi-head
// self-attention, in one run. Each runner × thread count runs in its own
// process (run.mjs), one after another, and checks its output against
// mha-wasm's before timing. Then kernel-level figures: our GEMM alone at 512³
// against the SIMD ceiling measured the same way, start-up to the first
// result, and a long sequence (L = 8192) in bounded memory.
// Last, training (bench/train.mjs): steps per second of the page's tagger
// against the same model in tfjs-backend-wasm with its autograd; a
// bert-base-shaped checkpoint (bench/model.mjs), an opus-mt-shaped
// translation model (bench/seq2seq.mjs) and GPT-2-small- and
// Qwen2.5-0.5B-shaped decoders generating text (bench/decoder.mjs) against
// onnxruntime-web; the Qwen2.5-0.5B shape again as GGUF files (F16, Q8_0,
// Q4_0, Q4_K_M) against llama.cpp's own wasm build, wllama, in Chromium
// (bench/llama.mjs).
// Then the relaxed-SIMD builds beside the SIMD128 ones (bench/relaxed.mjs),
// the bert-base-shaped model's forward block by block on both
// (bench/model-profile.mjs), and loading its 406.7 MB checkpoint in Node and
// Chromium on both (bench/load.mjs).
// Prints a table; writes everything to bench-output/bench.json.
// Usage: npm run bench [-- --quick | --profile | --model-profile | --sizes | --help]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { FAMILIES, VARIANTS, variantFiles } from '../src/js/files.mjs';
import { createAttention } from '../src/js/node.mjs';
import { CONFIGS, headsOf, makeInputs, relaxedSimdFlags, time } from './inputs.mjs';
import { analysisBench } from './analysis.mjs';
import { decoderBench } from './decoder.mjs';
import { llamaBench } from './llama.mjs';
import { loadBench } from './load.mjs';
import { modelProfile } from './model-profile.mjs';
import { modelBench } from './model.mjs';
import { seq2seqBench } from './seq2seq.mjs';
import { relaxedBench } from './relaxed.mjs';

const USAGE = `Usage: node bench/bench.mjs [--quick | --profile | --model-profile | --sizes | --help]   (npm run bench -- <flag>)
  (none)     every runner and thread count, the kernels, start-up, a long sequence, the worker hop,
             training, the bert-base-shaped model, the opus-mt-shaped translation and the GPT-2- and
             Qwen2.5-shaped decoders, the same Qwen2.5 shape as GGUF files against wllama (llama.cpp's
             wasm build) in Chromium, the relaxed-SIMD builds, the model block by block, loading in Node
             and Chromium, which heads matter (mha-wasm/analysis) (about 40 minutes, and the wllama
             comparison as long again or more on a shared machine); writes
             bench-output/bench.json
  --quick    the same, shorter
  --profile  where a forward call's time goes, stage by stage (bench/profile.mjs)
  --model-profile  where a bert-base-shaped model's forward goes, block by block (bench/model-profile.mjs)
  --sizes    the .wasm size of every build in dist/, and nothing else
  --help     this text
One part alone: node bench/run.mjs <mha-wasm|mha-wasm-relaxed|onnxruntime|tfjs|plain-js> <threads> [--quick],
  node bench/train.mjs [--quick], node bench/model.mjs [--quick], node bench/seq2seq.mjs [--quick],
  node bench/decoder.mjs [--quick], node bench/llama.mjs [--quick] [--types F16,Q8_0,Q4_0,Q4_K_M] [--threads 1,2],
  node bench/relaxed.mjs [--quick], node bench/model-profile.mjs [--quick],
  node bench/load.mjs [--quick], node bench/analysis.mjs [--quick]`;
const here = (file) => fileURLToPath(new URL(file, import.meta.url));

/** The .wasm size in bytes of every build, by family and variant (files.mjs names them); null if not built. */
function wasmSizes() {
  const size = (file) => (existsSync(here(`../dist/${file}`)) ? statSync(here(`../dist/${file}`)).size : null);
  return Object.fromEntries(
    FAMILIES.map((family) => [
      family,
      Object.fromEntries(VARIANTS.map((variant) => [variant, size(variantFiles(variant, family).wasm)])),
    ]),
  );
}
const sizesLine = (sizes) =>
  `.wasm sizes in bytes: ${FAMILIES.map(
    (family) => `${family} ${VARIANTS.map((v) => `${v} ${sizes[family][v] ?? 'not built'}`).join(', ')}`,
  ).join('; ')}`;

if (process.argv.includes('--help')) {
  console.log(USAGE);
  process.exit(0);
}
if (process.argv.includes('--sizes')) {
  console.log(sizesLine(wasmSizes()));
  process.exit(0);
}
// --profile: the per-stage breakdown instead (bench/profile.mjs).
if (process.argv.includes('--profile')) {
  await import('./profile.mjs');
  process.exit(0);
}
if (process.argv.includes('--model-profile')) {
  console.log((await modelProfile({ quick: process.argv.includes('--quick') })).report);
  process.exit(0);
}
const quick = process.argv.includes('--quick');
const node = (args) =>
  execFileSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'inherit'] });
const runner = (name, threads, flags = []) =>
  JSON.parse(
    node([...flags, here('./run.mjs'), name, String(threads), ...(quick ? ['--quick'] : [])])
      .trim()
      .split('\n')
      .pop(),
  );

// The relaxed-SIMD build runs where this Node does, or in a Node 20 started with its flag (null: neither).
const RELAXED_FLAGS = relaxedSimdFlags();
const RUNNERS = [
  ['mha-wasm', 1],
  ['mha-wasm', 2],
  ...(RELAXED_FLAGS
    ? [
        ['mha-wasm-relaxed', 1],
        ['mha-wasm-relaxed', 2],
      ]
    : []),
  ['onnxruntime', 1],
  ['onnxruntime', 2],
  ['tfjs', 1],
  ['plain-js', 1],
];
const runs = [];
for (const [name, threads] of RUNNERS) {
  process.stderr.write(`running ${name} on ${threads} thread(s)…\n`);
  runs.push(runner(name, threads, name === 'mha-wasm-relaxed' ? RELAXED_FLAGS : []));
}

// Kernel level: the projection GEMM at 512³ against the ceiling of this build
// (a register-only multiply-add loop), both single-threaded in this process.
async function kernels() {
  // The bench build (CMakeLists.txt: mha-bench-simd), which only the benchmark loads.
  const require = createRequire(import.meta.url);
  const factory = require('../build/wasm/bench/mha-bench-simd.js');
  const module = await factory({ wasmBinary: readFileSync(here('../build/wasm/bench/mha-bench-simd.wasm')) });
  const kb = new module.KernelBenchmark(512, 512, 512);
  const gemm = await time(() => kb.gemm(), { samples: 15 });
  const iterations = 1 << 20;
  const peak = await time(() => kb.peak(iterations), { samples: 15 });
  const result = {
    gemmGflops: kb.gemmFlops() / gemm.medianMs / 1e6,
    ceilingGflops: kb.peakFlops(iterations) / peak.medianMs / 1e6,
  };
  kb.delete();
  return { ...result, gemmShareOfCeiling: result.gemmGflops / result.ceilingGflops };
}

// Start-up, each in a fresh process: createAttention() to the first result of
// the demo-size call, and onnxruntime-web's InferenceSession.create + first run.
function startup() {
  const ours = `
    const t0 = performance.now();
    const { createAttention } = await import(${JSON.stringify(here('../src/js/node.mjs'))});
    const { CONFIGS, makeInputs, headsOf } = await import(${JSON.stringify(here('./inputs.mjs'))});
    const config = CONFIGS[0], inputs = makeInputs(config);
    const t1 = performance.now();
    const engine = await createAttention();
    await engine.multiHeadAttention({ ...headsOf(config), ...inputs, seqLenQ: config.L });
    console.log(JSON.stringify({ ms: performance.now() - t1, withImportMs: performance.now() - t0 }));
    engine.dispose();`;
  const peer = `
    const { createPeer } = await import(${JSON.stringify(here('./peers/onnxruntime.mjs'))});
    const { CONFIGS, makeInputs } = await import(${JSON.stringify(here('./inputs.mjs'))});
    const config = CONFIGS[0], inputs = makeInputs(config);
    const peer = await createPeer({ threads: 1 });
    const t1 = performance.now();
    const prepared = await peer.prepare(config, inputs);
    await prepared.run();
    console.log(JSON.stringify({ ms: performance.now() - t1 }));
    process.exit(0);`;
  const run = (code) => JSON.parse(node(['--input-type=module', '-e', code]).trim().split('\n').pop());
  return { mhaWasm: run(ours), onnxruntime: run(peer) };
}

// A long sequence without the weights matrix: the fused path's memory is O(L·d).
async function longSequence() {
  const L = quick ? 4096 : 8192,
    dModel = 512,
    numHeads = 8;
  const engine = await createAttention({ threads: 2 });
  const w = () => Float32Array.from({ length: dModel * dModel }, (_, i) => Math.sin(i) * 0.05);
  const layer = await engine.createLayer({ dModel, numHeads, wQ: w(), wK: w(), wV: w(), wO: w() });
  const query = Float32Array.from({ length: L * dModel }, (_, i) => Math.cos(i * 0.01));
  const t0 = performance.now();
  const { output } = await layer.forward({ query, seqLenQ: L });
  const ms = performance.now() - t0;
  const stats = await engine.memoryStats();
  const finite = output.every(Number.isFinite);
  engine.dispose();
  return {
    L,
    dModel,
    numHeads,
    threads: 2,
    ms,
    heapBytes: stats.heapBytes,
    finite,
    scoresMatrixBytes: numHeads * L * L * 4,
  };
}

// The cost of createAttention({ worker: true }) at the demo size: the same
// resident layer on the calling thread and in a worker_threads Worker.
async function workerHop() {
  const config = CONFIGS[0];
  const inputs = makeInputs(config);
  const out = {};
  for (const worker of [false, true]) {
    const engine = await createAttention({ threads: 1, worker });
    const { query, ...weights } = inputs;
    const layer = await engine.createLayer({ ...headsOf(config), ...weights });
    out[worker ? 'worker' : 'direct'] = await time(() => layer.forward({ query, seqLenQ: config.L }), { samples: 15 });
    engine.dispose();
  }
  return { config: config.name, directMs: out.direct.medianMs, workerMs: out.worker.medianMs };
}

process.stderr.write('kernels, start-up, long sequence, worker hop…\n');
const kernel = await kernels();
const start = startup();
const long = await longSequence();
const hop = await workerHop();
process.stderr.write('training: mha-wasm and tfjs-backend-wasm…\n');
const training = JSON.parse(
  node([here('./train.mjs'), ...(quick ? ['--quick'] : [])])
    .trim()
    .split('\n')
    .pop(),
);
// A bert-base-shaped checkpoint against onnxruntime-web (bench/model.mjs).
const model = await modelBench({ quick });
// An opus-mt-shaped MarianMT translating one sentence against onnxruntime-web (bench/seq2seq.mjs).
const seq2seq = await seq2seqBench({ quick });
// GPT-2-small- and Qwen2.5-0.5B-shaped decoders generating text against onnxruntime-web (bench/decoder.mjs).
const decoder = await decoderBench({ quick });
// The same shape as GGUF files in F16, Q8_0, Q4_0, Q4_K_M against wllama, in Chromium (bench/llama.mjs).
const llama = await llamaBench({ quick });
// The relaxed-SIMD builds beside the SIMD128 ones: GEMM, ceiling and attention (bench/relaxed.mjs).
const relaxed = await relaxedBench({ quick });
// The model's forward block by block, on both builds (bench/model-profile.mjs).
process.stderr.write('model profile: block by block…\n');
const blocks = await modelProfile({ quick });
// Loading the 406.7 MB checkpoint in Node and Chromium, on both builds (bench/load.mjs).
const load = await loadBench({ quick });
// Head importance and the pruning curve on the opus-mt and GPT-2-small shapes (bench/analysis.mjs).
const analysis = await analysisBench({ quick });

// ---- report ----
const byRunner = (name, threads) => runs.find((r) => r.runner === name && r.threads === threads);
const fmt = (x, d = 2) => (x === undefined || x === null || Number.isNaN(x) ? '—' : x.toFixed(d));
const ms = (row) =>
  row?.medianMs === undefined
    ? row?.failed
      ? 'FAILED'
      : row?.skipped
        ? 'skipped'
        : '—'
    : `${fmt(row.medianMs, row.medianMs < 1 ? 4 : 2)}`;
const lines = [];
lines.push(
  `mha-wasm bench — ${new Date().toISOString().slice(0, 10)}, ${os.cpus()[0]?.model ?? 'cpu'} ×${os.availableParallelism()}, Node ${process.version}`,
);
lines.push(
  'median ms per call (min–max in bench.json); mha: the SIMD128 build (threaded-simd), relaxed: threaded-relaxed-simd;',
);
lines.push(
  '  ratio = peer median / mha-wasm median at the same thread count (for onnxruntime-web: ÷ SIMD128 / ÷ relaxed)',
);
const peers = [
  ['onnxruntime-web', 1],
  ['onnxruntime-web', 2],
  ['tfjs-backend-wasm', 1],
  ['plain JS', 1],
];
const peerName = (n, t) => `${n.replace('-backend-wasm', '').replace('onnxruntime-web', 'ort')} ×${t}`;
lines.push(
  [
    'config'.padEnd(24),
    'mha ×1'.padStart(9),
    'mha ×2'.padStart(9),
    'relaxed ×1'.padStart(10),
    'relaxed ×2'.padStart(10),
    ...peers.map(([n, t]) => peerName(n, t).padStart(12) + ' ' + 'ratio'.padEnd(n === 'onnxruntime-web' ? 13 : 6)),
    'GFLOP/s ×1/×2'.padStart(15),
  ].join(' '),
);
const ours = [byRunner('mha-wasm', 1), byRunner('mha-wasm', 2)];
const relaxedRuns = [byRunner('mha-wasm-relaxed', 1), byRunner('mha-wasm-relaxed', 2)];
const ratioOf = (p, mine) => (p?.medianMs && mine?.medianMs ? `${fmt(p.medianMs / mine.medianMs)}×` : '');
for (const config of CONFIGS) {
  const [o1, o2] = ours.map((r) => r?.results.find((x) => x.config === config.name));
  const [x1, x2] = relaxedRuns.map((r) => r?.results.find((x) => x.config === config.name));
  if (!o1) continue;
  const cells = peers.map(([n, t]) => {
    const p = byRunner(n, t)?.results?.find((x) => x.config === config.name);
    const ratio =
      n === 'onnxruntime-web'
        ? `${ratioOf(p, t === 1 ? o1 : o2)}/${ratioOf(p, t === 1 ? x1 : x2) || '—'}`.padEnd(13)
        : ratioOf(p, t === 1 ? o1 : o2).padEnd(6);
    return `${ms(p).padStart(12)} ${ratio}`;
  });
  lines.push(
    [
      config.name.padEnd(24),
      ms(o1).padStart(9),
      ms(o2).padStart(9),
      ms(x1).padStart(10),
      ms(x2).padStart(10),
      ...cells,
      `${fmt(o1.gflops, 1)}/${fmt(o2?.gflops, 1)}`.padStart(15),
    ].join(' '),
  );
}
if (!RELAXED_FLAGS) lines.push('(relaxed: this Node cannot run the relaxed-SIMD builds)');
lines.push('');
lines.push(
  "mha-wasm with layer.forward({ output }), the result written into an array of the caller's (no allocation):",
);
for (const config of CONFIGS) {
  const [o1, o2] = ours.map((r) => r?.results.find((x) => x.config === config.name));
  const ort = [1, 2].map((t) => byRunner('onnxruntime-web', t)?.results?.find((x) => x.config === config.name));
  const cell = (o, p) =>
    o?.intoOutput?.medianMs
      ? `${ms(o.intoOutput)}${p?.medianMs ? ` (${fmt(p.medianMs / o.intoOutput.medianMs)}× ort)` : ''}`
      : '—';
  if (o1) lines.push(`  ${config.name.padEnd(24)} ×1 ${cell(o1, ort[0]).padEnd(22)} ×2 ${cell(o2, ort[1])}`);
}
lines.push('');
for (const config of CONFIGS) {
  const [o1, o2] = ours.map((r) => r?.results.find((x) => x.config === config.name));
  if (o1?.medianMs && o2?.medianMs) lines.push(`2 threads over 1, ${config.name}: ${fmt(o1.medianMs / o2.medianMs)}×`);
}
lines.push(
  `GEMM 512³ alone: ${fmt(kernel.gemmGflops, 1)} GFLOP/s = ${fmt(kernel.gemmShareOfCeiling * 100, 0)} % of the SIMD ceiling measured here (${fmt(kernel.ceilingGflops, 1)} GFLOP/s, register-only multiply-add)`,
);
lines.push(
  `start-up to the first demo-size result: mha-wasm ${fmt(start.mhaWasm.ms, 1)} ms; onnxruntime-web InferenceSession.create + first run ${fmt(start.onnxruntime.ms, 1)} ms`,
);
lines.push(
  `createAttention({ worker: true }) at ${hop.config}, resident layer, 1 thread: ` +
    `${fmt(hop.directMs * 1000, 1)} µs on the calling thread, ${fmt(hop.workerMs * 1000, 1)} µs through the Worker`,
);
lines.push(
  `long sequence L=${long.L} d=${long.dModel} H=${long.numHeads}, no weights, ${long.threads} threads: ${fmt(long.ms, 0)} ms, wasm heap ${fmt(long.heapBytes / 2 ** 20, 0)} MiB (the H·L² scores alone would be ${fmt(long.scoresMatrixBytes / 2 ** 30, 1)} GiB), finite: ${long.finite}`,
);
for (const r of runs) {
  const failed = r.results?.filter((x) => x.failed) ?? [];
  for (const f of failed) lines.push(`!! ${r.runner} ×${r.threads} ${f.config}: ${f.failed}`);
}
lines.push('');
lines.push(
  `training the tagger (dModel 16, batch ${training.rows[0].batch}, Adam; steps per second, best of 3; ratio = mha-wasm ÷ tfjs-backend-wasm ${training.tfjs}):`,
);
for (const r of training.rows) {
  const name = `  numHeads ${r.numHeads}${r.mlpHidden ? `, MLP ${r.mlpHidden}` : ''}`.padEnd(24);
  lines.push(
    `${name} mha ×1 ${fmt(r.mhaX1.stepsPerSecond, 0).padStart(6)}  mha ×2 ${fmt(r.mhaX2.stepsPerSecond, 0).padStart(6)}  tfjs ×1 ${fmt(r.tfjs.stepsPerSecond, 0).padStart(5)}  ` +
      `ratio ${fmt(r.ratioX1, 1)}× / ${fmt(r.ratioX2, 1)}×  1,500 steps: ${fmt(r.mhaX2.msFor1500Steps, 0)} ms (×2)  same loss: ${r.lossCheck.relativeDifference.toExponential(1)}`,
  );
}
const sizes = wasmSizes();
lines.push(sizesLine(sizes));
lines.push('', model.report);
lines.push('', seq2seq.report);
lines.push('', decoder.report);
lines.push('', llama.report);
lines.push('', relaxed.report);
lines.push('', blocks.report);
lines.push('', load.report);
lines.push('', analysis.report);
console.log(lines.join('\n'));

mkdirSync('bench-output', { recursive: true });
writeFileSync(
  'bench-output/bench.json',
  JSON.stringify(
    {
      date: new Date().toISOString(),
      node: process.version,
      cpu: os.cpus()[0]?.model,
      cores: os.availableParallelism(),
      quick,
      runs,
      kernel,
      startup: start,
      longSequence: long,
      workerHop: hop,
      training,
      model: model.result,
      seq2seq: seq2seq.result,
      decoder: decoder.result,
      llama: llama.result,
      relaxed: relaxed.result,
      modelProfile: blocks.result,
      load: load.result,
      analysis: analysis.result,
      wasmSizes: sizes,
    },
    null,
    2,
  ),
);
console.log('wrote bench-output/bench.json');
