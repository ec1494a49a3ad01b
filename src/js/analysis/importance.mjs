// Head importance by ablation (Michel et al. 2019 §3, gradient-free): for each
// head alone switched off, the change in the reference's log-probability,
// teacher-forced, one run() per head; never a re-generation.
import { checkModel, checkOptions } from './options.mjs';
import { makeTask } from './reference.mjs';
import { allKept, everyHead, switchedOff } from './heads.mjs';

/** Runs `passes` one after another, each checked against the signal first and reported to onProgress. */
export async function timed(passes, { signal, onProgress }, phase) {
  const results = [];
  const started = performance.now();
  for (let i = 0; i < passes.length; i++) {
    signal?.throwIfAborted();
    results.push(await passes[i]());
    onProgress({ phase, done: i + 1, total: passes.length });
  }
  const totalMs = performance.now() - started;
  return {
    results,
    timing: { passes: passes.length, totalMs, msPerPass: passes.length ? totalMs / passes.length : 0 },
  };
}

/**
 * headImportance(model, input, options): { reference, groups: { [group]: { delta, shape } }, order, timing }.
 * delta[l × heads + h] = score with head h of layer l off − reference.score (negative: the head helps).
 */
export async function headImportance(model, input, options) {
  checkModel(model, 'headImportance');
  const opts = checkOptions(options, 'headImportance');
  const task = await makeTask(model, input, opts);
  return importanceOf(task, opts);
}

/** The ablation over a task already made (pruningCurve and oneHeadPerLayer reuse it). */
export async function importanceOf(task, opts) {
  const kept = allKept(task.groups);
  const heads = everyHead(task.groups);
  const { results, timing } = await timed(
    heads.map((h) => () => task.score(switchedOff(kept, [h]))),
    opts,
    'importance',
  );
  const groups = {};
  for (const { group, layers, heads: H } of task.groups)
    groups[group] = { delta: new Float64Array(layers * H), shape: [layers, H] };
  heads.forEach((h, i) => (groups[h.group].delta[h.index] = results[i] - task.reference.score));
  return { reference: task.reference, groups, order: pruningOrder(task.groups, groups), timing };
}

/**
 * Every head in order of increasing importance: the largest delta first (switching it off costs least, or
 * helps); ties by group, layer and head, so the order is the same on every run and thread count.
 */
export function pruningOrder(groupList, groups) {
  const heads = everyHead(groupList).map((h, rank) => ({ ...h, delta: groups[h.group].delta[h.index], rank }));
  heads.sort((a, b) => b.delta - a.delta || a.rank - b.rank);
  return heads.map(({ group, layer, head, index, delta }) => ({ group, layer, head, index, delta }));
}
