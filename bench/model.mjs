// The model benchmark: a bert-base-shaped checkpoint (random weights, made
// here in a temp folder: config.json + a 407 MB model.safetensors) at
// L = 17, 128 and 512, mha-wasm's loadModel()/run() on 1 and 2 threads
// against onnxruntime-web on an ONNX export of the same weights
// (bench/peers/onnx-bert.mjs). Outputs are compared before timing (mha-wasm
// against onnxruntime-web, then every timed process against mha-wasm's
// single-thread outputs); each runner × thread count runs in its own process
// (bench/model-run.mjs). Also: the load time of the checkpoint in Node and
// each process's peak memory.
// Usage: node bench/model.mjs [--quick]; npm run bench runs it too (bench.mjs
// imports modelBench) and keeps the result under "model" in bench.json.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BERT_BASE, writeCheckpoint } from './model-checkpoint.mjs';

import { relaxedSimdFlags, runAlone, runHeader, runStep } from './inputs.mjs';

const here = (file) => fileURLToPath(new URL(file, import.meta.url));

const step = (args, flags) => runStep(here('./model-run.mjs'), args, flags);

// The relaxed-SIMD builds run where this Node does, or in a Node 20 started with its flag.
const RELAXED_FLAGS = relaxedSimdFlags();
const RUNNERS = [
  ['mha-wasm', 1],
  ['mha-wasm', 2],
  ...(RELAXED_FLAGS
    ? [
        ['mha-wasm-relaxed', 1],
        ['mha-wasm-relaxed', 2],
      ]
    : []),
  ['onnx-bert', 1],
  ['onnx-bert', 2],
];

/** Runs the whole benchmark (config: another shape, for trying it out small); resolves { result (for bench.json), report (the printed table) }. */
export async function modelBench({ quick = false, config = BERT_BASE, log = (s) => process.stderr.write(s) } = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mha-bert-'));
  const result = {
    ...runHeader(quick),
    config,
  };
  try {
    log(`model: writing a bert-base-shaped checkpoint in ${dir}…\n`);
    result.checkpoint = writeCheckpoint(dir, config);
    delete result.checkpoint.path;
    log('model: exporting it to ONNX…\n');
    result.onnxExport = step(['export', dir]);
    log('model: comparing mha-wasm and onnxruntime-web outputs…\n');
    try {
      result.check = step(['check', dir]);
    } catch (error) {
      result.check = { failed: String(error.message).split('\n')[0], rows: [] };
    }
    result.runs = [];
    for (const [name, threads] of RUNNERS) {
      log(`model: ${name} on ${threads} thread(s)…\n`);
      try {
        const flags = name === 'mha-wasm-relaxed' ? RELAXED_FLAGS : [];
        result.runs.push(step(['time', name, String(threads), dir, ...(quick ? ['--quick'] : [])], flags));
      } catch (error) {
        result.runs.push({
          runner: name === 'onnx-bert' ? 'onnxruntime-web' : name,
          threads,
          failed: String(error.message).split('\n')[0],
        });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { result, report: report(result) };
}

function report(r) {
  const fmt = (x, d = 0) => (x === undefined || x === null || !Number.isFinite(x) ? '—' : x.toFixed(d));
  const ms = (x) => (x === undefined ? '—' : x >= 100 ? fmt(x, 0) : fmt(x, 1));
  const mib = (b) => `${fmt(b / 2 ** 20, 0)} MiB`;
  const run = (name, threads) => r.runs.find((x) => x.runner === name && x.threads === threads);
  const ours = [run('mha-wasm', 1), run('mha-wasm', 2)];
  const relaxed = [run('mha-wasm-relaxed', 1), run('mha-wasm-relaxed', 2)];
  const peer = [run('onnxruntime-web', 1), run('onnxruntime-web', 2)];
  const lines = [];
  const c = r.config;
  lines.push(
    `BERT-base shape (${c.num_hidden_layers} layers, hidden ${c.hidden_size}, ${c.num_attention_heads} heads, FFN ${c.intermediate_size}, vocab ${c.vocab_size}), random weights, ` +
      `model.safetensors ${fmt(r.checkpoint.bytes / 1e6, 1)} MB (written in ${fmt(r.checkpoint.ms)} ms), ONNX ${fmt(r.onnxExport.bytes / 1e6, 1)} MB; ` +
      `${r.cpu} ×${r.cores}, Node ${r.node}${r.quick ? ', --quick' : ''}`,
  );
  lines.push(
    `outputs before timing, ${r.check.against ?? 'check'}: max |Δ| last_hidden_state (tolerance ${r.check.tolerance?.hidden ?? '—'}) / attention (${r.check.tolerance?.attention ?? '—'})`,
  );
  if (r.check.failed) lines.push(`  !! check failed: ${r.check.failed}`);
  for (const row of r.check.rows)
    lines.push(
      `  L=${String(row.L).padEnd(4)} ${row.hidden.toExponential(1)} / ${row.attention.toExponential(1)}${row.ok ? '' : '   !! BEYOND TOLERANCE'}`,
    );
  // mha = the SIMD128 builds, relaxed = the relaxed-SIMD ones (when this Node runs them).
  const header =
    `${'L'.padEnd(5)} ${'mha ×1'.padStart(8)} ${'mha ×2'.padStart(8)} ${'ort ×1'.padStart(8)} ${'ratio'.padStart(6)} ${'ort ×2'.padStart(8)} ${'ratio'.padStart(6)}` +
    (relaxed[0]
      ? ` ${'relaxed ×1'.padStart(10)} ${'ratio'.padStart(6)} ${'relaxed ×2'.padStart(10)} ${'ratio'.padStart(6)}`
      : '');
  for (const [key, title] of [
    [
      'withAttention',
      `ms per run, median, with the ${c.num_hidden_layers} layers’ attention returned (ratio = onnxruntime-web ÷ mha-wasm, same threads)`,
    ],
    [
      'hiddenOnly',
      'ms per run, median, last_hidden_state only (onnxruntime-web: the faster of the same graph fetching only it and a graph with com.microsoft.MultiHeadAttention, *)',
    ],
  ]) {
    lines.push(title);
    lines.push(header);
    for (const L of [17, 128, 512]) {
      const cell = (x) => x?.rows?.find((y) => y.L === L);
      // Without the attention, onnxruntime-web's time is the faster of its two graphs (* = the fused one).
      const fusedWins = (x) =>
        key === 'hiddenOnly' &&
        cell(x)?.hiddenOnlyFused &&
        !(cell(x)?.hiddenOnly?.medianMs < cell(x).hiddenOnlyFused.medianMs);
      const t = (x) => (fusedWins(x) ? cell(x).hiddenOnlyFused : cell(x)?.[key])?.medianMs;
      const ratio = (p, o) => (t(p) && t(o) ? `${fmt(t(p) / t(o), 2)}×` : cell(p)?.failed ? 'FAIL' : '');
      const peerMs = (x) => `${ms(t(x))}${fusedWins(x) ? '*' : ''}`;
      lines.push(
        [
          String(L).padEnd(5),
          ms(t(ours[0])).padStart(8),
          ms(t(ours[1])).padStart(8),
          peerMs(peer[0]).padStart(8),
          ratio(peer[0], ours[0]).padStart(6),
          peerMs(peer[1]).padStart(8),
          ratio(peer[1], ours[1]).padStart(6),
          ...(relaxed[0]
            ? [
                ms(t(relaxed[0])).padStart(10),
                ratio(peer[0], relaxed[0]).padStart(6),
                ms(t(relaxed[1])).padStart(10),
                ratio(peer[1], relaxed[1]).padStart(6),
              ]
            : []),
        ].join(' '),
      );
    }
  }
  lines.push('load (median of 3), peak RSS of the process (after the loads / at the end), wasm heap:');
  for (const x of [...ours, ...relaxed, ...peer]) {
    if (!x) continue;
    const what = x.runner.startsWith('mha-wasm') ? 'loadModel(folder)' : 'read model.onnx + InferenceSession.create';
    lines.push(
      x.failed
        ? `  ${x.runner} ×${x.threads}: FAILED ${x.failed}`
        : `  ${`${x.runner} ×${x.threads}`.padEnd(20)} ${what}: ${ms(x.load.medianMs)} ms (${x.load.allMs.map((v) => ms(v)).join(', ')}); ` +
            `RSS ${mib(x.afterLoad.maxRssBytes)} / ${mib(x.maxRssBytes)}` +
            (x.heapBytes ? `; wasm heap ${mib(x.heapBytes)}` : '') +
            (x.bufferLoad
              ? `; from Buffers in a { worker: true } engine ${ms(x.bufferLoad.medianMs)} ms (${x.bufferLoad.allMs.map((v) => ms(v)).join(', ')})`
              : '') +
            (x.fused ? `; fused graph load ${ms(x.fused.loadMs)} ms` : '') +
            (x.loadAverage ? `; load average ${fmt(x.loadAverage[0], 1)}` : ''),
    );
  }
  // The aims: ahead of onnxruntime-web at every length on both thread
  // counts, ≥ 1.3× it at L = 17 and 128 with every attention returned, on
  // each build, and the checkpoint loaded in under 1 s.
  const behind = [];
  const short = [];
  for (const o of [...ours, ...relaxed])
    for (const row of o?.rows ?? []) {
      const p = peer[o.threads - 1]?.rows?.find((y) => y.L === row.L);
      for (const key of ['withAttention', 'hiddenOnly']) {
        const theirs = Math.min(
          p?.[key]?.medianMs ?? Infinity,
          key === 'hiddenOnly' ? (p?.hiddenOnlyFused?.medianMs ?? Infinity) : Infinity,
        );
        if (key === 'withAttention' && row.L <= 128 && row[key] && !(theirs / row[key].medianMs >= 1.3))
          short.push(`${o.runner} L=${row.L} ×${o.threads} (${fmt(theirs / row[key].medianMs, 2)}×)`);
        if (row[key] && theirs <= row[key].medianMs)
          behind.push(
            `${o.runner} L=${row.L} ×${o.threads} ${key === 'hiddenOnly' ? 'hidden only' : 'with attention'} (${fmt(theirs / row[key].medianMs, 2)}×)`,
          );
      }
    }
  const slowLoads = [...ours, ...relaxed]
    .filter((o) => o?.load && !(o.load.medianMs < 1000))
    .map((o) => `${o.runner} ×${o.threads} ${ms(o.load.medianMs)} ms`);
  lines.push(`aim, ahead of onnxruntime-web everywhere: ${behind.length ? `not met at ${behind.join(', ')}` : 'met'}`);
  lines.push(
    `aim, ≥ 1.3× onnxruntime-web at L=17 and 128 with the attention: ${short.length ? `not met at ${short.join(', ')}` : 'met'}`,
  );
  lines.push(
    `aim, load under 1 s in Node: ${slowLoads.length ? `not met (${slowLoads.join(', ')})` : ours.some((o) => o?.load) ? 'met' : '—'}`,
  );
  lines.push(
    `ONNX export (read safetensors, transpose, encode): ${ms(r.onnxExport.buildMs)} ms, write ${ms(r.onnxExport.writeMs)} ms`,
  );
  for (const x of r.runs)
    for (const row of x.rows ?? []) {
      if (row.failed) lines.push(`!! ${x.runner} ×${x.threads} L=${row.L}: ${row.failed}`);
      if (row.fusedFailed) lines.push(`!! ${x.runner} ×${x.threads} L=${row.L}: ${row.fusedFailed}`);
    }
  return lines.join('\n');
}

/** False if any comparison was beyond tolerance or any step failed. */
export function allChecked(result) {
  return (
    !result.check.failed &&
    result.check.rows.length > 0 &&
    result.check.rows.every((row) => row.ok) &&
    result.runs.every((x) => !x.failed && x.rows.every((row) => !row.failed && !row.fusedFailed))
  );
}

await runAlone(import.meta.url, 'model', modelBench, allChecked);
