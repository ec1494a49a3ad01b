// The tiny checkpoints of tests/fixtures/models as a loader's source (their
// files' bytes by name), and the builders that damage them: a JSON file
// changed, a safetensors file split into its header and data segment and put
// back together. Used by the tests of broken checkpoints (model-files,
// tokenizer-hostile, checkpoint-files) and by the hostile-checkpoint suite's
// cases (hostile-checkpoints.mjs).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const MODELS = fileURLToPath(new URL('../../fixtures/models/', import.meta.url));
/** The path of fixture folder `name`. */
export const folder = (name) => path.join(MODELS, name);

// Files of a fixture folder that are the tests' own, not the checkpoint's.
const TEST_FILES = ['reference.json', 'tokenizer-cases.json'];

/** { fileName: Uint8Array } of fixture folder `name`, its test files left out. */
export function filesOf(name) {
  return Object.fromEntries(
    readdirSync(path.join(MODELS, name))
      .filter((f) => !TEST_FILES.includes(f))
      .map((f) => [f, new Uint8Array(readFileSync(path.join(MODELS, name, f)))]),
  );
}

/** The fixture's reference.json (PyTorch's or transformers' results). */
export const reference = (name) => JSON.parse(readFileSync(path.join(MODELS, name, 'reference.json'), 'utf8'));

/**
 * Every fixture folder whose reference.json has `cases`: an encoder's or a decoder's (an encoder-decoder's has
 * its own format, tested by seq2seq.test.mjs). A new architecture's folder is tested by being there.
 */
export const caseFolders = () =>
  readdirSync(MODELS)
    .filter((name) => existsSync(path.join(MODELS, name, 'reference.json')) && reference(name).cases)
    .sort();

export const jsonBytes = (value) => new TextEncoder().encode(JSON.stringify(value));
export const jsonOf = (bytes) => JSON.parse(new TextDecoder().decode(bytes));

/** `files` with JSON file `name` replaced by what `change(json)` makes of it (in place, or its return value). */
export function withJson(files, name, change) {
  const json = jsonOf(files[name]);
  const changed = change(json);
  return { ...files, [name]: jsonBytes(changed === undefined ? json : changed) };
}

/** A safetensors file split into its header (parsed) and data segment. */
export function splitSafetensors(bytes) {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  return { header: JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n))), data: bytes.subarray(8 + n) };
}

/** A safetensors file of `header` (its JSON followed by `padding` spaces) and `data`. */
export function safetensorsOf(header, data, padding = 0) {
  const json = new TextEncoder().encode(JSON.stringify(header) + ' '.repeat(padding));
  const out = new Uint8Array(8 + json.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  out.set(data, 8 + json.length);
  return out;
}

/** The file again with `change(header)` applied (the data segment as it was). */
export function withHeader(bytes, change) {
  const { header, data } = splitSafetensors(bytes);
  change(header);
  return safetensorsOf(header, data);
}

/** The file again with only the tensors `keep(name)` keeps: the others' bytes cut out, the offsets moved up (still exactly tiled). */
export function keepTensors(bytes, keep) {
  const { header, data } = splitSafetensors(bytes);
  const kept = Object.entries(header)
    .filter(([name]) => name !== '__metadata__' && keep(name))
    .sort(([, a], [, b]) => a.data_offsets[0] - b.data_offsets[0]);
  const out = { ...(header.__metadata__ ? { __metadata__: header.__metadata__ } : {}) };
  const parts = [];
  let at = 0;
  for (const [name, info] of kept) {
    const [begin, end] = info.data_offsets;
    out[name] = { ...info, data_offsets: [at, at + end - begin] };
    parts.push(data.subarray(begin, end));
    at += end - begin;
  }
  const joined = new Uint8Array(at);
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return safetensorsOf(out, joined);
}

/** The file again without tensor `name` (still exactly tiled). */
export const withoutTensor = (bytes, name) => keepTensors(bytes, (n) => n !== name);
