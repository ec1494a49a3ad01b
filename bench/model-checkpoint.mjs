// A BERT checkpoint in the Hugging Face layout, made at bench time:
// config.json and model.safetensors with bert-base-chinese's tensor names and
// shapes, seeded random weights scaled like BERT's initialization (N(0, 0.02²)
// matrices, LayerNorm weights ≈ 1, small biases; mulberry32 and Box–Muller from
// web/model/random.mjs). Written tensor by tensor, so
// at most one tensor (the word embeddings, 62 MiB) is held at a time. By
// default a BertModel (the encoder alone, what the model benches run); with
// { maskedLM: true } a BertForMaskedLM, as bert-base-chinese's own checkpoint:
// the same tensors, then the masked-LM head transformers' BertForMaskedLM
// saves (cls.predictions, its decoder tied to the word embeddings, so not in
// the file). Also a safetensors reader for the ONNX export and the float64
// reference.
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { mulberry32, normals } from '../web/model/random.mjs';

/** bert-base-chinese's shape. */
export const BERT_BASE = {
  architectures: ['BertModel'],
  model_type: 'bert',
  hidden_size: 768,
  num_hidden_layers: 12,
  num_attention_heads: 12,
  intermediate_size: 3072,
  vocab_size: 21128,
  max_position_embeddings: 512,
  type_vocab_size: 2,
  layer_norm_eps: 1e-12,
  hidden_act: 'gelu',
  pad_token_id: 0,
  position_embedding_type: 'absolute',
  initializer_range: 0.02,
  torch_dtype: 'float32',
};

/**
 * [name, shape, kind] in bert-base-chinese's order; kind picks the
 * initialization. `maskedLM`: then BertForMaskedLM's head, as transformers
 * saves it (tests/fixtures/models/hf-bert-mlm holds the same names):
 * cls.predictions' bias [vocab] and its transform (dense [D, D], LayerNorm);
 * cls.predictions.decoder is the word embeddings (tied) and is not saved.
 */
export function bertTensors(config, { maskedLM = false } = {}) {
  const D = config.hidden_size,
    F = config.intermediate_size;
  const t = [
    ['bert.embeddings.word_embeddings.weight', [config.vocab_size, D], 'embedding'],
    ['bert.embeddings.position_embeddings.weight', [config.max_position_embeddings, D], 'embedding'],
    ['bert.embeddings.token_type_embeddings.weight', [config.type_vocab_size, D], 'embedding'],
    ['bert.embeddings.LayerNorm.weight', [D], 'lnWeight'],
    ['bert.embeddings.LayerNorm.bias', [D], 'bias'],
  ];
  for (let i = 0; i < config.num_hidden_layers; i++) {
    const p = `bert.encoder.layer.${i}.`;
    for (const m of ['query', 'key', 'value'])
      t.push(
        [`${p}attention.self.${m}.weight`, [D, D], m === 'value' ? 'linear' : 'linearQK'],
        [`${p}attention.self.${m}.bias`, [D], 'bias'],
      );
    t.push(
      [`${p}attention.output.dense.weight`, [D, D], 'linear'],
      [`${p}attention.output.dense.bias`, [D], 'bias'],
      [`${p}attention.output.LayerNorm.weight`, [D], 'lnWeight'],
      [`${p}attention.output.LayerNorm.bias`, [D], 'bias'],
      [`${p}intermediate.dense.weight`, [F, D], 'linear'],
      [`${p}intermediate.dense.bias`, [F], 'bias'],
      [`${p}output.dense.weight`, [D, F], 'linear'],
      [`${p}output.dense.bias`, [D], 'bias'],
      [`${p}output.LayerNorm.weight`, [D], 'lnWeight'],
      [`${p}output.LayerNorm.bias`, [D], 'bias'],
    );
  }
  if (maskedLM)
    t.push(
      ['cls.predictions.bias', [config.vocab_size], 'bias'],
      ['cls.predictions.transform.dense.weight', [D, D], 'linear'],
      ['cls.predictions.transform.dense.bias', [D], 'bias'],
      ['cls.predictions.transform.LayerNorm.weight', [D], 'lnWeight'],
      ['cls.predictions.transform.LayerNorm.bias', [D], 'bias'],
    );
  return t;
}

// Standard deviations: BERT's 0.02 for matrices and embeddings; 0.04 for the
// query and key projections so that the untrained heads are not all flat.
const STD = { embedding: 0.02, linear: 0.02, linearQK: 0.04, bias: 0.02, lnWeight: 0.05 };

/**
 * Writes config.json and model.safetensors into `dir`; returns
 * { bytes, ms, path }. The same seed gives the same bytes. `maskedLM`: a
 * BertForMaskedLM (config.json's architectures ['BertForMaskedLM'], the
 * head's tensors after the encoder's, whose values are the same as without it).
 */
export function writeCheckpoint(dir, config = BERT_BASE, { seed = 12, maskedLM = false } = {}) {
  const t0 = performance.now();
  mkdirSync(dir, { recursive: true });
  const written = maskedLM ? { ...config, architectures: ['BertForMaskedLM'] } : config;
  writeFileSync(path.join(dir, 'config.json'), JSON.stringify(written, null, 2) + '\n');
  const file = path.join(dir, 'model.safetensors');
  const bytes = writeSafetensors(
    file,
    bertTensors(config, { maskedLM }),
    (kind) => ({
      mean: kind === 'lnWeight' ? 1 : 0,
      std: STD[kind],
    }),
    seed,
  );
  return { path: file, bytes, ms: performance.now() - t0 };
}

/** float32 → bfloat16 bits, rounded to nearest even (as torch's .to(torch.bfloat16)); finite values only. */
export function toBfloat16(values) {
  const bits = new Uint32Array(values.buffer, values.byteOffset, values.length);
  const out = new Uint16Array(values.length);
  for (let i = 0; i < bits.length; i++) out[i] = (bits[i] + 0x7fff + ((bits[i] >>> 16) & 1)) >>> 16;
  return out;
}

/**
 * Writes `tensors` ([name, shape, kind] in file order) as a safetensors file
 * of `dtype` F32 or BF16 (each value drawn in float32, then rounded), each
 * filled with mean + std·N(0, 1) where { mean, std } = init(kind), from one
 * seeded stream (mulberry32, both values of each Box–Muller pair) in that order, one tensor in memory
 * at a time; returns the file's bytes.
 */
export function writeSafetensors(file, tensors, init, seed, { dtype = 'F32' } = {}) {
  if (dtype !== 'F32' && dtype !== 'BF16') throw new RangeError(`dtype: expected 'F32' or 'BF16', got ${dtype}`);
  const size = dtype === 'F32' ? 4 : 2;
  const header = { __metadata__: { format: 'pt' } };
  let offset = 0;
  for (const [name, shape] of tensors) {
    const bytes = shape.reduce((a, b) => a * b, 1) * size;
    header[name] = { dtype, shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const fd = openSync(file, 'w');
  try {
    const prefix = Buffer.alloc(8);
    prefix.writeBigUInt64LE(BigInt(json.length));
    writeSync(fd, prefix);
    writeSync(fd, Buffer.from(json, 'utf8'));
    const normal = normals(mulberry32(seed));
    for (const [, shape, kind] of tensors) {
      const values = new Float32Array(shape.reduce((a, b) => a * b, 1));
      const { mean, std } = init(kind);
      for (let i = 0; i < values.length; i++) values[i] = mean + std * normal();
      const stored = dtype === 'F32' ? values : toBfloat16(values);
      writeSync(fd, new Uint8Array(stored.buffer));
    }
  } finally {
    closeSync(fd);
  }
  return 8 + json.length + offset;
}

/**
 * A safetensors file (F32 or BF16) read whole: { names, shape(name),
 * dtype(name), tensor(name), raw(name) } with tensor() a Float32Array (a view
 * on the file's bytes for F32, BF16 widened exactly) and raw() the stored
 * bytes.
 */
export function readSafetensors(file) {
  const buf = readFileSync(file);
  const n = Number(buf.readBigUInt64LE(0));
  const header = JSON.parse(buf.subarray(8, 8 + n).toString('utf8'));
  const base = 8 + n;
  const names = Object.keys(header).filter((k) => k !== '__metadata__');
  const entry = (name) => {
    const h = header[name];
    if (!h) throw new Error(`no tensor ${name} in ${file}`);
    if (h.dtype !== 'F32' && h.dtype !== 'BF16')
      throw new Error(`${name}: ${h.dtype}, only F32 and BF16 are read here`);
    return h;
  };
  const raw = (name) => {
    const [b, e] = entry(name).data_offsets;
    return buf.subarray(base + b, base + e);
  };
  return {
    names,
    shape: (name) => entry(name).shape,
    dtype: (name) => entry(name).dtype,
    raw,
    tensor(name) {
      const bytes = raw(name);
      if (entry(name).dtype === 'BF16') {
        const bits = new Uint32Array(bytes.length / 2);
        for (let i = 0; i < bits.length; i++) bits[i] = (bytes[2 * i] | (bytes[2 * i + 1] << 8)) << 16;
        return new Float32Array(bits.buffer);
      }
      if (bytes.byteOffset % 4 === 0) return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
      return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
    },
  };
}

/** Seeded token ids for a sequence of L: [CLS] … [SEP] with ids drawn from the vocabulary. */
export function makeInputIds(L, vocabSize, seed = 17) {
  const random = mulberry32(seed * 1009 + L);
  const ids = new Int32Array(L);
  for (let i = 0; i < L; i++) ids[i] = 5 + Math.floor(random() * (vocabSize - 5));
  ids[0] = Math.min(101, vocabSize - 1);
  ids[L - 1] = Math.min(102, vocabSize - 1);
  return ids;
}
