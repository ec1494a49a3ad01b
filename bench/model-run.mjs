// One step of the BERT benchmark (bench/model.mjs), in its own process:
//   export <dir>                     the checkpoint in <dir> → <dir>/model.onnx
//   check <dir>                      mha-wasm (simd) and onnxruntime-web ×1 on
//                                    the same token ids at each L: max |Δ| of
//                                    last_hidden_state and the attention; writes
//                                    mha-wasm's outputs as <dir>/ref-L.bin
//   time <mha-wasm|mha-wasm-relaxed|onnx-bert> <threads> <dir> [--quick]
//                                    load ×3 (mha-wasm: also ×3 from Buffers in a
//                                    { worker: true } engine), then at each L: check the first
//                                    output against ref-L.bin, then time with and
//                                    without the attention returned
// Prints one JSON object on stdout (the last line).
import { closeSync, openSync, readFileSync, readSync, writeFileSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { heapOf, median } from './inputs.mjs';
import { makeInputIds } from './model-checkpoint.mjs';

const LENGTHS = [17, 128, 512];
/** Tolerances of every comparison: max |Δ| of last_hidden_state and of the attention probabilities. */
const TOLERANCE = { hidden: 1e-3, attention: 1e-4 };

const [mode, ...rest] = process.argv.slice(2);
const quick = rest.includes('--quick');
const args = rest.filter((a) => !a.startsWith('--'));
const rss = () => process.resourceUsage().maxRSS * 1024;

function config(dir) {
  return JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8'));
}

function maxAbsDiff(a, b) {
  if (a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (!(d <= m)) m = Number.isNaN(d) ? Infinity : d;
  }
  return m;
}

/** { lastHiddenState, attention } against the reference file, read in 16 MiB pieces (no second copy of the attention). */
function compareToReference(dir, L, out) {
  const fd = openSync(path.join(dir, `ref-${L}.bin`), 'r');
  const piece = new Float32Array(1 << 22);
  const bytes = new Uint8Array(piece.buffer);
  const against = (values) => {
    let m = 0;
    for (let at = 0; at < values.length; at += piece.length) {
      const n = Math.min(piece.length, values.length - at);
      readSync(fd, bytes, 0, n * 4, null);
      m = Math.max(m, maxAbsDiff(values.subarray(at, at + n), piece.subarray(0, n)));
    }
    return m;
  };
  try {
    return { hidden: against(out.lastHiddenState), attention: against(out.attention) };
  } finally {
    closeSync(fd);
  }
}

const withinTolerance = (d) => d.hidden <= TOLERANCE.hidden && d.attention <= TOLERANCE.attention;

/** Median, min, max over `samples` calls after `warmup` calls (L = 512 takes seconds: no batching). */
async function timeCalls(fn, { samples, warmup }) {
  for (let i = 0; i < warmup; i++) await fn();
  const t = [];
  for (let i = 0; i < samples; i++) {
    const t0 = performance.now();
    await fn();
    t.push(performance.now() - t0);
  }
  t.sort((a, b) => a - b);
  return { medianMs: t[Math.floor(samples / 2)], minMs: t[0], maxMs: t[samples - 1], samples };
}

/**
 * mha-wasm at `threads`, on the SIMD128 builds or (`relaxed`) the relaxed-SIMD
 * ones (this process then runs with --experimental-wasm-relaxed-simd on Node
 * 20): { load(dir) → model { run, dispose }, heap(), dispose }.
 */
async function mhaWasm(threads, relaxed = false) {
  const { createAttention } = await import('../src/js/node.mjs');
  const family = relaxed ? 'relaxed-simd' : 'simd';
  const engine = await createAttention(
    threads === 1 ? { variant: family } : { variant: `threaded-${family}`, threads },
  );
  return {
    name: relaxed ? 'mha-wasm-relaxed' : 'mha-wasm',
    variant: engine.variant,
    async load(dir) {
      const t0 = performance.now();
      const model = await engine.loadModel(dir);
      const loadMs = performance.now() - t0;
      return {
        loadMs,
        run: (ids, { returnAttention }) => model.run({ inputIds: ids }, { returnAttention }),
        dispose: () => model.dispose(),
      };
    },
    async memory() {
      const stats = await engine.memoryStats();
      return { heapBytes: heapOf(stats), stats };
    },
    dispose: () => engine.dispose(),
  };
}

/** onnxruntime-web at `threads`: load = read model.onnx + InferenceSession.create. */
async function onnxBert(threads) {
  const { createPeer } = await import('./peers/onnx-bert.mjs');
  const peer = await createPeer({ threads });
  return {
    name: peer.name,
    version: peer.version,
    async load(dir, file = 'model.onnx') {
      const t0 = performance.now();
      const bytes = readFileSync(path.join(dir, file));
      const session = await peer.load(bytes);
      return { ...session, loadMs: performance.now() - t0 };
    },
    async memory() {
      return {};
    },
    dispose() {},
  };
}

async function exportOnnx(dir) {
  const { buildBertOnnx } = await import('./peers/onnx-bert.mjs');
  const t0 = performance.now();
  let bytes = buildBertOnnx(dir);
  const buildMs = performance.now() - t0;
  writeFileSync(path.join(dir, 'model.onnx'), bytes);
  const writeMs = performance.now() - t0 - buildMs;
  const size = bytes.length;
  bytes = null;
  // The form without attention outputs, fused attention op (model-fused.onnx).
  writeFileSync(path.join(dir, 'model-fused.onnx'), buildBertOnnx(dir, { fused: true }));
  return { buildMs, writeMs, bytes: size, maxRssBytes: rss() };
}

async function check(dir) {
  const { vocab_size: V } = config(dir);
  const ours = await mhaWasm(1);
  const ort = await onnxBert(1);
  const a = await ours.load(dir);
  const b = await ort.load(dir);
  const rows = [];
  for (const L of LENGTHS) {
    const ids = makeInputIds(L, V);
    const x = await a.run(ids, { returnAttention: true });
    const fd = openSync(path.join(dir, `ref-${L}.bin`), 'w');
    for (const t of [x.lastHiddenState, x.attention])
      writeSync(fd, new Uint8Array(t.buffer, t.byteOffset, t.byteLength));
    closeSync(fd);
    const y = await b.run(ids, { returnAttention: true });
    const diff = {
      hidden: maxAbsDiff(x.lastHiddenState, y.lastHiddenState),
      attention: maxAbsDiff(x.attention, y.attention),
    };
    rows.push({ L, ...diff, ok: withinTolerance(diff), sizes: [x.lastHiddenState.length, x.attention.length] });
  }
  a.dispose();
  b.dispose();
  ours.dispose();
  return { against: 'mha-wasm simd vs onnxruntime-web ×1', tolerance: TOLERANCE, rows };
}

/**
 * mha-wasm: three loads of the checkpoint from Buffers (what fs.readFileSync
 * gives) into a { worker: true } engine, whose chunks are posted to the
 * engine's worker: { medianMs, allMs }.
 */
async function bufferWorkerLoads(dir, threads) {
  const { createAttention } = await import('../src/js/node.mjs');
  const engine = await createAttention({ worker: true, ...(threads === 1 ? { variant: 'simd' } : { threads }) });
  const files = Object.fromEntries(
    ['config.json', 'model.safetensors'].map((name) => [name, readFileSync(path.join(dir, name))]),
  );
  const loads = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const model = await engine.loadModel(files);
    loads.push(performance.now() - t0);
    model.dispose();
  }
  engine.dispose();
  return { medianMs: median(loads), allMs: loads };
}

async function timeRunner(name, threads, dir) {
  const { vocab_size: V } = config(dir);
  const runner = name.startsWith('mha-wasm')
    ? await mhaWasm(threads, name === 'mha-wasm-relaxed')
    : await onnxBert(threads);
  // Load three times, disposing each model but the last: the median is the load time.
  const loads = [];
  let model;
  for (let i = 0; i < 3; i++) {
    model?.dispose();
    model = await runner.load(dir);
    loads.push(model.loadMs);
  }
  const afterLoad = { maxRssBytes: rss(), ...(await runner.memory()) };
  const bufferLoad = name === 'mha-wasm' ? await bufferWorkerLoads(dir, threads) : undefined;
  const rows = [];
  for (const L of LENGTHS) {
    const ids = makeInputIds(L, V);
    const row = { L };
    const first = await model.run(ids, { returnAttention: true });
    row.check = compareToReference(dir, L, first);
    if (!withinTolerance(row.check)) {
      row.failed = `differs from mha-wasm simd: max |Δ| hidden ${row.check.hidden}, attention ${row.check.attention}`;
      rows.push(row);
      continue;
    }
    const plan = L >= 512 ? { samples: quick ? 3 : 5, warmup: 0 } : { samples: quick ? 5 : 9, warmup: 2 };
    row.withAttention = await timeCalls(() => model.run(ids, { returnAttention: true }), plan);
    row.hiddenOnly = await timeCalls(() => model.run(ids, { returnAttention: false }), { ...plan, warmup: 1 });
    rows.push(row);
  }
  const memory = await runner.memory();
  const maxRssBytes = rss();
  model.dispose();
  let fused;
  if (name === 'onnx-bert') {
    // onnxruntime-web's fastest form for last_hidden_state alone: the fused attention op.
    const session = await runner.load(dir, 'model-fused.onnx');
    fused = { loadMs: session.loadMs };
    for (const row of rows) {
      if (row.failed) continue;
      const ids = makeInputIds(row.L, V);
      const out = await session.run(ids, { returnAttention: false });
      row.fusedCheck = compareToReference(dir, row.L, { lastHiddenState: out.lastHiddenState, attention: [] });
      if (!(row.fusedCheck.hidden <= TOLERANCE.hidden)) {
        row.fusedFailed = `fused form differs from mha-wasm simd: max |Δ| hidden ${row.fusedCheck.hidden}`;
        continue;
      }
      const plan = row.L >= 512 ? { samples: quick ? 3 : 5, warmup: 0 } : { samples: quick ? 5 : 9, warmup: 2 };
      row.hiddenOnlyFused = await timeCalls(() => session.run(ids, { returnAttention: false }), plan);
    }
    session.dispose();
  }
  runner.dispose();
  return {
    fused,
    runner: runner.name,
    version: runner.version,
    variant: runner.variant,
    threads,
    load: { medianMs: median(loads), allMs: loads },
    bufferLoad,
    afterLoad,
    heapBytes: memory.heapBytes,
    maxRssBytes,
    maxRssWithFusedBytes: fused ? rss() : undefined,
    loadAverage: os.loadavg(), // at the end: above the thread count, something else shared the cores
    rows,
  };
}

let result;
if (mode === 'export') result = await exportOnnx(args[0]);
else if (mode === 'check') result = await check(args[0]);
else if (mode === 'time') result = await timeRunner(args[0], Number(args[1]), args[2]);
else throw new Error(`usage: node bench/model-run.mjs export|check|time … (got ${mode})`);
console.log(JSON.stringify(result));
process.exit(0);
