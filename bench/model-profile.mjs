// npm run bench -- --model-profile: where a bert-base-shaped model's forward
// spends its time, block by block, on one thread, on the SIMD128 build and
// the relaxed-SIMD one: the products with the weight matrices (their bias
// added as they start), the activation (GELU) on their tiles, attention,
// LayerNorm with its residual sum, the embeddings, the copies out, and the
// crossing (the embind call's own time beyond the forward: the outputs
// copied into JS arrays). The blocks are timed inside the engine by the
// benchmark's model builds (mha-bench-model-*, built with MHA_PROFILE,
// src/model/blocks/profile.hpp); the products' rate is set beside the 512³
// GEMM's of the same build. The model's weights are seeded random numbers
// written straight into the engine (timing does not depend on their values).
// Usage: node bench/model-profile.mjs [--quick]; a relaxed build is measured
// in a child Node that runs relaxed SIMD (`--measure <build>`).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { BERT_BASE, makeInputIds } from './model-checkpoint.mjs';
import { median, relaxedSimdFlags, runHeader, runStep, time } from './inputs.mjs';

const here = (file) => fileURLToPath(new URL(file, import.meta.url));
const require = createRequire(import.meta.url);
const BLOCKS = ['linear', 'activation', 'attention', 'norms', 'embeddings', 'copies'];

const loadBuild = async (name) =>
  require(here(`../build/wasm/bench/${name}.js`))({
    wasmBinary: readFileSync(here(`../build/wasm/bench/${name}.wasm`)),
  });

/** An Embind result that is an Error (the bindings return errors rather than throw them): thrown. */
const checked = (value, what) => {
  if (value instanceof Error) throw new Error(`${what}: ${value.message}`);
  return value;
};

/** One build's profile in this process: { build, gemmGflops, rows: [{ L, blocks, totalMs, callMs, linearGflops }] }. */
async function measure(build, quick) {
  const kernels = await loadBuild(`mha-bench-${build}`);
  const kb = new kernels.KernelBenchmark(512, 512, 512);
  const gemmGflops = kb.gemmFlops() / (await time(() => kb.gemm(), { samples: 15 })).medianMs / 1e6;
  kb.delete();

  const m = await loadBuild(`mha-bench-model-${build}`);
  const engine = new m.Engine(1);
  const model = new m.Model(engine);
  const { tensors } = checked(model.configure(BERT_BASE, 0), 'configure');
  // Seeded float32 values in [-0.05, 0.05), one block reused for every chunk of every tensor.
  const block = new Float32Array(1 << 20);
  let seed = 12;
  for (let i = 0; i < block.length; i++) {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    block[i] = (seed / 2 ** 32 - 0.5) * 0.1;
  }
  const bytes = new Uint8Array(block.buffer);
  tensors.forEach((t, index) => {
    const elements = t.shape.reduce((a, b) => a * b, 1);
    for (let first = 0; first < elements; first += block.length) {
      const n = Math.min(block.length, elements - first);
      checked(model.write(index, 0, first, bytes.subarray(0, 4 * n)), `write ${t.name}`);
    }
  });
  checked(model.missing(), 'missing');
  const { hidden_size: D, intermediate_size: I, num_hidden_layers: layers } = BERT_BASE;
  const rows = [];
  for (const L of quick ? [17, 128] : [17, 128, 512]) {
    const ids = makeInputIds(L, BERT_BASE.vocab_size);
    // Every attention returned, as the model bench's first table.
    const request = {
      call: 'run',
      inputIds: ids,
      tokenTypeIds: null,
      beams: 1,
      returnAttention: true,
      returnHiddenStates: false,
      returnLogits: 0,
      returnQueryKey: false,
      headMask: { encoder: null, decoder: null, cross: null },
    };
    const run = () => checked(model.call(request), 'run');
    for (let i = 0; i < 3; i++) run();
    m.readBlockProfile(); // starts the profile from here
    const samples = L >= 512 ? 7 : 15;
    const calls = [];
    const profiles = [];
    for (let i = 0; i < samples; i++) {
      const t0 = performance.now();
      run();
      calls.push(performance.now() - t0);
      profiles.push(m.readBlockProfile());
    }
    const blocks = Object.fromEntries(BLOCKS.map((b) => [b, median(profiles.map((p) => p[b]))]));
    const totalMs = median(profiles.map((p) => p.total));
    blocks.rest = Math.max(0, totalMs - BLOCKS.reduce((sum, b) => sum + blocks[b], 0));
    const callMs = median(calls);
    blocks.crossing = Math.max(0, callMs - totalMs);
    const linearFlops = 2 * L * layers * (4 * D * D + 2 * D * I);
    rows.push({ L, blocks, totalMs, callMs, linearGflops: linearFlops / blocks.linear / 1e6 });
  }
  model.delete();
  engine.delete();
  return { build, gemmGflops, rows };
}

/** Both builds' profiles (the relaxed one where a Node here runs it); { result, report }. */
export async function modelProfile({ quick = false } = {}) {
  const result = { ...runHeader(quick), config: BERT_BASE, builds: [await measure('simd', quick)] };
  const flags = relaxedSimdFlags();
  if (flags)
    result.builds.push(
      runStep(here('./model-profile.mjs'), ['--measure', 'relaxed-simd', ...(quick ? ['--quick'] : [])], flags),
    );
  const f = (x, d = 1) => x.toFixed(d);
  const lines = [
    `model forward by block, bert-base shape (12 layers, every attention returned), 1 thread, median ms per run — ` +
      `${result.cpu} ×${result.cores}, Node ${result.node}${quick ? ', --quick' : ''}`,
    `${'build'.padEnd(13)} ${'L'.padStart(4)} ${[...BLOCKS, 'rest', 'crossing'].map((b) => b.padStart(12)).join('')}` +
      `${'call'.padStart(9)}  products GFLOP/s (GEMM 512³)`,
  ];
  for (const b of result.builds)
    for (const r of b.rows)
      lines.push(
        `${b.build.padEnd(13)} ${String(r.L).padStart(4)} ` +
          [...BLOCKS, 'rest', 'crossing']
            .map((k) =>
              `${f(r.blocks[k], r.blocks[k] < 10 ? 2 : 1)} ${f((100 * r.blocks[k]) / r.callMs, 0)}%`.padStart(12),
            )
            .join('') +
          `${f(r.callMs).padStart(9)}  ${f(r.linearGflops)} (${f(b.gemmGflops)})`,
      );
  if (!flags) lines.push('(relaxed-simd: this Node cannot run relaxed SIMD)');
  return { result, report: lines.join('\n') };
}

const argv = process.argv.slice(2);
if (argv[0] === '--measure') {
  console.log(JSON.stringify(await measure(argv[1], argv.includes('--quick'))));
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log((await modelProfile({ quick: argv.includes('--quick') })).report);
}
