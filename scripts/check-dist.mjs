// `npm pack`'s prepack: checks that dist/ holds every build the package
// loads (src/js/files.mjs's names, and the browsers' tokenizer worker), and
// packs nothing else: no set-up, no build, nothing that needs root. Without
// them it stops with what to do: mha-wasm is installed from the npm registry,
// where dist/ comes built; building it needs Emscripten >= 3.1.69 (Debian 13's
// in a chroot that scripts/setup.sh makes as root, or emsdk's: CONTRIBUTING.md). So `npm install
// github:…` says that plainly instead of failing inside apt-get.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FAMILIES, VARIANTS, variantFiles } from '../src/js/files.mjs';
import { TOKENIZER_WORKER } from '../src/js/model-files.mjs';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const wanted = [
  ...new Set([
    ...FAMILIES.flatMap((family) => VARIANTS.flatMap((variant) => Object.values(variantFiles(variant, family)))),
    TOKENIZER_WORKER,
  ]),
];
const missing = wanted.filter((name) => !existsSync(`${dist}${name}`));
if (missing.length) {
  console.error(
    `mha-wasm: npm pack: dist/ lacks ${missing.length} of the ${wanted.length} built files ` +
      `(${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', …' : ''}). ` +
      'Install mha-wasm from the npm registry (npm install mha-wasm), where dist/ comes built; ' +
      'to build it from this repository, run `npm run setup && npm run build` on Debian 12 as root, ' +
      'or `npm run build` with an Emscripten >= 3.1.69 on the PATH (CONTRIBUTING.md), then pack again.',
  );
  process.exit(1);
}
