// Jest's Node environment, with playwright-core loaded outside the test's sandbox. Jest runs a suite's modules in
// a vm context of their own, where playwright's Node side (its protocol's validation and serialisation of every
// value a page.evaluate() passes, the CDP messages' JSON) ran about 4× slower than in Node itself: 300,000
// numbers into a page and back took 12.5 s in a suite against 3.2 s in a plain script. Loaded here, its code runs
// in Node's own context; the suites reach it through globalThis.playwright (tests/e2e/chromium.mjs).
const { TestEnvironment } = require('jest-environment-node');

let playwright;

class EnvironmentWithPlaywright extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    Object.defineProperty(this.global, 'playwright', {
      get: () => (playwright ??= require('playwright-core')),
    });
  }
}

module.exports = EnvironmentWithPlaywright;
