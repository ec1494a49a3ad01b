// The pipeline with live shapes and numbers: X → Q, K, V of the current head →
// QKᵀ/√dK → mask → softmax → head output → concat → wO → output. Each stage is
// a button showing its shape; the pressed one's matrix is drawn below. Next to
// it, the material's three checks and the live invariants
// (model/pipeline-checks.mjs), computed from the engine's arrays of this very run.
import { headColor } from '../lib/palette.mjs';
import { el } from '../lib/dom.mjs';
import { tokenName } from '../lib/tokens.mjs';
import { columnSlice, maskedScores } from '../model/stats.mjs';
import { headTitle } from '../model/head-names.mjs';
import { pipelineChecks } from '../model/pipeline-checks.mjs';
import { matrixSvg } from './matrix.mjs';

const tokenRows = (tokens) => tokens.map((t) => ({ text: tokenName(t), token: t }));
const strip = (labels) => labels.map((l) => l.replace(/^[^/]*\//, ''));

/** The stages, in order: id, label, and how to get its matrix for head h. */
function stages(run, h) {
  const { rows, cols, dims, spec, projections: P } = run;
  const { dModel, numHeads, dK, dV } = dims;
  const { labels } = spec;
  const name = headTitle(run.heads[h].name);
  const scores = (mask) => maskedScores(run.scores, { rows, cols, head: h, causal: run.causal, mask });
  const cross = run.mode === 'cross';
  const X = cross ? 'X_Chinese' : 'X';
  // Head h's columns of a [n, numHeads·width] matrix, and of its column labels.
  const slice = (matrix, n, width) => columnSlice(matrix, n, numHeads * width, h * width, width);
  const headLabels = (list, width) => strip(list.slice(h * width, (h + 1) * width));
  const queries = () => tokenRows(run.queryTokens);
  const keys = () => tokenRows(run.keyTokens);
  const keyNames = () => run.keyTokens.map(tokenName);
  return [
    {
      id: 'x',
      label: 'X',
      shape: [rows, dModel],
      text: `the input: one row of features per ${cross ? 'English (query) ' : ''}token`,
      get: () => ({ values: spec.args.query, rowLabels: queries(), colLabels: labels.x }),
    },
    {
      id: 'q',
      label: `Q · ${name}`,
      shape: [rows, dK],
      text: `X·wQ, this head's ${dK} columns: what each query looks for`,
      get: () => ({ values: slice(P.Q, rows, dK), rowLabels: queries(), colLabels: headLabels(labels.q, dK) }),
    },
    {
      id: 'k',
      label: `K · ${name}`,
      shape: [cols, dK],
      text: `${X}·wK: what each key offers; every head gets every token`,
      get: () => ({ values: slice(P.K, cols, dK), rowLabels: keys(), colLabels: headLabels(labels.k, dK) }),
    },
    {
      id: 'v',
      label: `V · ${name}`,
      shape: [cols, dV],
      text: `${X}·wV: what each key passes on`,
      get: () => ({ values: slice(P.V, cols, dV), rowLabels: keys(), colLabels: headLabels(labels.v, dV) }),
    },
    {
      id: 'scores',
      label: 'QKᵀ/√dK',
      shape: [rows, cols],
      text: `the engine's scores: each query's dot product with each key, divided by √${dK}`,
      get: () => ({ values: scores(false), rowLabels: queries(), colLabels: keyNames() }),
    },
    {
      id: 'masked',
      label: 'mask',
      shape: [rows, cols],
      text: run.causal
        ? 'causal: keys after the query become −∞ (hatched)'
        : 'no mask here: every query sees every key',
      get: () => ({ values: scores(true), rowLabels: queries(), colLabels: keyNames() }),
    },
    {
      id: 'weights',
      label: 'softmax',
      shape: [rows, cols],
      text: 'the engine’s attention weights: each row sums to 1',
      get: () => ({
        values: run.heads[h].weights,
        weights: headColor(run.heads[h].name, h),
        rowLabels: queries(),
        colLabels: keyNames(),
      }),
    },
    {
      id: 'head',
      label: `head output · ${name}`,
      shape: [rows, dV],
      text: 'weights · V: this head’s output, columns h·dV… of concat',
      get: () => ({ values: slice(P.concat, rows, dV), rowLabels: queries(), colLabels: headLabels(labels.v, dV) }),
    },
    {
      id: 'concat',
      label: 'Concat',
      shape: [rows, numHeads * dV],
      text: `all ${numHeads} heads’ outputs side by side: ${numHeads}·${dV} = ${numHeads * dV} wide`,
      get: () => ({ values: P.concat, rowLabels: queries(), colLabels: labels.v }),
    },
    {
      id: 'wo',
      label: 'wO',
      shape: [numHeads * dV, dModel],
      text: `maps ${numHeads * dV} concat columns back to dModel = ${dModel}`,
      get: () => ({
        values: spec.args.wO,
        rowLabels: labels.v.map((l, i) => ({ text: l || `concat ${i}` })),
        colLabels: labels.out,
      }),
    },
    {
      id: 'output',
      label: 'output',
      shape: [rows, dModel],
      text: 'concat · wO: one row per query token, dModel wide again',
      get: () => ({ values: run.output, rowLabels: queries(), colLabels: labels.out }),
    },
  ];
}

export class PipelineView {
  /**
   * @param {HTMLElement} container holds .stages, .matrix-caption, .matrix, .matrix-readout, .checks,
   *   select.pipeline-head
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
    const h = Math.max(
      0,
      run.heads.findIndex((x) => x.name === state.head),
    );
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
          const button = el('button', { type: 'button' }, el('span'), el('span', { className: 'shape' }));
          button.dataset.stage = s.id;
          const li = el('li', {}, button);
          if (i < list.length - 1) li.append(el('span', { className: 'arrow', textContent: '→', ariaHidden: 'true' }));
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
    const [rows, cols] = current.shape;
    const readout = this.$('.matrix-readout');
    this.$('.matrix').replaceChildren(matrixSvg({ title: current.label, rows, cols, readout, ...current.get() }));
    this.$('.checks').replaceChildren(
      ...pipelineChecks(run).map((c) => {
        const mark = el('span', {
          className: 'mark',
          textContent: c.ok ? '✓' : '✗',
          ariaLabel: c.ok ? 'holds' : 'fails',
        });
        return el('li', { className: c.ok ? 'ok' : 'fail' }, mark, c.text);
      }),
    );
  }
}
