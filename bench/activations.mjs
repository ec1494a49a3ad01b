// What loadModel's `activations: 'llama.cpp'` costs (each product's activations rounded as llama.cpp
// rounds them before the product, src/model/ggml_blocks.cpp): Qwen2.5-0.5B-shaped GGUF files with seeded
// random weights (bench/gguf-checkpoint.mjs; not a trained model) at Q8_0 and Q4_K_M, greedy, one thread,
// in Node, both ways alternated in fresh processes: the prefill of the 15-token prompt from an empty cache
// and a token's step (the median of 16), medians of `--runs` processes each. Both ways must give their own
// ids again in every run (a different path between the two ways is expected and reported).
//   node --experimental-wasm-relaxed-simd bench/activations.mjs [--quick] [--runs 3] [--types Q8_0,Q4_K_M]
//   (one process: ... --row <file> <activations>)
// Prints a table, and one JSON object on stdout (the last line).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROMPT, writeQwenGguf } from './gguf-checkpoint.mjs';
import { cpuModel, median, runStep } from './inputs.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const NEW_TOKENS = 16;

async function row(file, activations) {
  const { createAttention } = await import('../src/js/node.mjs');
  const engine = await createAttention({ threads: 1 });
  const model = await engine.loadModel(file, { activations });
  const inputIds = (await model.run(PROMPT, { returnAttention: false })).inputIds;
  model.reset();
  let t0 = performance.now();
  await model.generate({ inputIds }, { maxNewTokens: 1, returnAttention: false });
  const prefillMs = performance.now() - t0;
  model.reset();
  const steps = [];
  t0 = performance.now();
  const r = await model.generate(
    { inputIds },
    {
      maxNewTokens: NEW_TOKENS,
      minNewTokens: NEW_TOKENS,
      returnAttention: false,
      onStep: () => {
        const now = performance.now();
        steps.push(now - t0);
        t0 = now;
      },
    },
  );
  const ids = Array.from(r.outputIds);
  // The first step holds the prefill.
  const out = { activations, prefillMs, stepMs: median(steps.slice(1)), ids, variant: engine.variant };
  model.dispose();
  engine.dispose();
  return out;
}

if (args[0] === '--row') {
  console.log(JSON.stringify(await row(args[1], args[2])));
} else {
  const quick = args.includes('--quick');
  const runs = Number(option('--runs', quick ? 1 : 3));
  const types = option('--types', 'Q8_0,Q4_K_M').split(',');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mha-activations-'));
  const script = fileURLToPath(import.meta.url);
  const results = [];
  try {
    for (const type of types) {
      const file = path.join(dir, `qwen-${type}.gguf`);
      writeQwenGguf(file, type, { quick });
      const rows = { float32: [], 'llama.cpp': [] };
      for (let r = 0; r < runs; r++)
        for (const activations of Object.keys(rows)) {
          rows[activations].push(runStep(script, ['--row', file, activations], process.execArgv));
        }
      const summary = Object.fromEntries(
        Object.entries(rows).map(([a, rs]) => [
          a,
          {
            prefillMs: median(rs.map((x) => x.prefillMs)),
            stepMs: median(rs.map((x) => x.stepMs)),
            sameIdsEveryRun: rs.every((x) => JSON.stringify(x.ids) === JSON.stringify(rs[0].ids)),
            ids: rs[0].ids,
          },
        ]),
      );
      const f = summary.float32;
      const l = summary['llama.cpp'];
      results.push({ type, variant: rows.float32[0].variant, runs, ...summary });
      console.error(
        `${type} (${rows.float32[0].variant}, 1 thread, medians of ${runs} processes): prefill ${f.prefillMs.toFixed(1)} → ` +
          `${l.prefillMs.toFixed(1)} ms (${(l.prefillMs / f.prefillMs).toFixed(3)}×), a token ${f.stepMs.toFixed(2)} → ` +
          `${l.stepMs.toFixed(2)} ms (${(l.stepMs / f.stepMs).toFixed(3)}×); ids the same every run: ` +
          `${f.sameIdsEveryRun} / ${l.sameIdsEveryRun}; the two ways' ids ` +
          `${JSON.stringify(f.ids) === JSON.stringify(l.ids) ? 'equal' : 'differ'}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(JSON.stringify({ cpu: cpuModel(), results }));
}
