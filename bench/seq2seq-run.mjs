// One step of the translation benchmark (bench/seq2seq.mjs), in its own process:
//   export <dir>                     the checkpoint in <dir> → its three ONNX graphs
//                                    (bench/peers/onnx-marian.mjs)
//   check <dir>                      mha-wasm and onnxruntime-web on one thread, same
//                                    process: the encoder's output and the
//                                    teacher-forced logits (run() against
//                                    decoder_model), the logits of every
//                                    decoder_with_past step against the same rows,
//                                    and the greedy and beam-4 outputs (ids, score);
//                                    writes <dir>/reference.json (mha-wasm's ids)
//   time <threads> <dir> [--quick]  both runtimes loaded side by side, then for
//                                    greedy and beam 4: each one's first
//                                    generation's ids against reference.json, then
//                                    the timed generations in turns (mha-wasm with
//                                    and without every attention returned,
//                                    onnxruntime-web)
// Both runtimes generate through the same greedySearch/beamSearch of
// src/js/models/generation/ with the same settings (generationSettings of
// the folder's generation_config.json): only the model's compute differs.
// Prints one JSON object on stdout (the last line).
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { heapOf, median } from './inputs.mjs';
import { beamSearch } from '../src/js/models/generation/beam.mjs';
import { greedySearch } from '../src/js/models/generation/greedy.mjs';
import { generationSettings } from '../src/js/models/generation/settings.mjs';
import { NEW_TOKENS, sourceIds } from './seq2seq-checkpoint.mjs';

/** Tolerances: max |Δ| of the encoder's output and of the logits, mha-wasm against onnxruntime-web. */
const TOLERANCE = { hidden: 1e-3, logits: 1e-3, score: 1e-3 };
/** The searches timed: greedy and beam 4. */
const MODES = [
  { name: 'greedy', numBeams: 1 },
  { name: 'beam 4', numBeams: 4 },
];

const [mode, ...rest] = process.argv.slice(2);
const quick = rest.includes('--quick');
const args = rest.filter((a) => !a.startsWith('--'));
const rss = () => process.resourceUsage().maxRSS * 1024;
const readJson = (dir, file) => JSON.parse(readFileSync(path.join(dir, file), 'utf8'));

function maxAbsDiff(a, b) {
  if (a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (!(d <= m)) m = Number.isNaN(d) ? Infinity : d;
  }
  return m;
}

const sameIds = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);

/** mha-wasm on `threads` (createAttention's default build for it: simd for 1, threaded-simd for more). */
async function mhaWasm(threads) {
  const { createAttention } = await import('../src/js/node.mjs');
  const engine = await createAttention({ threads });
  return {
    name: 'mha-wasm',
    variant: engine.variant,
    async load(dir) {
      const t0 = performance.now();
      const model = await engine.loadModel(dir);
      const loadMs = performance.now() - t0;
      return {
        loadMs,
        async forward(inputIds, decoderIds) {
          const r = await model.run(
            { inputIds, decoderInputIds: decoderIds },
            { returnLogits: true, returnAttention: false },
          );
          return { encoderLastHiddenState: r.encoderLastHiddenState, logits: r.logits };
        },
        async generate(inputIds, { numBeams, returnAttention, onToken }) {
          const r = await model.generate(
            { inputIds },
            { numBeams, maxNewTokens: NEW_TOKENS, returnAttention, onToken },
          );
          return { outputIds: r.outputIds, score: r.score, attention: r.attentions };
        },
        dispose: () => model.dispose(),
      };
    },
    memory: async () => ({ heapBytes: heapOf(await engine.memoryStats()) }),
    dispose: () => engine.dispose(),
  };
}

/** onnxruntime-web on `threads`, its decoder driven by generation/'s searches. */
async function onnxMarian(threads) {
  const { createPeer } = await import('./peers/onnx-marian.mjs');
  const peer = await createPeer({ threads });
  return {
    name: peer.name,
    version: peer.version,
    async load(dir) {
      const t0 = performance.now();
      const model = await peer.load(dir);
      const loadMs = performance.now() - t0;
      const json = readJson(dir, 'generation_config.json');
      const { vocab_size: V, max_position_embeddings: maxPositions } = readJson(dir, 'config.json');
      return {
        loadMs,
        forward: model.forward,
        async generate(inputIds, { numBeams, onToken, recordLogits }) {
          // With what TransformerModel.generate() passes.
          const settings = generationSettings(
            json,
            'generation_config.json',
            { numBeams, maxNewTokens: NEW_TOKENS },
            V,
            { maxPositions },
          );
          const decoder = await model.decoder(inputIds, numBeams, { recordLogits });
          const { reorder, stepLogits } = decoder;
          const step = async (ids) => ({ logits: await decoder.step(ids) }); // the searches' step: { logits }
          const found =
            numBeams === 1
              ? await greedySearch(step, settings, { onToken })
              : await beamSearch(step, reorder, settings, V, { onToken });
          return { outputIds: found.outputIds, score: found.score, stepLogits };
        },
        dispose: () => model.dispose(),
      };
    },
    async memory() {
      return {};
    },
    dispose() {},
  };
}

async function exportOnnx(dir) {
  const { FILES, buildMarianOnnx } = await import('./peers/onnx-marian.mjs');
  const t0 = performance.now();
  const graphs = buildMarianOnnx(dir);
  const buildMs = performance.now() - t0;
  const bytes = {};
  for (const [key, file] of Object.entries(FILES)) {
    writeFileSync(path.join(dir, file), graphs[key]);
    bytes[key] = graphs[key].length;
  }
  return { buildMs, writeMs: performance.now() - t0 - buildMs, bytes, maxRssBytes: rss() };
}

async function check(dir) {
  const ids = sourceIds(readJson(dir, 'config.json'));
  const V = readJson(dir, 'config.json').vocab_size;
  const ours = await mhaWasm(1);
  const ort = await onnxMarian(1);
  const a = await ours.load(dir);
  const b = await ort.load(dir);
  const out = { against: `mha-wasm ${ours.variant} vs ${ort.name} ${ort.version} ×1`, tolerance: TOLERANCE };
  const reference = {};
  let recorded;
  for (const { name, numBeams } of MODES) {
    const x = await a.generate(ids, { numBeams, returnAttention: false });
    const y = await b.generate(ids, { numBeams, recordLogits: numBeams === 1 });
    if (numBeams === 1) recorded = y.stepLogits;
    const row = {
      mode: name,
      ids: Array.from(x.outputIds),
      sameIds: sameIds(x.outputIds, y.outputIds),
      score: { mhaWasm: x.score, onnxruntime: y.score, diff: Math.abs(x.score - y.score) },
    };
    if (!row.sameIds) row.onnxIds = Array.from(y.outputIds);
    // With every attention returned, the ids are the same.
    const z = await a.generate(ids, { numBeams, returnAttention: true });
    row.sameWithAttention = sameIds(x.outputIds, z.outputIds);
    if (numBeams === 1) {
      // Teacher-forced over the greedy ids but the last: the encoder's output and each position's logits.
      const decoderIds = x.outputIds.subarray(0, x.outputIds.length - 1);
      const fx = await a.forward(ids, decoderIds);
      const fy = await b.forward(ids, decoderIds);
      row.teacherForced = {
        T: decoderIds.length,
        hidden: maxAbsDiff(fx.encoderLastHiddenState, fy.encoderLastHiddenState),
        logits: maxAbsDiff(fx.logits, fy.logits),
        logitsRange: [Math.min(...fx.logits.subarray(0, V)), Math.max(...fx.logits.subarray(0, V))],
      };
      // Each decoder_with_past step (and decoder_model's first) against the same row of the run.
      if (row.sameIds) {
        let m = 0;
        y.stepLogits.forEach((l, t) => (m = Math.max(m, maxAbsDiff(l, fx.logits.subarray(t * V, (t + 1) * V)))));
        row.teacherForced.stepLogits = m;
      }
    }
    row.ok =
      row.sameIds &&
      row.sameWithAttention &&
      row.score.diff <= TOLERANCE.score &&
      (!row.teacherForced ||
        (row.teacherForced.hidden <= TOLERANCE.hidden &&
          row.teacherForced.logits <= TOLERANCE.logits &&
          row.teacherForced.stepLogits <= TOLERANCE.logits));
    reference[name] = row.ids;
    (out.rows ??= []).push(row);
  }
  writeFileSync(path.join(dir, 'reference.json'), JSON.stringify(reference));
  out.searchAlone = await searchAlone(dir, recorded);
  a.dispose();
  b.dispose();
  ours.dispose();
  return out;
}

/**
 * ms per token of the searches alone: greedySearch and beamSearch with the
 * settings of the timed runs over a step that costs nothing (it hands back
 * logits recorded from the model, each beam a copy), median of 5.
 */
async function searchAlone(dir, logits) {
  const json = readJson(dir, 'generation_config.json');
  const V = readJson(dir, 'config.json').vocab_size;
  const out = {};
  for (const { name, numBeams } of MODES) {
    const settings = generationSettings(json, 'generation_config.json', { numBeams, maxNewTokens: NEW_TOKENS }, V);
    const rows = logits.map((row) => {
      const tiled = new Float32Array(numBeams * V);
      for (let b = 0; b < numBeams; b++) tiled.set(row, b * V);
      return tiled;
    });
    const times = [];
    for (let rep = 0; rep < 6; rep++) {
      let k = 0;
      const step = async () => ({ logits: rows[k++ % rows.length] });
      const t0 = performance.now();
      if (numBeams === 1) await greedySearch(step, settings);
      else await beamSearch(step, () => {}, settings, V);
      if (rep > 0) times.push((performance.now() - t0) / NEW_TOKENS);
    }
    out[name] = median(times);
  }
  return out;
}

// One generation timed through its onToken reports: ms to the first token
// (the encoder and the first decoder step), ms per token after it, total (for
// mha-wasm with the attention, the teacher-forced pass that returns it included).
async function timedGeneration(model, ids, options) {
  const marks = [];
  const t0 = performance.now();
  const out = await model.generate(ids, { ...options, onToken: () => marks.push(performance.now()) });
  const end = performance.now();
  return {
    outputIds: out.outputIds,
    firstMs: marks[0] - t0,
    perTokenMs: (marks[marks.length - 1] - marks[0]) / (marks.length - 1),
    afterLastMs: end - marks[marks.length - 1],
    totalMs: end - t0,
    tokens: marks.length,
  };
}

function summary(samples) {
  const stat = (key) => {
    const xs = samples.map((s) => s[key]);
    return { medianMs: median(xs), minMs: Math.min(...xs), maxMs: Math.max(...xs) };
  };
  return {
    samples: samples.length,
    tokens: samples[0].tokens,
    first: stat('firstMs'),
    perToken: stat('perTokenMs'),
    afterLast: stat('afterLastMs'),
    total: stat('totalMs'),
  };
}

/**
 * Both runtimes on `threads`, loaded in this one process, and timed side by
 * side: for each search, the first generation of each (mha-wasm with the
 * attention, mha-wasm without, onnxruntime-web) checked against
 * reference.json, then warm-up and timed samples taken in turns, the order
 * of the three rotating each round, so that a shared machine's drift falls
 * on all three alike. A pause between generations lets the other runtime's
 * spinning threads park.
 */
async function timeBoth(threads, dir) {
  const ids = sourceIds(readJson(dir, 'config.json'));
  const reference = readJson(dir, 'reference.json');
  const runners = [await mhaWasm(threads), await onnxMarian(threads)];
  const models = [];
  const runs = [];
  for (const runner of runners) {
    const before = rss();
    const model = await runner.load(dir);
    models.push(model);
    runs.push({
      runner: runner.name,
      version: runner.version,
      variant: runner.variant,
      threads,
      loadMs: model.loadMs,
      rssGrowthBytes: rss() - before,
      ...(await runner.memory()),
      rows: [],
    });
  }
  const [ours, theirs] = models;
  const contenders = [
    { run: runs[0], model: ours, returnAttention: true },
    { run: runs[0], model: ours, returnAttention: false },
    { run: runs[1], model: theirs, returnAttention: false },
  ];
  const plan = quick ? { samples: 3, warmup: 1 } : { samples: 9, warmup: 2 };
  const pause = () => new Promise((resolve) => setTimeout(resolve, 25));
  for (const { name: search, numBeams } of MODES) {
    const live = [];
    for (const c of contenders) {
      const row = { mode: search, numBeams, returnAttention: c.returnAttention };
      c.run.rows.push(row);
      const first = await timedGeneration(c.model, ids, { numBeams, returnAttention: c.returnAttention });
      await pause();
      if (sameIds(first.outputIds, reference[search])) live.push({ ...c, row, samples: [] });
      else row.failed = `${search}: ids ${Array.from(first.outputIds)} differ from mha-wasm ×1's ${reference[search]}`;
    }
    for (let round = 1; round < plan.warmup + plan.samples; round++)
      for (let k = 0; k < live.length; k++) {
        const c = live[(round + k) % live.length];
        const sample = await timedGeneration(c.model, ids, { numBeams, returnAttention: c.returnAttention });
        if (round >= plan.warmup) c.samples.push(sample);
        await pause();
      }
    for (const c of live) Object.assign(c.row, summary(c.samples));
  }
  for (const [i, runner] of runners.entries()) {
    Object.assign(runs[i], await runner.memory());
    models[i].dispose();
    runner.dispose();
  }
  return { threads, maxRssBytes: rss(), loadAverage: os.loadavg(), runs };
}

let result;
if (mode === 'export') result = await exportOnnx(args[0]);
else if (mode === 'check') result = await check(args[0]);
else if (mode === 'time') result = await timeBoth(Number(args[0]), args[1]);
else throw new Error(`usage: node bench/seq2seq-run.mjs export|check|time … (got ${mode})`);
console.log(JSON.stringify(result));
process.exit(0);
