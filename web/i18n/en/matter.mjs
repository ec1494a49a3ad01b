// English: "Which heads matter" (views/heads-matter.mjs), in the real-model view and the translation view: each
// head switched off alone, then cumulatively (mha-wasm/analysis), with what the numbers say.
export default {
  'matter.title': 'Which heads matter',
  'matter.explain':
    'An experiment, not a picture of weights (Michel et al. 2019, “Are Sixteen Heads Really Better than One?”): ' +
    'the model scores its own output on this text (the <em>reference</em>: its log-probability, every token given ' +
    'what precedes it); then each head alone is switched off and the reference scored again. The change is the ' +
    'grid’s number: negative, the head helped this output. Then heads are switched off together, least important ' +
    'first, in that fixed order (Michel et al. recompute a gradient-based score after each step; this one ' +
    'ablation is the gradient-free choice), and at each point the model produces its output again.',
  'matter.run': 'Which heads matter?',
  'matter.cancel': 'Cancel',
  'matter.length': 'Reference',
  'matter.length.next': 'the next token',
  'matter.length.n': 'the next {n} tokens',
  'matter.needMask': 'A BERT fills its [MASK]: put one in the text first (the fill’s button above masks a 毒).',
  'matter.progress.start': 'The reference: the model’s own output with every head…',
  'matter.progress.importance': 'Each head alone switched off: {done} of {total} runs',
  'matter.progress.pruning': 'Heads off together: {done} of {total} points (score and output again)',
  'matter.cancelled': 'Cancelled: no result.',
  'matter.done': '{passes} runs in {seconds} s, in the engine ({variant}).',
  'matter.error': 'The analysis failed.',
  'matter.ref.decoder': 'the greedy continuation',
  'matter.ref.encoder': 'the most probable fill of each [MASK]',
  'matter.ref.encoder-decoder': 'the greedy translation (1 beam)',
  'matter.reference': 'Reference, {kind}: “{output}”; its log-probability with every head: {score}.',
  'matter.group.encoder': 'encoder',
  'matter.group.decoder': 'decoder',
  'matter.group.cross': 'cross-attention',
  'matter.group.all': 'all heads',
  'matter.grid.caption':
    '{group}: the change of the reference’s log-probability with that head alone switched off (rows: layers, ' +
    'columns: heads). Click a head to open it in the views below.',
  'matter.grid.layer': 'layer {layer}',
  'matter.grid.head': 'head {head}',
  'matter.grid.cell': '{head}: {delta} with this head off',
  'matter.legend.helps': 'the score falls without it (it helps)',
  'matter.legend.hurts': 'the score rises without it',
  'matter.curve.title': 'Heads switched off, least important first',
  'matter.curve.line': 'Heads of',
  'matter.curve.x': 'share of heads switched off',
  'matter.curve.y': 'log-probability',
  'matter.curve.aria': '{group}: the reference’s log-probability from {first} (no head off) to {last} (all off)',
  'matter.curve.first': 'output changes',
  'matter.table.caption': '{group}: the score and the output again at each point',
  'matter.table.off': 'Heads off',
  'matter.table.score': 'Log-probability',
  'matter.table.output': 'Output',
  'matter.table.changed': 'first change',
  'matter.table.count': '{share} ({n})',
  'matter.text.never': 'Even with all {total} heads switched off, the model still gives “{output}”.',
  'matter.text.kept':
    'This model keeps its output “{output}” with {n} of {total} heads switched off ({share}); with {changedAt} ' +
    'off ({changedShare}) it gives “{changed}”.',
  'matter.text.fragile':
    'The output “{output}” changes as soon as {changedAt} of {total} heads are switched off ({changedShare}): ' +
    '“{changed}”.',
  'matter.text.group':
    'The {group} heads matter most: switched off one at a time, their median drop is {median} ({others}).',
  'matter.text.groupMedian': '{group} {median}',
  'matter.text.head':
    '{head} matters most: switched off alone, the score falls by {drop} (the median head: {median}); {raise} of ' +
    '{count} heads, switched off alone, raise it.',
  'matter.trust.random':
    'The notes above flag this checkpoint as untrained (random or no better than chance): these numbers only ' +
    'show the method; they mean nothing about which heads a language needs.',
  'matter.trust.unmeasured':
    'The page has not measured that this checkpoint is trained: the numbers say something about heads only if you ' +
    'know it is (a random test checkpoint’s numbers mean nothing).',
  'matter.trust.trained':
    'One text and one reference: a head that does not matter here may matter elsewhere, and a model with heads ' +
    'switched off is not a model trained with fewer heads.',
};
