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
  'train.running': ({ runs, step, steps, left }) =>
    `Training ${plural(runs, 'run')} side by side: step ${step} of ${steps}${left}`,
  'train.left': ' · about {seconds} s left',
  'train.work': ({ runs, steps, total }) => `${plural(runs, 'run')} × ${steps} steps = ${total} training steps`,
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

  'evidence.caption':
    'Seed by seed: each seed’s held-out 毒 accuracy with 1 head and with 2 heads, joined by a line (when the MLP ' +
    'variants were trained, their rows follow, hollow dots)',
  'evidence.pending': 'Training: each seed’s pair is drawn here when the runs finish.',
  'evidence.stopped': 'Stopped before the end: no pairs to draw. Train again to finish the runs.',
  'evidence.empty': 'The evidence seed by seed: {text}',
  'evidence.legend': '{setting} (median {median})',
  'evidence.ceiling': 'the better neighbour alone: {value}',
  'evidence.x': 'held-out 毒 accuracy',
  'evidence.seed': 'seed {seed}',
  'evidence.seedMlp': 'seed {seed} + MLP',
  'evidence.row': 'seed {seed}: {list}',
  'evidence.rowCollapsed': '; with {setting} the heads did not divide the neighbours',
  'evidence.collapsed': 'heads not divided',
  'evidence.summary': '{headline}.',
  'evidence.aria': 'Dot plot of {seeds} paired seeds: {headline}. Every number is in the table of every run below.',
  'collapse.head': 'mostly on {focus} ({weight})',
  'collapse.caption':
    '{setting}, seed {seed} ({accuracy}): the example sentence through this run’s model; over the test set’s 毒: ' +
    '{heads}.',
  'collapse.show': 'Open {setting}, seed {seed} in “Learned heads”',
  'bridge.designedWaiting': 'Waiting for the engine to compute the designed heads…',
  'bridge.designed.role': 'the other 毒 of the same role (reads the annotated role columns)',
  'bridge.designed.dependency': 'the word it attaches to (reads the annotated dependency columns)',
  'bridge.designed.long-distance': 'a second mention back to the first (reads the annotated links)',
  'bridge.waiting': 'After Train: the heads that the median two-head seed learned.',
  'bridge.learnedTitle': 'learned “{focus}” head ({head})',
  'bridge.focus.left': 'left',
  'bridge.focus.right': 'right',
  'bridge.focus.self': 'itself',
  'bridge.caption': ({ setting, seed, n, accuracy, heads }) =>
    `Learned: ${setting}, seed ${seed}, the median of ${plural(n, 'seed')} (${accuracy}), on the example sentence, ` +
    `which it never trained on; over the test set’s 毒: ${heads}. Its two heads divided the work: one looks left, ` +
    'the other right.',
  'bridge.captionNotDivided': ({ setting, seed, n, accuracy, heads }) =>
    `Learned: ${setting}, seed ${seed}, the median of ${plural(n, 'seed')} (${accuracy}), on the example sentence, ` +
    `which it never trained on; over the test set’s 毒: ${heads}. Its heads did not divide the two neighbours ` +
    'between them.',

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
    'run gives each 毒 (✓ right; ✗ and what it said instead). Where the heads look: each head’s mean attention from ' +
    'a 毒 to its left neighbour / its right neighbour / itself over the test set (at the end).',
  'runs.run': 'run',
  'runs.heldOut': 'held-out 毒',
  'runs.allSix': 'all six',
  'runs.neighbours': 'where the heads look (left / right / itself)',
  'runs.setting':
    '{setting}: median {median} (mean ± SD {accuracy}) · all six 毒 of the example right in {right} of {runs}',
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
  'text.meanSd': ' (mean ± SD {meanSd})',
  'text.accuracy': '{setting} {median}{spread}',
  'text.after':
    'After {steps} steps, held-out 毒 accuracy on {sentences} sentences never trained on ({du} 毒), the median over ' +
    'seeds: {list}.',
  'text.listJoin': '; ',
  'text.pairAhead': ({ ahead, behind, count, lower, n, ties }) =>
    `${ahead} scored higher than ${behind} in ${count} of ${plural(n, 'seed')} and lower in ${lower}` +
    `${ties ? ` (the same in ${ties})` : ''}`,
  'text.pairLevel': ({ a, b, count, n, ties }) =>
    `${b} and ${a} each scored higher in ${count} of ${plural(n, 'seed')}${ties ? ` (the same in ${ties})` : ''}`,
  'text.paired': ({ lead, a, b, gain, overlap }) =>
    `Seed by seed (a seed gives both settings the same initial parameters and the same batches): ${lead}; the ` +
    `median over the seeds of ${b} minus ${a} was ${gain}${overlap ? `; ${overlap}` : ''}.`,
  'text.above': 'every seed with {ahead} scored above every seed with {behind}',
  'text.overlap':
    'but their seeds overlap: the worst seed with {ahead} ({worst}) was not above the best with {behind} ({best})',
  'text.headFocus': 'head {head} mostly on {focus} ({weight})',
  'focus.left': 'the left neighbour',
  'focus.right': 'the right neighbour',
  'focus.self': 'the 毒 itself',
  'text.collapsedSeed': 'seed {seed} ({accuracy}): {heads}',
  'text.collapse': ({ setting, count, n, list, lowest }) =>
    `With ${setting}, the heads did not divide the two neighbours between them in ${count} of ` +
    `${plural(n, 'seed')}: ${list}.` +
    (lowest
      ? count === 1
        ? ` It is the lowest seed with ${setting}.`
        : ` They are the lowest seeds with ${setting}.`
      : ''),
  'text.lookOne':
    "{setting}: on average {left} of its weight on a 毒's left neighbour and {right} on its right one, from one softmax.",
  'text.lookMany': ({ setting, splits, seeds, left, right }) =>
    `${setting}: one head looked mostly left and another mostly right in ${splits} of ${plural(seeds, 'seed')} ` +
    `(the most left-looking head put ${left} on the left neighbour, the most right-looking ${right} on the right one).`,
  'text.allRightItem': ({ right, runs, setting }) => `${right} of ${plural(runs, 'run')} with ${setting}`,
  'text.allRight': 'The example sentence (held out of training): all six 毒 right in {list}.',
  'text.looks': 'Where the heads look, measured over the test set’s 毒: {list}',
  'text.mlp': 'With an MLP after attention: {list}.',
  'text.gap':
    ' Per seed, two heads minus one head had a median of {before} without the MLP and {after} with it: the gap {change}.',
  'text.narrowed': 'narrowed',
  'text.widened': 'widened',
  'text.same': 'stayed the same',
  'text.worked':
    'one head worked: its median, {one}, is more than the {ceiling} that the better neighbour alone allows on this ' +
    'test set',
  'text.notWorked': 'one head did not get past what one neighbour alone allows (a median of {one} against {ceiling})',
  'text.behind': ({ wins, n, gain }) =>
    `and it was behind two heads in ${wins} of ${plural(n, 'seed')}, by a median of ${gain} per seed`,
  'text.notBehind': ({ wins, losses, n }) =>
    `but it was not behind two heads: they scored higher in only ${wins} of ${plural(n, 'seed')} and lower in ${losses}`,
  'text.claim':
    'The claim “单头注意力不是不行，而是不够好” (one head can do it, just not as well), against this run: {worked}, {behind}.',
  'text.claimMlp':
    'With an MLP after attention, against the same claim: {worked}, {behind}; the per-seed median gap went from ' +
    '{before} without the MLP to {after} with it: it {change}.',
  'text.headOff':
    'Switching a head off the trained {two} model (its 毒 accuracy {full} with both) leaves a median of {best} when ' +
    'the better head stays and {worst} when the worse one does, against {trained} for {one} trained as one head: {verdict}',
  'text.headOff.below': 'switching a head off is not training with one head; the model trained with one does better.',
  'text.headOff.above': 'here the head that stays does better alone than a model trained with one head.',
  'text.headOff.same': 'here the head that stays does as well as a model trained with one head.',
  'text.headline': ({ lead, one, two, oneValue, twoValue }) =>
    `${lead}; median held-out 毒 accuracy ${twoValue} with ${two}, ${oneValue} with ${one}`,
};
