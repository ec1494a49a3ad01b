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
  'matter.table.duChanged': '毒’s English changes',
  'matter.curve.du': '毒’s English',
  'matter.text.du': ({ words, n, output }) =>
    'The 毒’s English (the tokens written while the mean cross-attention of every head looks most at a piece that ' +
    `holds a 毒 — where the model looks, not a word alignment: ${words}) first changes with ${n} ${n === 1 ? 'head' : 'heads'} off: “${output}”.`,
  'matter.text.duKept':
    'The 毒’s English (the tokens written while the mean cross-attention of every head looks most at a piece that ' +
    'holds a 毒 — where the model looks, not a word alignment: {words}) stays on this line, even with all {total} heads off.',
  'matter.text.never': 'Even with all {total} heads switched off, the model still gives “{output}”.',
  'matter.text.kept':
    'This model keeps its output “{output}” with {n} of {total} heads switched off ({share}); with {changedAt} ' +
    'off ({changedShare}) it gives “{changed}”.',
  'matter.text.fragile': ({ output, changedAt, total, changedShare, changed }) =>
    `The output “${output}” changes as soon as ${changedAt} of the ${total} heads ${changedAt === 1 ? 'is' : 'are'} ` +
    `off (${changedShare}): “${changed}”.`,
  'matter.text.group':
    'The {group} heads matter most: switched off one at a time, their median drop is {median} ({others}).',
  'matter.text.groupMedian': '{group} {median}',
  'matter.text.head': ({ head, drop, median, raise, count }) =>
    `The head that matters most is ${head}: switched off alone, the score falls by ${drop} (the median head: ` +
    `${median}); ${raise} of ${count} heads, switched off alone, ${raise === 1 ? 'raises' : 'raise'} it.`,
  'matter.trust.random':
    'The notes above flag this checkpoint as untrained (random or no better than chance): these numbers only ' +
    'show the method; they mean nothing about which heads a language needs.',
  'matter.trust.unmeasured':
    'The page has not measured that this checkpoint is trained: the numbers say something about heads only if you ' +
    'know it is (a random test checkpoint’s numbers mean nothing).',
  'matter.trust.trained':
    'One text and one reference: a head that does not matter here may matter elsewhere, and a model with heads ' +
    'switched off is not a model trained with fewer heads.',
  'matter.progress.more': 'Running…',
  'matter.progress.oneHead': 'Fewer heads: {done} of {total} runs (score, and output again)',
  'matter.progress.headsOff': 'Heads off: {done} of {total} runs (score, then output again)',
  'matter.progress.rollout': 'Rollout: {done} of {total} runs',
  'matter.ready': 'Done: the result is below.',
  'matter.cancelledMore': 'Cancelled: the analysis above stands.',
  'matter.few.title': 'Fewer heads',
  'matter.few.explain':
    'Michel et al. (2019, §4) reduced a layer to its single most important head. Here the importance is the grid’s ' +
    '(the drop with the head alone off): each layer keeps the head whose removal costs most, first one layer at a ' +
    'time (the table), then every layer at once; or each group keeps only its one most important head.',
  'matter.few.layersButton': 'One head per layer',
  'matter.few.singleButton': 'Only the most important head',
  'matter.few.layers.same':
    'Every layer reduced to one head at once ({kept} of {total} heads kept): log-probability {score} (with every ' +
    'head {reference}); the output stays “{output}”.',
  'matter.few.layers.changed':
    'Every layer reduced to one head at once ({kept} of {total} heads kept): log-probability {score} (with every ' +
    'head {reference}); the output becomes “{output}”.',
  'matter.few.table.caption':
    'One layer at a time reduced to its most important head, the rest of the model whole: the log-probability ' +
    '(with every head: {score})',
  'matter.few.table.group': 'Group',
  'matter.few.table.layer': 'Layer',
  'matter.few.table.kept': 'Head kept',
  'matter.few.table.score': 'Log-probability',
  'matter.few.single.same':
    'The {group} with {head} alone (its other heads off, the other groups whole): log-probability {score}; the ' +
    'output stays “{output}”.',
  'matter.few.single.changed':
    'The {group} with {head} alone (its other heads off, the other groups whole): log-probability {score}; the ' +
    'output becomes “{output}”.',
  'matter.few.singleAll.same':
    'Each group with its one head at once: log-probability {score}; the output stays “{output}”.',
  'matter.few.singleAll.changed':
    'Each group with its one head at once: log-probability {score}; the output becomes “{output}”.',
  'matter.head.title': '{head} of the {group}',
  'matter.head.off.same': 'Without this head alone the score changes by {delta}, and the output stays “{reference}”.',
  'matter.head.off.changed':
    'Without this head alone the score changes by {delta}, and the output becomes “{output}” (with it: ' +
    '“{reference}”).',
  'matter.head.writesWhy':
    'What it writes (Kobayashi et al. 2020, “Attention is Not Only a Weight”): ‖f(x_j)‖, how far this ' +
    'head would move the output from token j with all its weight there — a weight on a token with a small norm ' +
    'moves little.',
  'matter.head.writes': 'Largest: “{token}” (position {position}), {norm}; the median token’s: {median}.',
  'matter.head.table.caption': '‖f(x_j)‖: token j’s value through this head’s part of W_O',
  'matter.head.table.position': 'Position',
  'matter.head.table.token': 'Token',
  'matter.head.table.norm': '‖f(x_j)‖',
  'measure.label': 'Show',
  'measure.weight': 'attention weights α_ij',
  'measure.norm': 'norm-weighted α_ij·‖f(x_j)‖',
  'measure.why':
    'Why: a head adds Σ_j α_ij f(x_j) to token i, so a large weight on a token whose f(x_j) is short moves ' +
    'little (Kobayashi et al. 2020, “Attention is Not Only a Weight”).',
  'measure.legend': 'α·‖f(x)‖',
  'measure.desc':
    'layer {layer} · head {head}: rows are queries, columns keys; each cell α_ij·‖f(x_j)‖ from the engine’s weights and ' +
    'value norms, the darkest the map’s largest.',
  'matter.rollout.title': 'Attention rollout',
  'matter.rollout.explain':
    'Abnar &amp; Zuidema (2020): each layer’s attention averaged over its heads, half of it kept on the token ' +
    'itself (0.5·A + 0.5·I, for the residual connection), multiplied through the layers: row i after layer l is how ' +
    'much of each input token reaches position i. Every row sums to 1.',
  'matter.rollout.rolled.decoder':
    'Rolled here: the decoder’s self-attention (causal: a row has only the tokens up to it).',
  'matter.rollout.rolled.encoder': 'Rolled here: the encoder’s self-attention.',
  'matter.rollout.rolled.encoder-decoder':
    'Rolled here: the encoder’s self-attention, and the decoder’s self-attention over the translation; the ' +
    'cross-attention is not rolled out (the paper defines rollout for one stack of self-attention).',
  'matter.rollout.run': 'Roll out the attention',
  'matter.rollout.group': 'Attention of',
  'matter.rollout.layer': 'After',
  'matter.rollout.after': 'layer {layer}',
  'matter.rollout.mapTitle': '{group} rollout · after layer {layer}',
  'matter.rollout.desc':
    'After layer {layer}: rows are positions, columns the tokens that reach them; each row sums to 1.',
  'matter.rollout.legend': 'share',
  'measure.descMean':
    'Rows are queries, columns keys; each cell α·‖f(x_j)‖ (a layer’s or every head’s: their mean), the darkest the ' +
    'map’s largest.',
};
