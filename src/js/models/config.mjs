// A checkpoint's config.json, read into what the engine's models take
// (src/model/model.hpp's Config) and what model.config shows. The
// architectures and settings the engine supports are listed here, once; anything else is
// refused by name. The sizes' limits are the C++ model's (ModelLimits, read
// through the bindings as engine limits.model), and the rules between sizes
// are the ones its constructor checks, said here in config.json's words
// (tests/js/limits.test.mjs holds both sides to the same boundaries).

/** model_type → architecture of the blocks: BERT and RoBERTa are post-LN encoders, GPT-2 a pre-LN causal decoder. */
export const MODEL_TYPES = Object.freeze({ bert: 'bert', roberta: 'bert', gpt2: 'gpt2' });
/** hidden_act / activation_function → the GELU the blocks compute (erf exact or tanh). */
export const ACTIVATIONS = Object.freeze({
  gelu: 'gelu',
  gelu_new: 'gelu_new',
  gelu_pytorch_tanh: 'gelu_new',
});
const POSITION_TYPES = ['absolute'];
/**
 * config.json's field of each size of a model, by architecture, and where a field
 * may be left out, its value then (from the sizes read before it and the json).
 */
const FIELDS = {
  bert: {
    numLayers: ['num_hidden_layers'],
    numHeads: ['num_attention_heads'],
    hiddenSize: ['hidden_size'],
    intermediateSize: ['intermediate_size'],
    vocabSize: ['vocab_size'],
    maxPositions: ['max_position_embeddings'],
    typeVocabSize: ['type_vocab_size', () => 2],
  },
  gpt2: {
    numLayers: ['n_layer'],
    numHeads: ['n_head'],
    hiddenSize: ['n_embd'],
    intermediateSize: ['n_inner', (sizes) => 4 * sizes.hiddenSize],
    vocabSize: ['vocab_size'],
    maxPositions: ['n_positions', (sizes, json) => json.n_ctx],
  },
};

const list = (names) => names.map((n) => `"${n}"`).join(', ');

function refuse(field, value, supported) {
  throw new Error(`config.json: ${field} ${JSON.stringify(value)} is not supported; mha-wasm runs ${list(supported)}`);
}

/** The architecture's sizes (FIELDS), each a positive integer, at most its limit if `limits` has one. */
function readSizes(json, architecture, limits) {
  const sizes = {};
  for (const [name, [field, fallback]] of Object.entries(FIELDS[architecture])) {
    const value = json[field] ?? fallback?.(sizes, json);
    if (!Number.isInteger(value) || value < 1)
      throw new Error(`config.json: ${field} must be a positive integer, got ${JSON.stringify(json[field])}`);
    sizes[name] = value;
  }
  for (const [name, [field]] of Object.entries(FIELDS[architecture]))
    if (sizes[name] > limits[name])
      throw new Error(`config.json: ${field} must be at most ${limits[name]}, got ${sizes[name]}`);
  return sizes;
}

/**
 * { architecture, engine, public }: `architecture` ('bert' or 'gpt2', of
 * MODEL_TYPES), `engine` for the bindings' Model.configure (which names the
 * architecture `family`), `public` for model.config (without maxLength,
 * which the configured model reports).
 * `limits`: the largest sizes (the model build's limits.model). Throws an
 * Error naming config.json and the field.
 */
export function readConfig(json, limits = {}) {
  if (!json || typeof json !== 'object' || Array.isArray(json))
    throw new Error('config.json: expected a JSON object (the config.json of a Hugging Face model folder)');
  const modelType = json.model_type;
  if (!Object.hasOwn(MODEL_TYPES, modelType)) refuse('model_type', modelType, Object.keys(MODEL_TYPES));
  const architecture = MODEL_TYPES[modelType];
  let engine;
  if (architecture === 'gpt2') {
    const activation = json.activation_function ?? 'gelu_new';
    if (!Object.hasOwn(ACTIVATIONS, activation)) refuse('activation_function', activation, Object.keys(ACTIVATIONS));
    if (json.scale_attn_weights === false) refuse('scale_attn_weights', false, ['true']);
    if (json.scale_attn_by_inverse_layer_idx === true) refuse('scale_attn_by_inverse_layer_idx', true, ['false']);
    engine = {
      family: architecture,
      ...readSizes(json, architecture, limits),
      typeVocabSize: 1,
      positionOffset: 0,
      layerNormEps: json.layer_norm_epsilon ?? 1e-5,
      activation: ACTIVATIONS[activation],
    };
  } else {
    const activation = json.hidden_act ?? 'gelu';
    if (!Object.hasOwn(ACTIVATIONS, activation)) refuse('hidden_act', activation, Object.keys(ACTIVATIONS));
    const position = json.position_embedding_type ?? 'absolute';
    if (!POSITION_TYPES.includes(position)) refuse('position_embedding_type', position, POSITION_TYPES);
    const pad = json.pad_token_id ?? (modelType === 'roberta' ? 1 : 0);
    engine = {
      family: architecture,
      ...readSizes(json, architecture, limits),
      // RoBERTa numbers positions from pad_token_id + 1 (a sequence without padding).
      positionOffset: modelType === 'roberta' ? pad + 1 : 0,
      layerNormEps: json.layer_norm_eps ?? 1e-12,
      activation: ACTIVATIONS[activation],
    };
  }
  // In the order of the C++ model's checks (src/model/model.cpp, Model::Model).
  if (engine.positionOffset >= engine.maxPositions)
    throw new Error(`config.json: pad_token_id ${engine.positionOffset - 1} leaves no position for a token`);
  if (engine.hiddenSize % engine.numHeads !== 0)
    throw new Error(
      `config.json: the hidden size (${engine.hiddenSize}) must be a multiple of the number of heads (${engine.numHeads})`,
    );
  // The blocks hold it as a float32, where 1e-46 is 0 and 1e39 is Infinity.
  const epsilon = typeof engine.layerNormEps === 'number' ? Math.fround(engine.layerNormEps) : NaN;
  if (!(epsilon > 0 && epsilon < Infinity))
    throw new Error(
      `config.json: the layer norm epsilon must be a number > 0 and finite as a float32, got ${engine.layerNormEps}`,
    );
  const { numLayers, numHeads, hiddenSize, vocabSize } = engine;
  return {
    architecture,
    engine,
    public: Object.freeze({
      modelType,
      numLayers,
      numHeads,
      hiddenSize,
      vocabSize,
      maxPositions: engine.maxPositions,
    }),
  };
}
