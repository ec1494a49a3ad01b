// The model with chosen heads switched off, for one input: the reference's
// score (teacher-forced, as headImportance scores it) and the output
// re-decoded (as pruningCurve re-decodes it), in one call — for a mask the
// other analyses do not make: one head alone (what the output is without it),
// or every layer reduced to the head oneHeadPerLayer kept there.
import { describe } from '../checks.mjs';
import { ArgumentTypeError } from '../errors.mjs';
import { checkModel, checkOptions } from './options.mjs';
import { makeTask } from './reference.mjs';
import { allKept, headGroups } from './heads.mjs';
import { timed } from './importance.mjs';

// `headMask` as the analyses hold a mask ({ group: Uint8Array [layers × heads] }): an encoder's or a decoder's
// [layers][heads] as run() takes it, or { group: [layers][heads] } (the form pruningCurve's masks come in; a group
// not given is kept whole).
function groupMasks(headMask, groups, kind) {
  const byGroup = Array.isArray(headMask) && kind !== 'encoder-decoder' ? { [groups[0].group]: headMask } : headMask;
  const names = groups.map((g) => g.group);
  if (!byGroup || typeof byGroup !== 'object' || Array.isArray(byGroup))
    throw new ArgumentTypeError(
      `headMask: expected { ${names.join(', ')} } of [layers][heads] 0/1${kind === 'encoder-decoder' ? '' : ' or [layers][heads]'}, got ${describe(headMask)}`,
    );
  for (const name of Object.keys(byGroup))
    if (!names.includes(name))
      throw new ArgumentTypeError(`headMask.${name}: this model’s groups are ${names.join(', ')}`);
  const masks = allKept(groups);
  for (const { group, layers, heads } of groups) {
    const rows = byGroup[group];
    if (rows === undefined) continue;
    if (!Array.isArray(rows) || rows.length !== layers)
      throw new ArgumentTypeError(
        `headMask.${group}: expected ${layers} layers of ${heads} heads, got ${describe(rows)}`,
      );
    rows.forEach((row, l) => {
      if (!row || row.length !== heads || !Array.prototype.every.call(row, (v) => [0, 1, true, false].includes(v)))
        throw new ArgumentTypeError(
          `headMask.${group}[${l}]: expected ${heads} values of 0 or 1, got ${describe(row)}`,
        );
      for (let h = 0; h < heads; h++) masks[group][l * heads + h] = Number(row[h]);
    });
  }
  return masks;
}

/**
 * withHeadsOff(model, input, { headMask, … }): { reference, score, delta, output, timing }. score: the reference's
 * log-probability with those heads off; delta: score − reference.score; output: re-decoded with them off.
 */
export async function withHeadsOff(model, input, options) {
  checkModel(model, 'withHeadsOff');
  const opts = checkOptions(options, 'withHeadsOff', ['headMask']);
  if (opts.headMask === undefined)
    throw new ArgumentTypeError('withHeadsOff: expected options.headMask, the heads to switch off (0), got none');
  const masks = groupMasks(opts.headMask, headGroups(model.config), model.config.kind);
  const task = await makeTask(model, input, opts);
  const { results, timing } = await timed([() => task.score(masks), () => task.redecode(masks)], opts, 'headsOff');
  const [score, output] = results;
  return { reference: task.reference, score, delta: score - task.reference.score, output, timing };
}
