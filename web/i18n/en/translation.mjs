// English: the "Real translation" part of the real-model section (views/translation.mjs): a translation
// model loaded in the page translates the sentence, with its three kinds of attention and heads switched off.
const code = (text) => `<span translate="no">${text}</span>`;

export default {
  'mt.title': 'Real translation',
  'mt.explain':
    'The translation model you loaded (a MarianMT encoder-decoder such as ' +
    code('Helsinki-NLP/opus-mt-zh-en') +
    ') translates the sentence in this page, ' +
    'in the engine, with the same search as Hugging Face transformers’ <code>generate()</code>. The English appears ' +
    'token by token. Below: where each English token looks among the Chinese pieces (cross-attention), the ' +
    'encoder’s self-attention and the decoder’s masked self-attention of the same run, and the same sentence ' +
    'translated again with heads switched off. Whether this model was trained is not assumed: see the notes ' +
    'after a translation.',
  'mt.note.random': ({ even, count }) =>
    `${even} of the ${count} heads of the encoder’s and decoder’s self-attention spread their weight almost evenly ` +
    '(each row keeps at least 97 % of an even row’s entropy): this looks like a random, untrained checkpoint (a ' +
    'test model), whose heads look nowhere in particular. Nothing here, the scores with heads off included, is ' +
    'evidence about trained heads.',
  'mt.note.unmeasured':
    'The page does not measure whether this checkpoint was trained: a translation always scores better than chance ' +
    '(the model chose its own tokens), so its score cannot tell. The results below are evidence about trained ' +
    'heads only if you know the model is trained (such as ' +
    code('Helsinki-NLP/opus-mt-zh-en') +
    '); with a random test checkpoint they only show the method.',
  'mt.note.source': 'The source as the encoder read it: {n} pieces {pieces} (“▁” marks the start of a word).',
  'mt.beams': 'Search',
  'mt.beams.greedy': 'greedy (1 beam)',
  'mt.beams.n': 'beam search, {n} beams',
  'mt.translate': 'Translate',
  'mt.translating': 'Translating ({beams} beams)…',
  'mt.done': '{tokens} tokens (special ones such as the end token not counted) in {ms} ms, {search}; score {score}.',
  'mt.search.greedy': 'greedy search (score: the sum of the chosen tokens’ log-probabilities)',
  'mt.search.beam': 'beam search over {n} beams (score: transformers’ length-penalized log-probability)',
  'mt.candidate': 'Beam {i}: “{text}” (score {score})',
  'mt.error': 'The translation failed: {message}',
  'mt.heads.title': 'Switch heads off',
  'mt.heads.explain':
    'The article says that one head is not enough to translate this sentence. Try it on a real model: keep only ' +
    'some heads (a switched-off head’s attention weights are multiplied by 0 before they weigh the values, as ' +
    'Hugging Face’s <code>head_mask</code> does) and translate again.',
  'mt.heads.group': 'Heads of',
  'mt.heads.preset': 'Keep',
  'mt.heads.run': 'Translate with these heads',
  'mt.heads.grid': 'Heads kept, by layer and head',
  'mt.heads.box': 'layer {layer}, head {head}',
  'mt.heads.kept': '{group}: {kept} of {all} heads kept',
  'mt.preset.custom': 'as ticked',
  'mt.preset.all': 'every head',
  'mt.preset.only': 'head {head} of every layer only',
  'mt.group.all': 'every kind of attention',
  'mt.group.cross': 'cross-attention (English tokens looking at the Chinese)',
  'mt.group.encoder': 'encoder self-attention (Chinese)',
  'mt.group.decoder': 'decoder masked self-attention (English)',
  'mt.compare':
    'With {kept} of {all} heads: “{after}” — {same} “{before}” with every head. The translation with every head ' +
    'has log-probability {logpAll} with every head and {logp} with these heads; {moved} of its {words} tokens ' +
    'look mostly at another Chinese piece now (cross-attention averaged over the heads).',
  'mt.shown.all': 'The maps below are of the translation with every head (the one above).',
  'mt.shown.masked':
    'The maps below are of the translation with heads switched off ({kept} of {all} heads kept), not of the ' +
    'one above with every head; translate again to go back to every head.',
  'mt.heads.elsewhere': 'Note: heads are off in {groups} too, not shown here; they are off in the translation as well.',
  'mt.compare.same': 'the same as',
  'mt.compare.different': 'not',
  'mt.heads.caveat':
    '<strong>What this does and does not show.</strong> Switching heads off a model trained with all of them is ' +
    'not training a model with one head: the other heads were trained to work together with the ones you removed. ' +
    'Michel et al. (2019, “Are Sixteen Heads Really Better than One?”) found that many heads of a trained ' +
    'translation model can be pruned with little loss, and a few cannot. The page’s <a href="#train">training ' +
    'section</a> is where one head and several heads are trained from scratch on the same data.',
  'mt.attention.title': 'The attention of this translation',
  'mt.attention.group': 'Attention',
  'mt.attention.which': 'Show',
  'mt.attention.grid': 'Every layer and head of this kind of attention',
  'mt.which.mean': 'the mean of every head of every layer',
  'mt.which.layer': 'the mean of the heads of layer {layer}',
  'mt.grid.cross':
    'Cross-attention, {layers} layers × {heads} heads: each row is an English token (the decoder’s query at the ' +
    'step that chose it), each column a Chinese piece. Click a head to see it large.',
  'mt.grid.encoder': 'Encoder self-attention, {layers} layers × {heads} heads, over the Chinese pieces.',
  'mt.grid.decoder':
    'Decoder masked self-attention, {layers} layers × {heads} heads: a token sees only the tokens before it.',
  'mt.heatmap.cross': 'Where each English token looked among the Chinese pieces.',
  'mt.heatmap.encoder': 'How each Chinese piece weighs the others.',
  'mt.heatmap.decoder': 'How each English token weighs the tokens before it (the hatched cells are masked).',
  'mt.du.title': 'Which 毒 does each English word look at?',
  'mt.du.explain':
    'The six 毒 of the sentence have three roles (noun: poison, verb: to poison, modifier: venomous). For each ' +
    'English token, the weight of the piece that holds each 毒. The model reads pieces, not characters: two 毒 in ' +
    'one piece get the same weight, and it cannot look at one of them alone. This is what this model does on this ' +
    'sentence, whatever it is.',
  'mt.du.token': 'English token',
  'mt.du.char': '毒{index} ({role})',
  'mt.du.most': 'Looks most at',
  'mt.du.none': '— (a tie, or one piece holds them)',
  'mt.du.caption': 'Cross-attention on the six 毒: {which}',
  'mt.du.other': 'The six 毒 are labelled for the page’s sentence only; translate it to see them.',
};
