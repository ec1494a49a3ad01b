// The recipes of examples/ (webpack 5, esbuild esm and iife, Rollup, Vite),
// built the way their comments say, by each bundler's own CLI or script in a
// child process (bundlers do not run inside Jest's VM), into a folder under
// test-output/. That folder is inside this repository, so 'mha-wasm',
// 'mha-wasm/train' and 'mha-wasm/model' resolve as in an app that installed the package: through
// package.json's "exports" (self-reference). Used by bundlers.test.mjs and
// csp.test.mjs.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sirv from 'sirv';
import { exampleCall } from '../../examples/shared/app.mjs';
import { referenceAttention } from '../js/helpers/reference.mjs';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
const bin = (file) => path.join(REPO, 'node_modules', file);
const example = (file) => path.join(REPO, 'examples', file);

/** A new folder under test-output/ for this run's builds. */
export function workFolder(prefix) {
  mkdirSync(path.join(REPO, 'test-output'), { recursive: true });
  return mkdtempSync(path.join(REPO, 'test-output', prefix));
}

function run(args, cwd = REPO) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env: { ...process.env, NODE_OPTIONS: '' } });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(output) : reject(new Error(`${args.join(' ')} failed (${code}):\n${output}`)),
    );
  });
}

// What every example app runs (examples/shared/app.mjs), by absolute path
// for the apps written below.
const SHARED_APP = JSON.stringify(fileURLToPath(new URL('../../examples/shared/app.mjs', import.meta.url)));

// Apps the tests build besides the examples, each an entry main.js (and an
// index.html for Vite's root). `locate`: pass locateFile as the esbuild recipe does.
const APPS = {
  // Imports 'mha-wasm/train'; window.mhaTrain(fixture) runs a trainer fixture of tests/fixtures/train.
  train: (locate) => `import { createAttention } from 'mha-wasm/train';
const floats = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Float32Array.from(v)]));
window.mhaTrain = async (f) => {
  const engine = await createAttention({ training: true${locate ? ', locateFile: (fileName) => `mha-wasm/${fileName}`' : ''} });
  try {
    const trainer = await engine.createTrainer({ ...f.config, seed: 7 });
    await trainer.setParameters(floats(f.initial));
    await trainer.setData({ sentences: f.sentences });
    const { losses } = await trainer.train({ steps: f.steps, batchSize: f.sentences.length });
    return { variant: engine.variant, threads: engine.threads, training: engine.training, losses: [...losses] };
  } finally {
    engine.dispose();
  }
};
`,
  // Imports 'mha-wasm/model'; window.mhaModel(base, names, text) loads the
  // checkpoint whose files are at base + name and runs it on text.
  model: (locate) => `import { createAttention } from 'mha-wasm/model';
window.mhaModel = async (base, names, text) => {
  const engine = await createAttention(${locate ? '{ locateFile: (fileName) => `mha-wasm/${fileName}` }' : ''});
  try {
    const files = await Promise.all(
      names.map(async (name) => new File([await (await fetch(base + name)).arrayBuffer()], name)),
    );
    const model = await engine.loadModel(files);
    const r = await model.run(text, { returnAttention: true });
    return { variant: engine.variant, threads: engine.threads, tokens: r.tokens, inputIds: [...r.inputIds],
      lastHiddenState: [...r.lastHiddenState], attention: [...r.attention] };
  } finally {
    engine.dispose();
  }
};
`,
  // Every file from another origin (a CDN): the page's ?files= is where they are.
  cdn: () => `import { createAttention } from 'mha-wasm';
import { runExample } from ${SHARED_APP};
const files = new URLSearchParams(location.search).get('files');
runExample(createAttention, { locateFile: (fileName) => files + fileName });
`,
};

function writeApp(dir, app, locate) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'main.js'), APPS[app](locate));
  writeFileSync(
    path.join(dir, 'index.html'),
    `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>${app}</title>` +
      '<script type="module" src="./main.js"></script>',
  );
  return path.join(dir, 'main.js');
}

/**
 * Builds recipe `name` into `work`/<name>[-<app>]: the example app, or one of
 * APPS (through the recipe's config or script, with that entry). Resolves to
 * the output folder.
 */
export async function buildRecipe(name, work, { app } = {}) {
  const out = path.join(work, app ? `${name}-${app}` : name);
  const entry = app ? writeApp(path.join(work, `${name}-${app}-src`), app, name.startsWith('esbuild')) : undefined;
  if (name === 'webpack')
    await run([
      bin('webpack-cli/bin/cli.js'),
      '--config',
      example('webpack/webpack.config.mjs'),
      '--output-path',
      out,
      ...(entry ? ['--entry', entry] : []),
    ]);
  else if (name === 'esbuild-esm' || name === 'esbuild-iife')
    await run([example('esbuild/build.mjs'), name.slice('esbuild-'.length), out, ...(entry ? [entry] : [])]);
  else if (name === 'rollup')
    await run([
      bin('rollup/dist/bin/rollup'),
      '--config',
      example('rollup/rollup.config.mjs'),
      '--dir',
      out,
      ...(entry ? ['--input', entry] : []),
    ]);
  else if (name === 'vite') {
    // The example's config; for the other apps, a config of their own whose
    // root is that app (the example's 'mha-wasm' alias would not let
    // 'mha-wasm/train' or 'mha-wasm/model' through).
    let config = example('vite/vite.config.mjs');
    if (entry) {
      config = path.join(path.dirname(entry), 'vite.config.mjs');
      writeFileSync(
        config,
        `export default { root: ${JSON.stringify(path.dirname(entry))}, build: { target: 'es2022' }, logLevel: 'warn' };\n`,
      );
    }
    // --base ./: the test's server serves each build under a folder of its own.
    await run([bin('vite/bin/vite.js'), 'build', '--config', config, '--base', './', '--outDir', out, '--emptyOutDir']);
  } else throw new Error(`no recipe ${name}`);
  return out;
}

/** Every file under `dir`, relative, with its size. */
export function emitted(dir) {
  return readdirSync(dir, { recursive: true })
    .filter((file) => statSync(path.join(dir, file)).isFile())
    .map((file) => ({ file, bytes: statSync(path.join(dir, file)).size }));
}

/**
 * Serves `root` on 127.0.0.1: /isolated/… with the COOP and COEP headers
 * (threads), /plain/… without, and `headers` on every response.
 */
export async function serve(root, headers = {}) {
  const files = sirv(root, { dev: true });
  const server = createServer((req, res) => {
    const [, mode, ...rest] = req.url.split('/');
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    if (mode === 'isolated') {
      res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
      res.setHeader('Cross-Origin-Embedder-Policy', 'require-corp');
    } else if (mode !== 'plain') {
      res.statusCode = 404;
      return res.end();
    }
    req.url = `/${rest.join('/')}`;
    files(req, res, () => {
      res.statusCode = 404;
      res.end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** What every example app computes (examples/shared/app.mjs), by the float64 reference. */
export function exampleReference() {
  return referenceAttention(exampleCall());
}

/** A model fixture's folder (tests/fixtures/models), its files' names and its PyTorch reference. */
export function modelFixture(name = 'bert-zh') {
  const folder = path.join(REPO, 'tests/fixtures/models', name);
  const names = readdirSync(folder).filter((file) => file !== 'reference.json');
  return { folder, names, reference: JSON.parse(readFileSync(path.join(folder, 'reference.json'), 'utf8')) };
}

/** A trainer fixture (tests/fixtures/train), from PyTorch in float64. */
export function trainFixture(name = 'two_heads') {
  return JSON.parse(readFileSync(path.join(REPO, 'tests/fixtures/train', `${name}.json`), 'utf8'));
}
