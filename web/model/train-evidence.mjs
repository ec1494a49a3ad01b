// The experiment's evidence for the claim, read off summarize()'s entries
// (train-stats.mjs): each seed's accuracy with one head beside the same
// seed's with more heads, how many seeds each side wins, the runs whose heads
// did not divide the two neighbours between them (head collapse), and the
// median run, whose heads the page sets beside the designed ones. Pure.
//
// Pairing by seed is fair because a seed fixes the same start for every head
// count: the trainer draws the initial parameters and then the batch order
// from one seeded stream, and the parameters have the same shapes whatever
// the head count (dModel × dModel projections, cut into heads only when
// attention is computed), so two runs of one seed start from the same numbers
// and see the same batches; tests/web/train-evidence.test.mjs checks it.
import { headFocus, median, splitsNeighbours } from './train-stats.mjs';

/** The summary's entries without an MLP: one head first, then the others by head count (those with finished seeds). */
export function plainEntries(summary) {
  return summary
    .filter((s) => s.setting.mlpHidden === 0 && s.seeds.length > 0)
    .sort((a, b) => a.setting.numHeads - b.setting.numHeads);
}

/** The summary's entries with an MLP ("加 MLP"), by head count (those with finished seeds). */
export function mlpEntries(summary) {
  return summary
    .filter((s) => s.setting.mlpHidden > 0 && s.seeds.length > 0)
    .sort((a, b) => a.setting.numHeads - b.setting.numHeads);
}

/**
 * Seed by seed, entry `other` against entry `base` (two summary entries): the
 * pairs, and in how many seeds `other` scores higher, lower and the same.
 * medianGain: the median over the seeds of other − base.
 */
export function pairSeeds(base, other) {
  const baseOf = new Map(base.seeds.map((seed, i) => [seed, base.accuracies[i]]));
  const pairs = other.seeds
    .map((seed, i) => ({ seed, base: baseOf.get(seed), other: other.accuracies[i] }))
    .filter((p) => p.base !== undefined);
  const wins = pairs.filter((p) => p.other > p.base).length;
  const losses = pairs.filter((p) => p.other < p.base).length;
  return {
    pairs,
    wins,
    losses,
    ties: pairs.length - wins - losses,
    medianGain: median(pairs.map((p) => p.other - p.base)),
  };
}

/** A run's heads with where each looks: { index, focus, weight (its weight there), left, right, self }. */
export const focusedHeads = (neighbours) =>
  neighbours.map((w, index) => ({ index, focus: headFocus(w), weight: w[headFocus(w)], ...w }));

/**
 * The seeds of a several-head entry whose heads did not divide the neighbours
 * between them (splitsNeighbours), lowest accuracy first: { seed, accuracy,
 * heads: focusedHeads }. Whether they are the entry's lowest seeds: `lowest`.
 */
export function collapsedSeeds(entry) {
  if (entry.setting.numHeads < 2) return { seeds: [], lowest: false };
  const all = entry.seeds.map((seed, i) => ({ seed, accuracy: entry.accuracies[i], neighbours: entry.neighbours[i] }));
  const collapsed = all.filter((r) => !splitsNeighbours(r.neighbours));
  const divided = all.filter((r) => splitsNeighbours(r.neighbours));
  const seeds = collapsed
    .sort((a, b) => a.accuracy - b.accuracy || a.seed - b.seed)
    .map(({ seed, accuracy, neighbours }) => ({ seed, accuracy, heads: focusedHeads(neighbours) }));
  const lowest =
    seeds.length > 0 && divided.length > 0 && seeds.every((c) => divided.every((d) => c.accuracy < d.accuracy));
  return { seeds, lowest };
}

/** The seed at the median of an entry's accuracies (of an even count the lower middle one; equal ones by seed). */
export function medianSeed(entry) {
  const order = entry.seeds
    .map((seed, i) => ({ seed, accuracy: entry.accuracies[i] }))
    .sort((a, b) => a.accuracy - b.accuracy || a.seed - b.seed);
  return order.length ? order[Math.floor((order.length - 1) / 2)].seed : null;
}

/**
 * The heads of a run that look mostly at the left and at the right neighbour
 * (of several, the one with most weight there): { left, right }, head indices
 * or null where no head looks there.
 */
export function sideHeads(neighbours) {
  const heads = focusedHeads(neighbours);
  const best = (side) =>
    heads.filter((h) => h.focus === side).reduce((a, h) => (a === null || h[side] > a[side] ? h : a), null);
  return { left: best('left')?.index ?? null, right: best('right')?.index ?? null };
}
