// mha-wasm against llama.cpp's own WebAssembly build (wllama, @wllama/wllama
// from npm) on the same GGUF files: Qwen2.5-0.5B-shaped, random weights, made
// here at bench time in F16, Q8_0, Q4_0 and Q4_K_M (bench/gguf-checkpoint.mjs
// says which tensor gets which type, after llama-quantize). Both engines run
// in Debian's Chromium (wllama needs a browser: its worker, its fetch of the
// .wasm), each in a browser of its own (bench/llama-browser.mjs), on 1 and 2
// threads, one after another on the same file. Before timing, each engine's
// greedy ids after the sentence are compared (how many of NEW_TOKENS agree,
// and where they first part: on random weights the quantized products of the
// two engines round differently, and a near tie can take another path).
// Reported: load (engine + model, from a File), prefill of the sentence (a
// call for 1 token), ms per token over NEW_TOKENS greedy tokens (from the
// calls for NEW_TOKENS and for 1 token), the renderer's peak RSS; medians of
// SAMPLES, ratio = wllama ÷ mha-wasm (above 1: mha-wasm ahead). mha-wasm is
// timed returning every attention weight and without: two rows.
// --quick: the small shape (2 layers, hidden 128), 16 tokens, 2 samples.
// --activations llama.cpp: mha-wasm loads with loadModel's activations: 'llama.cpp' (its products round
// their activations as llama.cpp's do; wllama keeps its KV cache in f16, which mha-wasm does not copy).
// Usage: node bench/llama.mjs [--quick] [--types F16,Q4_K_M] [--threads 1,2] [--shape Qwen2.5-1.5B] [--activations llama.cpp]
// (gguf-checkpoint.mjs SHAPES; Qwen2.5-0.5B by default);
// npm run bench runs it too (bench.mjs imports llamaBench) and keeps the
// result under "llama" in bench-output/bench.json.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { FILE_TYPES, PROMPT, SHAPE, SHAPES, writeQwenGguf } from './gguf-checkpoint.mjs';
import { runAlone, runHeader } from './inputs.mjs';
import { runInChromium, startBenchServer } from './llama-browser.mjs';

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const h = s.length >> 1;
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
};
const WLLAMA_VERSION = JSON.parse(
  readFileSync(new URL('../node_modules/@wllama/wllama/package.json', import.meta.url), 'utf8'),
).version;

/** Per-call figures of one engine's timed calls: { prefillMs, perTokenMs } (medians). */
function figures({ one, all }, newTokens) {
  const prefillMs = median(one);
  return { prefillMs, perTokenMs: (median(all) - prefillMs) / (newTokens - 1), oneMs: one, allMs: all };
}

/** How far two id lists agree: { equal (positions with the same id), firstDifference (index or null) }. */
export function agreement(a, b) {
  const n = Math.max(a.length, b.length);
  let equal = 0;
  let firstDifference = null;
  for (let i = 0; i < n; i++) {
    if (a[i] === b[i]) equal++;
    else firstDifference ??= i;
  }
  return { equal, of: n, firstDifference };
}

/**
 * Runs the benchmark: { result (for bench.json), report (the markdown table) }. Options: quick,
 * types (FILE_TYPES' names), threads, samples, newTokens, shape (a name of SHAPES), log.
 */
export async function llamaBench({
  quick = false,
  types = FILE_TYPES.map((t) => t.name),
  threads = [1, 2],
  samples = 2,
  newTokens = quick ? 16 : 64,
  shape: shapeName = SHAPE.name,
  activations = 'float32',
  log = (s) => process.stderr.write(s),
  onRun = () => {},
  // A run whose page gives no answer in this time is reported as failed, with the step it was at.
  runTimeoutMs = 20 * 60_000,
} = {}) {
  const shape = SHAPES.find((s) => s.name === shapeName);
  if (!shape) throw new RangeError(`shape: expected one of ${SHAPES.map((s) => s.name).join(', ')}, got ${shapeName}`);
  const result = {
    ...runHeader(quick),
    wllama: WLLAMA_VERSION,
    shape: shape.name,
    activations,
    prompt: PROMPT,
    newTokens,
    samples,
    files: [],
  };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mha-llama-'));
  const server = await startBenchServer();
  try {
    // Thread count by thread count (one thread's rows whole first), each file written once.
    for (const t of threads)
      for (const type of types) {
        const file = path.join(dir, `${shape.name.toLowerCase()}-shaped-${type.toLowerCase()}.gguf`);
        let entry = result.files.find((f) => f.type === type);
        if (!entry) {
          log(`llama: writing the ${type} file…\n`);
          const written = writeQwenGguf(file, type, { quick, shape });
          entry = {
            type,
            bytes: written.bytes,
            writeMs: written.ms,
            tensorTypes: written.types,
            promptIds: written.promptIds,
            runs: [],
          };
          result.config ??= written.config;
          result.files.push(entry);
        }
        const args = { prompt: PROMPT, promptIds: entry.promptIds, newTokens, samples, threads: t, activations };
        for (const engine of ['wllama', 'mha-wasm']) {
          log(`llama: ${type}, ${engine} on ${t} thread(s)…\n`);
          const r = await runInChromium(server.url, engine, file, args, { timeoutMs: runTimeoutMs });
          r.loadAverage = os.loadavg();
          entry.runs.push({ engine, threads: t, ...r });
          onRun(result);
        }
      }
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return summarize(result, threads);
}

/** The figures and the id checks of a result (also of a partial one): { result, report }. */
export function summarize(result, threads = [...new Set(result.files.flatMap((f) => f.runs.map((r) => r.threads)))]) {
  const { newTokens } = result;
  for (const f of result.files) {
    for (const r of f.runs) {
      if (r.failed) continue;
      if (r.engine === 'wllama') r.figures = figures(r.rows, newTokens);
      else r.figures = { attention: figures(r.rows.attention, newTokens), none: figures(r.rows.none, newTokens) };
    }
    const { promptIds } = f;
    f.checks = threads
      .filter((t) => f.runs.some((r) => r.threads === t))
      .map((t) => {
        const ours = f.runs.find((r) => r.engine === 'mha-wasm' && r.threads === t);
        const peer = f.runs.find((r) => r.engine === 'wllama' && r.threads === t);
        if (!ours?.ids || !peer?.ids) return { threads: t, failed: true };
        return {
          threads: t,
          tokenizerSame:
            ours.tokenized.every((x, i) => x === promptIds[i]) && ours.tokenized.length === promptIds.length,
          peerPromptTokens: peer.promptTokens,
          ids: agreement(ours.ids, peer.ids),
          sameIdsWithAttention: ours.sameIdsWithAttention,
          oursIds: ours.ids,
          peerIds: peer.ids,
        };
      });
  }
  return { result, report: report(result) };
}

const fmt = (x, d = 0) => (x === undefined || x === null || !Number.isFinite(x) ? '—' : x.toFixed(d));
const ms = (x) => (x >= 100 ? fmt(x, 0) : fmt(x, 1));
const mib = (b) => (b ? `${fmt(b / 2 ** 20, 0)} MiB` : '—');
const ratio = (peer, ours) => (peer && ours ? `${fmt(peer / ours, 2)}×` : '');

function report(r) {
  const c = r.config;
  const lines = [];
  lines.push(
    `mha-wasm against llama.cpp's wasm build (wllama ${r.wllama}), in Chromium: ${r.shape ?? SHAPE.name}-shaped GGUF files, ` +
      `random weights (${c.num_hidden_layers} layers, hidden ${c.hidden_size}, ${c.num_attention_heads} query heads / ` +
      `${c.num_key_value_heads} key-value heads, MLP ${c.intermediate_size}, vocabulary ${c.vocab_size}); ` +
      `the sentence ${r.prompt} (15 ids), ${r.newTokens} greedy tokens; medians of ${r.samples}; ` +
      `${r.cpu} ×${r.cores}, ${r.date.slice(0, 10)}${r.quick ? ', --quick' : ''}` +
      (r.activations === 'llama.cpp' ? "; mha-wasm with activations: 'llama.cpp'" : ''),
  );
  lines.push('');
  for (const f of r.files)
    lines.push(
      `- ${f.type}: ${fmt(f.bytes / 1e6, 0)} MB, tensors ${Object.entries(f.tensorTypes)
        .map(([t, n]) => `${n} ${t}`)
        .join(', ')}`,
    );
  lines.push('');
  lines.push("ids before timing (mha-wasm from its tokenizer's ids; wllama from the text, tokenized by llama.cpp):");
  for (const f of r.files)
    for (const x of f.checks) {
      if (x.failed) {
        lines.push(`- ${f.type} ×${x.threads}: not compared (an engine failed)`);
        continue;
      }
      lines.push(
        `- ${f.type} ×${x.threads}: mha-wasm's tokenizer ${x.tokenizerSame ? 'gives the 15 ids' : 'DIFFERS'}, ` +
          `llama.cpp's ${x.peerPromptTokens} tokens; greedy ids ${x.ids.equal} of ${x.ids.of} equal` +
          (x.ids.firstDifference === null ? '' : ` (first differ at new token ${x.ids.firstDifference})`) +
          `; mha-wasm's ids with every attention returned ${x.sameIdsWithAttention ? 'the same' : 'DIFFER'}`,
      );
    }
  lines.push('');
  lines.push(
    '| file | threads | engine | load ms | prefill ms | ms per token | peak RSS | ratio prefill | ratio per token |',
  );
  lines.push('|---|---|---|---|---|---|---|---|---|');
  for (const f of r.files)
    for (const t of [...new Set(f.runs.map((x) => x.threads))]) {
      const peer = f.runs.find((x) => x.engine === 'wllama' && x.threads === t);
      const ours = f.runs.find((x) => x.engine === 'mha-wasm' && x.threads === t);
      const p = peer?.figures;
      lines.push(
        `| ${f.type} | ${t} | wllama${peer?.multithread === false && t > 1 ? ' (no threads!)' : ''} | ` +
          (!peer || peer.failed
            ? `${peer ? `FAILED: ${peer.failed}` : 'not run'} | | | | | |`
            : `${ms(peer.loadMs)} | ${ms(p.prefillMs)} | ${ms(p.perTokenMs)} | ${mib(peer.peakRssBytes)} | | |`),
      );
      for (const [key, label] of [
        ['attention', 'mha-wasm, every attention returned'],
        ['none', 'mha-wasm, no attention'],
      ]) {
        if (!ours || ours.failed) {
          lines.push(`| ${f.type} | ${t} | ${label} | ${ours ? `FAILED: ${ours.failed}` : 'not run'} | | | | | |`);
          continue;
        }
        const o = ours.figures[key];
        lines.push(
          `| ${f.type} | ${t} | ${label} (${ours.variant}) | ${ms(ours.loadMs)} | ${ms(o.prefillMs)} | ` +
            `${ms(o.perTokenMs)} | ${mib(ours.peakRssBytes)} | ${ratio(p?.prefillMs, o.prefillMs)} | ` +
            `${ratio(p?.perTokenMs, o.perTokenMs)} |`,
        );
      }
    }
  lines.push('');
  const loads = r.files.flatMap((f) => f.runs.map((x) => x.loadAverage?.[0])).filter(Number.isFinite);
  lines.push(
    `load average after each browser: ${fmt(Math.min(...loads), 1)}–${fmt(Math.max(...loads), 1)} ` +
      `(above ${r.cores}: other work shared the ${r.cores} cores)`,
  );
  for (const f of r.files)
    for (const x of f.runs) if (x.failed) lines.push(`!! ${f.type} ${x.engine} ×${x.threads}: ${x.failed}`);
  return lines.join('\n');
}

/** False if an engine failed or returned no ids (a difference of ids on quantized files is reported, not failed). */
export const allRan = (result) =>
  result.files.every((f) => f.runs.every((x) => !x.failed) && f.checks.every((x) => !x.failed && x.ids.of > 0));

const argList = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1].split(',') : undefined;
};
// --report-from <json>: the table of a result kept by an earlier run (bench-output/llama-partial.json
// is written after every browser, so that a run cut short still has its rows).
const from = argList('--report-from');
if (from && import.meta.url === pathToFileURL(process.argv[1]).href)
  console.log(summarize(JSON.parse(readFileSync(from[0], 'utf8'))).report);
else
  await runAlone(
    import.meta.url,
    'llama',
    (options) =>
      llamaBench({
        ...options,
        types: argList('--types'),
        threads: argList('--threads')?.map(Number),
        shape: argList('--shape')?.[0],
        activations: argList('--activations')?.[0],
        onRun: (partial) => {
          mkdirSync('bench-output', { recursive: true });
          writeFileSync('bench-output/llama-partial.json', JSON.stringify(partial));
        },
      }),
    allRan,
  );
