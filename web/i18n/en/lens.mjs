// English: the logit lens (views/logit-lens-view.mjs) in "Which heads matter", for a decoder and a translation
// model's decoder (mha-wasm/analysis logitLens), and what it says (model/logit-lens-text.mjs).
export default {
  'lens.title': 'Logit lens: when is the next token decided?',
  'lens.explain':
    'Each layer’s hidden state at one position read as if that layer were the last: through the model’s final ' +
    'norm and its output head (nostalgebraist 2020, “interpreting GPT: the logit lens”). Layer 0 reads the ' +
    'embeddings alone; the last row is the model’s own prediction. A translation model’s decoder is read over ' +
    'its own translation, fed back token by token. “▁” and “Ġ” in a token mark the space before a word.',
  'lens.run': 'Read each layer (logit lens)',
  'lens.position': 'At position',
  'lens.trust':
    'This checkpoint is random or test-sized: its layers’ guesses are noise, not a model deciding anything.',
  'lens.table.caption': 'Logit lens after position {position} {token}: each layer’s top {n} tokens',
  'lens.table.layer': 'Layer',
  'lens.table.top': 'Its top tokens',
  'lens.table.rank': 'Rank of {token}',
  'lens.table.embeddings': '0 (embeddings)',
  'lens.table.last': '{layer} (output)',
  'lens.table.n': '{layer}',
  'lens.table.rankOf': '#{rank} · {probability}',
  'lens.text.settled':
    'The model’s prediction {token} is the top token from layer {layer} of {layers} on ({probability} there): ' +
    'the later layers keep it.',
  'lens.text.last': 'The model’s prediction {token} is the top token only at the last layer ({layers}).',
  'lens.text.first': 'It is first on top at layer {layer}, then loses the place before it settles.',
  'lens.text.embeddings': 'The embeddings alone rank it #{rank}.',
  'matter.progress.lens': 'Logit lens: {done} of {total} runs',
};
