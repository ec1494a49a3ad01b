// run() of a batch against a run() each (node bench/model-batch.mjs [--threads n]): a checkpoint of
// all-MiniLM-L6-v2's shape (the sentence embedder transformers.js users batch; seeded random weights,
// bench/model-checkpoint.mjs), N short inputs of 6 to 24 tokens; and one of opus-mt-zh-en's shape
// (bench/seq2seq-checkpoint.mjs), N pairs teacher-forced (sources and decoder inputs of 6 to 24 tokens, as a
// translation's scoring or training data is). The medians of N single calls and of one batch of N, side by
// side, and that each batch row is its single call's bits. Prints a table per model and one JSON line.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createAttention } from '../src/js/node.mjs';
import { BERT_BASE, makeInputIds, writeCheckpoint } from './model-checkpoint.mjs';
import { OPUS_MT, writeMarianCheckpoint } from './seq2seq-checkpoint.mjs';

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

// The two models: a checkpoint writer, its hidden size, and input i of a batch (6 to 24 tokens).
const MODELS = {
  'MiniLM-L6': {
    write: (dir) => writeCheckpoint(dir, MINILM),
    D: MINILM.hidden_size,
    input: (i) => ({ inputIds: makeInputIds(6 + ((i * 7) % 19), MINILM.vocab_size, i) }),
  },
  'opus-mt-zh-en': {
    write: (dir) => writeMarianCheckpoint(dir, OPUS_MT),
    D: OPUS_MT.d_model,
    input: (i) => ({
      inputIds: makeInputIds(6 + ((i * 7) % 19), OPUS_MT.vocab_size - 1, i),
      decoderInputIds: [OPUS_MT.decoder_start_token_id, ...makeInputIds(5 + ((i * 5) % 19), 65000, 100 + i)],
    }),
  },
};

// N single run()s and one run([N]) of `inputs`, and whether each batch row of lastHiddenState (the decoder's for
// pairs) is its single call's bits (checked once, outside the timing).
async function compare(model, inputs, D) {
  const options = { returnAttention: false };
  const single = await median(async () => {
    for (const input of inputs) await model.run(input, options);
  });
  const batched = await median(() => model.run(inputs, options));
  const batch = await model.run(inputs, options);
  const Lmax = batch.shapes.lastHiddenState[1];
  let same = true;
  for (let b = 0; b < inputs.length; b++) {
    const one = (await model.run(inputs[b], options)).lastHiddenState;
    const row = batch.lastHiddenState.subarray(b * Lmax * D, b * Lmax * D + one.length);
    same &&= Buffer.compare(Buffer.from(row.buffer, row.byteOffset, row.byteLength), Buffer.from(one.buffer)) === 0;
  }
  const tokens = [...batch.lengths, ...(batch.decoderLengths ?? [])].reduce((a, b) => a + b, 0);
  return { N: inputs.length, tokens, singleMs: single, batchMs: batched, speedup: single / batched, bitwiseSame: same };
}

const engine = await createAttention(threads > 1 ? { variant: 'threaded-simd', threads } : { variant: 'simd' });
const results = {};
try {
  for (const [name, { write, D, input }] of Object.entries(MODELS)) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'mha-batch-bench-'));
    try {
      write(dir);
      const model = await engine.loadModel(dir);
      for (let i = 0; i < 5; i++) await model.run(input(i)); // the engine warmed up first
      const rows = [];
      for (const N of SIZES)
        rows.push(
          await compare(
            model,
            Array.from({ length: N }, (_, i) => input(i)),
            D,
          ),
        );
      model.dispose();
      results[name] = rows;
      console.log(`${name} shape (random weights), ${threads} thread(s), medians of ${SAMPLES}:`);
      console.log('   N  tokens  N × run() ms  run([N]) ms  speed-up  rows bit for bit');
      for (const r of rows)
        console.log(
          `${String(r.N).padStart(4)}  ${String(r.tokens).padStart(6)}  ${r.singleMs.toFixed(1).padStart(12)}  ` +
            `${r.batchMs.toFixed(1).padStart(11)}  ${r.speedup.toFixed(2).padStart(8)}  ${r.bitwiseSame}`,
        );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  console.log(JSON.stringify({ threads, results }));
} finally {
  engine.dispose();
}
