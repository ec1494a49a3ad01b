// run() of a batch against a run() each (node bench/model-batch.mjs [--threads n]): a checkpoint of
// all-MiniLM-L6-v2's shape (the sentence embedder transformers.js users batch; seeded random weights,
// bench/model-checkpoint.mjs), N short inputs of 6 to 24 tokens; the medians of N single calls and of one
// batch of N, side by side, and that each batch row is its single call's bits. Prints a table and one JSON line.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createAttention } from '../src/js/node.mjs';
import { BERT_BASE, makeInputIds, writeCheckpoint } from './model-checkpoint.mjs';

const MINILM = {
  ...BERT_BASE,
  hidden_size: 384,
  num_hidden_layers: 6,
  num_attention_heads: 12,
  intermediate_size: 1536,
  vocab_size: 30522,
};
const SIZES = [1, 4, 16, 64];
const SAMPLES = 9;
const threadsAt = process.argv.indexOf('--threads');
const threads = threadsAt > 0 ? Number(process.argv[threadsAt + 1]) : 1;

async function median(fn) {
  await fn();
  const t = [];
  for (let i = 0; i < SAMPLES; i++) {
    const t0 = performance.now();
    await fn();
    t.push(performance.now() - t0);
  }
  return t.sort((a, b) => a - b)[Math.floor(SAMPLES / 2)];
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'mha-batch-bench-'));
const engine = await createAttention(threads > 1 ? { variant: 'threaded-simd', threads } : { variant: 'simd' });
try {
  writeCheckpoint(dir, MINILM);
  const model = await engine.loadModel(dir);
  const rows = [];
  for (let i = 0; i < 5; i++) await model.run({ inputIds: makeInputIds(16, 30522) }); // the engine warmed up first
  for (const N of SIZES) {
    const inputs = Array.from({ length: N }, (_, i) => ({ inputIds: makeInputIds(6 + ((i * 7) % 19), 30522, i) }));
    const options = { returnAttention: false };
    const single = await median(async () => {
      for (const input of inputs) await model.run(input, options);
    });
    const batched = await median(() => model.run(inputs, options));
    // The batch's rows are the single calls' bits (checked once per size, outside the timing).
    const batch = await model.run(inputs, options);
    const Lmax = Math.max(...batch.lengths);
    const D = MINILM.hidden_size;
    let same = true;
    for (let b = 0; b < N; b++) {
      const one = (await model.run(inputs[b], options)).lastHiddenState;
      const row = batch.lastHiddenState.subarray(b * Lmax * D, b * Lmax * D + one.length);
      same &&= Buffer.compare(Buffer.from(row.buffer, row.byteOffset, row.byteLength), Buffer.from(one.buffer)) === 0;
    }
    const tokens = batch.lengths.reduce((a, b) => a + b, 0);
    rows.push({ N, tokens, singleMs: single, batchMs: batched, speedup: single / batched, bitwiseSame: same });
  }
  console.log(`MiniLM-L6 shape (random weights), ${threads} thread(s), medians of ${SAMPLES}:`);
  console.log('   N  tokens  N × run() ms  run([N]) ms  speed-up  rows bit for bit');
  for (const r of rows)
    console.log(
      `${String(r.N).padStart(4)}  ${String(r.tokens).padStart(6)}  ${r.singleMs.toFixed(1).padStart(12)}  ` +
        `${r.batchMs.toFixed(1).padStart(11)}  ${r.speedup.toFixed(2).padStart(8)}  ${r.bitwiseSame}`,
    );
  console.log(JSON.stringify({ threads, rows }));
  model.dispose();
} finally {
  engine.dispose();
  rmSync(dir, { recursive: true, force: true });
}
