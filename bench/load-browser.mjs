// Loading a checkpoint in headless Chromium (Debian's, through
// playwright-core), part of bench/load.mjs: from the files a user drops
// (File objects backed by the disk, which <input type=file> gives as a drop
// does) and from the browser's Cache API, after a first load by name from a
// local server that speaks the Hub's HTTP (tests/tools/hub-server.mjs) has
// kept the files there; and the first load from dropped files in each of
// `loads` fresh pages (what a user meets: a new engine, new memory). Each
// build in a browser of its own: the relaxed-SIMD one, which the page runs
// where Chromium validates it, and the SIMD128 one
// every other browser runs. In the demo page, idle once drawn (its server
// lets it reach the local Hub). Median of `loads` loads each way, the
// renderer process's peak RSS (VmHWM; the page, the engine and its Worker
// live in it), and the last hidden state of one run after each way's last
// load, which must be the same bits both ways.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { openPage, setUp } from '../tests/e2e/page-helpers.mjs';
import { HubServer, folderFiles } from '../tests/tools/hub-server.mjs';
import { median } from './inputs.mjs';

const REPO = 'mha-wasm-bench/bert-base-shaped';
export const BROWSER_BUILDS = ['threaded-relaxed-simd', 'threaded-simd'];

/** The peak RSS in bytes of Chromium's renderer processes now running (the largest). */
export function rendererPeakBytes() {
  let peak = 0;
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!cmdline.includes('--type=renderer')) continue;
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (hwm) peak = Math.max(peak, Number(hwm[1]) * 1024);
    } catch {
      // the process ended meanwhile
    }
  }
  return peak;
}

/** In the page: `loads` loads of `source` ('files': the input's; else a repo name), timed; the last one's run. */
function loadIn(page, { variant, source, endpoint, loads, inputIds }) {
  return page.evaluate(
    async ({ variant, source, endpoint, loads, inputIds }) => {
      const { createAttention } = await import('/src/js/model-entry.mjs');
      const engine = await createAttention({ variant });
      try {
        const allMs = [];
        let model;
        for (let i = 0; i < loads; i++) {
          model?.dispose();
          const t0 = performance.now();
          model =
            source === 'files'
              ? await engine.loadModel(document.querySelector('#files').files)
              : await engine.loadModel(source, { endpoint });
          allMs.push(performance.now() - t0);
        }
        const r = await model.run({ inputIds: Int32Array.from(inputIds) }, { returnAttention: false });
        model.dispose();
        return { allMs, hidden: Array.from(new Uint32Array(r.lastHiddenState.buffer)) };
      } catch (error) {
        return { failed: `${error.name}: ${error.message}` };
      } finally {
        engine.dispose();
      }
    },
    { variant, source, endpoint, loads, inputIds: Array.from(inputIds) },
  );
}

/**
 * The browser's loads of the checkpoint in `dir` (config.json, model.safetensors):
 * [{ build, ways: [{ way, medianMs, allMs } | { way, failed }], freshPageMs (a fresh page's first load from
 * dropped files, each), freshPageFailed?, firstByNameMs, peakRssBytes, sameBits }].
 */
export async function browserLoads(dir, { loads = 3, inputIds, log = () => {} }) {
  const hub = await new HubServer({ repos: { [REPO]: { files: folderFiles(dir) } } }).start();
  const rows = [];
  try {
    for (const variant of BROWSER_BUILDS) {
      log(`load: Chromium, ${variant}…\n`);
      const env = await setUp({ hubEndpoints: [hub.url], hubDownloadHosts: [hub.cdnUrl] });
      try {
        // The demo page (its server lets it reach the local Hub), once it has drawn its first run, with a file input.
        const pageWithFiles = async () => {
          const { page } = await openPage(env);
          await page.evaluate(() => {
            const input = Object.assign(document.createElement('input'), { type: 'file', id: 'files', multiple: true });
            document.body.append(input);
          });
          await page.setInputFiles('#files', [path.join(dir, 'config.json'), path.join(dir, 'model.safetensors')]);
          return page;
        };
        const row = { build: variant, ways: [], freshPageMs: [] };
        for (let i = 0; i < loads && !row.freshPageFailed; i++) {
          const fresh = await pageWithFiles();
          const r = await loadIn(fresh, { variant, source: 'files', loads: 1, inputIds });
          if (r.failed) row.freshPageFailed = r.failed;
          else row.freshPageMs.push(r.allMs[0]);
          await fresh.close();
        }
        const page = await pageWithFiles();
        const files = await loadIn(page, { variant, source: 'files', loads, inputIds });
        // The first load by name downloads into the Cache API; the next ones read it from there.
        const first = await loadIn(page, { variant, source: REPO, endpoint: hub.url, loads: 1, inputIds });
        const cached = await loadIn(page, { variant, source: REPO, endpoint: hub.url, loads, inputIds });
        for (const [way, r] of [
          ['dropped files', files],
          ['Cache API', cached],
        ])
          row.ways.push(r.failed ? { way, failed: r.failed } : { way, medianMs: median(r.allMs), allMs: r.allMs });
        row.firstByNameMs = first.allMs?.[0];
        row.peakRssBytes = rendererPeakBytes();
        row.sameBits =
          !row.freshPageFailed &&
          !files.failed &&
          !cached.failed &&
          files.hidden.every((x, i) => x === cached.hidden[i]) &&
          !first.failed;
        rows.push(row);
      } finally {
        await env.close();
      }
    }
  } finally {
    await hub.stop();
  }
  return rows;
}
