// The numbers that the page's prose (i18n/*/page.mjs) takes from the modules
// that define them, as translateDom's parameters: written once, in the code.
import { D_MODEL as X_WIDTH } from './model/features.mjs';
import { D_MODEL as TRAIN_WIDTH, MLP_HIDDEN, DEFAULT_OPTIONS as TRAIN_DEFAULTS } from './model/train-options.mjs';
import { DEFAULT_SHARPNESS } from './model/designed-heads.mjs';
import { PILOT } from './model/pilot.mjs';
import { TOKENS } from './sentence.mjs';
import { fixed, percent, thousands } from './lib/format.mjs';

/**
 * The example's 毒 and their neighbours, the two tokens the training task
 * decides a 毒's role from: how many neighbours there are, and how many of
 * them the annotation links to the 毒 by a dependency (the 毒's head, or a
 * token whose head is the 毒).
 */
export function duNeighbourLinks(tokens = TOKENS) {
  let neighbours = 0;
  let linked = 0;
  tokens.forEach((token, i) => {
    if (token.char !== '毒') return;
    for (const n of [i - 1, i + 1].filter((j) => j >= 0 && j < tokens.length)) {
      neighbours++;
      if (token.head === n || tokens[n].head === i) linked++;
    }
  });
  return { neighbours, linked };
}

export function pageParams() {
  const { oneHead, twoHeads, mlp } = PILOT;
  const links = duNeighbourLinks();
  return {
    defaultSeeds: TRAIN_DEFAULTS.seeds,
    defaultSteps: thousands(TRAIN_DEFAULTS.steps),
    sharpness: DEFAULT_SHARPNESS,
    duNeighbours: links.neighbours,
    duLinked: links.linked,
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
