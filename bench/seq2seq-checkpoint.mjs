// A MarianMT checkpoint in the Hugging Face layout, made at bench time for
// bench/seq2seq.mjs: config.json as Helsinki-NLP/opus-mt-zh-en's (6 + 6
// layers, d_model 512, 8 heads, FFN 2048, vocabulary 65,001, swish,
// scale_embedding), generation_config.json as its (bad_words_ids [[pad]],
// renormalize_logits, forced eos) plus min_new_tokens so that every
// generation is exactly NEW_TOKENS decoder steps, and model.safetensors with
// MarianMTModel's tensor names (as transformers saves them: sorted, the tied
// copies left out), seeded random weights scaled like its init_std (N(0,
// 0.02²) matrices and embeddings, LayerNorm weights ≈ 1, small biases).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { mulberry32 } from '../tests/js/helpers/random.mjs';
import { writeSafetensors } from './model-checkpoint.mjs';

/** opus-mt-zh-en's config.json (the fields transformers 4.x wrote), its sizes. */
export const OPUS_MT = {
  activation_dropout: 0.0,
  activation_function: 'swish',
  architectures: ['MarianMTModel'],
  attention_dropout: 0.0,
  bad_words_ids: [[65000]],
  bos_token_id: 0,
  classif_dropout: 0.0,
  classifier_dropout: 0.0,
  d_model: 512,
  decoder_attention_heads: 8,
  decoder_ffn_dim: 2048,
  decoder_layerdrop: 0.0,
  decoder_layers: 6,
  decoder_start_token_id: 65000,
  decoder_vocab_size: 65001,
  dropout: 0.1,
  encoder_attention_heads: 8,
  encoder_ffn_dim: 2048,
  encoder_layerdrop: 0.0,
  encoder_layers: 6,
  eos_token_id: 0,
  forced_eos_token_id: 0,
  init_std: 0.02,
  is_encoder_decoder: true,
  max_length: 512,
  max_position_embeddings: 512,
  model_type: 'marian',
  normalize_before: false,
  normalize_embedding: false,
  num_beams: 6,
  num_hidden_layers: 6,
  pad_token_id: 65000,
  scale_embedding: true,
  share_encoder_decoder_embeddings: true,
  static_position_embeddings: true,
  torch_dtype: 'float32',
  use_cache: true,
  vocab_size: 65001,
};

/** The decoder steps of every timed generation: the last one is the forced eos. */
export const NEW_TOKENS = 16;

/**
 * opus-mt-zh-en's generation_config.json, plus min_new_tokens: eos is banned
 * for the first NEW_TOKENS − 1 tokens and forced as the last (with
 * maxNewTokens NEW_TOKENS), so both runtimes decode the same steps whatever
 * the random weights prefer.
 */
export function generationConfig(config, newTokens = NEW_TOKENS) {
  return {
    bad_words_ids: [[config.pad_token_id]],
    bos_token_id: 0,
    decoder_start_token_id: config.decoder_start_token_id,
    eos_token_id: config.eos_token_id,
    forced_eos_token_id: config.eos_token_id,
    max_length: 512,
    min_new_tokens: newTokens - 1,
    num_beams: 4,
    pad_token_id: config.pad_token_id,
    renormalize_logits: true,
  };
}

/** [name, shape, kind] of a MarianMTModel in the order transformers' save_pretrained writes (sorted). */
export function marianTensors(config) {
  const D = config.d_model,
    V = config.vocab_size;
  const t = [
    ['final_logits_bias', [1, V], 'logitsBias'],
    ['model.shared.weight', [V, D], 'embedding'],
  ];
  const attention = (p, out) => {
    for (const m of ['k', 'out', 'q', 'v'])
      out.push([`${p}.${m}_proj.bias`, [D], 'bias'], [`${p}.${m}_proj.weight`, [D, D], 'linear']);
  };
  for (const side of ['decoder', 'encoder']) {
    const layers = config[`${side}_layers`],
      F = config[`${side}_ffn_dim`];
    for (let i = 0; i < layers; i++) {
      const p = `model.${side}.layers.${i}`;
      const layer = [];
      if (side === 'decoder') {
        attention(`${p}.encoder_attn`, layer);
        layer.push([`${p}.encoder_attn_layer_norm.bias`, [D], 'bias']);
        layer.push([`${p}.encoder_attn_layer_norm.weight`, [D], 'lnWeight']);
      }
      layer.push(
        [`${p}.fc1.bias`, [F], 'bias'],
        [`${p}.fc1.weight`, [F, D], 'linear'],
        [`${p}.fc2.bias`, [D], 'bias'],
        [`${p}.fc2.weight`, [D, F], 'linear'],
        [`${p}.final_layer_norm.bias`, [D], 'bias'],
        [`${p}.final_layer_norm.weight`, [D], 'lnWeight'],
      );
      attention(`${p}.self_attn`, layer);
      layer.push(
        [`${p}.self_attn_layer_norm.bias`, [D], 'bias'],
        [`${p}.self_attn_layer_norm.weight`, [D], 'lnWeight'],
      );
      t.push(...layer);
    }
  }
  // Sorted as a string, as safetensors' save_file orders them (layers.10 before layers.2).
  return [t[0], ...t.slice(1).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))];
}

// init_std 0.02 for every matrix and the embedding; final_logits_bias (zeros in a fresh MarianMTModel,
// trained values in opus-mt) small but not zero, so that the comparison sees it added.
const INIT = {
  embedding: { mean: 0, std: 0.02 },
  linear: { mean: 0, std: 0.02 },
  bias: { mean: 0, std: 0.02 },
  lnWeight: { mean: 1, std: 0.05 },
  logitsBias: { mean: 0, std: 0.05 },
};

/**
 * Writes config.json, generation_config.json and model.safetensors into
 * `dir`; returns { bytes, ms, path }. The same seed gives the same bytes.
 */
export function writeMarianCheckpoint(dir, config = OPUS_MT, { seed = 23, newTokens = NEW_TOKENS } = {}) {
  const t0 = performance.now();
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config, null, 2) + '\n');
  writeFileSync(
    path.join(dir, 'generation_config.json'),
    JSON.stringify(generationConfig(config, newTokens), null, 2) + '\n',
  );
  const file = path.join(dir, 'model.safetensors');
  const bytes = writeSafetensors(file, marianTensors(config), (kind) => INIT[kind], seed);
  return { path: file, bytes, ms: performance.now() - t0 };
}

/**
 * The source sentence as ids: 用毒毒毒蛇，毒蛇会不会被毒毒死, 12 pieces for
 * opus-mt-zh-en's SentencePiece model (about one per character, a few
 * characters merged), then </s> (eos_token_id). The ids are seeded, with
 * the sentence's repeats in their places (毒 and 蛇 come back); no tokenizer needed.
 */
export function sourceIds(config = OPUS_MT, seed = 29) {
  const random = mulberry32(seed);
  const pieces = Array.from({ length: 10 }, () => 8 + Math.floor(random() * (config.vocab_size - 9)));
  // ▁用 毒 毒毒 蛇 ， 毒蛇 会 不会 被 毒 毒 死: piece numbers 0–9.
  const pattern = [0, 1, 2, 3, 4, 5, 6, 7, 8, 1, 1, 9];
  return Int32Array.from([...pattern.map((k) => pieces[k]), config.eos_token_id]);
}
