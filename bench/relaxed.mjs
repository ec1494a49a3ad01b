// The relaxed-SIMD builds beside the SIMD128 ones, in one process: the GEMM
// at 512³ and the multiply-add ceiling of each bench build (mha-bench-simd,
// mha-bench-relaxed-simd), and one attention layer (bench/inputs.mjs's
// CONFIGS) on 1 thread (simd, relaxed-simd) and 2 (threaded-simd,
// threaded-relaxed-simd), each relaxed output checked against the SIMD128
// build's before timing. Node 20 runs relaxed SIMD only with
// --experimental-wasm-relaxed-simd, so relaxedBench() measures in a child
// Node started with it (`--measure`).
// Usage: node bench/relaxed.mjs [--quick]   (also part of npm run bench)
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../src/js/node.mjs';
import {
  CONFIGS,
  flopsOf,
  headsOf,
  makeInputs,
  maxRelativeError,
  relaxedSimdFlags,
  runAlone,
  runHeader,
  time,
} from './inputs.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
// The relaxed build's output against the SIMD128 build's: both round every product in float32,
// the relaxed one once per multiply-add instead of twice.
const MAX_RELATIVE_ERROR = 1e-4;
const PAIRS = [
  { threads: 1, simd: 'simd', relaxed: 'relaxed-simd' },
  { threads: 2, simd: 'threaded-simd', relaxed: 'threaded-relaxed-simd' },
];

// A bench build's GEMM at 512³ and its ceiling (a register-only multiply-add loop), as bench.mjs measures them.
async function kernelsOf(name) {
  const factory = createRequire(import.meta.url)(here(`../build/wasm/bench/${name}.js`));
  const module = await factory({ wasmBinary: readFileSync(here(`../build/wasm/bench/${name}.wasm`)) });
  const kb = new module.KernelBenchmark(512, 512, 512);
  const gemm = await time(() => kb.gemm(), { samples: 15 });
  const iterations = 1 << 20;
  const peak = await time(() => kb.peak(iterations), { samples: 15 });
  const result = {
    build: name,
    gemmGflops: kb.gemmFlops() / gemm.medianMs / 1e6,
    ceilingGflops: kb.peakFlops(iterations) / peak.medianMs / 1e6,
  };
  kb.delete();
  return result;
}

async function measure(quick) {
  const kernels = [await kernelsOf('mha-bench-simd'), await kernelsOf('mha-bench-relaxed-simd')];
  const attention = [];
  for (const { threads, simd, relaxed } of PAIRS) {
    const engines = {
      simd: await createAttention({ variant: simd, threads }),
      relaxed: await createAttention({ variant: relaxed, threads }),
    };
    for (const config of CONFIGS) {
      if (quick && config.L > 512) continue;
      const { query, ...weights } = makeInputs(config);
      const row = { config: config.name, threads, [simd]: {}, [relaxed]: {} };
      const outputs = {};
      for (const [key, variant] of [
        ['simd', simd],
        ['relaxed', relaxed],
      ]) {
        const layer = await engines[key].createLayer({ ...headsOf(config), ...weights });
        const call = () => layer.forward({ query, seqLenQ: config.L, causal: Boolean(config.causal) });
        outputs[key] = (await call()).output;
        const t = await time(call, { samples: config.L > 512 ? 5 : 10 });
        row[variant] = {
          medianMs: t.medianMs,
          minMs: t.minMs,
          maxMs: t.maxMs,
          gflops: flopsOf(config) / t.medianMs / 1e6,
        };
        layer.dispose();
      }
      row.maxRelativeError = maxRelativeError(outputs.relaxed, outputs.simd);
      row.checked = row.maxRelativeError <= MAX_RELATIVE_ERROR;
      row.speedup = row[simd].medianMs / row[relaxed].medianMs;
      attention.push(row);
    }
    engines.simd.dispose();
    engines.relaxed.dispose();
  }
  return { kernels, attention };
}

/** { result, report } of the relaxed builds beside the SIMD128 ones, measured in a Node that runs relaxed SIMD. */
export async function relaxedBench({ quick = false } = {}) {
  const flags = relaxedSimdFlags();
  if (!flags)
    throw new Error(
      `relaxed SIMD: this Node ${process.version} runs it neither as it is nor with --experimental-wasm-relaxed-simd`,
    );
  const out = execFileSync(
    process.execPath,
    [...flags, here('./relaxed.mjs'), '--measure', ...(quick ? ['--quick'] : [])],
    {
      encoding: 'utf8',
      maxBuffer: 1 << 24,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const measured = JSON.parse(out.trim().split('\n').pop());
  const result = { ...runHeader(quick), nodeFlags: flags, ...measured };
  const f = (x, digits = 2) => x.toFixed(digits);
  const lines = [
    `relaxed SIMD (f32x4.relaxed_madd) beside SIMD128 — ${result.cpu} ×${result.cores}, Node ${result.node} ${flags.join(' ')}`,
    'kernels, 1 thread:      GEMM 512³ GFLOP/s   ceiling GFLOP/s   GEMM / ceiling',
    ...measured.kernels.map(
      (k) =>
        `  ${k.build.padEnd(24)}${f(k.gemmGflops, 1).padStart(10)}${f(k.ceilingGflops, 1).padStart(18)}` +
        `${f(k.gemmGflops / k.ceilingGflops).padStart(17)}`,
    ),
    'attention layer (median ms per call; speed-up = SIMD128 / relaxed; max rel. error of relaxed vs SIMD128):',
    ...measured.attention.map((r) => {
      const [simd, relaxed] = Object.keys(r).filter((k) => k.includes('simd'));
      return (
        `  ${r.config.padEnd(26)} ×${r.threads}  ${simd} ${f(r[simd].medianMs, 3)}  ${relaxed} ` +
        `${f(r[relaxed].medianMs, 3)}  ×${f(r.speedup)}  err ${r.maxRelativeError.toExponential(1)}${r.checked ? '' : ' !!'}`
      );
    }),
  ];
  return { result, report: lines.join('\n') };
}

if (process.argv.includes('--measure')) {
  console.log(JSON.stringify(await measure(process.argv.includes('--quick'))));
} else {
  await runAlone(import.meta.url, 'relaxed', relaxedBench, (result) => result.attention.every((r) => r.checked));
}
