// English: "Train it yourself": its status, charts, tables, rule table, and
// the text written from the runs (model/train-text.mjs).
import { rules } from '../../model/corpus.mjs';

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

export default {
  'train.ready':
    'Ready. The first Train loads the engine’s build with the trainer; everything then trains here, in your browser.',
  'train.loading': 'Loading the engine’s build with the trainer…',
  'train.starting': ({ n }) => `Starting ${plural(n, 'run')}…`,
  'train.stoppedBeforeFirst': 'Stopped before the first step.',
  'train.rate': ' · {rate} steps/s of training on {variant} with {threads}: one run of {steps} steps takes {seconds} s',
  'train.running': ({ runs, step, steps }) => `Training ${plural(runs, 'run')} side by side: step ${step} of ${steps}`,
  'train.done': ({ runs, steps, seconds }) =>
    `Done: ${plural(runs, 'run')} × ${steps} steps in ${seconds} s, evaluations included`,
  'train.stoppedAt': 'Stopped at step {step} of {steps}',
  'train.text.pending': 'What the runs showed appears here when they finish.',
  'train.text.stopped': 'Stopped before the end: no result to report. Train again to finish a run.',
  'train.heads.none': 'No run yet: once Train has run, each run’s learned heads show here.',
  'train.heads.learned': 'Learned, at step {step}.',
  'train.heads.looks': ' Over the test set’s 毒: {left} on the left neighbour, {right} on the right.',
  'train.heads.caption':
    '{setting}, seed {seed}, at step {step}: the example sentence, which it never trained on, through this run’s ' +
    'model. Its 毒: {list}.',
  'train.heads.du': '{token} {got}{mark}',
  'train.heads.wrong': ' ✗ ({want})',
  'train.token.other': 'not a 毒',
  'train.token.du': '{tag} (by the rule table)',
  'setting.label': ({ numHeads, mlp }) => `${numHeads} head${numHeads === 1 ? '' : 's'}${mlp ? ' + MLP' : ''}`,
  'tag.noun': 'noun',
  'tag.verb': 'verb',
  'tag.modifier': 'modifier',
  'tag.other': 'other',

  'chart.loss.label': 'Training loss',
  'chart.loss.caption': "Training loss (each batch's cross-entropy, averaged over {chunk} steps)",
  'chart.loss.y': 'loss (log scale)',
  'chart.accuracy.label': 'Held-out 毒 accuracy',
  'chart.accuracy.caption': "Accuracy on the held-out sentences' 毒 (every {every} steps)",
  'chart.accuracy.y': '毒 right',
  'chart.x': 'training step',
  'chart.empty': '{label}: no training yet',
  'chart.placeholder': 'No training yet: press Train above.',
  'chart.aria': '{label}, latest mean per setting: {means}. The table below lists every run.',
  'chart.mean': 'mean of the seeds',
  'chart.seed': 'seed {seed}',
  'chart.line': '{setting}, {which}: {latest}',

  'runs.caption':
    'Every run. Held-out 毒 accuracy: the latest evaluation (final once done). The example sentence: the role the ' +
    'run gives each 毒 (✓ right; ✗ and what it said instead). Neighbour weight: each head’s mean attention from a 毒 ' +
    'to its left / right neighbour over the test set (at the end).',
  'runs.run': 'run',
  'runs.heldOut': 'held-out 毒',
  'runs.allSix': 'all six',
  'runs.neighbours': 'neighbour weight (left / right)',
  'runs.setting': '{setting}: {accuracy} · all six 毒 of the example right in {right} of {runs}',
  'runs.seed': 'seed {seed}',
  'runs.right': 'right',
  'runs.wrong': 'wrong: {got}',

  'rules.caption':
    'A 毒’s role from the classes of its two neighbours: left (rows) and right (columns); — : no sentence puts a 毒 ' +
    'there.',
  'rules.corner': 'left ↓ right →',
  'rules.edge': '， start, end',
  'rules.examples': 'An example of every rule',
  'rules.example': '{left} · 毒 · {right} → {role}: ',
  'rules.exampleTexts': rules.map((r) => r.example),
  'class.du': '毒',
  'class.edge': 'edge',
  'class.marker': 'marker',
  'class.noun': 'noun',
  'class.modal': 'modal',
  'class.result': 'result',
  'rules.note':
    'Knowing only the left neighbour’s class leaves two roles open in {lefts} of {leftCount} rows; knowing only the ' +
    'right one’s, in {rights} of {rightCount} columns; the two together always decide. On the test set below, the ' +
    'best guess from the left character alone gets {left} of the 毒 right, from the right character alone {right}, ' +
    'from both {both}.',
  'rules.data':
    'Training set: {train} generated sentences ({distinct} different ones; seed {seed}). Test set: {test} other ' +
    'generated sentences with {testDu} 毒, none of them in the training set. The example sentence is in neither: ' +
    'the generator never produces it, so every 毒 in it is a test.',

  'text.points': ({ x }) => `${x} point${x === '1.0' ? '' : 's'}`,
  'text.oneSeed': ', one seed so no spread',
  'text.accuracy': '{setting} {accuracy}{spread} (seed {seeds})',
  'text.level': '{b} and {a} were level ({bValue} and {aValue}).',
  'text.above': 'every seed with {ahead} scored above every seed with {behind}',
  'text.overlap':
    'but their seeds overlap: the worst seed with {ahead} ({worst}) was not above the best with {behind} ({best})',
  'text.ahead': ({ ahead, behind, points, overlap, one }) =>
    `${ahead} ${one ? 'was' : 'were'} ahead of ${behind} by ${points}; ${overlap}.`,
  'text.lookOne':
    "{setting}: on average {left} of its weight on a 毒's left neighbour and {right} on its right one, from one softmax.",
  'text.lookMany': ({ setting, splits, seeds, left, right }) =>
    `${setting}: one head looked mostly left and another mostly right in ${splits} of ${plural(seeds, 'seed')} ` +
    `(the most left-looking head put ${left} on the left neighbour, the most right-looking ${right} on the right one).`,
  'text.after':
    'After {steps} steps, held-out 毒 accuracy on {sentences} sentences never trained on ({du} 毒), mean ± sample SD ' +
    'over seeds: {list}.',
  'text.listJoin': '; ',
  'text.allRightItem': ({ right, runs, setting }) => `${right} of ${plural(runs, 'run')} with ${setting}`,
  'text.allRight': 'The example sentence (held out of training): all six 毒 right in {list}.',
  'text.looks': 'Where the heads look, measured over the test set’s 毒: {list}',
  'text.mlp': 'With an MLP after attention: {list}.',
  'text.gap': ' Two heads minus one head: {before} without the MLP, {after} with it: the gap {change}.',
  'text.narrowed': 'narrowed',
  'text.widened': 'widened',
  'text.same': 'stayed the same',
  'text.worked':
    'one head worked: {one}, more than the {ceiling} that the better neighbour alone allows on this test set',
  'text.notWorked': 'one head did not get past what one neighbour alone allows ({one} against {ceiling})',
  'text.behind': 'and it was {points} behind two heads',
  'text.notBehind': 'and it was not behind two heads',
  'text.claim':
    'The claim “单头注意力不是不行，而是不够好” (one head can do it, just not as well), against this run: {worked}, {behind}.',
};
