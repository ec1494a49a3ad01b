// [slow] The published package: `npm pack` (without the prepack build, dist/
// must already be built), install the tarball into an empty folder, then load it
// the way users do — `require('mha-wasm')` and `import { createAttention } from
// 'mha-wasm'` — in plain `node` child processes, outside Jest and outside this
// repository. About 10 s; skip it with `npx jest tests/js`.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm, writeFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { loadFixture, FIXTURES_DIR } from '../js/helpers/fixtures.mjs';
import { expectClose } from '../js/helpers/compare.mjs';
import { VARIANTS } from '../../src/js/files.mjs';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURE = 'cross_attention';
const fixturePath = fileURLToPath(new URL(`${FIXTURE}.json`, FIXTURES_DIR));

// Shared by both scripts: run one fixture on every build, print the results as JSON.
const body = (fixtureFile) => `
  const fs = require('node:fs');
  const fx = JSON.parse(fs.readFileSync(${JSON.stringify(fixtureFile)}, 'utf8'));
  const args = { returnAttention: true };
  for (const k of ['batch', 'seqLenQ', 'seqLenK', 'dModel', 'numHeads', 'dK', 'dV', 'causal']) args[k] = fx[k];
  for (const k of ['query', 'key', 'value', 'wQ', 'wK', 'wV', 'wO', 'bQ', 'bK', 'bV', 'bO'])
    args[k] = fx[k] === null ? undefined : Float32Array.from(fx[k]);
  args.keyPaddingMask = fx.keyPaddingMask === null ? undefined : Uint8Array.from(fx.keyPaddingMask);
  const results = {};
  for (const options of [undefined, { variant: 'simd' }, { variant: 'scalar' }, { variant: 'threaded-simd', threads: 2 }]) {
    const engine = await createAttention(options);
    const { output, attention } = await engine.multiHeadAttention(args);
    results[engine.variant + '/' + engine.threads + (options ? '' : ' (default)')] = { output: Array.from(output), attention: Array.from(attention) };
    engine.dispose();
  }
  console.log(JSON.stringify({ resolved: RESOLVED, results }));
`;
const CJS = (f) => `'use strict';
const { createAttention } = require('mha-wasm');
const RESOLVED = require.resolve('mha-wasm');
(async () => {${body(f)}})().catch((e) => { console.error(e); process.exit(1); });
`;
const ESM = (f) => `import { createAttention } from 'mha-wasm';
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const RESOLVED = import.meta.resolve('mha-wasm');
${body(f)}`;

// The 'mha-wasm/train' subpath: a trainer fixture (tests/fixtures/train, from PyTorch) on the build with the trainer.
const TRAIN_FIXTURE = fileURLToPath(new URL('../fixtures/train/two_heads.json', import.meta.url));
const trainBody = (fixtureFile) => `
  const f = JSON.parse(require('node:fs').readFileSync(${JSON.stringify(fixtureFile)}, 'utf8'));
  const floats = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Float32Array.from(v)]));
  const engine = await createAttention({ training: true, variant: 'simd' });
  const trainer = await engine.createTrainer({ ...f.config, seed: 7 });
  await trainer.setParameters(floats(f.initial));
  await trainer.setData({ sentences: f.sentences });
  const { losses } = await trainer.train({ steps: f.steps, batchSize: f.sentences.length });
  engine.dispose();
  console.log(JSON.stringify({ resolved: RESOLVED, training: engine.training, losses: Array.from(losses), want: f.losses }));
`;
const TRAIN_CJS = (f) => `'use strict';
const { createAttention } = require('mha-wasm/train');
const RESOLVED = require.resolve('mha-wasm/train');
(async () => {${trainBody(f)}})().catch((e) => { console.error(e); process.exit(1); });
`;
const TRAIN_ESM = (f) => `import { createAttention } from 'mha-wasm/train';
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const RESOLVED = import.meta.resolve('mha-wasm/train');
${trainBody(f)}`;

// The 'mha-wasm/model' subpath: a tiny checkpoint (tests/fixtures/models, from PyTorch) loaded from its folder.
const MODEL_FOLDER = fileURLToPath(new URL('../fixtures/models/bert-zh', import.meta.url));
const MODEL_ESM = (folder) => `import { createAttention } from 'mha-wasm/model';
import { existsSync, readFileSync, statSync } from 'node:fs';
const ref = JSON.parse(readFileSync(${JSON.stringify(`${folder}/reference.json`)}, 'utf8'));
const c = ref.cases.find((x) => x.name === 'sentence');
const engine = await createAttention({ variant: 'simd' });
const model = await engine.loadModel(${JSON.stringify(folder)});
const r = await model.run(c.input);
engine.dispose();
console.log(JSON.stringify({ resolved: import.meta.resolve('mha-wasm/model'), tokens: r.tokens, want: c.tokens,
  got: Array.from(r.lastHiddenState), wantHidden: c.lastHiddenState, tolerance: ref.tolerance }));
`;

/** Folders (relative to the repository) of the packages a user's install of mha-wasm brings, from package-lock.json. */
function runtimeDependencies() {
  const lock = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8'));
  const declared = Object.keys(JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).dependencies ?? {});
  const folders = Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && !entry.dev && !entry.devOptional && !entry.link)
    .map(([path]) => path);
  // Every declared dependency is among them, or the lock file is stale.
  for (const name of declared) expect(folders).toContain(`node_modules/${name}`);
  return folders;
}

describe('[slow] npm pack, install, require and import', () => {
  let work;
  let app;
  let files;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'mha-wasm-pack-'));
    const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
      cwd: repo,
    });
    const [packed] = JSON.parse(stdout);
    files = packed.files.map((f) => f.path);
    app = join(work, 'app');
    await run('mkdir', ['-p', app]);
    await writeFile(
      join(app, 'package.json'),
      JSON.stringify({ name: 'pack-test-app', version: '1.0.0', private: true }),
    );
    // The package's dependencies come as tarballs packed from this repository's
    // node_modules (the versions package-lock.json pins), installed beside it
    // with --offline and an empty cache of the test's own: npm then resolves
    // mha-wasm's dependency ranges against them and asks no registry, so the
    // test passes on a machine that has never installed anything (a warm
    // ~/.npm was once all that made it pass).
    const dependencies = [];
    for (const folder of runtimeDependencies()) {
      const { stdout: out } = await run(
        'npm',
        ['pack', '--ignore-scripts', '--json', '--pack-destination', work, folder],
        {
          cwd: repo,
        },
      );
      dependencies.push(join(work, JSON.parse(out)[0].filename));
    }
    const cache = join(work, 'empty-npm-cache');
    await run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--offline',
        '--cache',
        cache,
        join(work, packed.filename),
        ...dependencies,
      ],
      { cwd: app, env: { ...process.env, npm_config_cache: cache } },
    );
  }, 90_000);

  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  test('the tarball holds the builds (attention, trainer, models), the JS sources and the README, and nothing else', async () => {
    for (const family of ['', 'train-', 'model-']) {
      for (const variant of VARIANTS) {
        expect(files).toContain(`dist/mha-${family}${variant}.js`);
        expect(files).toContain(`dist/mha-${family}${variant}.wasm`);
      }
    }
    const jsSources = (await readdir(join(repo, 'src/js'), { recursive: true }))
      .filter((f) => statSync(join(repo, 'src/js', f)).isFile())
      .map((f) => `src/js/${f}`);
    expect(files).toEqual(expect.arrayContaining([...jsSources, 'package.json']));
    if ((await readdir(repo)).includes('README.md')) expect(files).toContain('README.md');
    const unexpected = files.filter(
      (f) =>
        !/^(dist\/mha-[\w-]+\.(js|wasm)|src\/js\/(?:[\w-]+\/)*[\w-]+\.(mjs|cjs|js|d\.ts)|docs\/[\w-]+\.md|(README|ARCHITECTURE|CONTRIBUTING|THIRD_PARTY_NOTICES)\.md|package\.json|LICENSE)$/.test(
          f,
        ),
    );
    expect(unexpected).toEqual([]);
    expect(files.filter((f) => /\.(cpp|hpp|h|cc)$|^tests\/|node_modules\/|^build\/|CMakeLists/.test(f))).toEqual([]);
    // The licence and the notices of what dist/ bundles; the demo's pictures stay in the repository.
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'THIRD_PARTY_NOTICES.md']));
    expect(files.filter((f) => /\.(png|jpe?g)$/.test(f))).toEqual([]);
  });

  test("the notices name the tokenizers and Jinja libraries' versions as dist/ bundles them, and xsimd's as the builds compile it", () => {
    const notices = readFileSync(join(repo, 'THIRD_PARTY_NOTICES.md'), 'utf8');
    const tokenizers = JSON.parse(
      readFileSync(join(repo, 'node_modules/@huggingface/tokenizers/package.json'), 'utf8'),
    );
    expect(readFileSync(join(repo, 'dist/mha-model-tokenizer.js'), 'utf8')).toContain(
      `${tokenizers.name} ${tokenizers.version} (${tokenizers.license}`,
    );
    expect(notices).toContain(
      `${tokenizers.name}](https://github.com/huggingface/tokenizers.js) ${tokenizers.version}`,
    );
    expect(notices).toContain(`Apache-2.0`);
    const jinja = JSON.parse(readFileSync(join(repo, 'node_modules/@huggingface/jinja/package.json'), 'utf8'));
    expect(readFileSync(join(repo, 'dist/mha-model-tokenizer.js'), 'utf8')).toContain(
      `${jinja.name} ${jinja.version} (${jinja.license}`,
    );
    expect(notices).toContain(
      `${jinja.name}](https://github.com/huggingface/huggingface.js/tree/main/packages/jinja) ${jinja.version}`,
    );
    expect(notices).toContain('BSD-3-Clause');
    const include = process.env.XSIMD_INCLUDE_DIR || join(repo, '.deps/xsimd/usr/include'); // scripts/configure.sh's
    const xsimd = readFileSync(join(include, 'xsimd/config/xsimd_config.hpp'), 'utf8');
    const major = /#define XSIMD_VERSION_MAJOR (\d+)/.exec(xsimd)[1];
    expect(notices).toContain(`[xsimd](https://github.com/xtensor-stack/xsimd) ${major} (`);
  });

  test('npm pack runs no set-up: its prepack only checks dist/, and says what to do without it', async () => {
    const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
    expect(pkg.scripts.prepack).toBe('node scripts/check-dist.mjs');
    await run('node', [join(repo, 'scripts/check-dist.mjs')]);
    // The same script in a copy of the repository's layout without dist/.
    const copy = join(work, 'no-dist');
    for (const file of ['scripts/check-dist.mjs', 'src/js/files.mjs', 'src/js/model-files.mjs']) {
      await run('mkdir', ['-p', join(copy, file, '..')]);
      await run('cp', [join(repo, file), join(copy, file)]);
    }
    const failed = await run('node', [join(copy, 'scripts/check-dist.mjs')]).catch((e) => e);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(
      /^mha-wasm: npm pack: dist\/ lacks \d+ of the \d+ built files .*Install mha-wasm from the npm registry/,
    );
  });

  test("every relative link of the README points at a file in the tarball; every picture at the repository's", () => {
    const readme = readFileSync(join(repo, 'README.md'), 'utf8');
    const pictures = [...readme.matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]);
    expect(pictures.length).toBeGreaterThan(2);
    const RAW = 'https://raw.githubusercontent.com/mha-wasm/mha-wasm/main/';
    expect(pictures.filter((p) => !p.startsWith(RAW) || !existsSync(join(repo, p.slice(RAW.length))))).toEqual([]);
    const targets = [...readme.matchAll(/\]\(([^)\s]+)\)/g)]
      .map((m) => m[1])
      .filter((t) => !/^[a-z]+:/.test(t) && !t.startsWith('#'))
      .map((t) => t.replace(/#.*$/, ''));
    expect(targets.length).toBeGreaterThan(2);
    expect(targets.filter((t) => !files.includes(t))).toEqual([]);
  });

  test("every path the README names in code is in the tarball; the repository's own files are links to them", async () => {
    const readme = readFileSync(join(repo, 'README.md'), 'utf8');
    // `dist/mha-train-*`, `src/js/index.d.ts`, `dist/`: a file, a pattern or a folder of the tarball.
    const named = [
      ...readme.matchAll(/`((?:src|dist|docs|tests|bench|bench-output|examples|web|scripts)\/[^`\s]*)`/g),
    ].map((m) => m[1]);
    expect(named.length).toBeGreaterThan(2);
    const matches = (pattern) => {
      const re = new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}`);
      return files.some((f) => re.test(f));
    };
    expect(named.filter((p) => !matches(p))).toEqual([]);
    // Links into the repository go to its "repository" URL and name a file or folder it has.
    const { repository } = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
    const tree = `${repository.url.replace(/^git\+/, '').replace(/\.git$/, '')}/tree/main/`;
    const host = new URL(tree).origin;
    const links = [...readme.matchAll(/\]\((https?:[^)\s]+)\)/g)].map((m) => m[1]).filter((u) => u.startsWith(host));
    const inRepo = (await run('git', ['ls-files'], { cwd: repo })).stdout.split('\n');
    for (const link of links.filter((u) => u.includes('/mha-wasm/mha-wasm'))) {
      expect(link.startsWith(tree)).toBe(true);
      const rel = link.slice(tree.length);
      expect(inRepo.some((f) => f === rel || f.startsWith(`${rel}/`))).toBe(true);
    }
  });

  test.each([
    ['CommonJS require', 'check.cjs', CJS],
    ['ES module import', 'check.mjs', ESM],
  ])(
    '%s of the installed package computes the fixture on every build',
    async (_, file, script) => {
      await writeFile(join(app, file), script(fixturePath));
      const { stdout } = await run(process.execPath, [file], {
        cwd: app,
        env: { ...process.env, NODE_OPTIONS: '' },
        timeout: 60_000,
      });
      const { resolved, results } = JSON.parse(stdout);
      // The copy in the app's node_modules, not this repository's sources.
      expect(resolved).toContain(`${app}/node_modules/mha-wasm/src/js/`.replace(/^\//, ''));
      const fx = loadFixture(FIXTURE);
      expect(Object.keys(results)).toEqual(
        expect.arrayContaining(['scalar/1', 'simd/1', 'threaded-simd/2', expect.stringMatching(/ \(default\)$/)]),
      );
      for (const [variant, { output, attention }] of Object.entries(results)) {
        expectClose(output, fx.want.output, fx.tolerance, `${variant} output`);
        expectClose(attention, fx.want.attention, fx.tolerance, `${variant} attention`);
      }
    },
    60_000,
  );

  test.each([
    ['CommonJS require', 'train.cjs', TRAIN_CJS],
    ['ES module import', 'train.mjs', TRAIN_ESM],
  ])(
    "%s of 'mha-wasm/train' trains as PyTorch does",
    async (_, file, script) => {
      await writeFile(join(app, file), script(TRAIN_FIXTURE));
      const { stdout } = await run(process.execPath, [file], {
        cwd: app,
        env: { ...process.env, NODE_OPTIONS: '' },
        timeout: 60_000,
      });
      const { resolved, training, losses, want } = JSON.parse(stdout);
      expect(resolved).toContain(`${app}/node_modules/mha-wasm/src/js/`.replace(/^\//, ''));
      expect(training).toBe(true);
      expectClose(losses, want, { abs: 1e-6, rel: 1e-5 }, 'losses');
    },
    60_000,
  );

  test("ES module import of 'mha-wasm/model' loads a checkpoint folder as PyTorch runs it", async () => {
    await writeFile(join(app, 'model.mjs'), MODEL_ESM(MODEL_FOLDER));
    const { stdout } = await run(process.execPath, ['model.mjs'], {
      cwd: app,
      env: { ...process.env, NODE_OPTIONS: '' },
      timeout: 60_000,
    });
    const { resolved, tokens, want, got, wantHidden, tolerance } = JSON.parse(stdout);
    expect(resolved).toContain(`${app}/node_modules/mha-wasm/src/js/`.replace(/^\//, ''));
    expect(tokens).toEqual(want);
    expectClose(got, wantHidden, { abs: tolerance.hiddenAbs, rel: tolerance.hiddenRel }, 'lastHiddenState');
  }, 60_000);
});
