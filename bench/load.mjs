// Loading a 224 MB checkpoint four ways: from its folder's path and from
// Buffers (what fs.readFileSync gives), each on the calling thread and in a
// { worker: true } engine, whose chunks are posted to the engine's Worker
// (issue 27: from Buffers that once took 46 s and 1.4 GB, every chunk a clone
// of the whole file). A BERT of bert-base's width with 6 layers and a
// vocabulary of 17,000 (random weights written at bench time,
// model-checkpoint.mjs); each way in a process of its own: median of 3 loads,
// the process's peak RSS, and the last hidden state of one run, which must be
// the same bits every way.
// Usage: node bench/load.mjs [--quick] (one load each); the result goes to the
// "load" section of bench-output/bench.json.
//   node bench/load.mjs --way <path|buffers> <direct|worker> <dir>: one way, one JSON line.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BERT_BASE, makeInputIds, writeCheckpoint } from './model-checkpoint.mjs';
import { runAlone, runHeader, runStep } from './inputs.mjs';

const CONFIG = { ...BERT_BASE, num_hidden_layers: 6, vocab_size: 17000 };
const WAYS = [
  ['path', 'direct'],
  ['path', 'worker'],
  ['buffers', 'direct'],
  ['buffers', 'worker'],
];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One way's loads in this process: { medianMs, allMs, maxRssBytes, hidden (the run's bits, base64) }. */
async function loadWay(source, thread, dir, loads) {
  const { createAttention } = await import('../src/js/node.mjs');
  const engine = await createAttention({ worker: thread === 'worker' });
  const files = () =>
    Object.fromEntries(['config.json', 'model.safetensors'].map((name) => [name, readFileSync(path.join(dir, name))]));
  const allMs = [];
  let model;
  for (let i = 0; i < loads; i++) {
    model?.dispose();
    // Reading the files is the caller's part of a load from Buffers, and is timed with it.
    const t0 = performance.now();
    model = await engine.loadModel(source === 'path' ? dir : files());
    allMs.push(performance.now() - t0);
  }
  const r = await model.run({ inputIds: makeInputIds(17, CONFIG.vocab_size) }, { returnAttention: false });
  const hidden = Buffer.from(r.lastHiddenState.buffer).toString('base64');
  model.dispose();
  engine.dispose();
  return { medianMs: median(allMs), allMs, maxRssBytes: process.resourceUsage().maxRSS * 1024, hidden };
}

/** Runs the benchmark; resolves { result (for bench.json), report (the printed table) }. */
export async function loadBench({ quick = false, log = (s) => process.stderr.write(s) } = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mha-load-'));
  const result = { ...runHeader(quick), config: CONFIG, ways: [] };
  try {
    log(`load: writing a ${CONFIG.num_hidden_layers}-layer bert-base-wide checkpoint in ${dir}…\n`);
    const { bytes, ms } = writeCheckpoint(dir, CONFIG);
    result.checkpoint = { bytes, ms };
    for (const [source, thread] of WAYS) {
      log(
        `load: from ${source === 'path' ? 'the path' : 'Buffers'}, ${thread === 'worker' ? '{ worker: true }' : 'on the calling thread'}…\n`,
      );
      const script = fileURLToPath(import.meta.url);
      result.ways.push({
        source,
        thread,
        ...runStep(script, ['--way', source, thread, dir, ...(quick ? ['--quick'] : [])]),
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const first = result.ways[0].hidden;
  result.sameBits = result.ways.every((w) => w.hidden === first);
  for (const w of result.ways) delete w.hidden;
  return { result, report: report(result) };
}

function report(r) {
  const mb = (b) => (b / 1e6).toFixed(1);
  const lines = [
    `loadModel of a ${mb(r.checkpoint.bytes)} MB model.safetensors (BERT, hidden 768, ${r.config.num_hidden_layers} layers, ` +
      `vocabulary ${r.config.vocab_size}); ${r.cpu} ×${r.cores}, Node ${r.node}${r.quick ? ', --quick' : ''}`,
    `${'source'.padEnd(10)} ${'engine'.padEnd(18)} ${'median ms'.padStart(10)}  ${'loads ms'.padEnd(24)} peak RSS`,
  ];
  for (const w of r.ways)
    lines.push(
      `${(w.source === 'path' ? 'path' : 'Buffers').padEnd(10)} ${(w.thread === 'worker' ? '{ worker: true }' : 'calling thread').padEnd(18)} ` +
        `${w.medianMs.toFixed(0).padStart(10)}  ${w.allMs
          .map((x) => x.toFixed(0))
          .join(', ')
          .padEnd(24)} ${(w.maxRssBytes / 2 ** 20).toFixed(0)} MiB`,
    );
  lines.push(`the last hidden state of one run: ${r.sameBits ? 'the same bits every way' : '!! NOT THE SAME BITS'}`);
  return lines.join('\n');
}

if (process.argv[2] === '--way') {
  const [, source, thread, dir] = process.argv.slice(2);
  console.log(JSON.stringify(await loadWay(source, thread, dir, process.argv.includes('--quick') ? 1 : 3)));
} else await runAlone(import.meta.url, 'load', loadBench, (result) => result.sameBits === true);
