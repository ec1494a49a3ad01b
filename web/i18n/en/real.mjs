// English: the "Real model" section (views/real-model.mjs): a Hugging Face
// checkpoint loaded in the page, every layer's heads on the sentence.
const code = (text) => `<span translate="no">${text}</span>`;

export default {
  'real.title': 'Real model',
  'real.evidence.label': 'Illustration and evidence',
  'real.evidence':
    '<strong>The heads above are illustrations; this section is evidence.</strong> The encoder, decoder and cross heads ' +
    'are designed by hand to show what several heads can do; here you see the attention that the checkpoint you ' +
    'load really computes on the sentence. Load a <em>trained</em> model (such as ' +
    code('bert-base-chinese') +
    ') to check the article against it: does any head link a 毒 to another 毒, or look at its neighbours? The ' +
    'scores describe this model on this sentence only; a high score on one sentence does not prove what a head is for.',
  'real.explain':
    'Drop a model folder downloaded from Hugging Face below (or pick it with a button): it needs ' +
    code('config.json') +
    ', ' +
    code('model.safetensors') +
    ' (or its shards and their index) and ' +
    code('tokenizer.json') +
    ' or ' +
    code('vocab.txt') +
    '. BERT, RoBERTa and GPT-2 models work, such as ' +
    code('bert-base-chinese') +
    ', ' +
    code('bert-base-uncased') +
    ', ' +
    code('roberta-base') +
    ' and ' +
    code('gpt2') +
    '. Every head of every layer is drawn as a small picture; click one to see that head large below.',
  'real.drop': 'Drop a model folder',
  'real.dropHere': 'Drop the model folder (or its files) here',
  'real.pickFolder': 'Choose a folder…',
  'real.pickFiles': 'Choose files…',
  'real.private':
    'The files never leave your computer: the page reads them in your browser and the WebAssembly engine computes ' +
    'here; nothing is uploaded.',
  'real.waiting': 'Waiting for the engine…',
  'real.none': 'No model loaded yet.',
  'real.reading': ({ count }) => `Reading ${count} ${count === 1 ? 'file' : 'files'}…`,
  'real.progress': 'Reading {file}: {loaded} of {total}',
  'real.progress.label': 'Loading',
  'real.loaded':
    'Loaded: {type}, {layers} layers × {heads} heads, hidden size {hidden}, vocabulary {vocab} ({files} files, ' +
    '{bytes}, in {ms} ms).',
  'real.forward': 'Forward pass over {tokens} tokens in {ms} ms · engine: {variant} ({build}), {threads}',
  'real.error.load': 'Could not load the model: {message}',
  'real.error.run': 'Could not compute: {message}',
  'real.error.noFiles': 'No files arrived: drop the model folder, or pick it with a button.',
  'real.sentence': 'Sentence',
  'real.run': 'Compute',
  'real.tokens': ({ n }) => `${n} ${n === 1 ? 'token' : 'tokens'} (the model's tokenizer):`,
  'real.order': 'Order',
  'real.order.grid': 'by layer and head',
  'real.order.by': 'by “{score}”, highest first',
  'real.focus': 'Focus token',
  'real.focus.all': 'every token',
  'real.focus.token': '“{token}” ({count} times)',
  'real.score.neighbour': 'neighbours',
  'real.score.same': 'same token',
  'real.score.far': 'far',
  'real.score.special': 'special tokens',
  'real.score.self': 'itself',
  'real.score.help':
    "Each score is the mean, over the focus token's rows, of a sum of weights (0 to 1): neighbours = keys 1 away " +
    'from the query; same token = the other occurrences of the same token; far = 4 or more away; special tokens = ' +
    '{special}; itself = the query itself.',
  'real.layer': 'layer {layer}',
  'real.head': 'head {head}',
  'real.layerHead': 'layer {layer} · head {head}',
  'real.grid.label': 'Thumbnails of the attention of every layer and head',
  'real.grid.caption':
    '{layers} layers × {heads} heads; in each picture rows are queries, columns keys, darker is more weight. Click a ' +
    'picture to see it large (arrow keys move).',
  'real.thumb.title': 'layer {layer} · head {head}: {score} {value}',
  'real.summary': ({ score, layer, head, value, median, count, baseline, above }) =>
    `“${score}” score: highest in layer ${layer} · head ${head} (${value}); the median of the ${count} heads is ` +
    `${median}. A row that spreads its weight evenly over every key scores ${baseline}; ${above} ` +
    `${above === 1 ? 'head scores' : 'heads score'} more than twice that.`,
  'real.summary.noBaseline': ({ score, layer, head, value, median, count }) =>
    `“${score}” score: highest in layer ${layer} · head ${head} (${value}); the median of the ${count} heads is ` +
    `${median}. The sentence has no such keys, so there is no even-spread baseline to compare with.`,
  'real.selected': 'The chosen head',
  'real.heatmap.desc': 'layer {layer} · head {head}: rows are queries, columns keys; the engine’s weights, unrounded.',
  'real.selected.scores': 'This head’s scores',
  'real.where': 'Where each “{token}” looks',
  'real.where.all': 'Where each token looks',
  'real.where.caption': 'The three keys of highest weight of each focus token in the chosen head',
  'real.where.query': 'query',
  'real.where.top': ({ n }) => `key ${n}${n === 1 ? ' (highest)' : ''}`,
  'real.scores.caption':
    "The chosen head's scores, beside those of a row that spreads its weight evenly over every key",
  'real.scores.score': 'score',
  'real.scores.head': 'this head',
  'real.scores.uniform': 'even spread',
  'real.special.none': '(none in this sentence)',
  'real.order.label': 'Order and focus',
};
