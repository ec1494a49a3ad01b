// The "train it yourself" experiment's settings and options: tiny Transformer
// taggers with one, two (and optionally four) heads of the same total width,
// each also with an MLP if asked, trained for a choice of steps, several seeds
// each. Pure.
import { t } from '../lib/i18n.mjs';

/** The same width for every head count: 1 head of 16, 2 of 8, 4 of 4. */
export const D_MODEL = 16;
/** Hidden units of the optional MLP after attention. */
export const MLP_HIDDEN = 64;
export const BATCH_SIZE = 32;
/** Steps per engine call: small enough for live curves, large enough that the call overhead stays small. */
export const CHUNK_STEPS = 50;
/** Test-set accuracy (and the example's attention) every this many steps; a multiple of CHUNK_STEPS. */
export const EVAL_EVERY = 100;
export const STEP_CHOICES = Object.freeze([500, 1500, 3000]);
export const MAX_SEEDS = 20;
/**
 * The page's evidence: 10 seeds, so that one seed whose heads collapse
 * cannot decide the comparison on its own (with 5 seeds it swung the
 * two-head mean by several points), and the pilot's 3,000 steps of 32
 * sentences, no MLP. The 20 runs took 22 to 28 s on two threads, in Node and
 * in Chromium alike; the page says how long they took, and while they train
 * how long is left.
 */
export const DEFAULT_OPTIONS = Object.freeze({ seeds: 10, steps: 3000, fourHeads: false, mlp: false });

/** The settings to compare: 1 and 2 heads (4 if asked), each also with an MLP if asked. */
export function settingsFor({ fourHeads = false, mlp = false } = {}) {
  const heads = fourHeads ? [1, 2, 4] : [1, 2];
  const mlps = mlp ? [0, MLP_HIDDEN] : [0];
  return mlps.flatMap((mlpHidden) =>
    heads.map((numHeads) =>
      Object.freeze({
        key: `h${numHeads}${mlpHidden ? '-mlp' : ''}`,
        numHeads,
        mlpHidden,
        label: `${numHeads} head${numHeads === 1 ? '' : 's'}${mlpHidden ? ' + MLP' : ''}`,
      }),
    ),
  );
}

/** A setting's name in the page's language: "2 heads + MLP", "2 个头 + MLP". */
export const settingLabel = (setting) => t('setting.label', { numHeads: setting.numHeads, mlp: setting.mlpHidden > 0 });
