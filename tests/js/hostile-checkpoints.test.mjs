// The hostile-checkpoint suite (issue 27): every input of
// helpers/hostile-checkpoints.mjs — each one that once crashed, hung, leaked,
// gave a silently wrong result or an unclear message — through the public
// API on one build of each kind of memory (helpers/engines.mjs: MEMORY_BUILDS;
// the files are refused before any kernel runs) and in a { worker: true } engine. Each build's cases run
// in a child process (helpers/hostile-child.mjs), several to a process: a
// case that kills its process or answers nothing within CASE_SECONDS is that
// case's failure, by name, and the cases after it go on in a fresh process.
// A case marked oneEngine (the tokenizer's 10 s bound) runs on the first engine only.
// After each case the engine's good model must give the same bits and the
// engine's wasm memory in use must be where it was. The counts by kind go to
// test-output/hostile-report.json.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isThreaded } from '../../src/js/variants.mjs';
import { MEMORY_BUILDS, MEMORY_VARIANTS, WASM_FLAGS } from './helpers/engines.mjs';
import { CASES, KINDS } from './helpers/hostile-checkpoints.mjs';

const CHILD = fileURLToPath(new URL('./helpers/hostile-child.mjs', import.meta.url));
const REPORT = fileURLToPath(new URL('../../test-output/hostile-report.json', import.meta.url));
// A case's bound: the slowest (a tokenizer stopped at its 10 s limit) takes about 11 s.
const CASE_SECONDS = 45;
const START_SECONDS = 60;

// A build of each kind of memory (helpers/engines.mjs), and the threaded one in a { worker: true } engine.
const threaded = MEMORY_VARIANTS.find(isThreaded);
const CONFIGS = [
  ...Object.entries(MEMORY_BUILDS),
  ...(threaded ? [[`${threaded}, { worker: true }`, { ...MEMORY_BUILDS[threaded], worker: true }]] : []),
];

/**
 * Runs the cases `indices` on an engine of `options` in child processes:
 * resolves to Map(index → the child's { end } record, or { crashed }).
 */
async function runCases(options, indices) {
  const results = new Map();
  let left = [...indices];
  while (left.length) {
    const { done, crashed } = await runChild(options, left);
    for (const [index, record] of done) results.set(index, record);
    if (crashed) results.set(crashed.index, { crashed: crashed.reason });
    const finished = new Set(results.keys());
    left = left.filter((i) => !finished.has(i));
    if (!crashed && left.length) {
      // The child ended without crashing and without doing all: report the rest as such.
      for (const i of left) results.set(i, { crashed: 'never run: the child process stopped before it' });
      left = [];
    }
  }
  return results;
}

// One child process over `indices`: { done: [[index, record]], crashed?: { index, reason } }.
function runChild(options, indices) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...WASM_FLAGS, CHILD, JSON.stringify(options), ...indices.map(String)], {
      env: { ...process.env, NODE_OPTIONS: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const done = [];
    let current = null; // the case started and not ended
    let stderr = '';
    let buffered = '';
    let timer;
    let killedFor = null;
    const watch = (seconds, what) => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        killedFor = `${what}: no answer in ${seconds} s (a hang), so its process was killed`;
        child.kill('SIGKILL');
      }, seconds * 1000);
    };
    watch(START_SECONDS, 'starting the engine and the good model');
    child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
    child.stdout.on('data', (d) => {
      buffered += d;
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        const message = JSON.parse(buffered.slice(0, nl));
        buffered = buffered.slice(nl + 1);
        if (message.start !== undefined) {
          current = message.start;
          watch(CASE_SECONDS, 'this case');
        } else if (message.end !== undefined) {
          done.push([message.end, message]);
          current = null;
          watch(CASE_SECONDS, 'the good model after the case');
        }
      }
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const failed = code !== 0 || signal !== null;
      const index = current ?? indices.find((i) => !done.some(([d]) => d === i));
      if (!failed || index === undefined) return resolve({ done });
      const reason = killedFor ?? `its process died (exit code ${code}, signal ${signal}): ${stderr.trim()}`;
      resolve({ done, crashed: { index, reason } });
    });
  });
}

const results = {}; // config label → Map(index → record)
// The cases an engine runs: all on the first, those not marked oneEngine on the others.
const casesOf = (label) => CASES.flatMap((c, index) => (label === CONFIGS[0][0] || !c.oneEngine ? [index] : []));

beforeAll(async () => {
  // Two processes at a time: the machine may have two cores.
  const queue = [...CONFIGS];
  const next = async () => {
    for (let config = queue.shift(); config; config = queue.shift())
      results[config[0]] = await runCases(config[1], casesOf(config[0]));
  };
  await Promise.all([next(), next()]);
  const report = {
    cases: CASES.length,
    byKind: Object.fromEntries(KINDS.map((kind) => [kind, CASES.filter((c) => c.kind === kind).length])),
    refused: CASES.filter((c) => c.expect.refused).length,
    accepted: CASES.filter((c) => c.expect.value).length,
    engines: Object.fromEntries(
      Object.entries(results).map(([label, map]) => [
        label,
        {
          passedThrough: [...map.values()].filter((r) => !r.crashed).length,
          seconds: [...map.values()].reduce((sum, r) => sum + (r.ms ?? 0), 0) / 1000,
        },
      ]),
    ),
  };
  mkdirSync(fileURLToPath(new URL('../../test-output/', import.meta.url)), { recursive: true });
  writeFileSync(REPORT, `${JSON.stringify(report, null, 2)}\n`);
}, 600_000);

describe.each(CONFIGS.map(([label]) => label))('%s', (label) => {
  test.each(casesOf(label).map((index) => [CASES[index].kind, CASES[index].name, index]))(
    '%s: %s',
    (kind, name, index) => {
      const r = results[label].get(index);
      const c = CASES[index];
      expect(r.crashed).toBeUndefined();
      if (c.expect.refused) {
        const [type, message, fields] = c.expect.refused;
        expect(r.outcome.value).toBeUndefined();
        expect(r.outcome.error.name).toBe(type);
        expect(r.outcome.error.message).toMatch(message);
        // The error's own code, file and field (a RegExp: the fields it matches), where the case names them.
        if (fields) {
          const { code, file, field } = r.outcome.error;
          expect({ code, file }).toEqual({ code: fields.code, file: fields.file });
          if (fields.field instanceof RegExp) expect(field).toMatch(fields.field);
          else expect(field).toBe(fields.field);
        }
      } else {
        expect(r.outcome.error).toBeUndefined();
        c.expect.value(r.outcome.value, expect);
      }
      // The good model gives the same bits after the case; the memory the case used is all given back.
      expect(r.same).toBe(true);
      expect([r.after.inUseBytes, r.after.models.inUseBytes]).toEqual([
        r.before.inUseBytes,
        r.before.models.inUseBytes,
      ]);
      if (c.heap) expect(r.after.models.heapBytes).toBe(r.before.models.heapBytes);
    },
  );
});
