// Jest over the wasm builds in dist/. Tests are native ES modules, so Jest runs
// with NODE_OPTIONS=--experimental-vm-modules (scripts/test.sh sets it) and
// transforms nothing.
export default {
  testEnvironment: 'node',
  testMatch: ['<rootDir>/tests/js/**/*.test.mjs', '<rootDir>/tests/pack/**/*.test.mjs'],
  transform: {},
  // Per test; the slow packaging test (tests/pack) sets its own, longer one.
  testTimeout: 20000,
};
