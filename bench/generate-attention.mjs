// What returning attention costs a decoder's generate() (issue 40 item 7: its
// default decided by this): a Qwen2.5-0.5B-shaped checkpoint with seeded
// random weights (bench/decoder-checkpoint.mjs; not a trained model), greedy,
// the output reaching 100 and 1,000 tokens (the 15-token prompt and the rest
// new, the end-of-text token banned until then by minNewTokens), each row in
// its own Node process so that its memory is its own: wall time of
// generate(), the process's peak resident memory, the wasm memory's size
// after it, and the bytes of the arrays the result holds.
//   node --experimental-wasm-relaxed-simd bench/generate-attention.mjs [--quick] [--tokens 100,1000] [--dir <dir>]
//   (--dir: a checkpoint bench/decoder-checkpoint.mjs wrote there before, kept; else one is written and removed)
//   (one row: ... --row <dir> <tokens> <attention 0|1>)
// Prints a Markdown table, and one JSON object on stdout (the last line).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROMPT, SHAPES, configOf, writeDecoderCheckpoint } from './decoder-checkpoint.mjs';
import { heapOf } from './inputs.mjs';

const args = process.argv.slice(2);

// The bytes of every typed array a result holds (its attention, ids, scores …).
function arrayBytes(value, seen = new Set()) {
  if (ArrayBuffer.isView(value)) return seen.has(value.buffer) ? 0 : (seen.add(value.buffer), value.byteLength);
  if (!value || typeof value !== 'object') return 0;
  let sum = 0;
  for (const v of Object.values(value)) sum += arrayBytes(v, seen);
  return sum;
}

async function row(dir, tokens, attention) {
  const { createAttention } = await import('../src/js/node.mjs');
  const engine = await createAttention({ threads: 1 });
  const model = await engine.loadModel(dir);
  const prompt = (await model.run(PROMPT, { returnAttention: false })).inputIds;
  const newTokens = tokens - prompt.length;
  const t0 = performance.now();
  const r = await model.generate(
    { inputIds: prompt },
    { maxNewTokens: newTokens, minNewTokens: newTokens, returnAttention: attention },
  );
  const ms = performance.now() - t0;
  const out = {
    tokens: r.outputIds.length,
    attention,
    ms,
    msPerToken: ms / newTokens,
    resultBytes: arrayBytes(r),
    wasmBytes: heapOf(await engine.memoryStats()),
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    variant: engine.variant,
  };
  model.dispose();
  engine.dispose();
  return out;
}

if (args[0] === '--row') {
  const out = await row(args[1], Number(args[2]), args[3] === '1');
  console.log(JSON.stringify(out));
  process.exit(0);
}

const quick = args.includes('--quick');
const at = args.indexOf('--tokens');
const counts = at >= 0 ? args[at + 1].split(',').map(Number) : [100, 1000];
const shape = SHAPES.find((s) => s.key === 'qwen2');
const given = args.indexOf('--dir');
const dir = given >= 0 ? args[given + 1] : mkdtempSync(path.join(os.tmpdir(), 'mha-generate-attention-'));
const rows = [];
try {
  if (given < 0) writeDecoderCheckpoint(dir, shape, configOf(shape, quick));
  const self = fileURLToPath(import.meta.url);
  for (const tokens of counts)
    for (const attention of [false, true]) {
      const line = execFileSync(
        process.execPath,
        [
          ...process.execArgv,
          '--experimental-wasm-relaxed-simd',
          self,
          '--row',
          dir,
          String(tokens),
          attention ? '1' : '0',
        ],
        { encoding: 'utf8', maxBuffer: 1 << 24 },
      );
      const r = JSON.parse(line.trim().split('\n').pop());
      rows.push(r);
      console.error(JSON.stringify(r));
    }
} finally {
  if (given < 0 && existsSync(dir)) rmSync(dir, { recursive: true, force: true });
}
const mb = (b) => (b / 2 ** 20).toFixed(0);
console.log(`Qwen2.5-0.5B shape${quick ? ' (--quick)' : ''}, random weights, greedy, ${rows[0]?.variant}, 1 thread`);
console.log(
  '| tokens | returnAttention | generate() s | ms / new token | result arrays MB | wasm memory MB | peak RSS MB |',
);
console.log('|---|---|---|---|---|---|---|');
for (const r of rows)
  console.log(
    `| ${r.tokens} | ${r.attention} | ${(r.ms / 1000).toFixed(1)} | ${r.msPerToken.toFixed(1)} | ` +
      `${mb(r.resultBytes)} | ${mb(r.wasmBytes)} | ${mb(r.maxRssBytes)} |`,
  );
console.log(
  JSON.stringify({ quick, date: new Date().toISOString(), cpu: os.cpus()[0]?.model, loadavg: os.loadavg(), rows }),
);
