// `npx webpack --config examples/webpack/webpack.config.mjs` bundles main.js
// into examples/webpack/dist/ with index.html (`--output-path` to put it
// elsewhere); serve that folder, with the COOP and COEP headers for the
// threaded build. webpack 5 copies every file the package references as
// new URL('…', import.meta.url) without any configuration. `import 'mha-wasm'`
// resolves through the package's "exports" (here, the package's own).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = (file) => fileURLToPath(new URL(file, import.meta.url));

// Emits index.html beside the bundle.
const indexHtml = {
  apply(compiler) {
    const { Compilation, sources } = compiler.webpack;
    compiler.hooks.thisCompilation.tap('index.html', (compilation) =>
      compilation.hooks.processAssets.tap(
        { name: 'index.html', stage: Compilation.PROCESS_ASSETS_STAGE_ADDITIONAL },
        () => compilation.emitAsset('index.html', new sources.RawSource(readFileSync(here('./index.html')))),
      ),
    );
  },
};

export default {
  mode: 'production',
  target: 'web',
  context: here('.'),
  entry: './main.js',
  output: { path: here('./dist/'), filename: 'main.js', assetModuleFilename: '[name]-[contenthash][ext]', clean: true },
  performance: { hints: false }, // the .wasm builds are above webpack's 244 KiB advice
  plugins: [indexHtml],
};
