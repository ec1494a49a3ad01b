// The package's workers (the engine's with { worker: true }, a checkpoint's
// tokenizer) start under any options Node was started with, as production
// processes are: V8's (--max-old-space-size, --stack-size, --expose-gc),
// the process's (--title), NODE_OPTIONS, and --input-type with -e (which a
// Worker started from a file refuses, so it is left out). Each case is a
// child process that loads a checkpoint with a tokenizer (bert-zh) on an
// engine in a Worker and tokenizes and runs the sentence.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const NODE_ENTRY = fileURLToPath(new URL('../../src/js/node.mjs', import.meta.url));
const FOLDER = fileURLToPath(new URL('../fixtures/models/bert-zh/', import.meta.url));
const SCRIPT = `
const { createAttention } = await import(${JSON.stringify(NODE_ENTRY)});
const engine = await createAttention({ worker: true, threads: 2 });
const model = await engine.loadModel(${JSON.stringify(FOLDER)});
const r = await model.run('用毒毒毒蛇，毒蛇会不会被毒毒死');
console.log(JSON.stringify({ ids: r.inputIds.length, finite: r.lastHiddenState.every(Number.isFinite) }));
engine.dispose();
`;

let dir;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'mha-exec-argv-'));
  writeFileSync(path.join(dir, 'app.mjs'), SCRIPT);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * What the child printed, run with `args` before the script and `env`: the
 * script as a file (app.mjs), or given with -e and --input-type=module.
 */
function runChild(args, env = {}, asFile = true) {
  const script = asFile ? [path.join(dir, 'app.mjs')] : ['--input-type=module', '-e', SCRIPT];
  const out = execFileSync(process.execPath, [...args, ...script], {
    env: { ...process.env, NODE_OPTIONS: '', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return JSON.parse(out.trim().split('\n').at(-1));
}

test.each([
  [['--max-old-space-size=4096'], true],
  [['--stack-size=2000'], true],
  [['--expose-gc', '--title=mha-wasm-test'], true],
  [['--max-old-space-size=4096'], false],
  [['--max-old-space-size=4096', '--no-warnings', '--enable-source-maps', '--stack-size=2000'], false],
])('node %j (a file: %s): the tokenizer and the engine start in their Workers', (args, asFile) => {
  expect(runChild(args, {}, asFile)).toEqual({ ids: 17, finite: true });
});

test('NODE_OPTIONS=--max-old-space-size=4096: the same', () => {
  expect(runChild([], { NODE_OPTIONS: '--max-old-space-size=4096' })).toEqual({ ids: 17, finite: true });
});
