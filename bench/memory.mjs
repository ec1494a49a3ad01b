// The memory a model's parameters take in the engine, float32, 16-bit, and
// 8- and 4-bit weights (loadModel's `weights` option: 'q8', 'q4' hold the
// matrices in Q8_0 and Q4_0 blocks), for the shapes of models people load, as
// the model build itself lays them out (describeModel: the packed panels'
// padding included, norms and biases float32 either way). The configs are
// the Hub's config.json fields that size a model. Prints the memory table of
// docs/api-checkpoints.md:  node bench/memory.mjs
import { fileURLToPath } from 'node:url';
import { chooseWeights } from '../src/js/models/load.mjs';
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
// Llama 3.2's and SmolLM2's shapes (tied embeddings; the sizes only: Llama 3.2's rope scaling changes none).
const llama = (name, hidden, intermediate, layers, heads, kv, vocab) => [
  name,
  {
    model_type: 'llama',
    hidden_size: hidden,
    intermediate_size: intermediate,
    num_hidden_layers: layers,
    num_attention_heads: heads,
    num_key_value_heads: kv,
    vocab_size: vocab,
    max_position_embeddings: 8192,
    rope_theta: 500000,
    tie_word_embeddings: true,
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
  qwen('Qwen/Qwen3-1.7B', 'qwen3', 2048, 6144, 28, 16, 8, { head_dim: 128, max_position_embeddings: 40960 }),
  qwen('Qwen/Qwen3-4B', 'qwen3', 2560, 9728, 36, 32, 8, { head_dim: 128, max_position_embeddings: 40960 }),
  llama('meta-llama/Llama-3.2-1B', 2048, 8192, 16, 32, 8, 128256),
  llama('meta-llama/Llama-3.2-3B', 3072, 8192, 28, 24, 8, 128256),
  llama('HuggingFaceTB/SmolLM2-1.7B', 2048, 8192, 24, 32, 32, 49152),
];

/** [{ name, parameters, float32, bf16, q8, q4 }] from the model build's layouts. */
export async function memoryRows() {
  const dist = fileURLToPath(new URL('../dist/', import.meta.url));
  const files = { glue: 'mha-model-simd.js', wasm: 'mha-model-simd.wasm' };
  const paths = Object.fromEntries(Object.values(files).map((f) => [f, dist + f]));
  const host = await loadHost({ variant: 'simd', threads: 1, files, paths, locateFile: false });
  try {
    return MODELS.map(([name, config]) => {
      const layout = host.call('describeModel', [config]);
      const parameters = layout.tensors.reduce((sum, t) => sum + t.shape.reduce((a, b) => a * b, 1), 0);
      // 'q8' and 'q4' as loadModel holds a float checkpoint of this model (chooseWeights: which matrices).
      const plan = [layout.tensors.map((t, index) => ({ index, dtype: 'F32', shape: t.shape }))];
      const held = (weights) => {
        const { storage, holds } = chooseWeights(weights, layout, plan);
        return host.call('modelBytes', [config, storage, holds]);
      };
      return {
        name,
        parameters,
        float32: layout.storageBytes.F32,
        bf16: layout.storageBytes.BF16,
        q8: held('q8'),
        q4: held('q4'),
      };
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
  const columns = ['float32', 'bf16', 'q8', 'q4'];
  console.log(
    `| model | parameters | ${columns.map((c) => `${c === 'bf16' ? 'bf16 / f16' : c} | fits`).join(' | ')} |`,
  );
  console.log(`|---|---|${columns.map(() => '---|---|').join('')}`);
  for (const r of rows)
    console.log(
      `| ${r.name} | ${(r.parameters / 1e6).toFixed(0)} M | ${columns.map((c) => `${size(r[c])} | ${fits(r[c])}`).join(' | ')} |`,
    );
}
