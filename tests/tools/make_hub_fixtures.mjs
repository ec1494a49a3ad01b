// Makes tests/fixtures/hub/: a huggingface_hub cache written by Python itself
// (python-cache/, which tests/js/hub.test.mjs loads offline) and the report
// of huggingface_hub and transformers reading the cache the engine's loader
// wrote (python-report.json). Needs the built dist/ and the transformers
// chroot (bash tests/tools/make-hf-chroot.sh, once; root). Run:
//
//   node tests/tools/make_hub_fixtures.mjs [CHROOT_DIR]   (default /var/tmp/sid-root)
//
// CI never runs this: its outputs are committed.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { cpSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';
import { HubServer, folderFiles } from './hub-server.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CHROOT = process.argv[2] ?? '/var/tmp/sid-root';
const FOLDER = 'hf-xlm-roberta-bin-sharded';
const REPO = `mha-wasm-tests/${FOLDER}`;
const MODEL = path.join(ROOT, 'tests/fixtures/models', FOLDER);
const OUT = path.join(ROOT, 'tests/fixtures/hub');

// Inside the chroot the work folder is bound at the same path.
const work = mkdtempSync(path.join(ROOT, 'test-output', 'hub-'));
const pythonCache = path.join(work, 'python-cache');
const nodeCache = path.join(work, 'node-cache');
const server = await new HubServer({ repos: { [REPO]: { files: folderFiles(MODEL) } } }).start();
try {
  const engine = await createAttention({ threads: 1 });
  await engine.loadModel(REPO, { endpoint: server.url, cacheDir: nodeCache });
  engine.dispose();
  // Not execFileSync: the server answers Python from this process's event loop.
  const { stdout: report } = await promisify(execFile)(
    'bash',
    [
      path.join(ROOT, 'tests/tools/make-hf-chroot.sh'),
      '--run',
      CHROOT,
      '--bind',
      ROOT,
      '--',
      'python3',
      path.join(ROOT, 'tests/tools/check_hub_cache.py'),
      '--endpoint',
      server.url,
      '--repo',
      REPO,
      '--python-cache',
      pythonCache,
      '--node-cache',
      nodeCache,
      '--reference',
      path.join(MODEL, 'reference.json'),
    ],
    { encoding: 'utf8', maxBuffer: 16 << 20 },
  );
  const json = JSON.parse(report.slice(report.indexOf('{')));
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  // The cache as Python left it, without its lock files (empty, and fcntl's only).
  cpSync(pythonCache, path.join(OUT, 'python-cache'), {
    recursive: true,
    verbatimSymlinks: true,
    filter: (src) => !src.includes(`${path.sep}.locks`),
  });
  writeFileSync(path.join(OUT, 'python-report.json'), `${JSON.stringify(json, null, 2)}\n`);
  console.log(JSON.stringify(json, null, 2));
  console.log(`requests Python made: ${server.requests.filter((r) => r.port === 'hub').length}`);
} finally {
  await server.stop();
  rmSync(work, { recursive: true, force: true });
}
