// The demo page's wiring. One state object (state.mjs, mirrored in the URL);
// a change either recomputes (through the engine, in its Worker) or only
// re-renders. Data flows one way: state → spec → engine → run → views; views
// report user intents back here as state patches, never touch the engine.
// theme.mjs has already chosen the language and written the markup's text.
import { readLink, formatState } from './state.mjs';
import { specFor, runSpec, allHeads } from './model/compute.mjs';
import { encoderSpec } from './model/designed-heads.mjs';
import { tokenize } from './model/tokenize.mjs';
import { headCsv, headJson } from './model/export-data.mjs';
import { headTitle } from './model/head-names.mjs';
import { headline } from './model/train-text.mjs';
import { thousands } from './lib/format.mjs';
import { startPageEngine, trainEntry } from './lib/package.mjs';
import { downloadPng, downloadSvg, downloadText } from './lib/download.mjs';
import { language, setLanguage, t, translateDom } from './lib/i18n.mjs';
import { roving } from './lib/roving.mjs';
import { pageParams } from './page-params.mjs';
import { renderSentence } from './views/sentence-view.mjs';
import { renderXBlocks } from './views/caveat.mjs';
import { Controls } from './views/controls.mjs';
import { HeadsGrid } from './views/heads-grid.mjs';
import { CompareView } from './views/compare.mjs';
import { HeadView } from './views/head-view.mjs';
import { PipelineView } from './views/pipeline.mjs';
import { NeuronView } from './views/neuron-view.mjs';
import { TrainView } from './views/train.mjs';
import { RealModelView } from './views/real-model.mjs';
import { engineText, showStatus } from './views/status.mjs';

const $ = (id) => document.getElementById(id);
const link = readLink(location.search);
const state = link.state;
let engine = null;
/** The last run; null while a free-mode sentence has no tokens (nothing is shown then). */
let run = null;
/** The training's summary once it finished, and its seeds and steps, for the note beside the designed heads. */
let trained = null;

// Each view renders in its own task, so the main thread stays responsive while a
// run is drawn (the engine itself already computes in a Worker).
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

function showError(error) {
  const box = $('error');
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  box.textContent = t('error.stopped', { message });
  box.hidden = false;
}

/** Says which parameters of the link the page could not use (and what it did instead). */
function showLinkProblems() {
  const note = $('link-note');
  const items = link.problems.filter((p) => p.value !== undefined).map((p) => `${p.param}=${p.value}`);
  const texts = [];
  if (items.length) texts.push(t('link.problems', { items: items.join(t('list.join')) }));
  for (const p of link.problems.filter((q) => q.used !== undefined)) texts.push(t('link.heads', p));
  note.textContent = texts.join(' ');
  note.hidden = texts.length === 0;
}

/** Keeps the state consistent with the run (a head, token or pair that no longer exists is dropped). */
function fitState() {
  const names = allHeads(run).map((h) => h.name);
  if (!names.includes(state.head)) state.head = run.heads[0].name;
  if (state.lines) state.lines = state.lines.filter((n) => names.includes(n));
  const sideLength = state.lock?.side === 'key' ? run.cols : run.rows;
  if (state.lock && state.lock.index >= sideLength) state.lock = null;
  if (state.pair && !(state.pair.q < run.rows && (state.pair.k === null || state.pair.k < run.cols))) state.pair = null;
}

function writeUrl() {
  // The run's first head is the default one: a link leaves it out; a pair without a key is the default key.
  const shown = { ...state };
  if (run && state.head === run.heads[0].name) shown.head = '';
  if (state.pair?.k === null || state.pair?.k === undefined) shown.pair = null;
  // The fragment stays: a reader who followed a link to a section (#real-model) and then moves a control keeps it.
  history.replaceState(null, '', (formatState(shown) || location.pathname) + location.hash);
}

const views = {};
function createViews() {
  views.controls = new Controls(document, {
    onLanguage: (lang) => changeLanguage(lang),
    onMode: (mode) => setState({ mode, lock: null, lines: null, head: '', pair: null }, 'compute'),
    onSharpness: (sharpness) => setState({ sharpness }, 'compute'),
    onFree: (free) => setState({ ...free, mode: 'free', lock: null, lines: null, head: '', pair: null }, 'compute'),
  });
  views.grid = new HeadsGrid($('heads-grid'), {
    onSelect: (head, q, k) =>
      setState({ head, lock: { side: 'query', index: q }, pair: { q, k } }, [
        'grid',
        'bar',
        'headView',
        'pipeline',
        'neuron',
      ]),
  });
  views.compare = new CompareView($('compare'));
  views.headView = new HeadView(
    $('head-view'),
    {
      onLock: (lock) => setState({ lock }, ['grid', 'headView']),
      onLines: (lines) => setState({ lines }, ['headView']),
      onLayout: (layout) => setState({ layout }, ['headView']),
    },
    { layout: state.layout },
  );
  views.pipeline = new PipelineView($('pipeline'), {
    onStage: (stage) => setState({ stage }, ['pipeline']),
    onHead: (head) => setState({ head }, ['grid', 'bar', 'pipeline', 'neuron']),
  });
  views.neuron = new NeuronView($('neuron'), {
    onHead: (head) => setState({ head, pair: null }, ['grid', 'bar', 'pipeline', 'neuron']),
    onPair: (pair) => setState({ pair }, ['neuron']),
  });
  // Training has its own state, and its own engine (the build with the trainer), loaded when first asked for.
  views.train = new TrainView($('train'), {
    onError: showError,
    options: state.train,
    onOptions: (train) => setState({ train }, []),
    onSummary: (summary, experiment) => {
      trained = { summary, ...experiment };
      showTrained();
    },
  });
  // A Hugging Face checkpoint the reader loads: the page's engine loads it (the model build, on first use).
  views.real = new RealModelView($('real-model'), {
    head: state.realHead,
    order: state.realOrder,
    onChange: (patch) => setState(patch, []),
  });
  $('overlay').addEventListener('change', (e) => setState({ overlay: e.target.checked }, ['grid']));
  $('current-head').addEventListener('change', (e) =>
    setState({ head: e.target.value }, ['grid', 'pipeline', 'neuron']),
  );
  const fileName = (ext) => `mha-${run.mode}-${state.head}.${ext}`;
  $('export-csv').addEventListener('click', () =>
    downloadText(headCsv(run, state.head, { corner: t('export.corner') }), fileName('csv'), 'text/csv'),
  );
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
  roving(document.querySelector('#heads .export'), 'button', { orientation: 'horizontal' });
  $('copy-link').addEventListener('click', async (e) => {
    const button = e.currentTarget;
    button.removeAttribute('data-i18n');
    try {
      await navigator.clipboard.writeText(location.href);
      button.textContent = t('copy.done');
    } catch {
      button.textContent = t('copy.failed');
    }
  });
  // The standard terms in the prose link to the mode or the stage that shows them.
  document.addEventListener('click', (e) => {
    const a = e.target.closest('a[data-mode], a[data-stage]');
    if (!a) return;
    e.preventDefault();
    if (a.dataset.mode) setState({ mode: a.dataset.mode, lock: null, lines: null, head: '', pair: null }, 'compute');
    else setState({ stage: a.dataset.stage }, ['pipeline']);
    $(a.dataset.mode ? 'heads' : 'pipeline').scrollIntoView({ block: 'start' });
  });
}

/** The training's own result in the note beside the designed heads, once it has one (the same sentence as its chart). */
function showTrained() {
  const own = document.querySelector('.caveat-own');
  const results = trained && headline(trained.summary);
  if (!own || !results) return;
  own.textContent = t('caveat.own', { results, seeds: trained.seeds, steps: thousands(trained.steps) });
}

/** Switches the page's language: the markup, every view, and the link. */
async function changeLanguage(lang) {
  state.lang = lang;
  setLanguage(lang);
  translateDom(document, pageParams());
  renderSentence($('sentence'));
  showLinkProblems();
  showTrained();
  views.train.relabel();
  views.real.relabel();
  writeUrl();
  if (engine) $('status').textContent = engineText(engine);
  await compute();
}

// Views below the first screen render only once their section comes near the
// viewport (and again whenever they are stale and come back into view): the
// first render after the engine answers stays small, and dragging the slider
// only redraws what can be seen. data-stale marks a section waiting for that.
const LAZY = { compare: 'compare', headView: 'head-view', pipeline: 'pipeline', neuron: 'neuron' };
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
async function render(parts = ['controls', 'bar', 'grid', 'compare', 'headView', 'pipeline', 'neuron']) {
  if (!run) return;
  const draw = {
    controls: () => views.controls.update(state, run),
    bar: () => {
      const select = $('current-head');
      const options = [language(), ...allHeads(run).map((h) => h.name)].join();
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
    neuron: () => views.neuron.update(run, state),
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

/**
 * A free-mode sentence without tokens: a message where the heatmaps were, and
 * no view of an earlier sentence left anywhere (empty = false undoes it).
 */
function showEmpty(empty) {
  document.body.toggleAttribute('data-empty', empty);
  $('empty').hidden = !empty;
  $('empty').textContent = empty ? t('empty.sentence') : '';
  if (!empty) return;
  run = null;
  document.body.dataset.mode = 'free';
  views.grid.clear();
  views.controls.update(state, null);
  renderXBlocks(document.querySelector('.x-blocks'), null);
  showStatus($('status'), engine, null);
}

// Recomputation is coalesced: while the engine works, further requests (a
// dragged slider) only mark the state dirty, and one more run follows. The
// body carries data-computing until the last run is drawn (the page's tests
// wait for it before they click what the drawing moves).
let computing = false;
let dirty = false;
async function compute() {
  if (computing) {
    dirty = true;
    return;
  }
  computing = true;
  document.body.dataset.computing = 'true';
  try {
    do {
      dirty = false;
      if (state.mode === 'free' && tokenize(state.text).tokens.length === 0) {
        showEmpty(true);
        $('error').hidden = true;
        writeUrl();
        continue;
      }
      try {
        run = await runSpec(engine, specFor(state));
        $('error').hidden = true;
      } catch (error) {
        // Not expected (the form and the link only give valid arguments): say why, keep the last good run.
        showError(error);
        if (!run) return;
      }
      showEmpty(false);
      fitState();
      writeUrl();
      renderXBlocks(document.querySelector('.x-blocks'), run);
      await render();
      showStatus($('status'), engine, run);
    } while (dirty);
  } finally {
    computing = false;
    delete document.body.dataset.computing;
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
  showLinkProblems();
  createViews();
  watchSections();
  views.controls.update(state, null);
  if (typeof WebAssembly !== 'object') throw new Error(t('error.noWasm'));
  // The 'mha-wasm/model' entry's engine (it also loads checkpoints: Real model), started by early.mjs and
  // imported, not at the top, so that a missing or broken engine file is reported on the page.
  engine = await startPageEngine();
  $('status').removeAttribute('data-i18n');
  $('status').textContent = engineText(engine);
  // The bridge sets the learned heads beside the designed encoder heads, whatever the mode shown above.
  views.train.enable(async () => (await trainEntry()).createAttention({ training: true }), {
    designed: () => runSpec(engine, encoderSpec()),
  });
  views.real.enable(engine);
  await compute();
  document.body.dataset.ready = 'true';
}

window.addEventListener('error', (event) => showError(event.error ?? event.message));
window.addEventListener('unhandledrejection', (event) => showError(event.reason));
main().catch(showError);
