// The builds' file names: CMakeLists.txt's targets, variantFiles() (the rule
// in JS) and DIST_URLS (the same files as literals for bundlers) must agree,
// and every file must be in dist/ after a build.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DIST_URLS, VARIANTS, variantFiles } from '../../src/js/files.mjs';

for (const training of [false, true])
  for (const variant of VARIANTS)
    test(`${training ? 'training' : 'inference'} build ${variant}: names, URLs and files agree`, () => {
      const names = variantFiles(variant, training);
      const urls = DIST_URLS[training ? 'train' : 'inference'][variant];
      expect(Object.keys(urls).sort()).toEqual(Object.keys(names).sort());
      for (const [role, name] of Object.entries(names)) {
        const path = fileURLToPath(urls[role]);
        expect(path.endsWith(`/dist/${name}`)).toBe(true);
        expect(existsSync(path)).toBe(true);
      }
    });
