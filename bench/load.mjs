// Loading the bert-base-shaped checkpoint (406.7 MB of float32, random
// weights written at bench time, model-checkpoint.mjs). In Node: from its
// folder's path on the threaded SIMD128 build (Node's default engine, two
// threads) and on the one-thread one, then from the path and from Buffers
// (what fs.readFileSync gives) each on the calling thread and in a
// { worker: true } engine, whose chunks are posted to the engine's Worker
// (issue 27: from Buffers that once took 46 s and 1.4 GB, every chunk a
// clone of the whole file); and on the relaxed-SIMD build where this Node
// runs it. Each way in 3 fresh processes of its own, 3 loads each: the first
// load of each process (what a user meets: new memory, page by page), the
// median of the later ones, the peak RSS, and the last hidden state of one
// run, which must be the same bits every way of a build. Then in Chromium
// (load-browser.mjs): from dropped files (first loads in fresh pages too)
// and from the Cache API, on both builds.
// Usage: node bench/load.mjs [--quick] (one process, one load each in Node); the result
// goes to the "load" section of bench-output/bench.json; npm run bench runs it too.
//   node bench/load.mjs --way <path|buffers> <direct|worker> <variant> <dir>: one way, one JSON line.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { browserLoads } from './load-browser.mjs';
import { BERT_BASE, makeInputIds, writeCheckpoint } from './model-checkpoint.mjs';
import { median, relaxedSimdFlags, runAlone, runHeader, runStep } from './inputs.mjs';

const CONFIG = BERT_BASE;
// [source, thread, build]: the relaxed build's rows where this Node runs it.
const RELAXED_FLAGS = relaxedSimdFlags();
const WAYS = [
  ['path', 'direct', 'threaded-simd'],
  ['path', 'direct', 'simd'],
  ['path', 'worker', 'simd'],
  ['buffers', 'direct', 'simd'],
  ['buffers', 'worker', 'simd'],
  ...(RELAXED_FLAGS
    ? [
        ['path', 'direct', 'relaxed-simd'],
        ['buffers', 'worker', 'relaxed-simd'],
      ]
    : []),
];
/** Fresh processes a way is loaded in (each its first load, then the later ones). */
const PROCESSES = 3;

/** One way's loads in this process: { medianMs, allMs, maxRssBytes, hidden (the run's bits, base64) }. */
async function loadWay(source, thread, variant, dir, loads) {
  const { createAttention } = await import('../src/js/node.mjs');
  const engine = await createAttention({ worker: thread === 'worker', variant });
  const files = () =>
    Object.fromEntries(['config.json', 'model.safetensors'].map((name) => [name, readFileSync(path.join(dir, name))]));
  const allMs = [];
  const faults = [];
  let model;
  for (let i = 0; i < loads; i++) {
    model?.dispose();
    // Reading the files is the caller's part of a load from Buffers, and is timed with it.
    const f0 = process.resourceUsage().minorPageFault;
    const t0 = performance.now();
    model = await engine.loadModel(source === 'path' ? dir : files());
    allMs.push(performance.now() - t0);
    faults.push(process.resourceUsage().minorPageFault - f0);
  }
  const r = await model.run({ inputIds: makeInputIds(17, CONFIG.vocab_size) }, { returnAttention: false });
  const hidden = Buffer.from(r.lastHiddenState.buffer).toString('base64');
  model.dispose();
  engine.dispose();
  return { medianMs: median(allMs), allMs, faults, maxRssBytes: process.resourceUsage().maxRSS * 1024, hidden };
}

/**
 * The floor under a first load in a fresh process, whatever loads the model: the operating
 * system's first touch of `bytes` of fresh wasm memory (a page fault and a zeroed page each
 * 4 KiB), timed alone in a process of its own: { ms, faults }.
 */
function firstTouch(bytes) {
  const memory = new WebAssembly.Memory({ initial: 1, maximum: 65536 });
  const f0 = process.resourceUsage().minorPageFault;
  const t0 = performance.now();
  memory.grow(Math.ceil(bytes / 65536));
  const view = new Uint8Array(memory.buffer);
  for (let i = 65536; i < view.length; i += 4096) view[i] = 1;
  return { ms: performance.now() - t0, faults: process.resourceUsage().minorPageFault - f0 };
}

/** Runs the benchmark; resolves { result (for bench.json), report (the printed table) }. */
export async function loadBench({ quick = false, log = (s) => process.stderr.write(s) } = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mha-load-'));
  const result = { ...runHeader(quick), config: CONFIG, ways: [] };
  try {
    log(`load: writing a bert-base-shaped checkpoint in ${dir}…\n`);
    const { bytes, ms } = writeCheckpoint(dir, CONFIG);
    result.checkpoint = { bytes, ms };
    const script = fileURLToPath(import.meta.url);
    for (const [source, thread, variant] of WAYS) {
      log(
        `load: ${variant}, from ${source === 'path' ? 'the path' : 'Buffers'}, ${thread === 'worker' ? '{ worker: true }' : 'on the calling thread'}…\n`,
      );
      const flags = variant === 'relaxed-simd' ? RELAXED_FLAGS : [];
      const runs = Array.from({ length: quick ? 1 : PROCESSES }, () =>
        runStep(script, ['--way', source, thread, variant, dir, ...(quick ? ['--quick'] : [])], flags),
      );
      const firstMs = runs.map((r) => r.allMs[0]);
      const laterMs = runs.flatMap((r) => r.allMs.slice(1));
      result.ways.push({
        source,
        thread,
        variant,
        // The first load of each fresh process, and their median; the later loads' median (none under --quick).
        firstMs,
        medianFirstMs: median(firstMs),
        medianMs: laterMs.length ? median(laterMs) : null,
        faults: runs.map((r) => r.faults[0]),
        maxRssBytes: Math.max(...runs.map((r) => r.maxRssBytes)),
        hidden: runs[0].hidden,
      });
    }
    result.firstTouch = { bytes, ...runStep(script, ['--first-touch', String(bytes)], []) };
    const inputIds = makeInputIds(17, CONFIG.vocab_size);
    result.browser = await browserLoads(dir, { loads: quick ? 1 : 3, inputIds, log });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // Within a build, every way gives the same bits (the builds differ in their last bits: FMA).
  result.sameBits = ['threaded-simd', 'simd', 'relaxed-simd'].every((variant) => {
    const ways = result.ways.filter((w) => w.variant === variant);
    return ways.every((w) => w.hidden === ways[0].hidden);
  });
  for (const w of result.ways) delete w.hidden;
  return { result, report: report(result) };
}

function report(r) {
  const mb = (b) => (b / 1e6).toFixed(1);
  const lines = [
    `loadModel of a ${mb(r.checkpoint.bytes)} MB model.safetensors (BERT, hidden 768, ${r.config.num_hidden_layers} layers, ` +
      `vocabulary ${r.config.vocab_size}); ${r.cpu} ×${r.cores}, Node ${r.node}${r.quick ? ', --quick' : ''}`,
    `${'build'.padEnd(22)} ${'source'.padEnd(14)} ${'engine'.padEnd(18)} ${'later ms'.padStart(9)}  ${'first ms: median (each)'.padEnd(26)} peak RSS   page faults, 1st loads`,
  ];
  const ms = (x) => (x == null ? '—' : x.toFixed(0));
  for (const w of r.ways)
    lines.push(
      `${('Node ' + w.variant).padEnd(22)} ${(w.source === 'path' ? 'path' : 'Buffers').padEnd(14)} ${(w.thread === 'worker' ? '{ worker: true }' : 'calling thread').padEnd(18)} ` +
        `${ms(w.medianMs).padStart(9)}  ${`${ms(w.medianFirstMs)} (${w.firstMs.map(ms).join(', ')})`.padEnd(26)} ` +
        `${`${(w.maxRssBytes / 2 ** 20).toFixed(0)} MiB`.padEnd(10)} ${w.faults.join(', ')}`,
    );
  const t = r.firstTouch;
  if (t)
    lines.push(
      `the floor under a first load in a fresh process: touching ${mb(t.bytes)} MB of fresh wasm memory, no load, ` +
        `${t.ms.toFixed(0)} ms (${t.faults} page faults)`,
    );
  for (const b of r.browser)
    for (const w of b.ways)
      lines.push(
        `${('Chromium ' + b.build).padEnd(22)} ${w.way.padEnd(14)} ${'page'.padEnd(18)} ` +
          (w.failed
            ? `!! ${w.failed}`
            : `${w.medianMs.toFixed(0).padStart(10)}  ${w.allMs
                .map((x) => x.toFixed(0))
                .join(', ')
                .padEnd(24)} ${(b.peakRssBytes / 2 ** 20).toFixed(0)} MiB (renderer)`),
      );
  for (const b of r.browser)
    lines.push(
      `Chromium ${b.build}: dropped files, the first load in a fresh page: ` +
        (b.freshPageFailed
          ? `!! ${b.freshPageFailed}`
          : `median ${ms(median(b.freshPageMs))} ms (${b.freshPageMs.map(ms).join(', ')})`),
    );
  for (const b of r.browser)
    lines.push(
      `Chromium ${b.build}: first load by name from the local Hub (download into the Cache API) ${b.firstByNameMs?.toFixed(0) ?? '—'} ms`,
    );
  lines.push(
    `the last hidden state of one run: ${r.sameBits ? 'the same bits every way, within a build' : '!! NOT THE SAME BITS'}`,
  );
  return lines.join('\n');
}

if (process.argv[2] === '--first-touch') console.log(JSON.stringify(firstTouch(Number(process.argv[3]))));
else if (process.argv[2] === '--way') {
  const [, source, thread, variant, dir] = process.argv.slice(2);
  console.log(JSON.stringify(await loadWay(source, thread, variant, dir, process.argv.includes('--quick') ? 1 : 3)));
} else
  await runAlone(
    import.meta.url,
    'load',
    loadBench,
    (result) => result.sameBits === true && result.browser.every((b) => b.sameBits),
  );
