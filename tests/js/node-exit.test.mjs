// An engine that is never disposed must not keep Node alive, and one that
// becomes unreachable is freed (its threads ended) by the garbage collector.
// Each case runs in a child process of its own.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BUILDS, VARIANTS, WASM_FLAGS } from './helpers/engines.mjs';

const entry = JSON.stringify(fileURLToPath(new URL('../../src/js/node.mjs', import.meta.url)));
const prelude = `
  const { createAttention } = await import(${entry});
  const ones = (k) => new Float32Array(k).fill(0.5);
  const args = { seqLenQ: 2, dModel: 4, numHeads: 2, query: ones(8), wQ: ones(16), wK: ones(16), wV: ones(16), wO: ones(16) };
  const { readFileSync } = await import('node:fs');
  const threads = () => Number(readFileSync('/proc/self/status', 'utf8').match(/Threads:\\s+(\\d+)/)[1]);`;

// Runs `body` as an ES module in a new Node; returns its last line parsed and
// how long the process lived after printing it.
function run(body, flags = []) {
  const script = `${prelude}\n${body}\nconsole.log(JSON.stringify({ ...result, at: Date.now() }));`;
  const child = spawnSync(process.execPath, [...WASM_FLAGS, ...flags, '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 20000,
  });
  const ended = Date.now();
  if (child.error) throw child.error; // a timeout: the process never exited
  expect(child.status).toBe(0);
  const result = JSON.parse(child.stdout.trim().split('\n').pop());
  return { ...result, lingeredMs: ended - result.at };
}

test.each(VARIANTS)(
  '%s: Node exits by itself with an engine never disposed, after a call and a refused call',
  (variant) => {
    const { output, refused, lingeredMs } = run(`
    const engine = await createAttention(${JSON.stringify(BUILDS[variant])});
    const { output } = await engine.multiHeadAttention(args);
    const refused = await engine.multiHeadAttention({ ...args, dModel: 5 }).catch((e) => e.constructor.name);
    const result = { output: Array.from(output), refused };`);
    expect(output).toHaveLength(8);
    expect(refused).toBe('RangeError');
    expect(lingeredMs).toBeLessThan(1000);
  },
);

test('20 engines forgotten undisposed: the garbage collector ends their threads and frees their memory', () => {
  const { threads, rssMiB } = run(
    `
    const before = threads();
    // Held until counted (a busy machine's collector once freed some during the loop: 13 threads, not 31),
    // then forgotten, never disposed.
    let engines = [];
    for (let i = 0; i < 20; i++) {
      const engine = await createAttention({ variant: 'threaded-simd', threads: 2 });
      await engine.multiHeadAttention(args);
      engines.push(engine);
    }
    const forgotten = threads(), forgottenRss = process.memoryUsage().rss;
    engines = null;
    for (let i = 0; i < 10; i++) {
      globalThis.gc();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const result = { threads: [before, forgotten, threads()], rssMiB: [forgottenRss, process.memoryUsage().rss].map((b) => b / 2 ** 20) };`,
    ['--expose-gc'],
  );
  // Each threaded engine holds one pool thread here (2 threads, the caller being one).
  expect(threads[1]).toBeGreaterThanOrEqual(threads[0] + 20);
  expect(threads[2]).toBeLessThanOrEqual(threads[0] + 2);
  expect(rssMiB[0] - rssMiB[1]).toBeGreaterThan(50);
});
