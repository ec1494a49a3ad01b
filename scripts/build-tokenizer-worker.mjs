// Bundles the browsers' tokenizer worker (src/js/models/tokenizers/web-worker.mjs
// with @huggingface/tokenizers, @huggingface/jinja and the package's tokenizer code) into one
// classic script, dist/mha-model-tokenizer.js: a Worker resolves no bare
// import (import maps do not reach workers), a bundler copies a file it finds
// as new URL('…', import.meta.url) without looking inside, and esbuild's
// recipe copies dist/ as it is, so the worker must need no other file.
// scripts/build.sh runs this (node scripts/build-tokenizer-worker.mjs) after the
// wasm builds; it takes well under a second.
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const here = (file) => fileURLToPath(new URL(file, import.meta.url));
const packageOf = (name) => JSON.parse(readFileSync(here(`../node_modules/${name}/package.json`), 'utf8'));
const library = packageOf('@huggingface/tokenizers');
// The chat templates' renderer (models/tokenizers/chat-render.mjs): templates render where the tokenizer runs.
const jinja = packageOf('@huggingface/jinja');

/** esbuild's options for the worker (tests/js/files.test.mjs builds it again to check that dist/ is up to date). */
export const TOKENIZER_WORKER_BUILD = {
  entryPoints: [here('../src/js/models/tokenizers/web-worker.mjs')],
  outfile: here('../dist/mha-model-tokenizer.js'),
  bundle: true,
  format: 'iife',
  minify: true,
  target: 'es2022',
  // The library runs in browsers: its package.json's "browser" entry.
  platform: 'browser',
  banner: {
    js:
      "// mha-wasm: the browsers' tokenizer worker (src/js/models/tokenizers/web-worker.mjs), with " +
      `${library.name} ${library.version} (${library.license}, https://github.com/huggingface/tokenizers.js) and ` +
      `${jinja.name} ${jinja.version} (${jinja.license}, https://github.com/huggingface/huggingface.js) inside.`,
  },
  logLevel: 'warning',
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  await esbuild.build(TOKENIZER_WORKER_BUILD);
