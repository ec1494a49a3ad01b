// A generated TypeScript program checked against the package's declarations and then run: written to a
// folder of test-output/ (inside the repository, so that 'mha-wasm' resolves to its own "types", the
// package's self-reference), compiled by tsc --strict, transpiled by esbuild and imported. Used by the tests
// in which the declarations and the runtime must agree (types-runtime, types-kinds-runtime).
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import * as esbuild from 'esbuild';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));

/** tsc's output on `source` (''  when it compiles cleanly), and the program's module, run as JavaScript. */
export async function compileAndImport(name, source) {
  const work = path.join(REPO, 'test-output', name);
  mkdirSync(work, { recursive: true });
  writeFileSync(path.join(work, 'calls.ts'), source);
  writeFileSync(
    path.join(work, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'es2022',
        module: 'esnext',
        moduleResolution: 'bundler',
        lib: ['es2022', 'dom'],
        types: [],
        strict: true,
        noEmit: true,
        skipLibCheck: false,
      },
      files: ['calls.ts'],
    }),
  );
  const tscOutput = await promisify(execFile)(
    process.execPath,
    [path.join(REPO, 'node_modules/typescript/bin/tsc'), '-p', work],
    { cwd: REPO },
  ).then(
    () => '',
    (error) => `${error.stdout}${error.stderr}`,
  );
  const { code } = await esbuild.transform(source, { loader: 'ts', format: 'esm' });
  writeFileSync(path.join(work, 'calls.mjs'), code);
  return { tscOutput, module: await import(pathToFileURL(path.join(work, 'calls.mjs')).href) };
}

/** tsc's errors in calls.ts, each named by the case whose lines hold it (`where[i]`: case i's checked line). */
export function errorsByCase(tscOutput, where, labels) {
  return tscOutput
    .split('\n')
    .filter((line) => /calls\.ts\(\d+,\d+\): error/.test(line))
    .map((line) => {
      const n = Number(/calls\.ts\((\d+),/.exec(line)[1]);
      const i = where.findIndex((w) => w === n || w === n + 1);
      return `${i >= 0 ? labels[i] : `line ${n}`}: ${line.replace(/^.*error /, '')}`;
    });
}
