// `mha-wasm` resolves as in an app that installed the package: here through
// the package's own "exports" (self-reference), in an app from node_modules.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  // The dev server's dependency pre-bundling would move browser.mjs away from
  // the files its new URL(…, import.meta.url) references point to.
  optimizeDeps: { exclude: ['mha-wasm'] },
  server: { headers: isolation },
  preview: { headers: isolation },
  build: { target: 'es2022' },
  logLevel: 'warn',
});
