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
    'Type the name of a model on the Hugging Face Hub (or pick a suggestion) and the page downloads it into this ' +
    'browser; or drop a model folder from your disk below (or pick it with a button). A model needs ' +
    code('config.json') +
    ', ' +
    code('model.safetensors') +
    ' or ' +
    code('pytorch_model.bin') +
    ' (or their shards and index) and ' +
    code('tokenizer.json') +
    ' or ' +
    code('vocab.txt') +
    '. BERT, RoBERTa, XLM-R, CamemBERT, GPT-2, Llama, Qwen2 and Qwen3 models work, such as ' +
    code('bert-base-chinese') +
    ', ' +
    code('roberta-base') +
    ' and ' +
    code('gpt2') +
    '. A translation model (MarianMT, such as ' +
    code('Helsinki-NLP/opus-mt-zh-en') +
    ', with ' +
    code('source.spm') +
    ', ' +
    code('target.spm') +
    ' and ' +
    code('vocab.json') +
    ') translates the sentence instead (“Real translation” below). Every head of every layer is drawn as a ' +
    'small picture; click one to see that head large below.',
  'real.howto.title': 'How to get a model',
  'real.howto':
    "<ol><li><strong>By name:</strong> type the model's name on the " +
    code('Hugging Face Hub') +
    ' in the box above (“org/name”, such as ' +
    code('google-bert/bert-base-chinese') +
    '), or click a suggestion, and the page downloads it into this browser.</li>' +
    '<li><strong>As a folder first:</strong> on a computer with Python, run ' +
    code('pip install huggingface_hub') +
    ' and ' +
    code('huggingface-cli download google-bert/bert-base-chinese --local-dir bert-base-chinese') +
    ', then drop the ' +
    code('bert-base-chinese') +
    " folder below. Or open the model's Hub page, its " +
    code('Files and versions') +
    ' tab, and download ' +
    code('config.json') +
    ', ' +
    code('model.safetensors') +
    ', ' +
    code('tokenizer.json') +
    ' (or ' +
    code('vocab.txt') +
    ') and ' +
    code('tokenizer_config.json') +
    ' into one folder.</li></ol>',
  'real.hub.name': 'Model on the Hugging Face Hub',
  'real.hub.placeholder': 'org/name',
  'real.hub.load': 'Download and load',
  'real.hub.cancel': 'Cancel',
  'real.hub.suggestions': 'Suggested models',
  'real.hub.settings': 'Hub and access token',
  'real.hub.endpoint': 'Hub',
  'real.hub.token': 'Access token (gated models only; kept in this tab, sent to the Hub only)',
  'real.hub.hosts':
    'Loading by name contacts {endpoint}: its file list of the model, then the files (large ones come from the ' +
    'download hosts it sends them to). Nothing else is sent. The model stays in this browser (its storage for this ' +
    "page), so the next visit downloads nothing. This page's server lets it reach: {allowed}; for a mirror, start " +
    'the server with MHA_HUB_ENDPOINTS="https://…".',
  'real.hub.none':
    "This page's server lets it reach no Hub (MHA_HUB_ENDPOINTS is empty): load a model folder from your disk below.",
  'real.hub.badName': '“{name}” is not a model name: write it as the model\'s Hub page does, "org/name".',
  'real.hub.size': '{size}',
  'real.hub.size.about': '≈ {size}',
  'real.hub.size.unknown': '…',
  'real.hub.size.error': 'not reachable',
  'real.hub.size.absent': 'not in the repo',
  'real.hub.size.none': 'no weights the engine reads',
  'real.hub.size.noFile': 'the repo has no {file}',
  'real.hub.sizes.from':
    "Sizes: what loading downloads (config, tokenizer, weights; a GGUF suggestion's one file), from {endpoint}'s " +
    'file lists; “≈” for sharded weights.',
  'real.hub.sizes.when':
    "The download sizes come from the Hub's file lists, which the page asks for only when you press the button.",
  'real.hub.sizes.ask': 'Show the sizes',
  'real.hub.model.bertZh': 'BERT for Chinese, character by character (Google)',
  'real.hub.model.robertaZh': 'Chinese RoBERTa-wwm-ext (HFL): BERT-shaped, whole-word masking',
  'real.hub.model.xlmr': 'XLM-RoBERTa base: 100 languages, SentencePiece',
  'real.hub.model.roberta': 'RoBERTa base, English only (byte-level BPE): a Chinese character is bytes to it',
  'real.hub.model.gpt2':
    'GPT-2, the 124 M decoder, English only: each token sees only those before it, and a Chinese character is bytes to it',
  'real.hub.model.opusMt': 'opus-mt zh→en (Helsinki-NLP): a translation model, encoder and decoder',
  'real.hub.model.qwen25':
    'Qwen2.5 (Alibaba), the smallest: a decoder that reads Chinese; its bf16 weights stay 16-bit in memory',
  'real.hub.model.qwen25GgufQ4':
    'Qwen2.5-0.5B-Instruct as a GGUF file in Q4_K_M: its matrices stay 4-bit in memory; it has a chat template, ' +
    'so the step-by-step view below offers a chat',
  'real.hub.model.qwen25GgufQ8':
    'Qwen2.5-0.5B-Instruct as a GGUF file in Q8_0: its matrices stay 8-bit in memory; it has a chat template, ' +
    'so the step-by-step view below offers a chat',
  'real.hub.model.qwen3': 'Qwen3, the smallest: grouped-query attention with each head’s queries and keys normalized',
  'real.asking': 'Asking {endpoint} for {repo}…',
  'real.progress.download': 'Downloading {file}: {loaded} of {total}',
  'real.loadedHub':
    'Loaded {repo}: {type}, {layers} layers × {heads} heads, hidden size {hidden}, vocabulary {vocab} ' +
    '({from}, in {ms} ms).',
  'real.loadedHub.downloaded': 'downloaded {bytes}',
  'real.loadedHub.cached': "from this browser's storage, nothing downloaded",
  'real.cancelled': 'Cancelled. What was downloaded stays in this browser for next time.',
  'real.drop': 'Drop a model folder',
  'real.dropHere': 'Drop the model folder (or its files) here',
  'real.pickFolder': 'Choose a folder…',
  'real.pickFiles': 'Choose files…',
  'real.private':
    'The files never leave your computer: the page reads them in your browser and the WebAssembly engine computes ' +
    'here; nothing is uploaded.',
  'real.waiting': 'Waiting for the engine…',
  'real.none': 'No model loaded yet.',
  'real.reading': 'Reading the model’s files…',
  'real.progress': 'Reading {file}: {loaded} of {total}',
  'real.progress.label': 'Loading',
  'real.loaded':
    'Loaded: {type}, {layers} layers × {heads} heads, hidden size {hidden}, vocabulary {vocab} ({files} files, ' +
    '{bytes}, in {ms} ms).',
  'real.forward': 'Forward pass over {tokens} tokens in {ms} ms · engine: {variant} ({build}), {threads}',
  'real.error.load': 'Could not load the model: {message}',
  'real.error.run': 'Could not compute: {message}',
  'real.error.detail': 'The engine’s own words (English)',
  'real.loadError.noFiles': 'No files arrived: drop the model folder, or pick it with a button.',
  'real.loadError.noConfig':
    'There is no {file}: it describes the model, and sits in the same folder as the weights. Load the whole model ' +
    'folder (see “How to get a model” above).',
  'real.loadError.noModelType':
    '{file} has no {field}: which kind of model this is cannot be told; it may not be a Hugging Face model.',
  'real.loadError.modelType':
    'The engine does not run this kind of model ({field} {type} in {file}); the note above lists those it runs.',
  'real.loadError.config': '{file} has a setting the engine cannot run: the engine’s words below say which.',
  'real.loadError.noWeights':
    'No weights the engine reads: it needs {single} (or {other}), or their shards and index. They are in the file ' +
    'list of the model’s Hub page (see “How to get a model” above).',
  'real.loadError.badFile':
    'The engine could not read {file}: it may be incomplete (a download or copy cut short), damaged, or another ' +
    'model’s. Download it again.',
  'real.loadError.notFound':
    'There is no model named {repo} on {endpoint}, or it is private. Write its name as its Hub page does, “org/name”.',
  'real.loadError.gated':
    '{repo} is a gated model: log in on the Hub, accept its conditions on its page, then give your account’s ' +
    'access token under “Hub and access token”.',
  'real.loadError.refused':
    'The Hub refused: the access token given has no access to {repo}. Use a token of an account that has.',
  'real.loadError.unreachable':
    'Could not reach {endpoint}: check the network, or pick a mirror you can reach under “Hub and access token”; ' +
    'or drop a model folder you downloaded below.',
  'real.loadError.interrupted': 'The download of {file} was cut short: load it again.',
  'real.loadError.storage':
    'This browser’s storage for the page cannot hold the model: free some in the browser’s site settings, or drop ' +
    'a model folder you downloaded below.',
  'real.loadError.hub': 'The Hub answered with an error: the engine’s words below say which.',
  'real.loadError.other': 'The engine reported a problem: its words are below.',
  'real.loadError.chatFull':
    'the conversation is {length} tokens long as the chat template writes it, and this model reads at most {max}: ' +
    'take an exchange back or start a new conversation',
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
    'from the query; same token = the other occurrences of the same token (a head that looks at every 毒 alike ' +
    'scores high here, and that is what blurs them: whether it tells them apart is below); far = 4 or more away; ' +
    'special tokens = {special}; itself = the query itself.',
  'real.layer': 'layer {layer}',
  'real.head': 'head {head}',
  'real.layerHead': 'layer {layer} · head {head}',
  'real.grid.label': 'Thumbnails of the attention of every layer and head',
  'real.grid.caption':
    '{layers} layers × {heads} heads; in each picture rows are queries, columns keys, darker is more weight. Click a ' +
    'picture to see it large (arrow keys move).',
  'real.thumb.title': 'layer {layer} · head {head}: {score} {value}',
  'real.summary': ({ score, layer, head, value, median, count, baseline, rule, twice, threshold, above }) =>
    `“${score}” score: highest in layer ${layer} · head ${head} (${value}); the median of the ${count} heads is ` +
    `${median}. A row that spreads its weight evenly over every key scores ${baseline}; ` +
    (rule === 'halfway'
      ? `twice that (${twice}) lies beyond halfway from it to 1, the most a score can be, so the bar here is that ` +
        `halfway point, ${threshold}: ${above} ${above === 1 ? 'head reaches' : 'heads reach'} it.`
      : `${above} ${above === 1 ? 'head scores' : 'heads score'} at least twice that (${threshold}).`),
  'real.summary.noBaseline': ({ score }) =>
    `“${score}” score: the sentence has no such key, so every head scores 0 on it and there is nothing to compare.`,
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
  'real.scores.none': 'no such key in this sentence',
  'real.special.none': '(none in this sentence)',
  'real.order.label': 'Order and focus',
  'real.tools.label': 'The chosen head’s tools',
  'real.hideSpecial': 'Hide the special tokens',
  'real.hideSpecial.note': ({ hidden }) =>
    `The special tokens are left out of the map, the lines and the export; the weights shown are the head’s own, ` +
    `not spread again, so a row now sums to less than 1 (this layer’s heads gave the hidden tokens ${hidden} of a ` +
    'row on average).',
  'real.export.label': 'Export the chosen head',
  'real.headView.title': 'Layer {layer}, every head as lines',
  'real.headView.help':
    'The head view of the chosen head’s layer: queries on one side, keys on the other, a line for each weight, ' +
    'darker for more; tick other heads to compare them. Hover or click a token to keep only its lines.',
  'real.headView.export': 'Export the head view',
  'real.neuron.title': 'Neuron view: layer {layer} · head {head}',
  'real.neuron.help':
    'The query vector q of one token and the key vector k of another in this head, as the model computes them ' +
    '(after its biases, norms and rotary positions), their product dimension by dimension, its sum q·k and the ' +
    'score q·k/√d_k. The model returns its weights, not its scores: the scores here are computed from its q and k, ' +
    'and their softmax over the row is checked against the weight the model gave.',
  'neuron.score.real': 'score = q·k / √d_k = {dot} / √{dK} = {score}',
  'neuron.weight.real':
    'weight = the model’s {weight}; the softmax of this row’s scores, computed from its q and k: {softmax}',
  'real.article.title': 'In the article’s terms',
  'real.article.numbering':
    'Numbers are the sentence’s own, as in the designed heads above (用 is 0, the first 毒 1, the verb 毒 2 …); the ' +
    'model’s special tokens are shown but carry none, and each 毒 carries its role (noun, verb, modifier).',
  'real.article.bytes': ({ n, total }) =>
    `${n} of the ${total} characters are cut into byte pieces: this tokenizer stores a character it has no token ` +
    'for as the bytes of its UTF-8 code (3 for a Chinese character), one token per piece or a few, so “毒ᵃ 毒ᵇ 毒ᶜ” ' +
    'are three pieces of one character (the small letter counts the piece), and the number after it is the ' +
    'character’s position in the sentence.',
  'real.article.merged': ({ n, total }) =>
    `${n} of the ${total} characters share a token with another (such as 毒蛇 as one token): a relation inside one ` +
    'token (毒3 → 蛇4) is not a weight between two tokens, so no head can show it, and the scores below leave it out.',
  'real.article.unknown': ({ n, total }) =>
    `${n} of the ${total} characters are not in the vocabulary at all: the model reads them as its unknown token.`,
  'real.article.foreign': ({ split, total }) =>
    `This model’s vocabulary was made for other languages: ${split} of the ${total} characters are cut into ` +
    'bytes or unknown to it. Its heads see byte pieces rather than characters, so what they do here says little ' +
    'about how a model for Chinese reads the sentence.',
  'real.article.random': ({ even, count }) =>
    `${even} of the ${count} heads spread their weight almost evenly (each row keeps at least 97 % of an even ` +
    'row’s entropy): this looks like a random, untrained checkpoint (a test model), whose heads look nowhere in ' +
    'particular. Nothing here is evidence about trained heads; load a trained model for that.',
  'real.article.predicts': ({ count, mean, chance, p, even }) =>
    `Measured: this model predicts the text’s ${count} tokens with a mean log-probability of ${mean} (geometric ` +
    `mean probability ${p}), against ${chance} for chance (1 / vocabulary = ${even}): clearly better than chance, ` +
    'so its weights are trained and its heads are worth reading.',
  'real.article.chance': ({ count, mean, chance, p, even }) =>
    `Measured: this model predicts the text’s ${count} tokens with a mean log-probability of ${mean} (geometric ` +
    `mean probability ${p}), no better than chance, ${chance} (1 / vocabulary = ${even}): either its weights are ` +
    'random (a test model) or the text is unlike what it was trained on. Either way its heads here are no ' +
    'evidence about trained ones.',
  'real.article.unmeasured':
    'This checkpoint has no output head (an encoder only), so the page cannot measure whether its predictions beat ' +
    'chance, nor so whether its weights were trained: unless you know it was, its heads are no evidence about ' +
    'trained ones.',
  'real.article.wordStart':
    'Some tokens begin with “▁”: the SentencePiece tokenizer’s mark for “a word starts here” (a space or the start ' +
    'of the text), not part of the text.',
  'real.article.other':
    'The text is not the article’s sentence ({sentence}), so its labels (roles, dependency heads, long-distance ' +
    'links) do not apply and the comparison with the designed heads is left out.',
  'real.article.unread':
    'The model’s tokens could not be read back against the sentence (its tokenizer changes the text), so the ' +
    'comparison with the designed heads is left out.',
  'real.closest.caption':
    'For each designed head: the real heads that put the most weight where it looks (the annotated keys of each ' +
    'query character, the mean over characters that have any), beside an even spread’s score',
  'real.closest.designed': 'designed head',
  'real.closest.looks': 'looks at',
  'real.closest.best': 'closest real heads',
  'real.closest.even': 'even spread',
  'real.closest.verdict': 'verdict',
  'real.closest.looks.role': 'the token with the same role and character (毒1 ↔ 毒12, 毒2 ↔ 毒13, 毒3 ↔ 毒6)',
  'real.closest.looks.dependency': 'its dependency head (毒3 → 蛇4, 蛇4 → 毒2 …)',
  'real.closest.looks.long-distance': 'its first mention in clause 1 (毒12 → 毒1, 蛇7 → 蛇4 …)',
  'real.closest.found': ({ reached, count, threshold }) =>
    `${reached} of the ${count} heads reach the bar ${threshold} (twice the even spread, or halfway to 1)`,
  'real.closest.none': ({ value, threshold }) =>
    `no head does this: the closest scores ${value}, under the bar ${threshold}`,
  'real.closest.unseen': 'the tokens leave this head nothing to look at (every target inside the query’s token)',
  'real.closest.unseenCausal':
    'nothing to look at: this model sees only earlier tokens, and every target here comes later or is inside the ' +
    'query’s token',
  'real.roleShare.lead': 'Which head tells the six 毒 apart?',
  'real.roleShare.tells': ({ share, blind }) =>
    `gives ${share} of the weight its 毒 put on the other 毒 to the 毒 with the same role, where a head blind to ` +
    `roles gives ${blind}: it tells them apart (the most of the heads that look at the other 毒 at least as much as ` +
    'an even spread).',
  'real.roleShare.blurs': ({ share, blind }) =>
    `does best, and gives only ${share} of the weight its 毒 put on the other 毒 to the 毒 with the same role, ` +
    `against ${blind} for a head blind to roles: no head here tells them apart by role (not twice the blind share); ` +
    'looking at every 毒 alike is exactly what blurs them in the article.',
  'real.roleShare.leadShared': ({ alone, shared }) =>
    `Which head tells the 毒 apart? Only ${alone} of the six 毒 are tokens of their own here; ${shared} share a ` +
    'token with a neighbour (such as 毒蛇 or 毒死), which counts as that 毒 below though the model reads the two ' +
    'characters as one.',
  'real.roleShare.none': 'None looks at the other 毒 even as much as an even spread does.',
  'real.articleScores.caption': 'The chosen head against the designed heads: its weight where each looks',
  'real.articleScores.roleShare': 'share of its 毒 → 毒 weight to the 毒 of the same role',
  'pred.next.title': 'Next token',
  'pred.next.help':
    "What the model predicts after the text, from its own logits: softmax(logits / temperature) of the last position. A higher temperature spreads the probability; the button appends the most probable token and runs the model again, so the heads below show the new token's attention over everything before it.",
  'pred.next.after': 'After “{token}”:',
  'pred.next.append': 'Append the most probable token',
  'pred.next.refused.invisible':
    'Not appended: the most probable token, {token}, is a character with no glyph (its code is written here). ' +
    'Appended, the text box would look unchanged while the model reads it.',
  'pred.next.refused.partial':
    'Not appended: the most probable token, {token}, is a byte piece, part of a character, that decodes to no ' +
    'character on its own (it would show as �).',
  'pred.next.refused.empty': 'Not appended: the most probable token, {token}, adds no text when decoded.',
  'pred.caveat':
    'Note: this checkpoint’s predictions of the text were measured no better than chance, or could not be measured ' +
    '(see the notes above). The probabilities below reflect its weights, not a finding about the language, however ' +
    'confident they look.',
  'pred.mask.title': 'Fill the mask',
  'pred.mask.help':
    'A BERT trained to fill masks predicts each [MASK] of the text from both sides. Put [MASK] in the sentence (用毒[MASK]毒蛇…), or let the button mask a 毒.',
  'pred.mask.at': 'At [MASK] (position {position}):',
  'pred.mask.du': 'Mask the second 毒',
  'pred.mask.none': 'No [MASK] in the text.',
  'pred.temperature': 'Temperature',
  // The generation a step at a time (views/next-token-steps.mjs).
  'next.title': 'Step by step',
  'next.help':
    'Generation one token at a time: the prompt goes through every layer once, and its keys and values stay in the ' +
    'model’s cache (the KV cache); each step then takes the most probable next token (greedy, so the same at every ' +
    'temperature) and computes only its own row in each layer. The grid shows where the new token of the current ' +
    'step looks: one strip per head, its weights over every position before it and itself.',
  'next.prompt': 'Prompt',
  'next.prompt.sentence': 'the sentence',
  'next.prompt.clause': 'its first clause (用毒毒毒蛇)',
  'next.prompt.text': 'the text box’s text',
  'next.step': 'Next step',
  'next.count': 'Steps at once',
  'next.run': 'Generate',
  'next.reset': 'Back to the prompt',
  'next.text.label': 'The text so far: the prompt, then the tokens generated',
  'next.idle': 'Nothing generated yet: “Next step” reads the prompt and adds the most probable token.',
  'next.busy': 'Computing step {step}…',
  'next.done': ({ step, before, token, probability, temperature, ms }) =>
    `Step ${step}: after “${before}” the model chose “${token}”, the most probable (${probability} at temperature ` +
    `${temperature}); ${ms} ms${step === 1 ? ', the prompt’s pass included' : ''}.`,
  'next.end.eos':
    'The most probable next token is “{token}”, the end of the text (generation_config.json’s eos_token_id): the ' +
    'generation stops here, as Hugging Face’s generate() does.',
  'next.end.length':
    'The text has reached {max} tokens, the most this model reads: the generation stops here, as Hugging Face’s ' +
    'does at max_length.',
  'next.failed': 'The step failed (the reason is below).',
  'next.error': 'The step failed: {message}',
  'next.grid.label': 'The new token’s attention, layer × head',
  'next.grid.caption':
    'Where the new token “{token}” (position {position}) looks in each of the {layers} layers × {heads} heads: each ' +
    'strip is that head’s weights over the {keys} positions up to it, left to right, darker is more weight. Hover a ' +
    'strip to see it large, click to keep it (arrow keys move).',
  'next.thumb': 'layer {layer} · head {head}: most weight on {token} ({weight})',
  'next.heatmap.desc':
    'layer {layer} · head {head}: the weights of “{token}” over every position before it and itself; the engine’s, ' +
    'unrounded.',
  'next.where': 'Layer {layer} · head {head}: “{token}” weighs {keys} most.',
  'next.where.key': '{token} ({weight})',
  'next.numbers': 'Every head’s weights as numbers',
  'next.table.caption': 'The weights of {token} over every position, in each head',
  'next.after': 'After “{token}”, the most probable next tokens (the next step takes the first):',
  'next.chat': ({ step, before, token, probability, temperature, ms }) =>
    `Reply token ${step}: after “${before}” the model chose “${token}”, the most probable (${probability} at ` +
    `temperature ${temperature}); fed back in ${ms} ms.`,
  // The chat box (views/next-token-chat.mjs).
  'chat.title': 'Chat',
  'chat.help':
    'This checkpoint has a chat template: the package writes the conversation in it (model.chat()) and the model ' +
    'replies a token at a time, always the most probable one. Each turn feeds only its new tokens; the earlier ones ' +
    'stay in the KV cache. Under the reply, click one of its tokens to see its attention in the grid below.',
  'chat.caveat':
    'Note: this checkpoint’s predictions were measured no better than chance (see the notes above): its replies ' +
    'come from its weights, not from any learned language.',
  'chat.log.label': 'The conversation',
  'chat.role.user': 'You',
  'chat.role.assistant': 'Model',
  'chat.role.system': 'System',
  'chat.message': 'Your message',
  'chat.send': 'Send',
  'chat.stop': 'Stop',
  'chat.max': 'Tokens at most',
  'chat.undo': 'Take back the last exchange',
  'chat.new': 'New conversation',
  'chat.idle': 'Nothing said yet: the box holds the sentence; press Send.',
  'chat.busy': 'Replying: token {step}…',
  'chat.done': ({ tokens, ms, prefilled, reused, fewer }) =>
    `Replied in ${tokens} ${tokens === 1 ? 'token' : 'tokens'} (${ms} ms). This turn fed ${prefilled} new ` +
    `tokens; the cache already held ${reused}.${fewer ? ` ${fewer}` : ''}`,
  'chat.stopped': ({ tokens, ms, prefilled, reused }) =>
    `Stopped after ${tokens} ${tokens === 1 ? 'token' : 'tokens'} (${ms} ms): the reply so far joins the ` +
    `conversation. This turn fed ${prefilled} new tokens; the cache already held ${reused}.`,
  'chat.fewer': 'Only {room} more tokens fit in the model’s positions.',
  'chat.failed': 'The reply failed (the reason is below); the conversation is as it was.',
  'chat.error': 'The reply failed: {message}',
  'chat.undone': 'The last exchange is taken back; its message is in the box again.',
  'chat.tokens': 'The reply’s tokens: click one to see where it looks (its attention once fed back).',
  'chat.tokens.label': 'The reply’s tokens',
  'chat.tokens.unfed': '{token}: the last token, never fed back, so it has no attention of its own',
};
