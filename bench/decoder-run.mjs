// One step of the decoder benchmark (bench/decoder.mjs), in its own process:
//   write <dir> <shape> [--quick]         the checkpoint of SHAPES' <shape> (gpt2, qwen2)
//                                         into <dir> (bench/decoder-checkpoint.mjs)
//   export <dir> <form>                   the checkpoint in <dir> → its ONNX graph and
//                                         weights in <form>, float32, bfloat16, q8 or q4
//                                         (bench/peers/onnx-decoder.mjs)
//   check <dir> <weights>                 mha-wasm and onnxruntime-web on one thread,
//                                         same process: the tokenizer's ids of the
//                                         sentence, the greedy ids, the logits of the
//                                         prompt's step and of every step after it
//                                         against the rows of one run() over the ids;
//                                         writes <dir>/reference-<weights>.json
//                                         (mha-wasm's ids); with q8 and q4 also which
//                                         matrices each runtime quantized, by type
//   time <threads> <dir> <weights> [--mha-only] [--quick]
//                                         both runtimes loaded side by side (mha-wasm
//                                         alone with --mha-only); each one's first
//                                         generation's ids against the reference, then
//                                         the timed generations in turns
// <weights>: a name of WEIGHTS (float32, bf16, q8, q4). Both runtimes generate through the same
// greedySearch of src/js/models/generation/ with the same settings
// (generationSettings of the folder's generation_config.json): only the
// model's compute differs. A runtime that cannot load the model (it does
// not fit its memory) is a row that says why, not a failure of the process.
// Prints one JSON object on stdout (the last line).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { heapOf, median } from './inputs.mjs';
import { QUANT_FORMS } from './peers/onnx-quant.mjs';
import v8 from 'node:v8';
import vm from 'node:vm';
import { greedySearch } from '../src/js/models/generation/greedy.mjs';
import { generationSettings } from '../src/js/models/generation/settings.mjs';
import {
  NEW_TOKENS,
  PROMPT,
  SHAPES,
  WEIGHTS,
  configOf,
  promptIds,
  writeDecoderCheckpoint,
} from './decoder-checkpoint.mjs';

/** max |Δ| of the logits, mha-wasm against onnxruntime-web (the translation benchmark's). */
const TOLERANCE = { logits: 1e-3 };

const [mode, ...rest] = process.argv.slice(2);
const quick = rest.includes('--quick');
const args = rest.filter((a) => !a.startsWith('--'));
// The process's peak RSS. A forked process starts with its parent's RSS as
// its high-water mark, so what one load adds is measured as resident
// memory instead, before and after it: after a full garbage collection, a
// pause (V8 frees large ArrayBuffers' memory on a background thread) and
// another.
const rss = () => process.resourceUsage().maxRSS * 1024;
v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc');
async function resident() {
  collect();
  await new Promise((resolve) => setTimeout(resolve, 200));
  collect();
  return process.memoryUsage().rss;
}
const readJson = (dir, file) => JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
const weightsNamed = (name) => {
  const w = WEIGHTS.find((x) => x.name === name);
  if (!w) throw new Error(`weights: expected one of ${WEIGHTS.map((x) => x.name).join(', ')}, got ${name}`);
  return w;
};

function maxAbsDiff(a, b) {
  if (a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (!(d <= m)) m = Number.isNaN(d) ? Infinity : d;
  }
  return m;
}

const sameTypes = (a, b) => Boolean(a && b) && Object.keys({ ...a, ...b }).every((t) => (a[t] ?? 0) === (b[t] ?? 0));
const sameIds = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);
// The sentence as the ids of the tokenizer decoder-checkpoint.mjs wrote (check() asks the loaded one).
const promptOf = (dir) => {
  const config = readJson(dir, 'config.json');
  return promptIds(
    SHAPES.find((s) => s.config.model_type === config.model_type),
    config,
  );
};

/** mha-wasm on `threads` (createAttention's default build for it: simd for 1, threaded-simd for more). */
async function mhaWasm(threads) {
  const { createAttention } = await import('../src/js/node.mjs');
  const engine = await createAttention({ threads });
  return {
    name: 'mha-wasm',
    variant: engine.variant,
    async load(dir, weights) {
      const t0 = performance.now();
      const model = await engine.loadModel(dir, weights.load);
      const loadMs = performance.now() - t0;
      return {
        loadMs,
        async generate(inputIds, { onToken } = {}) {
          const r = await model.generate({ inputIds }, { maxNewTokens: NEW_TOKENS, returnAttention: false, onToken });
          return { outputIds: r.outputIds };
        },
        async logits(inputIds) {
          return (await model.run({ inputIds }, { returnLogits: true, returnAttention: false })).logits;
        },
        tokenize: async (text) => (await model.run(text, { returnAttention: false })).inputIds,
        weightTypes: model.config.weightTypes,
        // Its KV cache emptied: generate() keeps what the cache holds of the prompt, so a timed call after
        // another would skip the prompt's forward (onnxruntime-web's peer keeps nothing between calls).
        forget: () => model.reset(),
        dispose: () => model.dispose(),
      };
    },
    memory: async () => ({ heapBytes: heapOf(await engine.memoryStats()) }),
    dispose: () => engine.dispose(),
  };
}

/** onnxruntime-web on `threads`, driven by generation/greedy.mjs's greedySearch. */
async function onnxDecoder(threads) {
  const { createPeer } = await import('./peers/onnx-decoder-peer.mjs');
  const peer = await createPeer({ threads });
  return {
    name: peer.name,
    version: peer.version,
    async load(dir, weights) {
      const t0 = performance.now();
      const model = await peer.load(dir, weights.onnx);
      const loadMs = performance.now() - t0;
      const json = readJson(dir, 'generation_config.json');
      const config = readJson(dir, 'config.json');
      const V = config.vocab_size;
      return {
        loadMs,
        async generate(inputIds, { onToken, recordLogits } = {}) {
          // With what TransformerModel.generate() passes a decoder's.
          const settings = generationSettings(json, 'generation_config.json', { maxNewTokens: NEW_TOKENS }, V, {
            promptLength: inputIds.length,
            encoderDecoder: false,
            maxPositions: config.n_positions ?? config.max_position_embeddings,
          });
          const decoder = model.decoder({ recordLogits });
          const { stepLogits } = decoder;
          const step = async (ids) => ({ logits: await decoder.step(ids) }); // the search's step: { logits }
          const found = await greedySearch(step, settings, { prompt: inputIds, onToken });
          return { outputIds: found.outputIds, stepLogits };
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

// A runtime's model, or { failed } with the first line of why it did not load (a memory limit, say).
async function tryLoad(runner, dir, weights) {
  try {
    return await runner.load(dir, weights);
  } catch (error) {
    return { failed: String(error?.message ?? error).split('\n')[0] };
  }
}

async function exportOnnx(dir, form) {
  const { FILES, buildDecoderOnnx } = await import('./peers/onnx-decoder.mjs');
  const t0 = performance.now();
  const { model, dataBytes } = buildDecoderOnnx(dir, form);
  writeFileSync(path.join(dir, FILES[form].model), model);
  return { ms: performance.now() - t0, bytes: { model: model.length, data: dataBytes }, maxRssBytes: rss() };
}

async function check(dir, weights) {
  const ids = promptOf(dir);
  const V = readJson(dir, 'config.json').vocab_size;
  const ours = await mhaWasm(1);
  const ort = await onnxDecoder(1);
  const out = {
    weights: weights.name,
    against: `mha-wasm ${ours.variant} vs ${ort.name} ${ort.version} ×1`,
    tolerance: TOLERANCE,
  };
  const a = await tryLoad(ours, dir, weights);
  const b = await tryLoad(ort, dir, weights);
  const failedToLoad = { ...(a.failed && { mhaWasm: a.failed }), ...(b.failed && { onnxruntime: b.failed }) };
  if (Object.keys(failedToLoad).length) out.failedToLoad = failedToLoad;
  out.ok = false;
  if (!a.failed) {
    if (QUANT_FORMS[weights.onnx]) {
      // The same matrices held in the same block types (the export's count, in its metadata).
      const { onnx } = await import('./peers/onnx-common.mjs');
      const { FILES } = await import('./peers/onnx-decoder.mjs');
      const { metadataProps } = onnx.ModelProto.decode(readFileSync(path.join(dir, FILES[weights.onnx].model)));
      const exported = JSON.parse(metadataProps.find((p) => p.key === 'weight_types')?.value ?? 'null');
      out.weightTypes = { mhaWasm: a.weightTypes, onnx: exported, same: sameTypes(a.weightTypes, exported) };
    }
    const tokenized = await a.tokenize(PROMPT);
    const x = await a.generate(ids);
    out.tokenizer = { ids: Array.from(tokenized), same: sameIds(tokenized, ids) };
    out.ids = Array.from(x.outputIds);
    writeFileSync(path.join(dir, `reference-${weights.name}.json`), JSON.stringify(out.ids));
    if (!b.failed) {
      const y = await b.generate(ids, { recordLogits: true });
      out.sameIds = sameIds(x.outputIds, y.outputIds);
      if (!out.sameIds) out.onnxIds = Array.from(y.outputIds);
      // One run() over the ids fed (all but the last): row n − 1 is what the prompt's step picked from, and
      // each row after it a later step's (mha-wasm's steps give those rows bit for bit, index.d.ts says).
      const fed = x.outputIds.subarray(0, x.outputIds.length - 1);
      const logits = await a.logits(fed);
      const row = (t) => logits.subarray((ids.length - 1 + t) * V, (ids.length + t) * V);
      out.logits = {
        prefill: maxAbsDiff(y.stepLogits[0], row(0)),
        steps: Math.max(...y.stepLogits.slice(1).map((l, t) => maxAbsDiff(l, row(t + 1)))),
        range: row(0).reduce(([lo, hi], v) => [Math.min(lo, v), Math.max(hi, v)], [Infinity, -Infinity]),
      };
      out.ok =
        (out.weightTypes?.same ?? true) &&
        out.tokenizer.same &&
        out.sameIds &&
        out.logits.prefill <= TOLERANCE.logits &&
        out.logits.steps <= TOLERANCE.logits;
    }
  }
  for (const m of [a, b]) m.dispose?.();
  ours.dispose();
  out.maxRssBytes = rss();
  return out;
}

// One generation timed through its onToken reports: ms to the first token
// (the prompt's step and its choice), ms per token after it, total.
async function timedGeneration(model, ids) {
  await model.forget?.();
  const marks = [];
  const t0 = performance.now();
  const out = await model.generate(ids, { onToken: () => marks.push(performance.now()) });
  const end = performance.now();
  return {
    outputIds: out.outputIds,
    firstMs: marks[0] - t0,
    perTokenMs: (marks[marks.length - 1] - marks[0]) / (marks.length - 1),
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
    total: stat('totalMs'),
  };
}

/**
 * Both runtimes on `threads`, loaded in this one process, and timed side by
 * side: the first generation of each checked against the reference ids,
 * then warm-up and timed samples taken in turns, the order rotating each
 * round, so that a shared machine's drift falls on both alike. A pause
 * between generations lets the other runtime's spinning threads park.
 */
async function timeBoth(threads, dir, weights) {
  const ids = promptOf(dir);
  // mha-wasm alone with no check step before (weights with no peer): its first run (×1, timed first) is the
  // reference the later ones are held to.
  const referenceFile = `reference-${weights.name}.json`;
  let reference = existsSync(path.join(dir, referenceFile)) ? readJson(dir, referenceFile) : null;
  // --mha-only: onnxruntime-web's outputs were not checked equal (or it did not load): mha-wasm alone.
  const runners = [await mhaWasm(threads), ...(rest.includes('--mha-only') ? [] : [await onnxDecoder(threads)])];
  const models = [];
  const runs = [];
  for (const runner of runners) {
    const before = await resident();
    const model = await tryLoad(runner, dir, weights);
    models.push(model);
    const run = {
      runner: runner.name,
      version: runner.version,
      variant: runner.variant,
      threads,
      weights: weights.name,
    };
    if (model.failed) run.skipped = model.failed;
    else
      Object.assign(run, {
        loadMs: model.loadMs,
        residentBytes: (await resident()) - before,
        ...(await runner.memory()),
      });
    runs.push(run);
  }
  const plan = quick ? { samples: 3, warmup: 1 } : { samples: 7, warmup: 1 };
  const pause = () => new Promise((resolve) => setTimeout(resolve, 25));
  const live = [];
  for (const [i, model] of models.entries()) {
    if (model.failed) continue;
    const first = await timedGeneration(model, ids);
    await pause();
    if (!reference && rest.includes('--mha-only')) {
      reference = Array.from(first.outputIds);
      writeFileSync(path.join(dir, referenceFile), JSON.stringify(reference));
    }
    if (sameIds(first.outputIds, reference)) live.push({ run: runs[i], model, samples: [] });
    else runs[i].failed = `ids ${Array.from(first.outputIds)} differ from mha-wasm ×1's ${reference}`;
  }
  for (let round = 1; round < plan.warmup + plan.samples; round++)
    for (let k = 0; k < live.length; k++) {
      const c = live[(round + k) % live.length];
      const sample = await timedGeneration(c.model, ids);
      if (round >= plan.warmup) c.samples.push(sample);
      await pause();
    }
  for (const c of live) Object.assign(c.run, summary(c.samples));
  for (const [i, runner] of runners.entries()) {
    if (!models[i].failed) {
      Object.assign(runs[i], await runner.memory());
      models[i].dispose();
    }
    runner.dispose();
  }
  return { threads, weights: weights.name, maxRssBytes: rss(), loadAverage: os.loadavg(), runs };
}

function write(dir, key) {
  const shape = SHAPES.find((s) => s.key === key);
  if (!shape) throw new Error(`shape: expected one of ${SHAPES.map((s) => s.key).join(', ')}, got ${key}`);
  const { path: _, ...written } = writeDecoderCheckpoint(dir, shape, configOf(shape, quick));
  return { ...written, maxRssBytes: rss() };
}

let result;
if (mode === 'write') result = write(args[0], args[1]);
else if (mode === 'export') result = await exportOnnx(args[0], args[1]);
else if (mode === 'check') result = await check(args[0], weightsNamed(args[1]));
else if (mode === 'time') result = await timeBoth(Number(args[0]), args[1], weightsNamed(args[2]));
else throw new Error(`usage: node bench/decoder-run.mjs write|export|check|time … (got ${mode})`);
console.log(JSON.stringify(result));
process.exit(0);
