// Where mha-wasm's and llama.cpp's greedy paths part, and why: the benchmark's GGUF files
// (bench/gguf-checkpoint.mjs: Qwen2.5-shaped, random blocks) run by mha-wasm in Node and by llama.cpp
// itself — Debian's native llama-server, in the sid chroot of tests/tools/make-hf-chroot.sh
// (EXTRA_PACKAGES="llama.cpp llama.cpp-tools python3-gguf python3-accelerate") — each greedy for --tokens
// new tokens with its top-5 logits (llama.cpp's as log-probabilities: the differences between two of them
// are the logits' differences). Per file: how many new tokens agree, how far the two engines' gaps between
// the top logit and the others differ, the margins where they part; with --transformers, also
// transformers' dequantized float model along mha-wasm's path (tests/tools/gguf_top_logits.py): which
// engine the exact arithmetic of the file's blocks agrees with. Not part of `npm run bench` (the chroot
// is not a dependency of the package).
// Usage: node bench/llama-native.mjs --chroot DIR [--shape Qwen2.5-1.5B] [--types Q8_0,Q4_K_M] [--tokens 64]
//        [--transformers] [--dir DIR]
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FILE_TYPES, SHAPES, writeQwenGguf } from './gguf-checkpoint.mjs';
import { median } from './inputs.mjs';
import { createAttention } from '../src/js/node.mjs';

const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at < 0 ? fallback : process.argv[at + 1];
};
const chroot = arg('--chroot');
if (!chroot) throw new TypeError('--chroot: expected the sid chroot made by tests/tools/make-hf-chroot.sh');
const shape = SHAPES.find((s) => s.name === arg('--shape', 'Qwen2.5-1.5B'));
if (!shape) throw new RangeError(`--shape: expected one of ${SHAPES.map((s) => s.name).join(', ')}`);
const types = arg('--types', FILE_TYPES.map((t) => t.name).join(',')).split(',');
const tokens = Number(arg('--tokens', 64));
const dir = arg('--dir', path.join(os.tmpdir(), 'mha-llama-native'));
const CHROOT_SCRIPT = new URL('../tests/tools/make-hf-chroot.sh', import.meta.url).pathname;
const PORT = 18_080;
mkdirSync(dir, { recursive: true });

/** The chroot script's arguments that run `args` in the chroot with `binds` (and the files' folder) mounted. */
const inChrootArgs = (args, binds = []) => [
  CHROOT_SCRIPT,
  '--run',
  chroot,
  ...[dir, ...binds].flatMap((b) => ['--bind', b]),
  '--',
  ...args,
];
const inChroot = (args) => spawn('bash', inChrootArgs(args), { stdio: 'ignore' });

/** mha-wasm's greedy path: each step's top 5 [id, logit]. */
async function mhaPath(file, promptIds) {
  const engine = await createAttention({ variant: 'simd', threads: 1 });
  try {
    const model = await engine.loadModel(file);
    const V = model.config.vocabSize;
    const steps = [];
    let r = await model.prefill({ inputIds: promptIds }, { returnLogits: true });
    for (let s = 0; s < tokens; s++) {
      const last = r.logits.subarray(r.logits.length - V);
      const top = Array.from(last.keys())
        .sort((a, b) => last[b] - last[a])
        .slice(0, 5);
      steps.push(top.map((id) => [id, last[id]]));
      r = await model.step({ inputIds: [top[0]] }, { returnLogits: true });
    }
    return steps;
  } finally {
    engine.dispose();
  }
}

/** llama.cpp's greedy path from its own server: each step's top 5 [id, log-probability]. */
async function llamaPath(file, promptIds) {
  const server = inChroot(['llama-server', '-m', file, '-c', '512', '-t', '2', '--port', String(PORT), '--no-warmup']);
  try {
    for (let i = 0; ; i++) {
      const ok = await fetch(`http://127.0.0.1:${PORT}/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (i > 300) throw new Error('llama-server did not start in 300 s');
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    const body = { prompt: promptIds, n_predict: tokens, n_probs: 5, temperature: 0, samplers: ['top_k'], top_k: 1 };
    Object.assign(body, { cache_prompt: false, post_sampling_probs: false, ignore_eos: true });
    const r = await (
      await fetch(`http://127.0.0.1:${PORT}/completion`, { method: 'POST', body: JSON.stringify(body) })
    ).json();
    return r.completion_probabilities.map((s) => s.top_logprobs.map((x) => [x.id, x.logprob]));
  } finally {
    // The server alone (nothing to stop if it never started): the chroot script then unmounts what it mounted.
    if (server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      try {
        execFileSync('pkill', ['-f', `llama-server -m ${file}`], { stdio: 'ignore' });
      } catch {
        // pkill finds no such process when the server has just exited
      }
      await exited;
    }
  }
}

/** Agreement of two paths: steps equal, gap differences over the ids both list, margins where they part. */
function compare(a, b) {
  let agree = 0;
  const gaps = [];
  while (agree < Math.min(a.length, b.length) && a[agree][0][0] === b[agree][0][0]) {
    const [x, y] = [a[agree], b[agree]];
    for (const [id, v] of y.slice(1)) {
      const u = x.find((e) => e[0] === id);
      if (u) gaps.push(Math.abs(u[1] - x[0][1] - (v - y[0][1])));
    }
    agree++;
  }
  const part = agree < Math.min(a.length, b.length) ? { a: a[agree].slice(0, 3), b: b[agree].slice(0, 3) } : null;
  return { agree, of: Math.min(a.length, b.length), gapMedian: median(gaps), gapMax: Math.max(...gaps), part };
}

const fmt = (x) => (x == null ? '–' : x.toFixed(4));
/** A step's first three [id, value], rounded, as text. */
const top3 = (step) => JSON.stringify(step.slice(0, 3).map(([i, v]) => [i, +v.toFixed(4)]));
for (const type of types) {
  const file = path.join(dir, `${shape.name}-${type}.gguf`);
  const { promptIds } = writeQwenGguf(file, type, { shape });
  const mha = await mhaPath(file, promptIds);
  const llama = await llamaPath(file, promptIds);
  const c = compare(mha, llama);
  const margin = (step) => step && step[0][1] - step[1][1];
  let line = `${shape.name} ${type}: greedy ids equal for ${c.agree} of ${c.of} new tokens; top-1 − top-k gaps differ by median ${fmt(c.gapMedian)}, max ${fmt(c.gapMax)}`;
  if (c.part)
    line += `; parting at new token ${c.agree + 1}: mha-wasm ${top3(c.part.a)} (margin ${fmt(margin(c.part.a))}), llama.cpp ${top3(c.part.b)} (margin ${fmt(margin(c.part.b))})`;
  if (process.argv.includes('--transformers')) {
    const pathFile = path.join(dir, `${type}.path.json`);
    const outFile = path.join(dir, `${type}.transformers.json`);
    writeFileSync(pathFile, JSON.stringify({ promptIds, steps: mha }));
    const script = new URL('../tests/tools/gguf_top_logits.py', import.meta.url).pathname;
    execFileSync(
      'bash',
      inChrootArgs(['python3', script, dir, path.basename(file), pathFile, outFile], [path.dirname(script)]),
      {
        stdio: 'ignore',
      },
    );
    const hf = JSON.parse(readFileSync(outFile, 'utf8')).steps;
    let worst = 0;
    hf.forEach((step, i) =>
      step.forEach(([id, v]) => {
        const u = mha[i].find((e) => e[0] === id);
        if (u) worst = Math.max(worst, Math.abs(u[1] - v));
      }),
    );
    const ids = hf.filter((step, i) => step[0][0] === mha[i][0][0]).length;
    line += `; transformers' dequantized model along mha-wasm's path: the same top-1 at ${ids} of ${hf.length} steps, top-5 logits within ${worst.toExponential(1)}`;
    if (c.part) line += `, its top-3 where the engines part ${top3(hf[c.agree])}`;
  }
  console.log(line);
  if (!process.argv.includes('--keep')) rmSync(file, { force: true });
}
