// English: the page's markup (index.html names these keys). Numbers in braces
// come from the modules that define them (app.mjs pageParams).
const zh = (text) => `<span lang="zh-Hans">${text}</span>`;
// The article's three sentences as the lede words them: the lede and the pipeline's three checks
// (model/pipeline-checks.mjs) both quote them.
const CLAIMS = {
  whole: 'several heads look at the <em>whole</em> sentence in different representation spaces',
  own: 'each with its own <span translate="no">wQ, wK, wV</span>',
  concat: 'Concat + <span translate="no">wO</span> keeps all their views',
};

export default {
  'page.title': 'mha-wasm — multi-head attention over 用毒毒毒蛇，毒蛇会不会被毒毒死, computed in your browser',
  'page.description':
    'Every head’s attention over a Chinese sentence with six 毒, computed live by a C++ engine compiled to ' +
    'WebAssembly SIMD and threads.',
  skip: 'Skip to the heads',
  h1: `Multi-head attention over ${zh('用毒毒毒蛇，毒蛇会不会被毒毒死')}`,
  'lang.legend': 'Language',
  lede:
    `Six identical ${zh('毒')} play three roles: poison (noun), to poison (verb), venomous (modifier). One ` +
    `attention head has one way of looking at the sentence; ${CLAIMS.whole}, ${CLAIMS.own}, and ${CLAIMS.concat}. ` +
    'Every number on this page is computed in your browser by the mha-wasm engine (C++ compiled to WebAssembly ' +
    'SIMD and threads).',
  'claim.whole': CLAIMS.whole,
  'claim.own': CLAIMS.own,
  'claim.concat': CLAIMS.concat,
  terms:
    'On this page: <a href="?mode=encoder#heads" data-mode="encoder">encoder self-attention</a>, ' +
    '<a href="?mode=decoder#heads" data-mode="decoder">masked self-attention</a>, ' +
    '<a href="?mode=cross#heads" data-mode="cross">encoder–decoder attention</a>, ' +
    '<a href="#formula">scaled dot-product attention</a> as formulas, the ' +
    '<a href="?stage=concat#pipeline" data-stage="concat">concatenation</a> of the heads and the ' +
    '<a href="?stage=wo#pipeline" data-stage="wo">output projection</a> <span translate="no">W<sub>O</sub></span>, ' +
    '<a href="#neuron">one query–key pair</a> number by number, and a claim put to the test: ' +
    `<a href="#train">${zh('单头注意力不是不行，而是不够好')}</a> (one head can do it, just not as well).`,
  'sentence.roleKey':
    'Under each character, its position and its role: n noun · v verb · mod modifier (of a noun) · cv coverb ' +
    `(a verb used as a marker: ${zh('用')} “with”, ${zh('被')} “by”) · aux modal verb (${zh('会')} “will”) · ` +
    `neg negation · res result (${zh('死')} “to death”).`,
  'toolbar.label': 'What to compute',
  'modes.legend': 'Attention',
  'mode.encoder': 'Encoder',
  'mode.encoder.note': 'Chinese, self',
  'mode.decoder': 'Decoder',
  'mode.decoder.note': 'English, causal',
  'mode.cross': 'Cross',
  'mode.cross.note': 'zh → en: English looks at Chinese',
  'mode.free': 'Free',
  'mode.free.note': 'your sentence',
  'sharpness.label': 'Sharpness',
  'sharpness.help': 'multiplies every designed score; 0 makes every row uniform',
  'free.label': 'Free mode',
  'free.sentence': 'Sentence',
  'free.heads': 'Heads',
  'free.seed': 'Seed',
  'free.causal': 'causal',
  'free.compute': 'Compute',
  'heads.title': 'The heads',
  'caveat.label': 'What these heads show, and what they do not',
  'caveat.short':
    '<strong>Illustrations, not evidence.</strong> These heads are designed by hand: what they find is written into ' +
    'hand-annotated columns of X (✎). The evidence that one head is not enough is in ' +
    '<a href="#train">Train it yourself</a> (heads learned from scratch, one head against two, {defaultSeeds} seeds ' +
    'each; <span class="caveat-own">press Train to measure it in this page</span>); what a trained model computes: ' +
    '<a href="#real-model">what a real model shows</a>.',
  'caveat.more': 'Why, and the columns of X',
  'caveat.free':
    '<strong>Random heads, not a trained model.</strong> Untrained (randomly initialised) attention has learned ' +
    'nothing to prefer, and is much nearer uniform (every weight an even share) than these pictures. ' +
    'The page scales the random <span translate="no">wQ</span> and <span translate="no">wK</span> up (“sharpens” ' +
    'them) so that each head’s favourite keys show: a display choice, like the designed modes’ sharpness slider, ' +
    'not something the model does.',
  'caveat.encoder':
    '<strong>Built, not discovered.</strong> These heads are designed by hand, and what they find is written into ' +
    'their input: besides each character and its position, X holds hand-annotated columns for the word, the ' +
    '<em>role</em> (noun, verb, modifier…), the position of the <em>dependency head</em> and the ' +
    `<em>long-distance link group</em> (the blocks marked ✎ below). The role head is told that ${zh('毒')}2 is a ` +
    'verb; it only has to find the other verb. The <strong>single</strong> head is built as the sum of the three, so ' +
    'the picks it drops follow from that construction: they illustrate that one softmax must choose, and are not ' +
    'evidence.',
  'caveat.decoder':
    '<strong>Designed, too.</strong> The English X holds hand-written lemmas (poisoned → poison) and positions ' +
    '(the blocks below, ✎ = annotated by hand); each head compares two of them.',
  'caveat.cross':
    '<strong>Designed, too.</strong> The English X holds a hand-written lexicon (which Chinese characters each ' +
    'English word can translate, ✎ below); the clause boundaries that the order head uses are written into its ' +
    '<span translate="no">wQ</span> and <span translate="no">wK</span>. The alignment head’s top keys are checked ' +
    'against a token-by-token alignment annotation: “by venom” is 毒12, “with venom” is 毒1.',
  'caveat.real':
    'Load a trained checkpoint in the Real model section to see the attention it really computes on this sentence, ' +
    'with no annotated column in its input.',
  'heads.explain.encoder':
    '<a href="#formula">Encoder self-attention</a>: rows are queries (the token that looks), columns are keys (the ' +
    'tokens it can look at); a darker cell is more weight, each row sums to 1. <strong>role</strong>, ' +
    '<strong>dependency</strong> and <strong>long-distance</strong> are three heads of one call. Rings mark the ' +
    'annotation (solid: the row’s top key hits it, dashed: it misses; on the <strong>single</strong> head, the ' +
    'three heads’ targets in their colours); rows with nothing to find are uniform. Click a cell to take its pair ' +
    'to the <a href="#neuron">neuron view</a>.',
  'heads.explain.decoder':
    'Masked self-attention (the decoder’s) over the English translation: a token sees only itself and the tokens ' +
    'before it, so every cell above the diagonal is masked (hatched) and exactly 0 in the engine’s result. ' +
    '<strong>previous-word</strong> looks one token back; <strong>same-lemma</strong> finds the earlier use of a ' +
    'repeated word (venom 15 → venom 9, poison 12 → poisoned 5).',
  'heads.explain.cross':
    'Encoder–decoder attention (cross-attention): queries come from the English decoder, keys and values from the ' +
    'Chinese encoder, so rows are English and columns Chinese. The <strong>order</strong> head looks at the Chinese ' +
    'clause each English word belongs to: the clauses come in the other order (the if-clause is first in Chinese). ' +
    'The <strong>alignment</strong> head looks up the Chinese tokens each English word translates, and uses the ' +
    `clause to choose between two equal words: “by venom” → ${zh('毒')}12, “with venom” → ${zh('毒')}1. Words ` +
    'without a counterpart (a, to, by, if, we, ?) spread over their clause.',
  'heads.explain.free':
    'Your sentence through seeded random, untrained heads: the patterns show how attention computes. The model’s width <span translate="no">d_model</span> stays as you set it; more heads ' +
    'means narrower heads, <span translate="no">d_k = d_v = d_model / h</span>, as in the Transformer. The single ' +
    'head is one head of the full width scoring the sum of all heads’ scores. There is no annotation here, so no ' +
    'ground truth: the rings, on the single head only, are the heads’ own top keys.',
  'overlay.truth': 'annotation rings',
  'overlay.free': 'rings: the heads’ top keys, on the single head',
  'bar.currentHead': 'Current head',
  'export.current': 'Export the current head',
  'export.label': 'Export:',
  'bar.copyLink': 'Copy link to this view',
  'compare.title': 'One head instead of several',
  'compare.explain':
    'The single head’s score is exactly the sum of the heads’ scores, but it has only one softmax per row. Where the ' +
    'relations agree it is sure; where they point at different keys it has to split its weight or drop all but one. ' +
    'This follows from how it is built, so it illustrates the point; it does not prove it (that is ' +
    '<a href="#train">the training section</a>’s job).',
  'headView.title': 'Head view',
  'headView.explain':
    'The same weights as lines, as in bertviz: the queries on the left (or above), the keys they look at on the right ' +
    '(or below); a line’s opacity is its ' +
    'weight, its colour its head. Hover a token, or focus the drawing and use the arrow keys, to keep only its lines; ' +
    'click or press Enter to lock, again to unlock.',
  'pipeline.title': 'The pipeline',
  'pipeline.explain':
    'What one call computes, with this run’s shapes and numbers. Click a term of the formulas or a stage to see its ' +
    'matrix; per-head stages show the head chosen here.',
  'pipeline.head': 'Head',
  'pipeline.stages': 'Stages; the pressed one is shown below (arrow keys move)',
  'pipeline.checks': 'Checks, live',
  'readout.matrix': 'Hover a cell, or focus the matrix and use the arrow keys.',
  'neuron.title': 'Neuron view: one query–key pair',
  'neuron.explain':
    'How one weight comes about, as in bertviz’s neuron view: the query’s vector q and the key’s vector k of one ' +
    'head (rows of the engine’s Q and K), their element-wise product q⊙k, its sum (the dot product q·k), the score ' +
    '<span translate="no">q·k/√d_k</span>, and the softmax over the whole row that turns the scores into weights. ' +
    'q, k and the weight are the engine’s numbers; the sums are written out from them.',
  'neuron.head': 'Head',
  'neuron.query': 'Query',
  'neuron.key': 'Key',
  'about.title': 'How the designed heads are built',
  'about.x': `X has one row per character and d_model = {xWidth} columns: blocks of explicit features, each one-hot — the character (the six ${zh('毒')} share it), the position (0–14), the word, the role, the position of the dependency head, and the long-distance link group (on second mentions: the group they refer back to; on first mentions: the group they start) — and the rest 0 (“unused”). The heads split d_model, as in the Transformer: H heads get d_k = d_v = d_model / H columns each, so d_model must leave every head room for the features it reads (the role head reads three blocks). A column of a head’s Q reads one feature of the query token, the same column of its K one feature of the key token, so Q·K counts what they share:`,
  'about.role': `<strong>role</strong>: same role + same character − 2·same position, so another ${zh('毒')} of the same role scores 2 and the token itself 0;`,
  'about.dependency':
    '<strong>dependency</strong>: the query’s head position against the key’s position: 1 exactly on the head;',
  'about.longDistance':
    '<strong>long-distance</strong>: the group a second mention refers back to against the group a key starts: 1 on the first mention;',
  'about.single':
    '<strong>single</strong>: the three heads’ Q and K side by side (<span translate="no">wQ</span> × √3, since the engine divides by √96 instead of √32), so its score is their sum;',
  'about.previousWord':
    '<strong>previous-word</strong> (decoder, English): column p of Q reads “I am at position p + 1”, column p of K “I am at position p”, so a key scores 1 exactly when it is the word just before the query; the first word has none, and the causal mask leaves it only itself;',
  'about.sameLemma':
    '<strong>same-lemma</strong>: same lemma − same position: an earlier word with the lemma scores 1, the word itself 0, and the causal mask hides later ones; a word seen for the first time spreads evenly over the words so far;',
  'about.cross':
    '<strong>alignment</strong> (cross): the lexicon entry of the English word against the key’s position, plus ½ for the same clause; <strong>order</strong>: the clause of the English position against the clause of the Chinese position.',
  'about.code':
    '<span translate="no">wQ</span> is finally multiplied by sharpness·√d_k, so the engine’s scores are sharpness times these counts. Rows with nothing to find score 0 everywhere and come out uniform. The code, with a comment for every block: <a href="model/designed-heads.mjs">model/designed-heads.mjs</a>, <a href="model/cross-heads.mjs">model/cross-heads.mjs</a>, <a href="model/features.mjs">model/features.mjs</a>, and the annotation in <a href="sentence.mjs">sentence.mjs</a>.',
  'train.title': `Train it yourself ${zh('亲手训练')}`,
  'train.explain': `The heads above are designed by hand. Here the engine trains heads from scratch, in your browser, to test a claim: ${zh('单头注意力不是不行，而是不够好')} — one head can do it, just not as well. The task: tag every ${zh('毒')} of a sentence as noun, verb or modifier, where its role depends on <em>both</em> its neighbours. A tiny Transformer tagger (embeddings, attention, softmax; <span translate="no">d_model</span> {trainWidth}) learns it with 1, 2 or 4 heads of the same total width (one head of {trainWidth}, two of {trainWidth2}, four of {trainWidth4}), several seeds each; all runs see the same data, a seed changes the starting weights and the order of the batches.`,
  'train.grammar': 'The grammar',
  'train.grammar.explain': `The sentences are generated from a small grammar over the characters of the example (and ${zh('狗 人 要 了')}), grouped into classes; a ${zh('毒')}’s role is the cell of this table its two neighbours point to. Every other character is tagged <em>other</em>; accuracy counts only the ${zh('毒')}.`,
  'train.train': 'Train',
  'train.controls': 'Training runs',
  'train.seeds': 'Seeds per setting',
  'train.steps': 'Steps',
  'train.four': '4 heads too',
  'train.mlp': 'add MLP',
  'train.mlp.help': 'also trains every setting with a per-token MLP ({mlpHidden} hidden units) after attention',
  'train.start': 'Train',
  'train.stop': 'Stop',
  'train.status.waiting': 'Waiting for the engine…',
  'train.pilot.label': 'Cross-check: the PyTorch pilot',
  'train.pilot': `<strong>Cross-check, not computed on this page:</strong> the project’s pilot of the same task in PyTorch, with its own code and its own draw of the grammar’s sentences: {pilotSeeds} seeds, {pilotSteps} steps × {pilotBatch} sentences, <span translate="no">d_model</span> {pilotWidth}, no MLP. Held-out ${zh('毒')} accuracy (mean ± SD over its seeds) {pilotOne} with one head, {pilotTwo} with two; all six ${zh('毒')} of the example right in {pilotAllOne} of {pilotSeeds} one-head runs and {pilotAllTwo} of {pilotSeeds} two-head runs; the single head split its softmax between the left (≈ {pilotLeft}) and right (≈ {pilotRight}) neighbour, while of two heads one looked left and the other right. With an MLP: {pilotMlpOne} and {pilotMlpTwo}. Its seeds are not this page’s, so single runs do not match; the evidence above is this page’s own.`,
  'evidence.title': 'The evidence, seed by seed',
  'evidence.explain':
    'The default experiment trains every setting with {defaultSeeds} seeds of {defaultSteps} steps. A seed gives ' +
    '1 head and 2 heads exactly the same initial parameters and the same order of batches; only how attention is ' +
    'split differs, so the runs are compared seed by seed. The plot, the medians and every sentence about them are ' +
    'written from this page’s own run; the same code in Node, on the same build of the engine, gives the same ' +
    'numbers bit for bit (the tests compare them).',
  'collapse.title': 'Head collapse: how a seed loses a head',
  'collapse.explain':
    `<strong>Head collapse</strong>: of several heads that could share the work, one ends up of no use — it looks ` +
    `where another head looks, or only at the ${zh('毒')} itself, which brings nothing about its neighbours (the ` +
    `residual connection already carries the ${zh('毒')} to the output). Why a seed can lose a head: the heads of a ` +
    'layer start from random weights of the same kind and are pushed by the same loss, and nothing makes them ' +
    'divide the work; both can be pulled towards the same most useful clue, one takes it, and the other settles ' +
    'where it helps less. Once a softmax puts nearly all of its weight on one key, its gradient is small (each ' +
    'weight’s derivative carries a factor p(1 − p)), so the head stays there. It is a known effect of training ' +
    'multi-head attention: trained models have heads that can be removed at little cost ' +
    '(<span lang="en">Michel et al., 2019; Voita et al., 2019</span>), and attention whose entropy collapses onto ' +
    'few keys goes with unstable training (<span lang="en">Zhai et al., 2023</span>). The collapsed runs stay in: ' +
    'they count in the medians and in the seed-by-seed comparison.',
  'bridge.title': 'From the article’s heads to the learned ones',
  'bridge.explain':
    'The designed heads each read one relation: the <strong>role</strong> head the other ' +
    `${zh('毒')} of the same role, the <strong>dependency</strong> head the word a token attaches to, the ` +
    '<strong>long-distance</strong> head a second mention back to the first. The training task needs only the ' +
    `local one: a ${zh('毒')}’s role is decided by its <em>left and right neighbours</em> (the rule table above). ` +
    `In the example sentence those neighbours are mostly dependency links: of the six ${zh('毒')}’s {duNeighbours} ` +
    `neighbours, {duLinked} are the ${zh('毒')}’s dependency head or a word attached to it. The task needs neither ` +
    'the long-distance relation nor the role head’s (here the role is the output to predict, not an annotated ' +
    'input). The designed heads read hand-annotated columns of X; the learned ones had only the characters and ' +
    'their positions.',
  'bridge.designedLabel': 'Designed (the engine’s, at sharpness {sharpness})',
  'bridge.learnedLabel': 'Learned (the median two-head seed)',
  'train.legend': 'Settings',
  'train.chartsHelp':
    'Thin lines: one per seed (faint when there are more than 20); thick: the mean of the seeds. The table lists ' +
    'every number.',
  'train.chartsHelp.mlp':
    'Thin lines: one per seed (faint when there are more than 20); thick: the mean of the seeds; dashed: with MLP. ' +
    'The table lists every number.',
  'train.showed': 'What the runs showed',
  'train.text.waiting': 'Press Train: the text is written from this page’s own runs when they finish.',
  'train.everyRun': 'Every run',
  'train.learned': 'The learned heads',
  'train.learned.explain': `One run’s heads on the example sentence, in the same views as the designed heads. Rings mark each ${zh('毒')}’s two neighbours: solid where the row’s top key is that neighbour.`,
  'train.learned.label': 'The learned heads',
  'train.setting': 'Setting',
  'train.seed': 'Seed',
  footer: 'mha-wasm demo page. Everything it loads comes from this server; it works offline.',
};
