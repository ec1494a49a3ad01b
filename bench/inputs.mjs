// The benchmark's work, shared by every runner so that all of them compute
// the same numbers: seeded self-attention inputs (mulberry32), scaled like a
// trained layer's, and the FLOP count used for GFLOP/s.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import { hasRelaxedSimd } from '../src/js/variants.mjs';
import { mulberry32 } from '../tests/js/helpers/random.mjs';

/** (seqLen, dModel, numHeads[, dK], causal): the demo sentence up to long sequences. */
export const CONFIGS = [
  { name: 'demo L=15 d=64 H=3', L: 15, dModel: 64, numHeads: 3, dK: 16 },
  { name: 'L=128 d=256 H=8', L: 128, dModel: 256, numHeads: 8 },
  { name: 'L=512 d=512 H=8', L: 512, dModel: 512, numHeads: 8 },
  { name: 'L=512 d=512 H=8 causal', L: 512, dModel: 512, numHeads: 8, causal: true },
  { name: 'L=2048 d=512 H=8', L: 2048, dModel: 512, numHeads: 8 },
];

export function headsOf({ dModel, numHeads, dK = dModel / numHeads }) {
  return { dModel, numHeads, dK, dV: dK };
}

/** { query [L, dModel], wQ, wK, wV [dModel, H·dK], wO [H·dK, dModel] } for a config: uniform around 0. */
export function makeInputs(config) {
  const { dModel, numHeads, dK } = headsOf(config);
  const uniform = mulberry32(config.L * 7919 + dModel);
  const fill = (n, s) => Float32Array.from({ length: n }, () => (uniform() - 0.5) * s);
  const w = (rows, cols) => fill(rows * cols, 2 / Math.sqrt(rows));
  return {
    query: fill(config.L * dModel, 2),
    wQ: w(dModel, numHeads * dK),
    wK: w(dModel, numHeads * dK),
    wV: w(dModel, numHeads * dK),
    wO: w(numHeads * dK, dModel),
  };
}

/** 8·L·d·H·dK for the four projections + 4·L²·H·dK for QKᵀ and A·V (the causal saving not subtracted). */
export function flopsOf(config) {
  const { dModel, numHeads, dK } = headsOf(config);
  return 8 * config.L * dModel * numHeads * dK + 4 * config.L * config.L * numHeads * dK;
}

/**
 * Per-call median, min and max over `samples` timed samples, after a warm-up
 * long enough for V8 to optimize the code (it tiers WebAssembly and JS up
 * only after many calls). A sample is one call, or for calls under ~2 ms a
 * batch of calls timed together and divided.
 */
export async function time(fn, { samples = 10, warmupMs = 300 } = {}) {
  let calls = 0;
  const start = performance.now();
  do {
    await fn();
    calls++;
  } while (calls < 3 || performance.now() - start < warmupMs);
  const perCall = (performance.now() - start) / calls;
  const batch = Math.max(1, Math.ceil(2 / perCall));
  const t = [];
  for (let i = 0; i < samples; i++) {
    const t0 = performance.now();
    for (let j = 0; j < batch; j++) await fn();
    t.push((performance.now() - t0) / batch);
  }
  t.sort((a, b) => a - b);
  return { medianMs: t[Math.floor(samples / 2)], minMs: t[0], maxMs: t[samples - 1], samples, callsPerSample: batch };
}

/** Largest |a - b| relative to max(1, |b|), for checking a peer against mha-wasm. */
export function maxRelativeError(a, b) {
  let worst = 0;
  for (let i = 0; i < b.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]) / Math.max(1, Math.abs(b[i])));
  return worst;
}

/** The middle value of `values` (the upper one of the two middle ones when their count is even). */
export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The CPU's name as `lscpu` says it (os.cpus() without lscpu): the report names the machine it ran on. */
export function cpuModel() {
  try {
    const line = execFileSync('lscpu', { encoding: 'utf8' })
      .split('\n')
      .find((l) => l.startsWith('Model name:'));
    if (line) return line.slice('Model name:'.length).trim();
  } catch {
    // no lscpu: os.cpus() below
  }
  return os.cpus()[0]?.model ?? 'unknown';
}

/**
 * The Node flags a child process needs to run the relaxed-SIMD builds: none
 * where this Node runs them (Node >= 22), --experimental-wasm-relaxed-simd
 * where it runs them only so (Node 20), null where it cannot.
 */
export function relaxedSimdFlags() {
  if (hasRelaxedSimd()) return [];
  const flags = ['--experimental-wasm-relaxed-simd'];
  const variants = JSON.stringify(new URL('../src/js/variants.mjs', import.meta.url).href);
  const probe = `import { hasRelaxedSimd } from ${variants}; process.exit(hasRelaxedSimd() ? 0 : 1);`;
  try {
    execFileSync(process.execPath, [...flags, '--input-type=module', '-e', probe], { stdio: 'ignore' });
    return flags;
  } catch {
    return null;
  }
}

/** Runs `script` (a bench runner, each in a process of its own) with `args`; its last line of stdout, parsed. */
export function runStep(script, args, nodeFlags = []) {
  const out = execFileSync(process.execPath, [...nodeFlags, script, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(out.trim().split('\n').pop());
}

/**
 * A benchmark module run as `node bench/<name>.mjs [--quick] [its own flags]` (moduleUrl: its
 * import.meta.url): runs `bench` ({ quick, argv }), prints its report, keeps its result as
 * `section` of bench-output/bench.json beside npm run bench's other sections,
 * and fails the process unless `checked(result)` (every output check passed,
 * every step ran).
 */
export async function runAlone(moduleUrl, section, bench, checked) {
  if (!process.argv[1] || moduleUrl !== pathToFileURL(process.argv[1]).href) return;
  const { result, report } = await bench({ quick: process.argv.includes('--quick'), argv: process.argv.slice(2) });
  console.log(report);
  mkdirSync('bench-output', { recursive: true });
  const file = 'bench-output/bench.json';
  const json = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  json[section] = result;
  writeFileSync(file, JSON.stringify(json, null, 2));
  console.log(`wrote the "${section}" section of ${file}`);
  if (!checked(result)) {
    console.error(`!! ${section} bench: an output check failed or a step did not run (see above)`);
    process.exitCode = 1;
  }
}

/** What every benchmark's result starts with: when, on which CPU (lscpu's name), cores, Node, and whether --quick. */
export const runHeader = (quick) => ({
  date: new Date().toISOString(),
  cpu: cpuModel(),
  cores: os.availableParallelism(),
  node: process.version,
  quick,
});

/** The wasm heap an engine's memoryStats() reports: its model build's once a model was loaded, else its own. */
export const heapOf = (stats) => stats.models?.heapBytes ?? stats.heapBytes;
