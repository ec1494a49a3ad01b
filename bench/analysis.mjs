// Which heads matter, timed (mha-wasm/analysis): head importance (one
// teacher-forced pass per head switched off) and the pruning curve (Michel et
// al. 2019 §5: heads off cumulatively, each point scored and re-decoded) on
// three models of 144 heads each, random weights written here at bench time:
// an opus-mt-shaped MarianMT (6 + 6 layers × 8 heads × 3 groups;
// bench/seq2seq-checkpoint.mjs, its generation_config.json stopping at
// NEW_TOKENS) translating the page's sentence; a bert-base-shaped
// BertForMaskedLM (12 × 12 heads; model-checkpoint.mjs's bert-base-chinese
// shape with { maskedLM: true }, its cls.predictions head) filling the [MASK]
// of the sentence with its second 毒 masked, as the page's mask button does
// (seeded ids in the sentence's pattern, bertSentence; the reference: the
// token the head fills it with; one run() a head, no decoding); and a
// GPT-2-small-shaped decoder (12 × 12; decoder-checkpoint.mjs) predicting the
// token after the sentence. On 1 and 2 threads, each thread count in a process
// of its own. Reported: the total time and the time per pass of each.
// Usage: node bench/analysis.mjs [--quick] (--quick: 1 thread, the translation only).
//   node bench/analysis.mjs --run <marian|bert|gpt2> <dir> <threads>: one run, one JSON line
//   (<dir>: the checkpoint analysisBench writes for that kind).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NEW_TOKENS, OPUS_MT, sourceIds, writeMarianCheckpoint } from './seq2seq-checkpoint.mjs';
import { PROMPT, SHAPES, writeDecoderCheckpoint } from './decoder-checkpoint.mjs';
import { runAlone, runHeader, runStep } from './inputs.mjs';
import { BERT_BASE, writeCheckpoint } from './model-checkpoint.mjs';
import { mulberry32 } from '../web/model/random.mjs';

const script = fileURLToPath(import.meta.url);

// bert-base-chinese's [CLS], [SEP] and [MASK] ids.
const CLS = 101,
  SEP = 102,
  MASK = 103;

/**
 * The BERT's input: [CLS] 用 毒 [MASK] 毒 蛇 ， 毒 蛇 会 不 会 被 毒 毒 死 [SEP], the sentence with its second 毒
 * masked (as the page's button masks it), each character a seeded id above the special ones (as sourceIds the
 * translation's: the sentence's repeats in their places; no tokenizer needed), and the position to fill (3).
 */
export function bertSentence(config = BERT_BASE, seed = 37) {
  const random = mulberry32(seed);
  const chars = Array.from({ length: 8 }, () => 106 + Math.floor(random() * (config.vocab_size - 106)));
  // 用 毒 毒 毒 蛇 ， 毒 蛇 会 不 会 被 毒 毒 死: characters 0–7 (用 毒 蛇 ， 会 不 被 死).
  const ids = [0, 1, 1, 1, 2, 3, 1, 2, 4, 5, 4, 6, 1, 1, 7].map((k) => chars[k]);
  ids[2] = MASK; // the second 毒
  return { inputIds: Int32Array.from([CLS, ...ids, SEP]), positions: [3] };
}

const GPT2 = SHAPES.find((shape) => shape.key === 'gpt2');
/**
 * The bench's models by kind: the name in the log and the report, the checkpoint's writer, and what is analysed
 * (the translation of the sentence's ids, stopping at NEW_TOKENS as the other benches': its max_length is
 * opus-mt's 512; the BERT's fill of its [MASK]; the decoder's next token after the sentence).
 */
const MODELS = {
  marian: {
    name: 'opus-mt',
    write: (dir) => writeMarianCheckpoint(dir, OPUS_MT),
    task: () => ({ input: { inputIds: sourceIds(OPUS_MT) }, options: { maxNewTokens: NEW_TOKENS } }),
  },
  bert: {
    name: 'bert-base',
    write: (dir) => writeCheckpoint(dir, BERT_BASE, { maskedLM: true }),
    task: () => {
      const { inputIds, positions } = bertSentence();
      return { input: { inputIds }, options: { positions } };
    },
  },
  gpt2: {
    name: 'GPT-2 small',
    write: (dir) => writeDecoderCheckpoint(dir, GPT2, GPT2.config),
    task: () => ({ input: PROMPT, options: {} }),
  },
};

/** One model's analysis in this process: importance, then the curve in its order. */
async function analyse(kind, dir, threads) {
  const { createAttention } = await import('../src/js/node.mjs');
  const { headImportance, pruningCurve } = await import('../src/js/analysis/index.mjs');
  const engine = await createAttention({ threads });
  const model = await engine.loadModel(dir);
  try {
    const { input, options } = MODELS[kind].task();
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
      reference: Array.from(importance.reference.outputIds),
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
    for (const kind of quick ? ['marian'] : Object.keys(MODELS)) {
      const dir = path.join(root, kind);
      log(`analysis: writing a ${MODELS[kind].name}-shaped checkpoint…\n`);
      MODELS[kind].write(dir);
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
      `${`${MODELS[x.kind].name} (${x.heads} heads)`.padEnd(24)} ${`${x.variant} ×${x.threads}`.padEnd(24)} ` +
        `${s(x.importance.totalMs).padStart(12)} ${x.importance.msPerPass.toFixed(0).padStart(8)} ` +
        `${s(x.curve.totalMs).padStart(8)} ${x.curve.msPerPass.toFixed(0).padStart(8)}`,
    );
  return lines.join('\n');
}

if (process.argv[2] === '--run') {
  const [, kind, dir, threads] = process.argv.slice(2);
  console.log(JSON.stringify(await analyse(kind, dir, Number(threads))));
} else await runAlone(import.meta.url, 'analysis', analysisBench, (result) => result.runs.length > 0);
