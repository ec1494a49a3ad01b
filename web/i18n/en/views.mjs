// English: the text the views and models write (heads, comparison, pipeline,
// neuron view, status, free mode, the sentence).
import { TOKENS, WORDS } from '../../sentence.mjs';

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

export default {
  'status.loading': 'Loading the WebAssembly engine…',
  'status.engine': 'Computed here by {build}, {threads} ({variant}) · {note}',
  'status.build.threaded-simd': 'WebAssembly SIMD (4 numbers at once)',
  'status.build.simd': 'WebAssembly SIMD (4 numbers at once)',
  'status.build.threaded-relaxed-simd': 'WebAssembly relaxed SIMD',
  'status.build.relaxed-simd': 'WebAssembly relaxed SIMD',
  'status.build.scalar': 'WebAssembly without SIMD (one number per instruction)',
  'status.threads': ({ n }) => plural(n, 'thread'),
  'status.isolated': 'cross-origin isolated, as browsers require for threads',
  'status.notIsolated':
    'not cross-origin isolated (the server sent no COOP and COEP headers, which browsers require for threads)',
  'status.last': '{engine} · last run: {calls} in {ms} ms at {time}',
  'status.calls': ({ n }) => plural(n, 'call') + ' to the engine',
  'status.empty': '{engine} · nothing to compute: the sentence has no tokens',
  'error.stopped': 'Stopped: {message}',
  'error.noWasm': 'this browser has no WebAssembly, which the engine needs; try a current Chrome, Firefox or Safari.',
  'copy.done': 'Link copied',
  'copy.failed': 'Copy the address bar: it holds this view',
  'link.problems': 'This link has {items}, which the page cannot use; it shows the default instead.',
  'link.heads': 'heads={heads} does not divide d_model {dModel}, so {used} heads are used.',
  'list.join': ', ',
  'empty.sentence':
    'Type a sentence: this one has no tokens (it is empty or only spaces), so there is nothing to compute. The ' +
    'views below come back with the next sentence.',

  'free.tokens': ({ n, list }) => `${plural(n, 'token')}: ${list}`,
  'free.truncated': ' (only the first {max} are used)',
  'free.dims': ' — d_model {dModel} = h·d_k = {h}·{dK}; d_v = d_k; seed {seed}.',
  'free.dk': 'd_k = d_v = {dModel}/{h} = {dK}',
  'free.refit': 'd_model {dModel} has no room for {heads} heads: {used} heads.',

  'head.title.role': 'role head',
  'head.title.dependency': 'dependency head',
  'head.title.long-distance': 'long-distance head',
  'head.title.single': 'single head',
  'head.title.previous-word': 'previous-word head',
  'head.title.same-lemma': 'same-lemma head',
  'head.title.alignment': 'alignment head',
  'head.title.order': 'order head',
  'head.numbered': 'head {n}',
  'headInfo.role': 'each 毒 looks for the other 毒 of its role: 1↔12, 2↔13, 3↔6',
  'headInfo.dependency': 'each token looks for its dependency head',
  'headInfo.long-distance': 'a second mention looks back at its first mention',
  'headInfo.single': 'one head as wide as the {n} together, scoring the sum of their scores',
  'headInfo.previous-word': 'each English token looks at the word before it',
  'headInfo.same-lemma': 'a repeated word looks back at its earlier use',
  'headInfo.alignment': 'each English token looks up the Chinese tokens it translates, in its own clause',
  'headInfo.order': 'each English token looks at the Chinese clause it belongs to',
  'headInfo.random': 'seeded random wQ, wK, wV (d_k {dK})',

  'heatmap.aria':
    '{title}: attention weights of {rows} query tokens (rows) over {cols} key tokens (columns). Arrow keys read a ' +
    'weight; Enter selects that query token and pair; the table below lists every number.',
  'readout.heatmap': 'Hover a cell, or focus the map and use the arrow keys.',
  'heatmap.table': 'Table of these numbers',
  'heatmap.weight': 'weight',
  'heatmap.masked': 'masked (causal): exactly 0',
  'heatmap.readout': '{title}: query {query} → key {key}: {value}',
  'heatmap.maskedValue': '0 exactly (masked: the key is in the future)',
  'heatmap.tableCaption': '{title}: weight of each key (column) for each query (row); each row sums to 1.',
  'table.corner': 'query ↓ key →',
  'table.masked': '0 (masked)',
  'export.corner': 'query \\ key',
  'side.query': 'query',
  'side.key': 'key',
  'common.yes': 'yes',
  'common.no': 'no',

  'compare.picks': ({ heads, picks }) =>
    `The ${heads} heads make ${picks} picks (a row's top key, in the rows where a head has something to find). `,
  'compare.kept': "The single head's top keeps {kept} of them and drops {dropped}",
  'compare.why': ': one softmax per row cannot put most of its weight on several keys at once. ',
  'compare.entropy':
    'Mean entropy per row, in bits (how spread a row’s weight is: 0 bits all on one key, 1 bit split evenly over ' +
    'two keys, n bits over 2ⁿ): {heads} (rows with a pick); single head {single} (all rows). ',
  'compare.choose': 'Adding scores does not make it flatter, it makes it choose',
  'compare.split': ', and where keys tie for its top weight it splits its weight between them: {names}. ',
  'compare.stop': '. ',
  'compare.none': ({ n, names }) =>
    `Its top key is none of the heads' tops in ${plural(n, 'row')}: ${names} (highlighted).`,
  'compare.always':
    "Its top key is always one of the heads' tops here: adding the scores keeps each row's strongest relation and " +
    'loses the others. (With random heads, in Free mode, it often lands where no head looks.)',
  'compare.construction':
    ' These counts follow from the construction: they illustrate that one softmax must choose, they are not evidence.',
  'compare.bits': '{h} bits',
  'compare.caption':
    'Row by row: the single head’s top keys and entropy, and each head’s pick (✓ kept by the single head, ✗ ' +
    'dropped, with the weight the single head still gives it).',
  'compare.th.query': 'query',
  'compare.th.single': 'single head: top · entropy',
  'compare.th.none': 'none of the heads’ tops?',
  'compare.uniform': 'uniform (nothing to find)',
  'compare.flatRow': 'uniform (no key picked)',
  'compare.flat':
    'There is nothing to compare this time: every row of every head, the single head too, spreads its weight ' +
    'evenly over the keys it can see ({single} per row for the single head, the entropy of an even spread: n bits ' +
    'is an even split over 2ⁿ keys). ' +
    'With every score equal, the softmax can only spread evenly: no key is picked, so none is kept or dropped. ',
  'compare.flat.sharpness':
    'This is what sharpness 0 does: it multiplies every designed score by 0. Raise the sharpness and the heads ' +
    'pick the keys they look for, and the single head has to choose among them.',
  'compare.keptMark': 'kept',
  'compare.droppedMark': 'dropped',
  'compare.singleWeight': ' · single {w}',

  'headView.heads': 'Heads',
  'headView.layout': 'Layout',
  'headView.columns': 'columns',
  'headView.rows': 'rows',
  'headView.export': 'Export the head view',
  'headView.exportLearned': 'Export the learned head view',
  'headView.aria':
    'Head view: lines from each query token to the key tokens it attends to, one colour per head, opacity = ' +
    'weight. Arrow keys move between tokens; Enter locks one.',
  'headView.token': '{side} {token}: show only its lines (Enter to lock)',
  'headView.legend': 'line opacity = weight',
  'headView.queries': 'queries',
  'headView.keys': 'keys',

  'stage.x.text': 'the input: one row of features per token',
  'stage.x.textCross': 'the input: one row of features per English (query) token',
  'stage.q.text': "X·wQ, this head's {dK} columns: what each query looks for",
  'stage.k.text': '{X}·wK: what each key offers; every head gets every token',
  'stage.v.text': '{X}·wV: what each key passes on',
  'stage.scores.text': "the engine's scores: each query's dot product with each key, divided by √{dK}",
  'stage.masked.label': 'mask',
  'stage.masked.causal': 'causal: keys after the query become −∞ (hatched)',
  'stage.masked.none': 'no mask here: every query sees every key',
  'stage.weights.text': 'the engine’s attention weights: each row sums to 1',
  'stage.head.label': 'head output · {head}',
  'stage.head.text': 'weights · V: this head’s output, columns h·d_v… of concat',
  'stage.concat.label': 'Concat',
  'stage.concat.text': 'all {n} heads’ outputs side by side: {n}·{dV} = {width} wide',
  'stage.wo.text': 'maps {width} concat columns back to d_model = {dModel}',
  'stage.output.label': 'output',
  'stage.output.text': 'concat · wO: one row per query token, d_model wide again',
  'stage.caption': '{label} ({shape}): {text}.',
  'stage.concatRow': 'concat {i}',
  'formula.label': 'The formulas; each term is a button for its stage (arrow keys move)',
  'formula.perHead': 'per head',
  'formula.all': 'all heads',
  'matrix.aria': '{title}: {rows} × {cols}. Arrow keys read a value.',
  'matrix.readout': '{title} [{row}, {col}] = {value}',
  'matrix.column': 'column {c}',
  'matrix.masked': '−∞ (masked)',
  'matrix.legendSigned': 'value (0 white)',
  'matrix.legendWeight': 'weight',

  'check.holds': 'holds',
  'check.fails': 'fails',
  'check.whole': ({ cols, causal }) =>
    `Every head sees the whole sequence: each head's K and V have all ${cols} rows` +
    `${causal ? ' (the causal mask then hides the keys after each query)' : ''}. The heads split the ` +
    'representation, never the sentence.',
  'check.own': ({ n, dModel, dK, dV }) =>
    (n === 1
      ? `One head: its wQ, wK (${dModel}×${dK}) and wV (${dModel}×${dV}) are the whole width. `
      : `Each head has its own wQ, wK (${dModel}×${dK}) and wV (${dModel}×${dV}): ${n} different column slices ` +
        'of each. ') +
    `The heads split d_model: ${n}·${dK} = ${n * dK} ${n * dK === dModel ? '=' : '≠'} d_model, ` +
    `d_v ${dV === dK ? '=' : '≠'} d_k.`,
  'check.concat': 'Concat is {concat} wide, and wO ({width}×{dModel}) maps it back to d_model = {dModel}.',
  'check.sums': 'Each row of weights sums to 1: largest |sum − 1| is {error} over {rows} rows.',
  'check.masked': 'Masked cells are exactly 0: {zero} of {masked} masked cells ({heads} heads) are 0.',
  'check.noMask': 'No mask in this mode: every query sees every key (Decoder shows the causal mask).',
  'check.softmax': "softmax of the scores above equals the engine's weights: largest difference {gap}.",

  'neuron.pair': '{head}: query {query} → key {key}',
  'neuron.q': 'q (query {token})',
  'neuron.k': 'k (key {token})',
  'neuron.product': 'q⊙k',
  'neuron.legend.negative': 'negative (brown)',
  'neuron.legend.positive': 'positive (purple)',
  'neuron.legend.scale': 'each row is shaded against its own largest |value|: the darkest cell of a row holds it',
  'neuron.aria': 'q, k and their element-wise product for {pair}; arrow keys read a value.',
  'neuron.readout': '{row}[{i}] {label} = {value}',
  'neuron.hint': 'Hover a column, or focus the drawing and use the arrow keys.',
  'neuron.dot': 'dot product q·k = Σ qᵢkᵢ = {dot} ({nonzero})',
  'neuron.score': 'score = q·k / √d_k = {dot} / √{dK} = {score} (the engine’s: {engineScore})',
  'neuron.maskedScore': 'masked: the key comes after the query, so its score becomes −∞ and its weight 0',
  'neuron.weight': 'weight = softmax of the row at this key = {weight}',
  'neuron.rowTitle': 'The row of query {token}: every key’s weight (the chosen key outlined)',
  'neuron.rowAria': 'The weights of query {token} over every key; arrow keys choose the key.',
  'neuron.rowReadout': 'key {token}: score {score}, weight {weight}',
  'neuron.nonzero': '{n} of {dK} products are not 0',
  'neuron.tableCaption': 'Every dimension of d_k: the feature its column of Q and of K reads, then q, k and q⊙k.',
  'neuron.none': 'The neuron view needs the engine’s Q and K, which this run does not have.',

  'xBlocks.self': 'X ({rows} × {cols}):',
  'xBlocks.queries': 'X of the queries ({rows} × {cols}):',
  'xBlocks.keys': 'X of the keys ({rows} × {cols}):',
  'xBlocks.block': '{name} · {n}',
  'xBlocks.annotated': '✎ annotated by hand',
  'xBlocks.surface': 'the text itself',
  'caveat.untrained':
    'In this run, a typical row’s largest weight is {drawn} times an even share as drawn (wQ and wK × {gain}), and ' +
    '{untrained} times for the same random heads without that gain (1 is a perfectly even row).',
  'caveat.own': ({ seeds, steps, results }) =>
    `this page’s own run (${plural(seeds, 'seed')} × ${steps} steps): ${results}`,

  'block.char': 'char',
  'block.position': 'position',
  'block.word': 'word',
  'block.role': 'role',
  'block.head': 'head',
  'block.link': 'link',
  'block.first': 'first',
  'block.lemma': 'lemma',
  'block.lexicon': 'lexicon',
  'block.clause': 'clause',
  'block.unused': 'unused',
  'role.coverb': 'coverb',
  'role.noun': 'noun',
  'role.verb': 'verb',
  'role.modifier': 'modifier',
  'role.punctuation': 'punctuation',
  'role.modal': 'modal',
  'role.negation': 'negation',
  'role.complement': 'complement',
  'roleShort.coverb': 'cv',
  'roleShort.noun': 'n',
  'roleShort.verb': 'v',
  'roleShort.modifier': 'mod',
  'roleShort.punctuation': '',
  'roleShort.modal': 'aux',
  'roleShort.negation': 'neg',
  'roleShort.complement': 'res',
  'sentence.words': 'The sentence, word by word; each character with its position and role',
  'sentence.translation': 'English translation:',
  'sentence.aligned': 'aligned to {list}',
  'sentence.notAligned': 'not aligned',
  'sentence.charTitle': '{i} {char}: {gloss}',
  'sentence.lemma': 'lemma: {lemma}',
  'gloss.words': WORDS.map((w) => w.gloss),
  'gloss.tokens': TOKENS.map((t) => t.gloss),
};
