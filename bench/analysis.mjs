// Which heads matter, timed (mha-wasm/analysis): head importance (one
// teacher-forced pass per head switched off) and the pruning curve (Michel et
// al. 2019 §5: heads off cumulatively, each point scored and re-decoded) on
// an opus-mt-shaped MarianMT (6 + 6 layers × 8 heads × 3 groups = 144 heads;
// random weights written here by bench/seq2seq-checkpoint.mjs, its
// generation_config.json stopping at NEW_TOKENS) translating the page's
// sentence, and on a GPT-2-small-shaped decoder (12 × 12 = 144 heads, the
// size of bert-base's; random weights, decoder-checkpoint.mjs) predicting the
// token after the sentence (the random bert-base of model-checkpoint.mjs has
// no masked-LM head to score), on 1 and 2 threads, each thread count in a
// process of its own. Reported: the total time and the time per pass of each.
// Usage: node bench/analysis.mjs [--quick] (--quick: 1 thread, the translation only).
//   node bench/analysis.mjs --run <marian|gpt2> <dir> <threads>: one run, one JSON line.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NEW_TOKENS, OPUS_MT, sourceIds, writeMarianCheckpoint } from './seq2seq-checkpoint.mjs';
import { PROMPT, SHAPES, writeDecoderCheckpoint } from './decoder-checkpoint.mjs';
import { runAlone, runHeader, runStep } from './inputs.mjs';

const script = fileURLToPath(import.meta.url);

/** One model's analysis in this process: importance, then the curve in its order. */
async function analyse(kind, dir, threads) {
  const { createAttention } = await import('../src/js/node.mjs');
  const { headImportance, pruningCurve } = await import('../src/js/analysis/index.mjs');
  const engine = await createAttention({ threads });
  const model = await engine.loadModel(dir);
  try {
    // The translation of the sentence's ids; the decoder's next token after the sentence.
    const input = kind === 'marian' ? { inputIds: sourceIds(OPUS_MT) } : PROMPT;
    // The translation stops at NEW_TOKENS as the other benches' (its max_length is opus-mt's 512).
    const options = kind === 'marian' ? { maxNewTokens: NEW_TOKENS } : {};
    const importance = await headImportance(model, input, options);
    const curve = await pruningCurve(model, input, { ...options, importance });
    return {
      kind,
      threads: engine.threads,
      variant: engine.variant,
      heads: importance.order.length,
      importance: importance.timing,
      curve: curve.timing,
      // What the run found, for reading next to the times (random weights: no finding).
      mostImportant: importance.order.at(-1),
    };
  } finally {
    model.dispose();
    engine.dispose();
  }
}

/** Runs the benchmark; resolves { result (for bench.json), report (the printed table) }. */
export async function analysisBench({ quick = false, log = (s) => process.stderr.write(s) } = {}) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'mha-analysis-'));
  const result = { ...runHeader(quick), runs: [] };
  try {
    const models = [['marian', (dir) => writeMarianCheckpoint(dir, OPUS_MT)]];
    const gpt2 = SHAPES.find((shape) => shape.key === 'gpt2');
    if (!quick) models.push(['gpt2', (dir) => writeDecoderCheckpoint(dir, gpt2, gpt2.config)]);
    for (const [kind, write] of models) {
      const dir = path.join(root, kind);
      log(`analysis: writing a ${kind === 'marian' ? 'opus-mt' : 'GPT-2-small'}-shaped checkpoint…\n`);
      write(dir);
      for (const threads of quick ? [1] : [1, 2]) {
        log(`analysis: ${kind}, ${threads} thread(s)…\n`);
        result.runs.push(runStep(script, ['--run', kind, dir, String(threads)]));
      }
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return { result, report: report(result) };
}

function report(r) {
  const s = (ms) => (ms / 1000).toFixed(1);
  const lines = [
    `which heads matter (mha-wasm/analysis), random weights; ${r.cpu} ×${r.cores}, Node ${r.node}${r.quick ? ', --quick' : ''}`,
    `${'model'.padEnd(24)} ${'build'.padEnd(24)} ${'importance s'.padStart(12)} ${'ms/pass'.padStart(8)} ${'curve s'.padStart(8)} ${'ms/pass'.padStart(8)}`,
  ];
  for (const x of r.runs)
    lines.push(
      `${`${x.kind === 'marian' ? 'opus-mt' : 'GPT-2 small'} (${x.heads} heads)`.padEnd(24)} ${`${x.variant} ×${x.threads}`.padEnd(24)} ` +
        `${s(x.importance.totalMs).padStart(12)} ${x.importance.msPerPass.toFixed(0).padStart(8)} ` +
        `${s(x.curve.totalMs).padStart(8)} ${x.curve.msPerPass.toFixed(0).padStart(8)}`,
    );
  return lines.join('\n');
}

if (process.argv[2] === '--run') {
  const [, kind, dir, threads] = process.argv.slice(2);
  console.log(JSON.stringify(await analyse(kind, dir, Number(threads))));
} else await runAlone(import.meta.url, 'analysis', analysisBench, (result) => result.runs.length > 0);
