// A Hub home of a suite's own: nothing of this machine's Hugging Face settings, token or cache is read.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HUB_ENVIRONMENT } from '../../tools/hub-server.mjs';

/**
 * Saves and clears every variable of HUB_ENVIRONMENT, then points HF_HOME into a new temporary folder (`home`,
 * named mha-`name`-…). Call it in beforeAll and `restore()` in afterAll: it puts the variables back as they were
 * (unset stays unset) and removes the folder. `freshCache()` is a new empty cache folder inside `home`.
 */
export function isolatedHubHome(name) {
  const home = mkdtempSync(path.join(os.tmpdir(), `mha-${name}-`));
  const saved = Object.fromEntries(HUB_ENVIRONMENT.map((variable) => [variable, process.env[variable]]));
  for (const variable of HUB_ENVIRONMENT) delete process.env[variable];
  process.env.HF_HOME = path.join(home, 'hf-home');
  return {
    home,
    freshCache: () => mkdtempSync(path.join(home, 'cache-')),
    restore() {
      for (const [variable, value] of Object.entries(saved))
        if (value === undefined) delete process.env[variable];
        else process.env[variable] = value;
      rmSync(home, { recursive: true, force: true });
    },
  };
}
