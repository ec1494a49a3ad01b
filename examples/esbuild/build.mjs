// `node examples/esbuild/build.mjs [esm|iife] [outDir] [entry]` bundles entry
// (default main.js) with esbuild into outDir (default examples/esbuild/dist/)
// beside index.html, and copies there, under mha-wasm/, the files the engine
// loads at run time, which esbuild does not copy (so main.js passes
// locateFile): the engine's worker scripts (src/js/engine-worker.js,
// engine-host.js), the attention builds (dist/mha-*.js, .wasm), the
// trainer's builds (dist/mha-train-*) only if the app imports 'mha-wasm/train',
// and the models' builds (dist/mha-model-*) only if it imports 'mha-wasm/model'.
// Serve outDir with the COOP and COEP headers for the threaded build.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const here = (file) => fileURLToPath(new URL(file, import.meta.url));
const [format = 'esm', outDir = here('./dist/'), entry = here('./main.js')] = process.argv.slice(2);
if (format !== 'esm' && format !== 'iife') throw new Error(`format: expected esm or iife, got ${format}`);

rmSync(outDir, { recursive: true, force: true });
const { metafile } = await esbuild.build({
  entryPoints: [entry],
  bundle: true,
  format,
  minify: true,
  target: 'es2022',
  outfile: path.join(outDir, 'main.js'),
  metafile: true,
  // import.meta is empty in an iife; mha-wasm then uses locateFile only.
  logOverride: { 'empty-import-meta': 'silent' },
});

// The package's folder: 'mha-wasm/package.json' is in its "exports".
const pkg = path.dirname(createRequire(import.meta.url).resolve('mha-wasm/package.json'));
const imports = (file) => Object.keys(metafile.inputs).some((input) => input.endsWith(file));
const wanted = { 'mha-train-': imports('src/js/train.mjs'), 'mha-model-': imports('src/js/model-entry.mjs') };
const files = [
  ...readdirSync(path.join(pkg, 'dist'))
    .filter(
      (name) =>
        /^mha-.*\.(js|wasm)$/.test(name) &&
        Object.entries(wanted).every(([prefix, wants]) => wants || !name.startsWith(prefix)),
    )
    .map((name) => path.join(pkg, 'dist', name)),
  path.join(pkg, 'src/js/engine-worker.js'),
  path.join(pkg, 'src/js/engine-host.js'),
];
mkdirSync(path.join(outDir, 'mha-wasm'));
for (const file of files) copyFileSync(file, path.join(outDir, 'mha-wasm', path.basename(file)));

// A module script for esm, a classic one for iife.
const html = readFileSync(here('./index.html'), 'utf8');
writeFileSync(
  path.join(outDir, 'index.html'),
  format === 'esm' ? html : html.replace('<script type="module" ', '<script defer '),
);
