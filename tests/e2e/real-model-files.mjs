// Checkpoint files for the real-model view's Chromium tests (page-model, page-model-freeze): the tiny
// BERT fixture, a 12 × 12 random BERT made from it, and giving files to the view's file picker.
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const BERT_FOLDER = 'tests/fixtures/models/bert-zh';
const FOLDER = BERT_FOLDER;

/**
 * A random BERT of `layers` × `heads` (12 × 12 unless told; hidden 48, the
 * fixture's vocabulary and tokenizer) as files for setInputFiles: the
 * tensors of the fixture's layer 0 repeated, seeded values in ±scale/2
 * (0.02 or so, as transformers initialises a model, makes its heads near uniform).
 */
export function twelveByTwelve({ scale = 0.8, layers = 12, heads = 12 } = {}) {
  const source = readFileSync(path.join(FOLDER, 'model.safetensors'));
  const header = JSON.parse(source.subarray(8, 8 + Number(source.readBigUInt64LE(0))).toString());
  const hidden = 48;
  const wanted = Object.entries(header).filter(
    ([name, t]) => t.dtype === 'F32' && (name.startsWith('bert.embeddings.') || name.includes('.layer.0.')),
  );
  let seed = 1;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5) * scale;
  const tensors = [];
  for (const [name, t] of wanted)
    for (let layer = 0; layer < (name.includes('.layer.0.') ? layers : 1); layer++) {
      const shape = t.shape.map((n) => (n === 32 ? hidden : n));
      const values = new Float32Array(shape.reduce((a, b) => a * b, 1));
      const norm = name.includes('LayerNorm');
      for (let i = 0; i < values.length; i++) values[i] = norm ? (name.endsWith('weight') ? 1 : 0) : random();
      tensors.push([name.replace('.layer.0.', `.layer.${layer}.`), shape, values]);
    }
  const json = {};
  let offset = 0;
  for (const [name, shape, values] of tensors) {
    json[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + values.byteLength] };
    offset += values.byteLength;
  }
  const text = Buffer.from(JSON.stringify(json));
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(text.length));
  const weights = Buffer.concat([length, text, ...tensors.map(([, , v]) => Buffer.from(v.buffer))]);
  const config = JSON.parse(readFileSync(path.join(FOLDER, 'config.json'), 'utf8'));
  Object.assign(config, { hidden_size: hidden, num_attention_heads: heads, num_hidden_layers: layers });
  const file = (name, buffer) => ({ name, mimeType: 'application/octet-stream', buffer });
  return [
    file('config.json', Buffer.from(JSON.stringify(config))),
    file('model.safetensors', weights),
    file('tokenizer.json', readFileSync(path.join(FOLDER, 'tokenizer.json'))),
    file('tokenizer_config.json', readFileSync(path.join(FOLDER, 'tokenizer_config.json'))),
  ];
}

/** Gives the page files through the plain multi-file picker and waits until the view is drawn (or an error shows). */
export async function load(page, files) {
  await page.setInputFiles('#real-files', files);
  await page.waitForSelector('#real-model[data-ready], #real-error:not([hidden])', { timeout: 30_000 });
}
