// The translation benchmark: an opus-mt-shaped MarianMT checkpoint (6 + 6
// layers, d_model 512, 8 heads, FFN 2048, vocabulary 65,001; random weights,
// made here in a temp folder by bench/seq2seq-checkpoint.mjs) translating
// one sentence (用毒毒毒蛇，毒蛇会不会被毒毒死 as 12 ids + </s>), greedy and
// beam 4, exactly NEW_TOKENS decoder steps each; mha-wasm's loadModel() +
// generate() on 1 and 2 threads, with every attention returned and without,
// against onnxruntime-web on the ONNX export Optimum would make of the same
// weights (encoder, decoder, decoder with past; bench/peers/onnx-marian.mjs),
// its decoder driven by the same greedySearch/beamSearch
// (src/js/models/generation/). Outputs are compared before timing (the
// teacher-forced logits, every with-past step's logits, the ids and scores of
// both searches; then every timed process's ids against mha-wasm ×1's). Each
// thread count runs in its own process (bench/seq2seq-run.mjs), both
// runtimes loaded in it and timed in turns, so that a shared machine's drift
// falls on both alike.
// Reported: medians of ms to the first token (encoder + first decoder step),
// ms per token after it, and the whole generate() call.
// Usage: node bench/seq2seq.mjs [--quick]; npm run bench runs it too
// (bench.mjs imports seq2seqBench) and keeps the result under "seq2seq" in
// bench.json.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NEW_TOKENS, OPUS_MT, sourceIds, writeMarianCheckpoint } from './seq2seq-checkpoint.mjs';

import { runAlone, runHeader, runStep } from './inputs.mjs';

const here = (file) => fileURLToPath(new URL(file, import.meta.url));

const step = (args) => runStep(here('./seq2seq-run.mjs'), args);

const THREADS = [1, 2];

/** Runs the whole benchmark (config: another shape, for trying it out small); resolves { result (for bench.json), report (the printed table) }. */
export async function seq2seqBench({ quick = false, config = OPUS_MT, log = (s) => process.stderr.write(s) } = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mha-marian-'));
  const result = {
    ...runHeader(quick),
    config,
    newTokens: NEW_TOKENS,
    sourceIds: Array.from(sourceIds(config)),
  };
  try {
    log(`seq2seq: writing an opus-mt-shaped checkpoint in ${dir}…\n`);
    result.checkpoint = writeMarianCheckpoint(dir, config);
    delete result.checkpoint.path;
    log('seq2seq: exporting it to ONNX (encoder, decoder, decoder with past)…\n');
    result.onnxExport = step(['export', dir]);
    log('seq2seq: comparing mha-wasm and onnxruntime-web outputs…\n');
    try {
      result.check = step(['check', dir]);
    } catch (error) {
      result.check = { failed: String(error.message).split('\n')[0], rows: [] };
    }
    result.runs = [];
    result.processes = [];
    if (!result.check.failed)
      for (const threads of THREADS) {
        log(`seq2seq: mha-wasm and onnxruntime-web side by side on ${threads} thread(s)…\n`);
        try {
          const { runs, ...process } = step(['time', String(threads), dir, ...(quick ? ['--quick'] : [])]);
          result.runs.push(...runs);
          result.processes.push(process);
        } catch (error) {
          const failed = String(error.message).split('\n')[0];
          result.runs.push({ runner: 'mha-wasm', threads, failed }, { runner: 'onnxruntime-web', threads, failed });
        }
      }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { result, report: report(result) };
}

const METRICS = [
  ['first', 'ms to the first token'],
  ['perToken', 'ms per token after it'],
  ['total', 'ms in all (generate() resolved)'],
];

function report(r) {
  const fmt = (x, d = 0) => (x === undefined || x === null || !Number.isFinite(x) ? '—' : x.toFixed(d));
  const ms = (x) => (x === undefined ? '—' : x >= 100 ? fmt(x, 0) : fmt(x, 1));
  const mib = (b) => `${fmt(b / 2 ** 20, 0)} MiB`;
  const c = r.config;
  const run = (name, threads) =>
    r.runs.find((x) => (x.runner === name || x.runner?.startsWith(name)) && x.threads === threads);
  const row = (name, threads, mode, returnAttention) =>
    run(name, threads)?.rows?.find((x) => x.mode === mode && x.returnAttention === returnAttention);
  const lines = [];
  const ortRun = r.runs.find((x) => x.runner === 'onnxruntime-web' && x.version);
  lines.push(
    `MarianMT, opus-mt shape (${c.encoder_layers} + ${c.decoder_layers} layers, d_model ${c.d_model}, ${c.decoder_attention_heads} heads, FFN ${c.decoder_ffn_dim}, vocab ${c.vocab_size}), random weights, ` +
      `model.safetensors ${fmt(r.checkpoint.bytes / 1e6, 1)} MB; ONNX encoder ${fmt(r.onnxExport.bytes.encoder / 1e6, 0)} MB + decoder ${fmt(r.onnxExport.bytes.decoder / 1e6, 0)} MB + decoder with past ${fmt(r.onnxExport.bytes.decoderWithPast / 1e6, 0)} MB; ` +
      `${r.cpu} ×${r.cores}, Node ${r.node}${ortRun ? `, onnxruntime-web ${ortRun.version}` : ''}${r.quick ? ', --quick' : ''}`,
  );
  lines.push(
    `translating ${r.sourceIds.length} source ids (用毒毒毒蛇，毒蛇会不会被毒毒死 + </s>) into exactly ${r.newTokens} tokens (min_new_tokens ${r.newTokens - 1}, then the forced eos), ` +
      'both runtimes through the same greedySearch/beamSearch (src/js/models/generation/, renormalize_logits, bad_words_ids [[pad]])',
  );
  const t = r.check.tolerance ?? {};
  lines.push(`outputs before timing, ${r.check.against ?? 'check'}:`);
  if (r.check.failed) lines.push(`  !! check failed: ${r.check.failed}`);
  for (const x of r.check.rows ?? []) {
    const tf = x.teacherForced;
    lines.push(
      `  ${x.mode.padEnd(7)} ids ${x.sameIds ? 'equal' : `DIFFER (mha-wasm ${x.ids}, onnxruntime-web ${x.onnxIds})`}, ` +
        `score Δ ${x.score.diff.toExponential(1)} (tolerance ${t.score})` +
        (x.sameWithAttention ? '' : ', !! ids differ with returnAttention') +
        (tf
          ? `; teacher-forced over its ${tf.T} ids: encoder output max |Δ| ${tf.hidden.toExponential(1)} (tolerance ${t.hidden}), ` +
            `logits ${tf.logits.toExponential(1)} (tolerance ${t.logits}; logits in [${fmt(tf.logitsRange[0], 2)}, ${fmt(tf.logitsRange[1], 2)}]), ` +
            `decoder_with_past steps' logits against the same rows ${tf.stepLogits === undefined ? '—' : tf.stepLogits.toExponential(1)}`
          : '') +
        (x.ok ? '' : '   !! BEYOND TOLERANCE'),
    );
  }
  lines.push(
    'medians; mha+att = generate() with every attention returned (encoder, decoder, cross: a teacher-forced pass after the search), ' +
      'mha = without; ratio = onnxruntime-web ÷ mha-wasm with the attention, same threads',
  );
  const head = ['search'.padEnd(7), 'thr', ...METRICS.map(([, title]) => title.padEnd(31))];
  lines.push(head.join(' '));
  lines.push(
    [
      ''.padEnd(7),
      '   ',
      ...METRICS.map(
        () => `${'mha+att'.padStart(7)} ${'mha'.padStart(6)} ${'ort'.padStart(6)} ${'ratio'.padStart(7)}  `,
      ),
    ].join(' '),
  );
  const behind = [];
  for (const mode of ['greedy', 'beam 4'])
    for (const threads of [1, 2]) {
      const withAtt = row('mha-wasm', threads, mode, true);
      const without = row('mha-wasm', threads, mode, false);
      const peer = row('onnxruntime-web', threads, mode, false);
      const cells = METRICS.map(([key]) => {
        const a = withAtt?.[key]?.medianMs,
          b = without?.[key]?.medianMs,
          p = peer?.[key]?.medianMs;
        const ratio = a && p ? p / a : undefined;
        if (ratio !== undefined && !(ratio > 1)) behind.push(`${mode} ×${threads} ${key} (${fmt(ratio, 2)}×)`);
        return `${ms(a).padStart(7)} ${ms(b).padStart(6)} ${ms(p).padStart(6)} ${(ratio ? `${fmt(ratio, 2)}×` : '').padStart(7)}  `;
      });
      lines.push([mode.padEnd(7), `×${threads} `, ...cells].join(' '));
    }
  if (r.check.searchAlone)
    lines.push(
      `of each token, the search alone (generation/ over logits of this size, the model's step free; the same for both runtimes): ` +
        `greedy ${ms(r.check.searchAlone.greedy)} ms, beam 4 ${ms(r.check.searchAlone['beam 4'])} ms`,
    );
  for (const [threads] of [[1], [2]]) {
    const a = row('mha-wasm', threads, 'greedy', true),
      b = row('mha-wasm', threads, 'greedy', false);
    const c4 = row('mha-wasm', threads, 'beam 4', true),
      d4 = row('mha-wasm', threads, 'beam 4', false);
    if (a && b && c4 && d4)
      lines.push(
        `mha-wasm ×${threads}, generate() resolved after its last token: greedy ${ms(a.afterLast.medianMs)} ms with the attention, ${ms(b.afterLast.medianMs)} without; ` +
          `beam 4 ${ms(c4.afterLast.medianMs)} / ${ms(d4.afterLast.medianMs)}`,
      );
  }
  lines.push(
    `aim, ahead of onnxruntime-web on every row with every attention returned: ${behind.length ? `not met at ${behind.join(', ')}` : r.runs.length ? 'met' : '—'}`,
  );
  lines.push('load; the RSS it added to the process; wasm heap:');
  for (const x of r.runs) {
    const what = x.runner === 'mha-wasm' ? 'loadModel(folder)' : 'read the 3 .onnx + 3 InferenceSession.create';
    lines.push(
      x.failed
        ? `  ${x.runner} ×${x.threads}: FAILED ${x.failed}`
        : `  ${`${x.runner} ×${x.threads}`.padEnd(20)} ${what}: ${ms(x.loadMs)} ms; RSS +${mib(x.rssGrowthBytes)}` +
            (x.heapBytes ? `; wasm heap ${mib(x.heapBytes)}` : ''),
    );
  }
  for (const p of r.processes ?? [])
    lines.push(
      `  the ×${p.threads} process: peak RSS ${mib(p.maxRssBytes)}; load average at its end ${fmt(p.loadAverage[0], 1)} (above ${p.threads}: something else shared the cores)`,
    );
  lines.push(
    `checkpoint written in ${ms(r.checkpoint.ms)} ms; ONNX export (read safetensors, transpose, encode) ${ms(r.onnxExport.buildMs)} ms, write ${ms(r.onnxExport.writeMs)} ms`,
  );
  for (const x of r.runs)
    for (const y of x.rows ?? []) if (y.failed) lines.push(`!! ${x.runner} ×${x.threads}: ${y.failed}`);
  return lines.join('\n');
}

/** False if any comparison was beyond tolerance or any step failed. */
export function allChecked(result) {
  return (
    !result.check.failed &&
    result.check.rows.length > 0 &&
    result.check.rows.every((row) => row.ok) &&
    result.runs.length === 2 * THREADS.length &&
    result.runs.every((x) => !x.failed && x.rows.every((row) => !row.failed))
  );
}

await runAlone(import.meta.url, 'seq2seq', seq2seqBench, allChecked);
