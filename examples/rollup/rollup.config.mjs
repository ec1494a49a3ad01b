// `npx rollup -c examples/rollup/rollup.config.mjs` bundles main.js into
// examples/rollup/dist/ with index.html (`-d <folder>` to put it elsewhere);
// serve that folder, with the COOP and COEP headers for the threaded build.
// node-resolve finds 'mha-wasm' through the package's "exports" (its browser
// entry); import-meta-assets copies every file the package references as
// new URL('…', import.meta.url) and rewrites those URLs.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import { importMetaAssets } from '@web/rollup-plugin-import-meta-assets';

const here = (file) => fileURLToPath(new URL(file, import.meta.url));

// Emits index.html beside the bundle.
const indexHtml = {
  name: 'index.html',
  generateBundle() {
    this.emitFile({ type: 'asset', fileName: 'index.html', source: readFileSync(here('./index.html')) });
  },
};

export default {
  input: here('./main.js'),
  output: { dir: here('./dist/'), format: 'es', entryFileNames: 'main.js' },
  plugins: [nodeResolve({ browser: true }), importMetaAssets(), indexHtml],
};
