// The pipeline with live shapes and numbers: X → Q, K, V of the current head →
// QKᵀ/√dK → mask → softmax → head output → concat → wO → output. Above it the
// formulas (formula-bar.mjs), each term a button for its stage; the stages
// are a toolbar of buttons with their shapes (one Tab stop, arrow keys
// inside); the pressed one's matrix is drawn below. Under it, the
// article's three sentences, each with the check of it, and the live
// invariants (model/pipeline-checks.mjs), computed from the engine's arrays of
// this very run.
import { headColor } from '../lib/palette.mjs';
import { el } from '../lib/dom.mjs';
import { language, t } from '../lib/i18n.mjs';
import { roving } from '../lib/roving.mjs';
import { stickLabels } from '../lib/sticky.mjs';
import { tokenName } from '../lib/tokens.mjs';
import { columnSlice, maskedScores } from '../model/stats.mjs';
import { headTitle } from '../model/head-names.mjs';
import { pipelineChecks } from '../model/pipeline-checks.mjs';
import { featureLabel } from '../model/feature-labels.mjs';
import { FormulaBar } from './formula-bar.mjs';
import { matrixSvg } from './matrix.mjs';

const tokenRows = (tokens) => tokens.map((u) => ({ text: tokenName(u), token: u }));
const strip = (labels) => labels.map((l) => l.replace(/^[^/]*\//, ''));
const shown = (labels) => labels.map(featureLabel);

/** The stages, in order: id, label, and how to get its matrix for head h. */
function stages(run, h) {
  const { rows, cols, dims, spec, projections: P } = run;
  const { dModel, numHeads, dK, dV } = dims;
  const { labels } = spec;
  const name = headTitle(run.heads[h].name);
  const scores = (mask) => maskedScores(run.scores, { rows, cols, head: h, causal: run.causal, mask });
  const cross = run.mode === 'cross';
  const X = cross ? 'X_zh' : 'X';
  // Head h's columns of a [n, numHeads·width] matrix, and of its column labels.
  const slice = (matrix, n, width) => columnSlice(matrix, n, numHeads * width, h * width, width);
  const headLabels = (list, width) => shown(strip(list.slice(h * width, (h + 1) * width)));
  const queries = () => tokenRows(run.queryTokens);
  const keys = () => tokenRows(run.keyTokens);
  const keyNames = () => run.keyTokens.map(tokenName);
  // The head of each of Concat's columns (wO's rows): head h holds columns h·d_v … (h + 1)·d_v − 1.
  const heads = run.heads.map((x, i) => ({ text: headTitle(x.name), color: headColor(x.name, i) }));
  const concatHeads = () => Array.from({ length: numHeads * dV }, (_, c) => heads[Math.floor(c / dV)]);
  // The head each output column carries (wO places a head's values in columns of its own): named in its label.
  const outHeads = () => labels.out.map((l) => heads[run.heads.findIndex((x) => l.startsWith(`${x.name}/`))] ?? null);
  return [
    {
      id: 'x',
      label: 'X',
      shape: [rows, dModel],
      text: t(cross ? 'stage.x.textCross' : 'stage.x.text'),
      get: () => ({ values: spec.args.query, rowLabels: queries(), colLabels: shown(labels.x) }),
    },
    {
      id: 'q',
      label: `Q · ${name}`,
      shape: [rows, dK],
      text: t('stage.q.text', { dK }),
      get: () => ({ values: slice(P.Q, rows, dK), rowLabels: queries(), colLabels: headLabels(labels.q, dK) }),
    },
    {
      id: 'k',
      label: `K · ${name}`,
      shape: [cols, dK],
      text: t('stage.k.text', { X }),
      get: () => ({ values: slice(P.K, cols, dK), rowLabels: keys(), colLabels: headLabels(labels.k, dK) }),
    },
    {
      id: 'v',
      label: `V · ${name}`,
      shape: [cols, dV],
      text: t('stage.v.text', { X }),
      get: () => ({ values: slice(P.V, cols, dV), rowLabels: keys(), colLabels: headLabels(labels.v, dV) }),
    },
    {
      id: 'scores',
      label: 'QKᵀ/√d_k',
      shape: [rows, cols],
      text: t('stage.scores.text', { dK }),
      get: () => ({ values: scores(false), rowLabels: queries(), colLabels: keyNames() }),
    },
    {
      id: 'masked',
      label: t('stage.masked.label'),
      shape: [rows, cols],
      text: t(run.causal ? 'stage.masked.causal' : 'stage.masked.none'),
      get: () => ({ values: scores(true), rowLabels: queries(), colLabels: keyNames() }),
    },
    {
      id: 'weights',
      label: 'softmax',
      shape: [rows, cols],
      text: t('stage.weights.text'),
      get: () => ({
        values: run.heads[h].weights,
        weights: headColor(run.heads[h].name, h),
        rowLabels: queries(),
        colLabels: keyNames(),
      }),
    },
    {
      id: 'head',
      label: t('stage.head.label', { head: name }),
      shape: [rows, dV],
      text: t('stage.head.text'),
      get: () => ({ values: slice(P.concat, rows, dV), rowLabels: queries(), colLabels: headLabels(labels.v, dV) }),
    },
    {
      id: 'concat',
      label: t('stage.concat.label'),
      shape: [rows, numHeads * dV],
      text: t('stage.concat.text', { n: numHeads, dV, width: numHeads * dV }),
      get: () => ({
        values: P.concat,
        rowLabels: queries(),
        colLabels: shown(strip(labels.v)),
        colHeads: concatHeads(),
      }),
    },
    {
      id: 'wo',
      label: 'wO',
      shape: [numHeads * dV, dModel],
      text: t('stage.wo.text', { width: numHeads * dV, dModel }),
      get: () => ({
        values: spec.args.wO,
        rowLabels: strip(labels.v).map((l, i) => ({ text: l ? featureLabel(l) : t('stage.concatRow', { i }) })),
        rowHeads: concatHeads(),
        colLabels: shown(strip(labels.out)),
        colHeads: outHeads(),
      }),
    },
    {
      id: 'output',
      label: t('stage.output.label'),
      shape: [rows, dModel],
      text: t('stage.output.text'),
      get: () => ({
        values: run.output,
        rowLabels: queries(),
        colLabels: shown(strip(labels.out)),
        colHeads: outHeads(),
      }),
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
    this.refreshStages = roving(this.$('.stages'), 'button', {
      orientation: 'horizontal',
      preferred: '[aria-pressed="true"]',
    });
    this.formula = new FormulaBar(this.$('.formula'), { onStage });
    this.stick = stickLabels(this.$('.matrix'));
    this.$('select.pipeline-head').addEventListener('change', (e) => onHead(e.target.value));
  }

  update(run, state) {
    const h = Math.max(
      0,
      run.heads.findIndex((x) => x.name === state.head),
    );
    const select = this.$('select.pipeline-head');
    const options = [language(), ...run.heads.map((x) => x.name)].join();
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
    this.refreshStages();
    this.formula.update(run, current.id);
    this.$('.matrix-caption').textContent = t('stage.caption', {
      label: current.label,
      shape: current.shape.join(' × '),
      text: current.text,
    });
    const [rows, cols] = current.shape;
    const readout = this.$('.matrix-readout');
    this.$('.matrix').replaceChildren(matrixSvg({ title: current.label, rows, cols, readout, ...current.get() }));
    this.stick();
    this.$('.checks').replaceChildren(
      ...pipelineChecks(run).map((c) => {
        const mark = el('span', {
          className: 'mark',
          textContent: c.ok ? '✓' : '✗',
          ariaLabel: t(c.ok ? 'check.holds' : 'check.fails'),
        });
        // The article's sentence the check tests, in the lede's words (markup from the catalogue), then the run's numbers.
        const claim = c.claim ? [el('q', { className: 'claim', innerHTML: t(c.claim) }), el('br')] : [];
        return el('li', { className: c.ok ? 'ok' : 'fail' }, mark, ...claim, c.text);
      }),
    );
  }
}
