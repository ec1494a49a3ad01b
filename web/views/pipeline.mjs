// The pipeline with live shapes and numbers: X → Q, K, V of the current head →
// QKᵀ/√dK → mask → softmax → head output → concat → wO → output. Each stage is
// a button showing its shape; the pressed one's matrix is drawn below. Next to
// it, the material's three checks and the live invariants, computed from the
// engine's arrays of this very run.
import { headColor } from '../lib/colors.mjs';
import { columnSlice, maskedScores, maxAbsDiff, maxRowSumError, softmaxRows } from '../model/stats.mjs';
import { allHeads } from '../model/compute.mjs';
import { matrixSvg } from './matrix.mjs';
import { headTitle } from './heads-grid.mjs';

const tokenRows = (tokens) => tokens.map((t) => ({ text: `${t.text} ${t.index}`, token: t }));
const strip = (labels) => labels.map((l) => l.replace(/^[^/]*\//, ''));

/** The stages, in order: id, label, and how to get its matrix for head h. */
function stages(run, h) {
  const { rows, cols, dims, spec, projections: P } = run;
  const { dModel, numHeads, dK, dV } = dims;
  const { labels } = spec;
  const name = headTitle(run.heads[h].name);
  const scores = (mask) => maskedScores(run.scores, { rows, cols, head: h, causal: run.causal, mask });
  const cross = run.mode === 'cross';
  return [
    { id: 'x', label: 'X', shape: [rows, dModel], text: `the input: one row of features per ${cross ? 'English (query) ' : ''}token`,
      get: () => ({ values: spec.args.query, rowLabels: tokenRows(run.queryTokens), colLabels: labels.x }) },
    { id: 'q', label: `Q · ${name}`, shape: [rows, dK], text: `X·wQ, this head's ${dK} columns: what each query looks for`,
      get: () => ({ values: columnSlice(P.Q, rows, numHeads * dK, h * dK, dK), rowLabels: tokenRows(run.queryTokens), colLabels: strip(labels.q.slice(h * dK, (h + 1) * dK)) }) },
    { id: 'k', label: `K · ${name}`, shape: [cols, dK], text: `${cross ? 'X_Chinese' : 'X'}·wK: what each key offers; every head gets every token`,
      get: () => ({ values: columnSlice(P.K, cols, numHeads * dK, h * dK, dK), rowLabels: tokenRows(run.keyTokens), colLabels: strip(labels.k.slice(h * dK, (h + 1) * dK)) }) },
    { id: 'v', label: `V · ${name}`, shape: [cols, dV], text: `${cross ? 'X_Chinese' : 'X'}·wV: what each key passes on`,
      get: () => ({ values: columnSlice(P.V, cols, numHeads * dV, h * dV, dV), rowLabels: tokenRows(run.keyTokens), colLabels: strip(labels.v.slice(h * dV, (h + 1) * dV)) }) },
    { id: 'scores', label: 'QKᵀ/√dK', shape: [rows, cols], text: `the engine's scores: each query's dot product with each key, divided by √${dK}`,
      get: () => ({ values: scores(false), rowLabels: tokenRows(run.queryTokens), colLabels: run.keyTokens.map((t) => `${t.text} ${t.index}`) }) },
    { id: 'masked', label: 'mask', shape: [rows, cols], text: run.causal ? 'causal: keys after the query become −∞ (hatched)' : 'no mask here: every query sees every key',
      get: () => ({ values: scores(true), rowLabels: tokenRows(run.queryTokens), colLabels: run.keyTokens.map((t) => `${t.text} ${t.index}`) }) },
    { id: 'weights', label: 'softmax', shape: [rows, cols], text: 'the engine’s attention weights: each row sums to 1',
      get: () => ({ values: run.heads[h].weights, weights: headColor(run.heads[h].name, h), rowLabels: tokenRows(run.queryTokens), colLabels: run.keyTokens.map((t) => `${t.text} ${t.index}`) }) },
    { id: 'head', label: `head output · ${name}`, shape: [rows, dV], text: 'weights · V: this head’s output, columns h·dV… of concat',
      get: () => ({ values: columnSlice(P.concat, rows, numHeads * dV, h * dV, dV), rowLabels: tokenRows(run.queryTokens), colLabels: strip(labels.v.slice(h * dV, (h + 1) * dV)) }) },
    { id: 'concat', label: 'Concat', shape: [rows, numHeads * dV], text: `all ${numHeads} heads’ outputs side by side: ${numHeads}·${dV} = ${numHeads * dV} wide`,
      get: () => ({ values: P.concat, rowLabels: tokenRows(run.queryTokens), colLabels: labels.v }) },
    { id: 'wo', label: 'wO', shape: [numHeads * dV, dModel], text: `maps ${numHeads * dV} concat columns back to dModel = ${dModel}`,
      get: () => ({ values: spec.args.wO, rowLabels: labels.v.map((l, i) => ({ text: l || `concat ${i}` })), colLabels: labels.out }) },
    { id: 'output', label: 'output', shape: [rows, dModel], text: 'concat · wO: one row per query token, dModel wide again',
      get: () => ({ values: run.output, rowLabels: tokenRows(run.queryTokens), colLabels: labels.out }) },
  ];
}

/** The three checks of the material and the invariants, from the run's arrays. */
export function pipelineChecks(run) {
  const { rows, cols, dims, spec, projections: P, causal } = run;
  const { dModel, numHeads, dK, dV } = dims;
  const heads = allHeads(run);
  // Heads a and b of a projection [dModel, numHeads·width] hold the same numbers?
  const same = (w, width, a, b) => {
    for (let r = 0; r < dModel; r++)
      for (let c = 0; c < width; c++) if (w[r * numHeads * width + a * width + c] !== w[r * numHeads * width + b * width + c]) return false;
    return true;
  };
  const distinct = (w, width) => run.heads.every((_, a) => run.heads.every((__, b) => a >= b || !same(w, width, a, b)));
  let masked = 0;
  let maskedZero = 0;
  if (causal)
    for (const head of heads)
      for (let q = 0; q < rows; q++)
        for (let k = q + 1; k < cols; k++) {
          masked += 1;
          if (head.weights[q * cols + k] === 0) maskedZero += 1;
        }
  const softmaxGap = Math.max(...run.heads.map((head, h) =>
    maxAbsDiff(softmaxRows(maskedScores(run.scores, { rows, cols, head: h, causal, mask: true }), rows, cols), head.weights)));
  const sumError = Math.max(...heads.map((h) => maxRowSumError(h.weights, rows, cols)));
  return [
    { ok: P.K.length === cols * numHeads * dK && P.V.length === cols * numHeads * dV,
      text: `Every head sees the whole sequence: each head's K and V have all ${cols} rows${causal ? ' (the causal mask then hides the keys after each query)' : ''}.` },
    { ok: numHeads === 1 || (distinct(spec.args.wQ, dK) && distinct(spec.args.wK, dK) && distinct(spec.args.wV, dV)),
      text: `Each head has its own wQ, wK (${dModel}×${dK}) and wV (${dModel}×${dV}): ${numHeads} different column slices of each.` },
    { ok: P.concat.length === rows * numHeads * dV && run.output.length === rows * dModel,
      text: `Concat is ${numHeads}·${dV} = ${numHeads * dV} wide, and wO (${numHeads * dV}×${dModel}) maps it back to dModel = ${dModel}.` },
    { ok: sumError < 1e-5, text: `Each row of weights sums to 1: largest |sum − 1| is ${sumError.toExponential(1)} over ${heads.length * rows} rows.` },
    causal
      ? { ok: maskedZero === masked, text: `Masked cells are exactly 0: ${maskedZero} of ${masked} masked cells (${heads.length} heads) are 0.` }
      : { ok: true, text: 'No mask in this mode: every query sees every key (Decoder shows the causal mask).' },
    { ok: softmaxGap < 1e-5, text: `softmax of the scores above equals the engine's weights: largest difference ${softmaxGap.toExponential(1)}.` },
  ];
}

export class PipelineView {
  /**
   * @param {HTMLElement} container holds .stages, .matrix-caption, .matrix, .matrix-readout, .checks, select.pipeline-head
   * @param {{ onStage: (id: string) => void, onHead: (name: string) => void }} handlers
   */
  constructor(container, { onStage, onHead }) {
    this.container = container;
    this.$ = (s) => container.querySelector(s);
    this.$('.stages').addEventListener('click', (e) => {
      const button = e.target.closest('button[data-stage]');
      if (button) onStage(button.dataset.stage);
    });
    this.$('select.pipeline-head').addEventListener('change', (e) => onHead(e.target.value));
  }

  update(run, state) {
    const h = Math.max(0, run.heads.findIndex((x) => x.name === state.head));
    const select = this.$('select.pipeline-head');
    const options = run.heads.map((x) => x.name).join();
    if (select.dataset.options !== options) {
      select.replaceChildren(...run.heads.map((x) => new Option(headTitle(x.name), x.name)));
      select.dataset.options = options;
    }
    select.value = run.heads[h].name;
    const list = stages(run, h);
    const current = list.find((s) => s.id === state.stage) ?? list.find((s) => s.id === 'weights');
    // The buttons are made once and updated in place, so a pressed button keeps the keyboard focus.
    const box = this.$('.stages');
    if (box.children.length !== list.length)
      box.replaceChildren(
        ...list.map((s, i) => {
          const li = document.createElement('li');
          const button = Object.assign(document.createElement('button'), { type: 'button' });
          button.dataset.stage = s.id;
          button.append(document.createElement('span'), Object.assign(document.createElement('span'), { className: 'shape' }));
          li.append(button);
          if (i < list.length - 1) li.append(Object.assign(document.createElement('span'), { className: 'arrow', textContent: '→', ariaHidden: 'true' }));
          return li;
        }),
      );
    list.forEach((s, i) => {
      const button = box.children[i].firstChild;
      button.setAttribute('aria-pressed', String(s === current));
      button.firstChild.textContent = s.label;
      button.lastChild.textContent = s.shape.join('×');
    });
    this.$('.matrix-caption').textContent = `${current.label} (${current.shape.join(' × ')}): ${current.text}.`;
    const m = current.get();
    this.$('.matrix').replaceChildren(matrixSvg({ title: current.label, rows: current.shape[0], cols: current.shape[1], readout: this.$('.matrix-readout'), ...m }));
    this.$('.checks').replaceChildren(
      ...pipelineChecks(run).map((c) => {
        const li = document.createElement('li');
        li.className = c.ok ? 'ok' : 'fail';
        li.append(Object.assign(document.createElement('span'), { className: 'mark', textContent: c.ok ? '✓' : '✗', ariaLabel: c.ok ? 'holds' : 'fails' }), c.text);
        return li;
      }),
    );
  }
}
