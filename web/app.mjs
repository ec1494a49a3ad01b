// The demo page's wiring. One state object (state.mjs, mirrored in the URL);
// a change either recomputes (through the engine, in its Worker) or only
// re-renders. Data flows one way: state → spec → engine → run → views; views
// report user intents back here as state patches, never touch the engine.
import { parseState, formatState } from './state.mjs';
import { specFor, runSpec, allHeads } from './model/compute.mjs';
import { headCsv, headJson } from './model/export-data.mjs';
import { headTitle } from './model/head-names.mjs';
import { D_MODEL as X_WIDTH } from './model/features.mjs';
import { downloadPng, downloadSvg, downloadText } from './lib/download.mjs';
import { fillNumbers } from './lib/dom.mjs';
import { renderSentence } from './views/sentence-view.mjs';
import { Controls } from './views/controls.mjs';
import { HeadsGrid } from './views/heads-grid.mjs';
import { CompareView } from './views/compare.mjs';
import { HeadView } from './views/head-view.mjs';
import { PipelineView } from './views/pipeline.mjs';
import { TrainView } from './views/train.mjs';
import { engineText, showStatus } from './views/status.mjs';

const $ = (id) => document.getElementById(id);
const state = parseState(location.search);
let engine = null;
let run = null;

// Each view renders in its own task, so the main thread stays responsive while a
// run is drawn (the engine itself already computes in a Worker).
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

function showError(error) {
  const box = $('error');
  box.textContent = `Stopped: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`;
  box.hidden = false;
}

/** Keeps the state consistent with the run (a head or token that no longer exists is dropped). */
function fitState() {
  const names = allHeads(run).map((h) => h.name);
  if (!names.includes(state.head)) state.head = run.heads[0].name;
  if (state.lines) state.lines = state.lines.filter((n) => names.includes(n));
  const sideLength = state.lock?.side === 'key' ? run.cols : run.rows;
  if (state.lock && state.lock.index >= sideLength) state.lock = null;
}

function writeUrl() {
  // The run's first head is the default one: a link leaves it out.
  const shown = run && state.head === run.heads[0].name ? { ...state, head: '' } : state;
  history.replaceState(null, '', formatState(shown) || location.pathname);
}

const views = {};
function createViews() {
  views.controls = new Controls(document, {
    onMode: (mode) => setState({ mode, lock: null, lines: null, head: '' }, 'compute'),
    onSharpness: (sharpness) => setState({ sharpness }, 'compute'),
    onFree: (free) => setState({ ...free, mode: 'free', lock: null, lines: null, head: '' }, 'compute'),
  });
  views.grid = new HeadsGrid($('heads-grid'), {
    onSelect: (head, q) =>
      setState({ head, lock: { side: 'query', index: q } }, ['grid', 'bar', 'headView', 'pipeline']),
  });
  views.compare = new CompareView($('compare'));
  views.headView = new HeadView($('head-view'), {
    onLock: (lock) => setState({ lock }, ['grid', 'headView']),
    onLines: (lines) => setState({ lines }, ['headView']),
    onLayout: (layout) => setState({ layout }, ['headView']),
  });
  views.pipeline = new PipelineView($('pipeline'), {
    onStage: (stage) => setState({ stage }, ['pipeline']),
    onHead: (head) => setState({ head }, ['grid', 'bar', 'pipeline']),
  });
  // Training has its own state, and its own engine (the build with the trainer), loaded when first asked for.
  views.train = new TrainView($('train'), {
    onError: showError,
    options: state.train,
    onOptions: (train) => setState({ train }, []),
  });
  $('overlay').addEventListener('change', (e) => setState({ overlay: e.target.checked }, ['grid']));
  $('current-head').addEventListener('change', (e) => setState({ head: e.target.value }, ['grid', 'pipeline']));
  const fileName = (ext) => `mha-${run.mode}-${state.head}.${ext}`;
  $('export-csv').addEventListener('click', () => downloadText(headCsv(run, state.head), fileName('csv'), 'text/csv'));
  $('export-json').addEventListener('click', () =>
    downloadText(
      headJson(run, state.head, {
        variant: engine.variant,
        sharpness: run.mode === 'free' ? undefined : state.sharpness,
      }),
      fileName('json'),
      'application/json',
    ),
  );
  $('export-svg').addEventListener('click', () => downloadSvg(views.grid.svgOf(state.head), fileName('svg')));
  $('export-png').addEventListener('click', () =>
    downloadPng(views.grid.svgOf(state.head), fileName('png')).catch(showError),
  );
  $('copy-link').addEventListener('click', async (e) => {
    const button = e.currentTarget;
    try {
      await navigator.clipboard.writeText(location.href);
      button.textContent = 'Link copied';
    } catch {
      button.textContent = 'Copy the address bar: it holds this view';
    }
  });
}

// Views below the first screen render only once their section comes near the
// viewport (and again whenever they are stale and come back into view): the
// first render after the engine answers stays small, and dragging the slider
// only redraws what can be seen. data-stale marks a section waiting for that.
const LAZY = { compare: 'compare', headView: 'head-view', pipeline: 'pipeline' };
const near = new Set();
function watchSections() {
  const observer = new IntersectionObserver(
    (entries) => {
      const due = [];
      for (const entry of entries) {
        const part = Object.keys(LAZY).find((p) => LAZY[p] === entry.target.id);
        if (!entry.isIntersecting) near.delete(part);
        else if (!near.has(part)) {
          near.add(part);
          if (entry.target.dataset.stale) due.push(part);
        }
      }
      if (due.length) render(due).catch(showError);
    },
    { rootMargin: '400px 0px' },
  );
  for (const id of Object.values(LAZY)) observer.observe($(id));
}

/** Renders the given views (all by default) from the current run and state. */
async function render(parts = ['controls', 'bar', 'grid', 'compare', 'headView', 'pipeline']) {
  if (!run) return;
  const draw = {
    controls: () => views.controls.update(state, run),
    bar: () => {
      const select = $('current-head');
      const options = allHeads(run)
        .map((h) => h.name)
        .join();
      if (select.dataset.options !== options) {
        select.replaceChildren(...allHeads(run).map((h) => new Option(headTitle(h.name), h.name)));
        select.dataset.options = options;
      }
      select.value = state.head;
      $('overlay').checked = state.overlay;
    },
    grid: () => views.grid.update(run, state),
    compare: () => views.compare.update(run),
    headView: () => views.headView.update(run, state),
    pipeline: () => views.pipeline.update(run, state),
  };
  document.body.dataset.mode = run.mode;
  // Shown or hidden at once, even while its drawing waits: only runs with a single head have a comparison.
  $('compare').hidden = !run.single;
  for (const part of parts) {
    const section = LAZY[part] && $(LAZY[part]);
    if (section && !near.has(part)) {
      section.dataset.stale = 'true';
      continue;
    }
    await draw[part]();
    if (section) delete section.dataset.stale;
    if (parts.length > 2) await nextTask();
  }
}

// Recomputation is coalesced: while the engine works, further requests (a
// dragged slider) only mark the state dirty, and one more run follows.
let computing = false;
let dirty = false;
async function compute() {
  if (computing) {
    dirty = true;
    return;
  }
  computing = true;
  try {
    do {
      dirty = false;
      try {
        run = await runSpec(engine, specFor(state));
        $('error').hidden = true;
      } catch (error) {
        // Bad free-mode input (say, a link with an empty sentence): say why, and
        // keep showing the last good run, or the default view if there is none.
        showError(error);
        if (run) state.mode = run.mode;
        else {
          Object.assign(state, { mode: 'encoder', head: '' });
          dirty = true;
          continue;
        }
      }
      fitState();
      writeUrl();
      await render();
      showStatus($('status'), engine, run);
    } while (dirty);
  } finally {
    computing = false;
  }
}

/** Applies a patch; 'compute' recomputes, a list of view names only re-renders those. */
function setState(patch, what) {
  Object.assign(state, patch);
  if (run) fitState();
  writeUrl();
  if (what === 'compute') compute().catch(showError);
  else render(what).catch(showError);
}

async function main() {
  renderSentence($('sentence'));
  fillNumbers($('about'), { 'x-width': X_WIDTH });
  createViews();
  watchSections();
  views.controls.update(state, null);
  if (typeof WebAssembly !== 'object')
    throw new Error(
      'this browser has no WebAssembly, which the engine needs; try a current Chrome, Firefox or Safari.',
    );
  // Imported here rather than at the top, so that a missing or broken engine
  // file is reported on the page instead of silently stopping this module.
  const { createAttention } = await import('../src/js/browser.mjs');
  engine = await createAttention();
  $('status').textContent = engineText(engine);
  views.train.enable(async () => (await import('../src/js/train.mjs')).createAttention({ training: true }));
  await compute();
  document.body.dataset.ready = 'true';
}

window.addEventListener('error', (event) => showError(event.error ?? event.message));
window.addEventListener('unhandledrejection', (event) => showError(event.reason));
main().catch(showError);
