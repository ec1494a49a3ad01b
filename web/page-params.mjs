// The numbers that the page's prose (i18n/*/page.mjs) takes from the modules
// that define them, as translateDom's parameters: written once, in the code.
import { D_MODEL as X_WIDTH } from './model/features.mjs';
import { D_MODEL as TRAIN_WIDTH, MLP_HIDDEN } from './model/train-options.mjs';
import { PILOT } from './model/pilot.mjs';
import { fixed, percent, thousands } from './lib/format.mjs';

export function pageParams() {
  const { oneHead, twoHeads, mlp } = PILOT;
  return {
    xWidth: X_WIDTH,
    trainWidth: TRAIN_WIDTH,
    trainWidth2: TRAIN_WIDTH / 2,
    trainWidth4: TRAIN_WIDTH / 4,
    mlpHidden: MLP_HIDDEN,
    pilotSeeds: PILOT.seeds,
    pilotSteps: thousands(PILOT.steps),
    pilotBatch: PILOT.batch,
    pilotWidth: PILOT.dModel,
    pilotOne: `${fixed(100 * oneHead.mean, 1)} ± ${fixed(100 * oneHead.sd, 1)} %`,
    pilotTwo: percent(twoHeads.mean),
    pilotAllOne: PILOT.allRight.oneHead,
    pilotAllTwo: PILOT.allRight.twoHeads,
    pilotLeft: fixed(PILOT.neighbours.left, 2),
    pilotRight: fixed(PILOT.neighbours.right, 2),
    pilotMlpOne: percent(mlp.oneHead),
    pilotMlpTwo: percent(mlp.twoHeads),
  };
}
