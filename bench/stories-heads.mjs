// Which heads karpathy's trained stories260K needs (issue 38): mha-wasm/analysis
// on a real trained Llama (5 layers × 8 query heads, 4 key-value heads: query
// heads 2k and 2k+1 share key-value head k) for a few story prompts. For each
// prompt: the greedy continuation of NEW_TOKENS tokens (the reference, scored
// as its log-probability, teacher-forced), headImportance's delta for every
// head, the pruningCurve one head at a time (steps = every head) and the number
// of heads switched off before the re-decoded continuation first changes, each
// layer switched off whole, each layer reduced to its most important head
// (oneHeadPerLayer) and every layer so reduced at once (withHeadsOff).
// Everything printed is computed here; nothing is compared with stored numbers.
// Usage: node --experimental-wasm-relaxed-simd bench/stories-heads.mjs [--dir <folder>] [--new-tokens N] [prompt …]
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createAttention } from '../src/js/node.mjs';
import { headImportance, oneHeadPerLayer, pruningCurve, withHeadsOff } from '../src/js/analysis/index.mjs';
import { cpuModel } from './inputs.mjs';

const PROMPTS = [
  'Once upon a time, there was a little girl named Lily. She',
  'One day, Tom went to the park with his mom. He saw a big',
  'Lily and Ben were friends. They liked to',
];

const { values, positionals } = parseArgs({
  options: {
    dir: { type: 'string', default: path.resolve('../shared/fixtures/real/stories260K') },
    'new-tokens': { type: 'string', default: '10' },
  },
  allowPositionals: true,
});
const newTokens = Number(values['new-tokens']);
const prompts = positionals.length ? positionals : PROMPTS;
const f = (x, d = 2) => (x >= 0 ? ' ' : '') + x.toFixed(d);
const q = (s) => JSON.stringify(s);

const engine = await createAttention({ threads: 1 });
const model = await engine.loadModel(values.dir);
const { numLayers: layers, numHeads: heads } = model.config;
const offMask = (off) =>
  Array.from({ length: layers }, (_, l) => Array.from({ length: heads }, (_, h) => (off(l, h) ? 0 : 1)));
console.log(
  `stories260K (${values.dir}): ${layers} layers × ${heads} heads, ${model.config.numKVHeads} key-value heads; ` +
    `${engine.variant}, ${engine.threads} thread; ${cpuModel()}; Node ${process.version}; ${newTokens} new tokens, greedy\n`,
);
const started = performance.now();
const perLayer = Array.from({ length: layers }, () => []); // every prompt's layer sums, for the summary

for (const prompt of prompts) {
  const options = { newTokens };
  const importance = await headImportance(model, prompt, options);
  const { reference } = importance;
  const delta = importance.groups.decoder.delta;
  console.log(`prompt ${q(prompt)} (${reference.inputIds.length} tokens)`);
  console.log(`  continuation ${q(reference.text)}, log-probability ${reference.score.toFixed(3)}`);
  console.log(`  delta (log-probability with the head alone off − with every head; negative: the head helps):`);
  console.log(`  layer ${Array.from({ length: heads }, (_, h) => `h${h}`.padStart(7)).join('')}    sum`);
  for (let l = 0; l < layers; l++) {
    const row = Array.from(delta.subarray(l * heads, (l + 1) * heads));
    const sum = row.reduce((a, b) => a + b, 0);
    perLayer[l].push(sum);
    console.log(`  ${String(l).padStart(5)} ${row.map((d) => f(d).padStart(7)).join('')} ${f(sum).padStart(7)}`);
  }
  const top = importance.order.slice(-5).reverse();
  console.log(`  most important: ${top.map((h) => `L${h.layer}h${h.head} ${f(h.delta)}`).join(', ')}`);
  const helpless = importance.order.filter((h) => h.delta > -0.1).length;
  console.log(`  heads whose removal alone costs less than 0.1 nats: ${helpless} of ${layers * heads}`);

  // One head at a time, least important first: where the continuation first changes.
  const curve = await pruningCurve(model, prompt, { ...options, importance, steps: layers * heads });
  const points = curve.curves.decoder;
  const firstChange = points.find((p) => p.output.text !== reference.text);
  const kept = firstChange ? firstChange.headsOff - 1 : layers * heads;
  const most = points.filter((p) => p.output.text === reference.text).at(-1).headsOff;
  console.log(
    `  pruning (fixed order, least important first): the same continuation with ${kept} heads off; ` +
      (firstChange
        ? `at ${firstChange.headsOff} (score ${firstChange.score.toFixed(2)}): ${q(firstChange.output.text)}`
        : 'never changes'),
  );
  console.log(`  the most heads off with the same continuation anywhere on the curve: ${most}`);
  for (const share of [0.25, 0.5, 0.75, 1]) {
    const p = points.find((x) => x.headsOff === Math.round(share * layers * heads));
    console.log(`    ${String(p.headsOff).padStart(2)} off: score ${f(p.score).padStart(7)} ${q(p.output.text)}`);
  }

  // Each layer off whole; each layer reduced to its best head; every layer so reduced at once.
  const one = await oneHeadPerLayer(model, prompt, { ...options, importance });
  for (let l = 0; l < layers; l++) {
    const whole = await withHeadsOff(model, prompt, { ...options, headMask: offMask((x) => x === l) });
    const best = one.layers.decoder[l];
    console.log(
      `  layer ${l} off: delta ${f(whole.delta).padStart(7)} ${q(whole.output.text)}; ` +
        `only its h${best.head}: delta ${f(best.score - reference.score).padStart(7)}`,
    );
  }
  const keep = one.layers.decoder.map((x) => x.head);
  const reduced = await withHeadsOff(model, prompt, { ...options, headMask: offMask((l, h) => h !== keep[l]) });
  console.log(
    `  one head per layer (${keep.map((h, l) => `L${l}h${h}`).join(' ')}): delta ${f(reduced.delta)} ${q(reduced.output.text)}`,
  );
  const single = one.single.decoder;
  console.log(
    `  only L${single.layer}h${single.head} in the whole model: delta ${f(single.score - reference.score)} ${q(single.output.text)}\n`,
  );
}
console.log(
  `layer sums of the single-head deltas, per prompt: ${perLayer.map((s, l) => `L${l} [${s.map((x) => x.toFixed(2)).join(', ')}]`).join('; ')}`,
);
console.log(`${((performance.now() - started) / 1000).toFixed(1)} s`);
model.dispose();
engine.dispose();
