// The order Jest starts the suites in. Jest's own sequencer orders by the last
// run's times (the slowest first, so that no worker is left alone with a long
// suite at the end) and, where it has none (a fresh clone: CI), by file size.
// File size says little here: a Chromium suite (tests/e2e) takes tens of
// seconds however short its file, and the two slowest are short files that do
// much — large-model writes a 1.1 GB checkpoint and loads it three times,
// bundlers builds eleven bundles. So, for the suites without a time: those two
// first, then the Chromium suites, then the rest, each by file size as Jest does.
import TestSequencer from '@jest/test-sequencer';

const SLOWEST = ['/tests/e2e/large-model.test.mjs', '/tests/e2e/bundlers.test.mjs'];
const rank = (test) => {
  if (test.duration != null) return 3; // where Jest has the last run's time, its own order (after these)
  const at = SLOWEST.findIndex((end) => test.path.endsWith(end));
  if (at >= 0) return 0;
  return test.path.includes('/tests/e2e/') ? 1 : 2;
};

export default class Sequencer extends TestSequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    // A stable sort: within a rank, Jest's order.
    return sorted
      .map((test, i) => [rank(test), i, test])
      .sort((a, b) => a[0] - b[0] || a[1] - b[1])
      .map((x) => x[2]);
  }
}
