// The memory a model's parameters take in the engine, float32 and 16-bit
// weights (loadModel's `weights` option), for the shapes of models people
// load, as the model build itself lays them out (describeModel: the packed
// panels' padding included, norms and biases float32 either way). The
// configs are the Hub's config.json fields that size a model. Prints the
// README's memory table:  node bench/memory.mjs
import { fileURLToPath } from 'node:url';
import { loadHost } from '../src/js/node-host.mjs';

const GiB = 2 ** 30;
const LIMIT = 4 * GiB; // -sMAXIMUM_MEMORY (CMakeLists.txt)

const bert = (name, hidden, layers, heads, vocab) => [
  name,
  {
    model_type: 'bert',
    hidden_size: hidden,
    num_hidden_layers: layers,
    num_attention_heads: heads,
    intermediate_size: 4 * hidden,
    vocab_size: vocab,
    max_position_embeddings: 512,
    type_vocab_size: 2,
  },
];
const gpt2 = (name, n_embd, n_layer, n_head) => [
  name,
  { model_type: 'gpt2', n_embd, n_layer, n_head, vocab_size: 50257, n_positions: 1024 },
];
const qwen = (name, model_type, hidden, intermediate, layers, heads, kv, extra = {}) => [
  name,
  {
    model_type,
    hidden_size: hidden,
    intermediate_size: intermediate,
    num_hidden_layers: layers,
    num_attention_heads: heads,
    num_key_value_heads: kv,
    vocab_size: 151936,
    max_position_embeddings: 32768,
    rope_theta: 1000000,
    tie_word_embeddings: true,
    ...extra,
  },
];
export const MODELS = [
  bert('google-bert/bert-base-chinese', 768, 12, 12, 21128),
  [
    'Helsinki-NLP/opus-mt-zh-en',
    {
      model_type: 'marian',
      d_model: 512,
      encoder_layers: 6,
      decoder_layers: 6,
      encoder_attention_heads: 8,
      decoder_attention_heads: 8,
      encoder_ffn_dim: 2048,
      decoder_ffn_dim: 2048,
      vocab_size: 65001,
      max_position_embeddings: 512,
      scale_embedding: true,
      pad_token_id: 65000,
      decoder_start_token_id: 65000,
    },
  ],
  gpt2('openai-community/gpt2', 768, 12, 12),
  gpt2('openai-community/gpt2-medium', 1024, 24, 16),
  gpt2('openai-community/gpt2-large', 1280, 36, 20),
  gpt2('openai-community/gpt2-xl', 1600, 48, 25),
  qwen('Qwen/Qwen2.5-0.5B', 'qwen2', 896, 4864, 24, 14, 2),
  qwen('Qwen/Qwen3-0.6B', 'qwen3', 1024, 3072, 28, 16, 8, { head_dim: 128, max_position_embeddings: 40960 }),
  qwen('Qwen/Qwen2.5-1.5B', 'qwen2', 1536, 8960, 28, 12, 2),
  [
    'TinyLlama/TinyLlama-1.1B-Chat-v1.0',
    {
      model_type: 'llama',
      hidden_size: 2048,
      intermediate_size: 5632,
      num_hidden_layers: 22,
      num_attention_heads: 32,
      num_key_value_heads: 4,
      vocab_size: 32000,
      max_position_embeddings: 2048,
      rope_theta: 10000,
      tie_word_embeddings: false,
    },
  ],
  qwen('Qwen/Qwen2.5-3B', 'qwen2', 2048, 11008, 36, 16, 2),
];

/** [{ name, parameters, float32, bf16 }] from the model build's layouts. */
export async function memoryRows() {
  const dist = fileURLToPath(new URL('../dist/', import.meta.url));
  const files = { glue: 'mha-model-simd.js', wasm: 'mha-model-simd.wasm' };
  const paths = Object.fromEntries(Object.values(files).map((f) => [f, dist + f]));
  const host = await loadHost({ variant: 'simd', threads: 1, files, paths, locateFile: false });
  try {
    return MODELS.map(([name, config]) => {
      const layout = host.call('describeModel', [config]);
      const parameters = layout.tensors.reduce((sum, t) => sum + t.shape.reduce((a, b) => a * b, 1), 0);
      return { name, parameters, ...layout.weightBytes };
    });
  } finally {
    host.dispose();
  }
}

const size = (bytes) => (bytes >= GiB ? `${(bytes / GiB).toFixed(2)} GiB` : `${Math.round(bytes / 2 ** 20)} MiB`);
// A model fits when its parameters leave at least 1/8 of the memory for a run (activations, caches, logits).
const fits = (bytes) => (bytes <= LIMIT * (7 / 8) ? 'yes' : 'no');

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = await memoryRows();
  console.log('| model | parameters | float32 | fits | bf16 / f16 | fits |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows)
    console.log(
      `| ${r.name} | ${(r.parameters / 1e6).toFixed(0)} M | ${size(r.float32)} | ${fits(r.float32)} | ${size(r.bf16)} | ${fits(r.bf16)} |`,
    );
}
