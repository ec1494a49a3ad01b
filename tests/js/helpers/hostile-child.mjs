// The hostile-checkpoint suite's cases (hostile-checkpoints.mjs) on one
// engine, in a process of its own, so that a crash or a hang is a failure the
// suite reports by the case's name rather than a dead Jest run:
//   node hostile-child.mjs <createAttention options as JSON> <case index>…
// Loads the good model, then for each case prints { start } and, once the
// case is over, { end, outcome: { value } | { error }, same (the good model's
// bits unchanged), before, after (the engine's wasm memory) } as JSON lines.
import { createAttention } from '../../../src/js/node.mjs';
import { CASES, GOOD, SENTENCE } from './hostile-checkpoints.mjs';

const [options, ...indices] = process.argv.slice(2);
const say = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

const engine = await createAttention(JSON.parse(options));
const good = await engine.loadModel(GOOD);
const bits = (r) =>
  Buffer.concat([r.lastHiddenState, r.attention].map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength)));
const want = bits(await good.run(SENTENCE));
const sameBits = (result) => bits(result).equals(want);
// A model's first load sizes the model build's buffers, which it keeps; the baseline is after it.
(await engine.loadModel(GOOD)).dispose();
const memory = async () => {
  const { inUseBytes, heapBytes, models } = await engine.memoryStats();
  return { inUseBytes, heapBytes, models: { inUseBytes: models?.inUseBytes, heapBytes: models?.heapBytes } };
};
say({ ready: { variant: engine.variant, threads: engine.threads } });

for (const index of indices.map(Number)) {
  say({ start: index });
  const before = await memory();
  const started = performance.now();
  let outcome;
  try {
    outcome = { value: (await CASES[index].act(engine, { sameBits })) ?? null };
  } catch (error) {
    const { code, file, field } = error ?? {};
    outcome = {
      error: {
        name: error?.constructor?.name ?? typeof error,
        message: String(error?.message ?? error),
        code,
        file,
        field,
      },
    };
  }
  const ms = performance.now() - started;
  const same = sameBits(await good.run(SENTENCE));
  say({ end: index, outcome, ms, same, before, after: await memory() });
}
good.dispose();
engine.dispose();
