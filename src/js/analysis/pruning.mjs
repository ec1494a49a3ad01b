// Heads switched off together, in the order of the ablation's deltas:
// pruningCurve (Michel et al. 2019 §5: cumulatively, least important first, at
// 0, 1/steps … 100 % of each group's heads and of all heads) and
// oneHeadPerLayer (§4: a layer with its most important head alone; a group
// with its single most important head alone). The order is fixed, from one
// ablation of every head (importanceOf); Michel et al. recompute a
// gradient-based importance after each step instead.
import { ArgumentTypeError } from '../errors.mjs';
import { describe } from '../checks.mjs';
import { checkModel, checkOptions, wholeOption } from './options.mjs';
import { makeTask } from './reference.mjs';
import { allKept, plainMask, switchedOff } from './heads.mjs';
import { importanceOf, pruningOrder, timed } from './importance.mjs';

// The ablation a caller gives (a headImportance result of the same model, input and reference), else one run now.
async function importanceFor(task, opts) {
  const given = opts.importance;
  if (given === undefined) return importanceOf(task, opts);
  for (const { group, layers, heads } of task.groups) {
    const delta = given?.groups?.[group]?.delta;
    if (!delta || delta.length !== layers * heads)
      throw new ArgumentTypeError(
        `importance.groups.${group}.delta: expected ${layers * heads} deltas (a headImportance result of this model), ` +
          `got ${describe(delta)}`,
      );
  }
  return { ...given, order: pruningOrder(task.groups, given.groups) };
}

/**
 * pruningCurve(model, input, { steps = 10, importance?, … }): { reference, order, curves: { [group], all } },
 * each curve [{ fraction, headsOff, score, output, mask }].
 */
export async function pruningCurve(model, input, options) {
  checkModel(model, 'pruningCurve');
  const opts = checkOptions(options, 'pruningCurve', ['steps', 'importance']);
  const steps = wholeOption(opts, 'steps', 1, 100, 10);
  const task = await makeTask(model, input, opts);
  const importance = await importanceFor(task, opts);
  const kept = allKept(task.groups);
  // One group's curve is also the model's ('all'): computed once.
  const lines = [...task.groups.map((g) => g.group), ...(task.groups.length > 1 ? ['all'] : [])];
  const points = [];
  for (const line of lines) {
    const order = importance.order.filter((h) => line === 'all' || h.group === line);
    for (let k = 0; k <= steps; k++) {
      const headsOff = Math.floor((order.length * k) / steps + 0.5);
      points.push({ line, fraction: k / steps, headsOff, masks: switchedOff(kept, order.slice(0, headsOff)) });
    }
  }
  const { results, timing } = await timed(
    points.map((p) => async () => ({ score: await task.score(p.masks), output: await task.redecode(p.masks) })),
    opts,
    'pruning',
  );
  const curves = Object.fromEntries(lines.map((line) => [line, []]));
  points.forEach(({ line, fraction, headsOff, masks }, i) =>
    curves[line].push({ fraction, headsOff, ...results[i], mask: plainMask(task.groups, masks) }),
  );
  curves.all ??= curves[lines[0]];
  return { reference: task.reference, order: importance.order, curves, timing };
}

/**
 * oneHeadPerLayer(model, input, { importance?, … }): { reference, layers: { [group]: [{ layer, head, score }] },
 * single: { [group]: { layer, head, score, output } }, singleAll?: { score, output } }. A layer keeps its most
 * important head (the smallest delta) and the rest of the model all of its heads; a group's single head is its
 * most important one, the other groups whole; singleAll (an encoder-decoder) keeps that one head in every group.
 */
export async function oneHeadPerLayer(model, input, options) {
  checkModel(model, 'oneHeadPerLayer');
  const opts = checkOptions(options, 'oneHeadPerLayer', ['importance']);
  const task = await makeTask(model, input, opts);
  const importance = await importanceFor(task, opts);
  const kept = allKept(task.groups);
  const best = (group, layer) => {
    const candidates = importance.order.filter((h) => h.group === group && (layer === undefined || h.layer === layer));
    return candidates[candidates.length - 1]; // the most important: the order's last (of equal deltas, the later head)
  };
  const offBut = (group, keep, layer) =>
    importance.order.filter((h) => h.group === group && h !== keep && (layer === undefined || h.layer === layer));
  const passes = [];
  for (const { group, layers } of task.groups) {
    for (let layer = 0; layer < layers; layer++) {
      const keep = best(group, layer);
      passes.push({ kind: 'layer', group, keep, masks: switchedOff(kept, offBut(group, keep, layer)) });
    }
    const keep = best(group);
    passes.push({ kind: 'single', group, keep, masks: switchedOff(kept, offBut(group, keep)) });
  }
  if (task.groups.length > 1) {
    const off = task.groups.flatMap(({ group }) => offBut(group, best(group)));
    passes.push({ kind: 'singleAll', masks: switchedOff(kept, off) });
  }
  const { results, timing } = await timed(
    passes.map((p) => async () => ({
      score: await task.score(p.masks),
      ...(p.kind !== 'layer' && { output: await task.redecode(p.masks) }),
    })),
    opts,
    'oneHead',
  );
  const out = { reference: task.reference, layers: {}, single: {}, timing };
  passes.forEach((p, i) => {
    const where = p.keep && { layer: p.keep.layer, head: p.keep.head };
    if (p.kind === 'layer') (out.layers[p.group] ??= []).push({ ...where, ...results[i] });
    else if (p.kind === 'single') out.single[p.group] = { ...where, ...results[i] };
    else out.singleAll = results[i];
  });
  return out;
}
