// Jest over the wasm builds in dist/. Tests are native ES modules, so Jest runs
// with NODE_OPTIONS=--experimental-vm-modules (scripts/test.sh sets it) and
// transforms nothing. tests/e2e (Chromium: two thirds of the whole run's
// time) and tests/pack (npm pack + install) are the slow parts: `npx jest
// tests/js` leaves both out.
export default {
  // Node's, with playwright-core loaded outside the suites' sandbox (tests/environment.cjs says why).
  testEnvironment: '<rootDir>/tests/environment.cjs',
  testMatch: [
    '<rootDir>/tests/js/**/*.test.mjs',
    '<rootDir>/tests/pack/**/*.test.mjs',
    // The page's model (designed heads, features, state) through the engine, in Node.
    '<rootDir>/tests/web/**/*.test.mjs',
    // Headless Chromium (Debian's, through playwright-core): the page, the Worker, Vite.
    '<rootDir>/tests/e2e/**/*.test.mjs',
  ],
  transform: {},
  // Where Jest has no times of a last run (a fresh clone), the slow Chromium suites first.
  testSequencer: '<rootDir>/tests/sequencer.mjs',
  // Per test, a guard against a hang (npm test runs two suites at a time on two cores, so a
  // 10 s page test can take twice that); slower suites set their own, longer ones.
  testTimeout: 60_000,
};
