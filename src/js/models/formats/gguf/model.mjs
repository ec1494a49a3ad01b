// A GGUF file's model as the loader knows models: the config.json that
// transformers would write for it (from the `{arch}.*` keys, as
// convert_hf_to_gguf.py wrote them from config.json) and its tensors under
// their Hugging Face names (llama.cpp's names, gguf-py's
// constants.py/tensor_mapping.py, mapped back), so that the C++ architecture
// reads and checks the config as it reads any checkpoint's and the loader
// matches the tensors as it matches a safetensors file's.
import { codedError } from '../../../errors.mjs';
import { READ_TYPES } from './types.mjs';

/** The architectures read: general.architecture → transformers' class. */
const ARCHITECTURES = Object.freeze({
  llama: 'LlamaForCausalLM',
  qwen2: 'Qwen2ForCausalLM',
  qwen3: 'Qwen3ForCausalLM',
});

// llama.cpp's tensor names → transformers' (without "model."; lm_head has none).
const GLOBAL = {
  'token_embd.weight': 'model.embed_tokens.weight',
  'output_norm.weight': 'model.norm.weight',
  'output.weight': 'lm_head.weight',
};
const BLOCK = {
  attn_norm: 'input_layernorm',
  attn_q: 'self_attn.q_proj',
  attn_k: 'self_attn.k_proj',
  attn_v: 'self_attn.v_proj',
  attn_output: 'self_attn.o_proj',
  attn_q_norm: 'self_attn.q_norm',
  attn_k_norm: 'self_attn.k_norm',
  ffn_norm: 'post_attention_layernorm',
  ffn_gate: 'mlp.gate_proj',
  ffn_up: 'mlp.up_proj',
  ffn_down: 'mlp.down_proj',
};

/** The Hugging Face name of llama.cpp tensor `name`, or undefined. */
export function hfTensorName(name) {
  if (Object.hasOwn(GLOBAL, name)) return GLOBAL[name];
  const m = /^blk\.(\d+)\.([a-z_]+)\.(weight|bias)$/.exec(name);
  if (!m || !Object.hasOwn(BLOCK, m[2])) return undefined;
  return `model.layers.${Number(m[1])}.${BLOCK[m[2]]}.${m[3]}`;
}

/**
 * { config, tensors } of a GGUF header (reader.mjs): config, a config.json
 * object; tensors, the header's tensors with `hfName` and, for the query
 * and key rows llama.cpp's converter reordered, `rowsPerGroup` and
 * `rowOrder` (rowOrder[i]: the file's row, within each group of
 * rowsPerGroup rows, that the model's row i is). An Error coded
 * 'UnsupportedModel' or 'BadCheckpoint' naming the file and the key.
 */
export function ggufModel(fileName, header) {
  const { metadata } = header;
  const fail = (code, field, problem, value) => {
    throw codedError(code, `${fileName}: ${field}: ${problem}`, { file: fileName, field, value });
  };
  const get = (key, type, fallback) => {
    const entry = metadata.get(key);
    if (!entry) {
      if (fallback === undefined) fail('BadCheckpoint', key, 'missing from the metadata');
      return fallback;
    }
    const ok =
      type === 'integer'
        ? /^u?int(8|16|32|64)$/.test(entry.type) && !Array.isArray(entry.value)
        : type === 'number'
          ? /^(u?int(8|16|32|64)|float(32|64))$/.test(entry.type) && !Array.isArray(entry.value)
          : entry.type === type;
    if (!ok) fail('BadCheckpoint', key, `a ${entry.type}, expected a ${type}`);
    const value = typeof entry.value === 'bigint' ? Number(entry.value) : entry.value;
    if (type === 'integer' && (!Number.isSafeInteger(value) || value < 0))
      fail('BadCheckpoint', key, `${String(entry.value)} is not a size`);
    return value;
  };
  const arch = get('general.architecture', 'string');
  if (!Object.hasOwn(ARCHITECTURES, arch))
    fail(
      'UnsupportedModel',
      'general.architecture',
      `"${arch}" is not read (GGUF files of ${Object.keys(ARCHITECTURES).join(', ')} are)`,
      arch,
    );
  const heads = get(`${arch}.attention.head_count`, 'integer');
  const kvHeads = get(`${arch}.attention.head_count_kv`, 'integer', heads);
  const hidden = get(`${arch}.embedding_length`, 'integer');
  const keyLength = get(`${arch}.attention.key_length`, 'integer', 0);
  const valueLength = get(`${arch}.attention.value_length`, 'integer', keyLength);
  if (keyLength !== valueLength)
    fail(
      'UnsupportedModel',
      `${arch}.attention.value_length`,
      `${valueLength}, unlike key_length (${keyLength}): the engine's heads have one width`,
    );
  const headDim = keyLength || (heads ? hidden / heads : 0);
  const byName = new Map(header.tensors.map((t) => [t.name, t]));
  const embeddings = byName.get('token_embd.weight');
  if (!embeddings) fail('BadCheckpoint', 'token_embd.weight', 'no such tensor: the token embeddings are missing');
  const config = {
    architectures: [ARCHITECTURES[arch]],
    model_type: arch,
    hidden_act: 'silu',
    hidden_size: hidden,
    intermediate_size: get(`${arch}.feed_forward_length`, 'integer'),
    num_hidden_layers: get(`${arch}.block_count`, 'integer'),
    num_attention_heads: heads,
    num_key_value_heads: kvHeads,
    ...(keyLength ? { head_dim: keyLength } : {}),
    max_position_embeddings: get(`${arch}.context_length`, 'integer'),
    rms_norm_eps: get(`${arch}.attention.layer_norm_rms_epsilon`, 'number'),
    rope_parameters: { rope_theta: get(`${arch}.rope.freq_base`, 'number', 10000), ...ropeScaling(arch, get, fail) },
    vocab_size: embeddings.shape[0],
    // llama.cpp's converter leaves out output.weight when the head is the token embeddings.
    tie_word_embeddings: !byName.has('output.weight'),
    // Llama's projections have biases when its config said so (the converter writes them if there);
    // Qwen2's always have them, Qwen3's never (the model_type says so to the engine).
    ...(arch === 'llama' ? { attention_bias: byName.has('blk.0.attn_q.bias'), mlp_bias: false } : {}),
  };
  for (const [key, field] of [
    ['tokenizer.ggml.bos_token_id', 'bos_token_id'],
    ['tokenizer.ggml.eos_token_id', 'eos_token_id'],
    ['tokenizer.ggml.padding_token_id', 'pad_token_id'],
  ])
    if (metadata.has(key)) config[field] = get(key, 'integer');
  if (byName.has('rope_freqs.weight'))
    fail(
      'UnsupportedModel',
      'rope_freqs.weight',
      "per-frequency rope factors (llama 3.1's rope scaling as the converter writes it) are not read yet",
    );
  const tensors = header.tensors.map((t) => {
    const hfName = hfTensorName(t.name);
    if (!hfName) fail('BadCheckpoint', `tensor "${t.name}"`, `not a tensor of a GGUF ${arch} model`);
    if (!READ_TYPES.includes(t.type))
      fail(
        'UnsupportedModel',
        `tensor "${t.name}" (type)`,
        `ggml type ${t.type} is not read (${READ_TYPES.join(', ')} are)`,
        t.type,
      );
    // convert_hf_to_gguf.py's LlamaModel.permute: each head's rows [first half, second half] interleaved
    // (llama.cpp's rope turns adjacent pairs; transformers' turns halves). Qwen2 and Qwen3 are written as
    // they are (NEOX rope: halves, as transformers').
    if (arch === 'llama' && /^blk\.\d+\.attn_[qk]\.(weight|bias)$/.test(t.name)) {
      const groups = /attn_q/.test(t.name) ? heads : kvHeads;
      const rows = t.shape[0];
      if (rows !== groups * headDim || headDim % 2)
        fail('BadCheckpoint', `tensor "${t.name}"`, `${rows} rows are not ${groups} heads of ${headDim}`);
      const half = headDim / 2;
      // Model row j·half + i (half j of pair i) is the file's row 2i + j.
      const rowOrder = Array.from({ length: headDim }, (_, r) => 2 * (r % half) + Math.floor(r / half));
      return { ...t, hfName, rowsPerGroup: headDim, rowOrder };
    }
    return { ...t, hfName };
  });
  return { config, tensors };
}

// The rope's scaling, in config.json's rope_parameters terms.
function ropeScaling(arch, get, fail) {
  const type = get(`${arch}.rope.scaling.type`, 'string', 'none');
  if (type === 'none') return { rope_type: 'default' };
  if (type === 'linear') return { rope_type: 'linear', factor: get(`${arch}.rope.scaling.factor`, 'number') };
  return fail('UnsupportedModel', `${arch}.rope.scaling.type`, `"${type}" is not read (none and linear are)`, type);
}
