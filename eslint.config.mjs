// ESLint 9 (flat config): the JavaScript of the package (src/js), the demo page
// (web), the tests, the benchmarks and the tooling. ESLint reports problems in
// the code; the layout is Prettier's (.prettierrc.json), so eslint-config-prettier
// switches off every rule that would fight it. `npm run lint` runs both.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';

const BROWSER_TRAPS = `event name status length top parent opener origin close closed open stop find print external
  frames scroll blur focus`.split(/\s+/);

export default [
  {
    ignores: [
      'dist/',
      'build/',
      '.deps/',
      'test-output/',
      'bench-output/',
      'examples/*/dist/',
      // node_modules/ is ignored by ESLint already.
    ],
  },

  js.configs.recommended,

  {
    // An eslint-disable comment that no longer disables anything is reported (not an error).
    linterOptions: { reportUnusedDisableDirectives: 'warn' },
    rules: {
      // Unused parameters before a used one are kept (callbacks' signatures);
      // a leading _ marks a name as unused on purpose. A `catch (error)` that
      // ignores its error, and `const { a, ...rest } = o` taking `a` out of
      // `rest`, are not defects.
      'no-unused-vars': [
        'error',
        {
          args: 'after-used',
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          caughtErrors: 'none',
          ignoreRestSiblings: true,
        },
      ],
    },
  },

  // Names a browser defines on `window` that read as ordinary variables: a
  // misspelt or undeclared `name`, `status` or `event` would silently use them.
  {
    files: ['src/js/**', 'web/**', 'examples/**', 'tests/e2e/**'],
    rules: {
      'no-restricted-globals': ['error', ...BROWSER_TRAPS.map((name) => ({ name, message: `use window.${name}` }))],
    },
  },

  // The package's ES modules run in Node and in browsers (and in bundlers).
  {
    files: ['src/js/**/*.mjs'],
    languageOptions: { sourceType: 'module', globals: { ...globals.browser, ...globals.node } },
  },
  // The engine worker: a classic worker script (importScripts).
  {
    files: ['src/js/engine-worker.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.worker } },
  },
  // The engine host: a classic UMD script, required by Node and loaded by the worker.
  {
    files: ['src/js/engine-host.js'],
    // `self` is declared in the file (/* global self */): the worker's, when there.
    languageOptions: { sourceType: 'script', globals: { ...globals.commonjs } },
  },
  // The CommonJS entry point.
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
  },

  // The demo page, and the Vite example app: browser ES modules.
  {
    files: ['web/**/*.mjs', 'examples/**/*.js'],
    ignores: ['web/server.mjs'],
    languageOptions: { sourceType: 'module', globals: { ...globals.browser } },
  },
  // The demo page's server runs in Node.
  {
    files: ['web/server.mjs'],
    languageOptions: { sourceType: 'module', globals: { ...globals.node } },
  },

  // Jest tests (native ES modules, in Node).
  {
    files: ['tests/**/*.mjs', 'tests/**/*.js'],
    languageOptions: { sourceType: 'module', globals: { ...globals.node, ...globals.jest } },
  },
  // End-to-end tests: functions passed to page.evaluate() run in the page.
  {
    files: ['tests/e2e/**/*.mjs'],
    languageOptions: { globals: { ...globals.node, ...globals.jest, ...globals.browser } },
  },

  // Benchmarks, tooling and config files: Node.
  {
    files: [
      'bench/**/*.mjs',
      'scripts/**/*.mjs',
      'scripts/**/*.js',
      '*.mjs',
      '*.js',
      'examples/*/*.config.mjs',
      'examples/*/build.mjs',
    ],
    languageOptions: { sourceType: 'module', globals: { ...globals.node } },
  },
  // The browser benchmark's functions passed to page.evaluate() run in the page.
  {
    files: ['bench/load-browser.mjs', 'bench/llama-browser.mjs'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },

  // Last: no formatting rules (Prettier owns the layout).
  prettier,
];
