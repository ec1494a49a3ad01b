// The builds' file names: CMakeLists.txt's targets, variantFiles() (the rule
// in JS) and the URLs that inferenceUrls() (files.mjs) and trainUrls()
// (train-files.mjs) spell out as literals for bundlers must agree, and every
// file must be in dist/ after a build. The trainer's builds and code must be
// reachable only from the 'mha-wasm/train' entry, the models' only from
// 'mha-wasm/model', so that bundles of apps that never train or load a model
// leave them out.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import * as esbuild from 'esbuild';
import { FAMILIES, VARIANTS, inferenceUrls, variantFiles } from '../../src/js/files.mjs';
import { trainUrls } from '../../src/js/train-files.mjs';
import { TOKENIZER_WORKER, modelUrls, tokenizerWorkerUrl } from '../../src/js/model-files.mjs';
import { TOKENIZER_WORKER_BUILD } from '../../scripts/build-tokenizer-worker.mjs';
import { ENTRY_CODE, JINJA_LIBRARY, TOKENIZER_LIBRARY, markersIn } from './helpers/entry-code.mjs';

const URLS = { inference: inferenceUrls, train: trainUrls, model: modelUrls };

const SRC = fileURLToPath(new URL('../../src/js/', import.meta.url));

for (const family of FAMILIES)
  for (const variant of VARIANTS)
    test(`${family} build ${variant}: names, URLs and files agree`, () => {
      const names = variantFiles(variant, family);
      const urls = URLS[family]()[variant];
      expect(Object.keys(urls).sort()).toEqual(Object.keys(names).sort());
      for (const [role, name] of Object.entries(names)) {
        const file = fileURLToPath(urls[role]);
        expect(file.endsWith(`/dist/${name}`)).toBe(true);
        expect(existsSync(file)).toBe(true);
      }
    });

// Emscripten >= 3.1.69's pthreads start from the glue: no build has a
// separate pthread worker script, and none is left in dist/ (scripts/build.sh
// removes those of the Emscripten 3.1.6 builds), where npm pack would ship it.
test('every build is its glue and its .wasm, and dist/ holds no pthread worker script', () => {
  for (const family of FAMILIES)
    for (const variant of VARIANTS) expect(Object.keys(variantFiles(variant, family))).toEqual(['glue', 'wasm']);
  const dist = fileURLToPath(new URL('../../dist/', import.meta.url));
  expect(readdirSync(dist).filter((name) => name.endsWith('.worker.js'))).toEqual([]);
});

// What a page or an npm user downloads for attention stays small: every
// inference .wasm within 150 KB (150,000 bytes), whatever the issue of the
// day adds to the engine (the trainer and the models have builds of their own).
test.each(VARIANTS)('inference build %s: the .wasm is at most 150,000 bytes', (variant) => {
  const { size } = statSync(fileURLToPath(inferenceUrls()[variant].wasm));
  expect(size).toBeLessThanOrEqual(150_000);
});

// An entry as a bundler sees it: esbuild's bundle of it (minified, so
// comments are gone), with the modules it took in.
async function bundle(entry, format) {
  const { outputFiles, metafile } = await esbuild.build({
    entryPoints: [path.join(SRC, entry)],
    bundle: true,
    format,
    globalName: 'mha',
    minify: true,
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  return { code: outputFiles[0].text, modules: Object.keys(metafile.inputs) };
}
// The files a bundle references as new URL('…', import.meta.url), as paths.
const literalFiles = (code) =>
  [...code.matchAll(/new URL\("([^"]+)",import\.meta\.url\)/g)].map((m) => path.join(SRC, m[1]));

// Each entry and the families of builds its bundle carries: the attention
// builds always, the trainer's and the models' only through their subpaths.
const ENTRIES = [
  ['browser.mjs', ['inference']],
  ['train.mjs', ['inference', 'train']],
  ['model-entry.mjs', ['inference', 'model']],
];

test.each(ENTRIES)(
  "%s: the bundle references every file of its families' builds and the engine's scripts, no other, each existing",
  async (entry, families) => {
    const { code } = await bundle(entry, 'esm');
    const files = literalFiles(code);
    const want = [path.join(SRC, 'engine-worker.js'), path.join(SRC, 'engine-host.js')];
    for (const family of families)
      for (const variant of VARIANTS)
        for (const name of Object.values(variantFiles(variant, family))) want.push(path.join(SRC, '../../dist', name));
    if (families.includes('model')) want.push(path.join(SRC, '../../dist', TOKENIZER_WORKER));
    expect(files.sort()).toEqual(want.sort());
    for (const file of files) expect(existsSync(file)).toBe(true);
    for (const family of FAMILIES.filter((f) => f !== 'inference' && !families.includes(f)))
      expect(code).not.toMatch(new RegExp(`mha-${family}-`));
  },
);

test.each(ENTRIES)(
  "%s: the bundle carries the trainer's and the models' JS only when its entry offers them",
  async (entry, families) => {
    const { code, modules } = await bundle(entry, 'esm');
    for (const family of ['train', 'model']) {
      const { modules: own, markers } = ENTRY_CODE[family];
      const taken = modules.filter((m) => own.some((pattern) => pattern.test(m)));
      if (families.includes(family)) {
        // Each module and marker where it belongs, so that their absence elsewhere means something.
        for (const pattern of own) expect(taken.some((m) => pattern.test(m))).toBe(true);
        expect(markersIn(code, family)).toEqual(markers);
      } else {
        expect(taken).toEqual([]);
        expect(markersIn(code, family)).toEqual([]);
      }
    }
  },
);

// The browsers' tokenizer runs in a Worker of its own, from one classic script with the tokenizers library
// inside (scripts/build-tokenizer-worker.mjs): no entry's bundle carries the library, and the worker
// script needs no other file (no import, no importScripts: a bundler copies it as it is).
test("the tokenizers and Jinja libraries are in the tokenizer's worker alone, which needs no other file", async () => {
  for (const [entry] of ENTRIES) {
    const { code, modules } = await bundle(entry, 'esm');
    for (const library of [TOKENIZER_LIBRARY, JINJA_LIBRARY]) {
      expect([entry, modules.some((m) => library.module.test(m))]).toEqual([entry, false]);
      expect([entry, code.includes(library.marker)]).toEqual([entry, false]);
    }
  }
  const file = fileURLToPath(tokenizerWorkerUrl());
  expect(file.endsWith(`/dist/${TOKENIZER_WORKER}`)).toBe(true);
  const worker = readFileSync(file, 'utf8');
  expect(worker).toContain(TOKENIZER_LIBRARY.marker);
  expect(worker).toContain(JINJA_LIBRARY.marker); // chat templates, rendered where the tokenizer runs
  expect(worker).toContain('not a tokenizer this package reads'); // serve.mjs
  expect(worker).not.toMatch(/\bimport\s*[({"'*]|\bimportScripts\s*\(|\brequire\s*\(/);
  // Built from today's sources: the same bytes as esbuild makes of them now (else run npm run build).
  const { outputFiles } = await esbuild.build({ ...TOKENIZER_WORKER_BUILD, write: false, logLevel: 'silent' });
  expect(outputFiles[0].text === worker).toBe(true);
});

describe.each(ENTRIES.map(([entry]) => entry))('%s bundled without import.meta (esbuild iife)', (entry) => {
  let mha;
  beforeAll(async () => {
    const { code } = await bundle(entry, 'iife');
    // A page's globals, no more: loading the bundle must not touch import.meta.url.
    const page = {
      ...{ URL, WebAssembly, Blob, SharedArrayBuffer, console, crossOriginIsolated: true },
      ...{ location: new URL('https://example.test/app/'), navigator: { hardwareConcurrency: 2 } },
    };
    mha = vm.runInNewContext(`${code}; mha`, page);
  });

  test('loads, and createAttention without locateFile says to pass locateFile', async () => {
    expect(typeof mha.createAttention).toBe('function');
    await expect(mha.createAttention({ variant: 'simd' })).rejects.toThrow(
      /cannot tell where engine-worker\.js is: import\.meta\.url is not available.*locateFile/,
    );
  });

  test('locateFile is asked for every file, with no default URL', async () => {
    const asked = [];
    const locateFile = (fileName, defaultUrl) => {
      asked.push([fileName, defaultUrl]);
      return `mha-wasm/${fileName}`;
    };
    // No Worker in this context: the start fails after every file was located.
    await expect(mha.createAttention({ variant: 'threaded-simd', locateFile })).rejects.toThrow(
      /could not start the engine worker from https:\/\/example\.test\/app\/mha-wasm\/engine-worker\.js/,
    );
    expect(asked.map(([name]) => name).sort()).toEqual(
      ['engine-host.js', 'engine-worker.js', ...Object.values(variantFiles('threaded-simd'))].sort(),
    );
    expect(asked.every(([, defaultUrl]) => defaultUrl === undefined)).toBe(true);
  });
});

test.each([
  ['browser.mjs', 'mha-wasm'],
  ['model-entry.mjs', 'mha-wasm/model'],
])("%s refuses training: true and points at 'mha-wasm/train'", async (entry, name) => {
  const { createAttention } = await import(`../../src/js/${entry}`);
  await expect(createAttention({ training: true })).rejects.toThrow(
    new TypeError(
      `training: '${name}' loads only the builds without the trainer; for createTrainer(), ` +
        "import { createAttention } from 'mha-wasm/train' and call createAttention({ training: true })",
    ),
  );
});
