// The decoder benchmark: a GPT-2-small-shaped and a Qwen2.5-0.5B-shaped
// checkpoint (random weights, made here in a temp folder by
// bench/decoder-checkpoint.mjs, with their tokenizers) generating greedily
// NEW_TOKENS tokens after the sentence 用毒毒毒蛇，毒蛇会不会被毒毒死 (15 ids);
// mha-wasm's loadModel() + generate() on 1 and 2 threads against
// onnxruntime-web on an ONNX export of the same weights with past keys and
// values (bench/peers/onnx-decoder.mjs), driven by the same greedySearch
// (src/js/models/generation/), each with the weights held as each entry
// of WEIGHTS says (float32; bf16: 16-bit matrices; q8, q4: llama.cpp's Q8_0
// and Q4_0 blocks, onnxruntime-web's MatMulNBits over the same blocks).
// Outputs are compared before timing (the tokenizer's ids, the greedy ids,
// the logits of the prompt's step and of every step after it; q8 and q4:
// the matrices each runtime quantized, by type; then every timed process's
// ids against mha-wasm ×1's). Each thread count runs in its own process
// (bench/decoder-run.mjs), both runtimes loaded in it and timed in turns,
// so that a shared machine's drift falls on both alike; a runtime that
// cannot hold a model says so in its row. Reported: medians of ms to the
// first token (the prompt's prefill), ms per token after it, the whole
// generate() call, and memory (the resident memory each load added,
// mha-wasm's wasm heap, each process's peak RSS). --quick: smaller shapes (2 layers,
// narrower; the same vocabularies), fewer samples.
// Usage: node bench/decoder.mjs [--quick] [--shapes=gpt2,qwen2] [--weights=float32,bf16,q8,q4] (the
// shapes' keys and WEIGHTS' names to run; all by default); npm run bench runs it too
// (bench.mjs imports decoderBench) and keeps the result under "decoder" in
// bench.json.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NEW_TOKENS, PROMPT, SHAPES, WEIGHTS, configOf, promptIds } from './decoder-checkpoint.mjs';
import { runAlone, runHeader, runStep } from './inputs.mjs';

const here = (file) => fileURLToPath(new URL(file, import.meta.url));

const step = (args) => runStep(here('./decoder-run.mjs'), args);
const firstLine = (error) => String(error.message).split('\n')[0];

const THREADS = [1, 2];

/** The entries of `all` that `--<flag>=a,b` names by `key` (all of them without the flag). */
function chosen(argv, flag, all, key) {
  const given = argv.find((a) => a.startsWith(`--${flag}=`));
  if (!given) return all;
  const names = given.slice(flag.length + 3).split(',');
  const unknown = names.filter((n) => !all.some((x) => x[key] === n));
  if (unknown.length)
    throw new RangeError(
      `--${flag}: expected names among ${all.map((x) => x[key]).join(', ')}, got ${unknown.join(', ')}`,
    );
  return all.filter((x) => names.includes(x[key]));
}

/** Runs the benchmark (the shapes and weights `argv` names: all by default); resolves { result (for bench.json), report (the printed table) }. */
export async function decoderBench({ quick = false, argv = [], log = (s) => process.stderr.write(s) } = {}) {
  const shapes = chosen(argv, 'shapes', SHAPES, 'key');
  const weightsRun = chosen(argv, 'weights', WEIGHTS, 'name');
  const result = {
    ...runHeader(quick),
    newTokens: NEW_TOKENS,
    prompt: PROMPT,
    weights: weightsRun.map((w) => w.name),
    shapes: [],
  };
  for (const shape of shapes) {
    const config = configOf(shape, quick);
    const entry = {
      key: shape.key,
      name: shape.name,
      config,
      dtype: shape.dtype,
      promptIds: Array.from(promptIds(shape, config)),
      exports: {},
      checks: [],
      runs: [],
      processes: [],
    };
    result.shapes.push(entry);
    const dir = mkdtempSync(path.join(os.tmpdir(), `mha-${shape.key}-`));
    try {
      log(`decoder: writing a ${shape.name}-shaped checkpoint in ${dir}…\n`);
      // In a process of its own, as every step: this one stays small, and so does what its children start from.
      entry.checkpoint = step(['write', dir, shape.key, ...(quick ? ['--quick'] : [])]);
      for (const weights of weightsRun) {
        if (!weights.onnx) {
          // No peer of these weights: mha-wasm alone.
          for (const threads of THREADS) {
            log(`decoder: ${shape.name}, ${weights.name}: mha-wasm on ${threads} thread(s)…\n`);
            try {
              const { runs, ...process } = step([
                'time',
                String(threads),
                dir,
                weights.name,
                '--mha-only',
                ...(quick ? ['--quick'] : []),
              ]);
              entry.runs.push(...runs);
              entry.processes.push(process);
            } catch (error) {
              entry.runs.push({ runner: 'mha-wasm', threads, weights: weights.name, failed: firstLine(error) });
            }
          }
          continue;
        }
        log(`decoder: ${shape.name}, ${weights.name}: exporting to ONNX (${weights.onnx})…\n`);
        try {
          entry.exports[weights.onnx] = step(['export', dir, weights.onnx]);
        } catch (error) {
          entry.exports[weights.onnx] = { failed: firstLine(error) };
          continue;
        }
        log(`decoder: ${shape.name}, ${weights.name}: comparing mha-wasm and onnxruntime-web outputs…\n`);
        let check;
        try {
          check = step(['check', dir, weights.name]);
        } catch (error) {
          check = { weights: weights.name, failed: firstLine(error), ok: false };
        }
        entry.checks.push(check);
        // Timed: mha-wasm when it loaded (its ids are the reference), onnxruntime-web only when it agreed.
        if (check.failed || check.failedToLoad?.mhaWasm) continue;
        for (const threads of THREADS) {
          log(`decoder: ${shape.name}, ${weights.name}: side by side on ${threads} thread(s)…\n`);
          try {
            const { runs, ...process } = step([
              'time',
              String(threads),
              dir,
              weights.name,
              ...(check.ok ? [] : ['--mha-only']),
              ...(quick ? ['--quick'] : []),
            ]);
            entry.runs.push(...runs);
            entry.processes.push(process);
          } catch (error) {
            const failed = firstLine(error);
            entry.runs.push(
              { runner: 'mha-wasm', threads, weights: weights.name, failed },
              { runner: 'onnxruntime-web', threads, weights: weights.name, failed },
            );
          }
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return { result, report: report(result) };
}

const METRICS = [
  ['first', 'prefill: ms to 1st token'],
  ['perToken', 'ms per token after it'],
  ['total', 'ms, generate() in all'],
];

const fmt = (x, d = 0) => (x === undefined || x === null || !Number.isFinite(x) ? '—' : x.toFixed(d));
const ms = (x) => (x === undefined ? '—' : x >= 100 ? fmt(x, 0) : fmt(x, 1));
const mib = (b) => (b === undefined ? '—' : `${fmt(b / 2 ** 20, 0)} MiB`);
const mb = (b) => `${fmt(b / 1e6, 0)} MB`;

function shapeLine(s) {
  const c = s.config;
  const sizes =
    c.model_type === 'gpt2'
      ? `${c.n_layer} layers, ${c.n_head} heads, n_embd ${c.n_embd}, vocab ${c.vocab_size}, n_positions ${c.n_positions}`
      : `${c.num_hidden_layers} layers, ${c.num_attention_heads} query heads / ${c.num_key_value_heads} key-value heads, ` +
        `hidden ${c.hidden_size}, MLP ${c.intermediate_size}, vocab ${c.vocab_size}, q/k/v bias, ` +
        `${c.tie_word_embeddings ? 'tied' : 'untied'} embeddings, rope_theta ${c.rope_theta}`;
  const onnx = Object.entries(s.exports)
    .map(([form, x]) => (x.failed ? `${form} FAILED ${x.failed}` : `${form} ${mb(x.bytes.data)}`))
    .join(', ');
  return (
    `  ${s.name}: ${sizes}; ${fmt((s.checkpoint?.parameters ?? 0) / 1e6, 1)} M parameters, ` +
    `model.safetensors ${s.dtype} ${mb(s.checkpoint?.bytes ?? 0)}; ONNX weights ${onnx || '—'}`
  );
}

function checkLine(s, x) {
  const t = x.tolerance ?? {};
  const what = `  ${s.name} ${x.weights}:`;
  if (x.failed) return `${what} !! check failed: ${x.failed}`;
  if (x.failedToLoad)
    return `${what} not compared: ${Object.entries(x.failedToLoad)
      .map(([who, why]) => `${who} did not load it (${why})`)
      .join('; ')}`;
  const l = x.logits;
  const w = x.weightTypes;
  const types = (o) =>
    Object.entries(o ?? {})
      .map(([type, n]) => `${n} ${type}`)
      .join(' + ');
  return (
    `${what} ` +
    (w
      ? `matrices ${w.same ? types(w.mhaWasm) : `DIFFER (mha-wasm ${types(w.mhaWasm)}, onnx ${types(w.onnx)})`}, `
      : '') +
    `tokenizer ids ${x.tokenizer.same ? 'equal' : `DIFFER (${x.tokenizer.ids})`}, ` +
    `greedy ids ${x.sameIds ? 'equal' : `DIFFER (mha-wasm ${x.ids}, onnxruntime-web ${x.onnxIds})`}; logits max |Δ|: ` +
    `the prompt's step ${l.prefill.toExponential(1)}, the steps after it ${l.steps.toExponential(1)} ` +
    `(tolerance ${t.logits}; logits in [${fmt(l.range[0], 2)}, ${fmt(l.range[1], 2)}])` +
    (x.ok ? '' : '   !! BEYOND TOLERANCE: onnxruntime-web not timed')
  );
}

function report(r) {
  const lines = [];
  const runs = r.shapes.flatMap((s) => s.runs);
  const ortRun = runs.find((x) => x.runner === 'onnxruntime-web' && x.version);
  const against = r.shapes.flatMap((s) => s.checks).find((x) => x.against)?.against;
  lines.push(
    `Decoders, greedy: ${r.newTokens} new tokens after ${r.prompt} (15 ids, one per character), random weights; ` +
      `${r.cpu} ×${r.cores}, Node ${r.node}${ortRun ? `, onnxruntime-web ${ortRun.version}` : ''}${r.quick ? ', --quick (smaller shapes)' : ''}`,
  );
  for (const s of r.shapes) lines.push(shapeLine(s));
  lines.push(`outputs before timing${against ? `, ${against}` : ''}:`);
  for (const s of r.shapes) for (const x of s.checks) lines.push(checkLine(s, x));
  lines.push('weights (a row per entry):');
  const ran = WEIGHTS.filter((w) => r.weights.includes(w.name));
  for (const w of ran) lines.push(`  ${w.name.padEnd(8)} ${w.about}`);
  const builds = THREADS.map(
    (t) => `×${t} ${runs.find((x) => x.runner === 'mha-wasm' && x.threads === t)?.variant ?? '—'}`,
  );
  lines.push(`builds: mha-wasm ${builds.join(', ')}; onnxruntime-web its SIMD + threads build with numThreads 1 and 2`);
  lines.push(
    'medians; mha = mha-wasm generate({ inputIds }, { maxNewTokens, returnAttention: false }) from an empty KV cache each time ' +
      '(bench/llama.mjs times it with the attention too); ort = onnxruntime-web with past key values through ' +
      "the same greedySearch; ratio = ort ÷ mha (above 1: mha-wasm ahead); memory: the resident memory each load added (after a GC), mha-wasm's wasm heap after the runs",
  );
  const widths = [14, 8, 4];
  lines.push(
    [
      'shape'.padEnd(widths[0]),
      'weights'.padEnd(widths[1]),
      'thr'.padEnd(widths[2]),
      ...METRICS.map(([, title]) => title.padEnd(26)),
      'memory: mha +resident / heap, ort +resident',
    ].join(' '),
  );
  lines.push(
    [
      ''.padEnd(widths.reduce((a, b) => a + b + 1, -1)),
      ...METRICS.map(() => `${'mha'.padStart(7)} ${'ort'.padStart(7)} ${'ratio'.padStart(7)}   `),
    ].join(' '),
  );
  const behind = [];
  for (const s of r.shapes)
    for (const weights of ran)
      for (const threads of THREADS) {
        const head = [s.name.padEnd(widths[0]), weights.name.padEnd(widths[1]), `×${threads}`.padEnd(widths[2])];
        const find = (runner) =>
          s.runs.find((x) => x.runner === runner && x.threads === threads && x.weights === weights.name);
        const ours = find('mha-wasm');
        const peer = find('onnxruntime-web');
        const check = s.checks.find((x) => x.weights === weights.name);
        const why = (run, who) =>
          who === 'onnxruntime-web' && !weights.onnx
            ? 'no onnxruntime-web peer of these weights'
            : run?.failed
              ? `${who} FAILED: ${run.failed}`
              : run?.skipped
                ? `${who} did not load: ${run.skipped}`
                : check?.failedToLoad?.[who === 'mha-wasm' ? 'mhaWasm' : 'onnxruntime']
                  ? `${who} did not load: ${check.failedToLoad[who === 'mha-wasm' ? 'mhaWasm' : 'onnxruntime']}`
                  : check && !check.ok && who === 'onnxruntime-web'
                    ? `${who} not timed: its outputs were not checked equal`
                    : !run
                      ? `${who} not run`
                      : null;
        const notes = [why(ours, 'mha-wasm'), why(peer, 'onnxruntime-web')].filter(Boolean);
        const a = ours?.first ? ours : undefined;
        const p = peer?.first ? peer : undefined;
        if (!a && !p) {
          lines.push([...head, notes.join('; ')].join(' '));
          continue;
        }
        const cells = METRICS.map(([key]) => {
          const x = a?.[key]?.medianMs,
            y = p?.[key]?.medianMs;
          const ratio = x && y ? y / x : undefined;
          if (ratio !== undefined && !(ratio > 1))
            behind.push(`${s.name} ${weights.name} ×${threads} ${key} (${fmt(ratio, 2)}×)`);
          return `${ms(x).padStart(7)} ${ms(y).padStart(7)} ${(ratio ? `${fmt(ratio, 2)}×` : '').padStart(7)}   `;
        });
        const memory = `${mib(a?.residentBytes)} / ${mib(a?.heapBytes)}, ${mib(p?.residentBytes)}`;
        lines.push([...head, ...cells, memory, ...(notes.length ? [`  (${notes.join('; ')})`] : [])].join(' '));
      }
  lines.push(
    `aim, ahead of onnxruntime-web on every row: ${behind.length ? `not met at ${behind.join(', ')}` : runs.length ? 'met' : '—'}`,
  );
  lines.push('load and process memory:');
  for (const s of r.shapes) {
    for (const x of s.runs)
      if (x.loadMs !== undefined)
        lines.push(
          `  ${`${s.name} ${x.weights}`.padEnd(22)} ${`${x.runner} ×${x.threads}`.padEnd(20)} ` +
            `${x.runner === 'mha-wasm' ? `loadModel(folder, { weights: '${x.weights}' })` : 'read model.onnx + its data, InferenceSession.create'}: ` +
            `${ms(x.loadMs)} ms; resident +${mib(x.residentBytes)}${x.heapBytes ? `; wasm heap ${mib(x.heapBytes)}` : ''}`,
        );
    for (const p of s.processes)
      lines.push(
        `  ${s.name} ${p.weights} the ×${p.threads} process (both runtimes): peak RSS ${mib(p.maxRssBytes)}; ` +
          `load average at its end ${fmt(p.loadAverage[0], 1)} (above ${p.threads}: something else shared the cores)`,
      );
  }
  for (const s of r.shapes)
    lines.push(
      `  ${s.name}: checkpoint written in ${ms(s.checkpoint?.ms)} ms; ONNX export (read safetensors, transpose, write) ` +
        Object.entries(s.exports)
          .map(([form, x]) => `${form} ${ms(x.ms)} ms`)
          .join(', '),
    );
  for (const x of runs) if (x.failed) lines.push(`!! ${x.runner} ×${x.threads} ${x.weights}: ${x.failed}`);
  return lines.join('\n');
}

/** False if any comparison was beyond tolerance or any step failed (a model that does not fit is neither). */
export function allChecked(result) {
  return result.shapes.every(
    (s) =>
      Object.values(s.exports).every((x) => !x.failed) &&
      s.checks.length === WEIGHTS.filter((w) => w.onnx && result.weights.includes(w.name)).length &&
      s.checks.every((x) => !x.failed && (x.ok || x.failedToLoad)) &&
      s.runs.every((x) => !x.failed),
  );
}

await runAlone(import.meta.url, 'decoder', decoderBench, allChecked);
