// Transformer models from Hugging Face checkpoints (engine.loadModel):
// reading a folder's files, streaming the safetensors weights into the
// engine's memory tensor by tensor (the model build's Model packs each as it
// arrives: no second copy of the file is ever held), and running them.
import { describe, rejectUnknown } from './checks.mjs';
import { readConfig } from './model-config.mjs';
import { createTokenizer } from './model-tokenizer.mjs';
import { CALLS } from './protocol.mjs';
import { CALL, EngineResource } from './resource.mjs';
import { DTYPE_BYTES, FLOAT_DTYPES, readHeader } from './safetensors.mjs';

/** Bytes of weights per call into the engine while loading. */
const CHUNK_BYTES = 8 << 20;
// Tensors of checkpoints that the blocks do not use: task heads, pooler,
// GPT-2's mask buffers, position id buffers.
const UNUSED = /^(cls|lm_head|pooler|classifier|qa_outputs|score)\.|(^|\.)attn\.(masked_)?bias$|(^|\.)position_ids$/;
// Tensors of the backbone: one of these that the config does not explain means config.json is not this model's.
const BACKBONE = /^(embeddings|encoder|wte|wpe|h|ln_f)\./;
const PREFIXES = ['bert.', 'roberta.', 'transformer.'];

/** A Hugging Face tensor name as the engine's model lists it: prefix off, gamma/beta renamed. */
export function canonicalName(name) {
  for (const prefix of PREFIXES) if (name.startsWith(prefix)) name = name.slice(prefix.length);
  return name.replace(/LayerNorm\.gamma$/, 'LayerNorm.weight').replace(/LayerNorm\.beta$/, 'LayerNorm.bias');
}

// ---- The files of a source ------------------------------------------------

const isBlob = (x) => typeof Blob === 'function' && x instanceof Blob;

function blobFile(name, blob) {
  return {
    name,
    size: blob.size,
    read: async (begin, end) => new Uint8Array(await blob.slice(begin, end).arrayBuffer()),
  };
}

function bytesFile(name, bytes) {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  // A copy of the range (not a view): a view would carry the whole buffer to a Worker.
  return { name, size: view.byteLength, read: async (begin, end) => view.slice(begin, end) };
}

const baseName = (path) => path.split(/[\\/]/).pop();

/**
 * { [fileName]: { name, size, read(begin, end) } } of a source: a FileList,
 * File[], an object of name → ArrayBuffer | Uint8Array | Blob, or (with
 * `readFolder`, Node's) a folder path.
 */
async function openSource(source, readFolder) {
  if (typeof source === 'string') {
    if (!readFolder)
      throw new TypeError(
        'source: a folder path works in Node only; in browsers pass the files (a FileList from <input type=file webkitdirectory>, File[] or { fileName: Blob })',
      );
    return readFolder(source);
  }
  const files = {};
  const depth = {};
  const add = (path, file) => {
    const name = baseName(path);
    const d = path.split(/[\\/]/).length;
    if (files[name] && depth[name] <= d) return; // a file of a subfolder (onnx/…) does not replace the folder's own
    files[name] = file;
    depth[name] = d;
  };
  const list =
    Array.isArray(source) || (typeof FileList === 'function' && source instanceof FileList) ? Array.from(source) : null;
  if (list) {
    list.forEach((file, i) => {
      if (!isBlob(file) || typeof file.name !== 'string')
        throw new TypeError(`source[${i}]: expected a File (with a name), got ${describe(file)}`);
      add(file.webkitRelativePath || file.name, blobFile(file.name, file));
    });
  } else if (source && typeof source === 'object' && !ArrayBuffer.isView(source) && !isBlob(source)) {
    for (const [name, value] of Object.entries(source)) {
      if (isBlob(value)) add(name, blobFile(baseName(name), value));
      else if (value instanceof ArrayBuffer || value instanceof Uint8Array) add(name, bytesFile(baseName(name), value));
      else
        throw new TypeError(
          `source["${name}"]: expected an ArrayBuffer, Uint8Array or Blob with the file's bytes, got ${describe(value)}`,
        );
    }
  } else {
    throw new TypeError(
      `source: expected a model folder's files (a folder path in Node, a FileList, File[] or { fileName: ArrayBuffer | Uint8Array | Blob }), got ${describe(source)}`,
    );
  }
  return files;
}

async function text(file) {
  return new TextDecoder().decode(await file.read(0, file.size));
}

async function json(file) {
  try {
    return JSON.parse(await text(file));
  } catch (error) {
    throw new Error(`${file.name}: not valid JSON (${error.message})`);
  }
}

// The safetensors files of the folder: model.safetensors, or the shards its index lists.
async function weightFiles(files) {
  if (files['model.safetensors.index.json']) {
    const index = await json(files['model.safetensors.index.json']);
    if (!index.weight_map || typeof index.weight_map !== 'object')
      throw new Error('model.safetensors.index.json: no weight_map');
    const names = [...new Set(Object.values(index.weight_map))];
    const absent = names.filter((n) => !files[n]);
    if (absent.length)
      throw new Error(`model.safetensors.index.json lists ${absent.join(', ')}, which the folder does not have`);
    return names.map((n) => files[n]);
  }
  if (files['model.safetensors']) return [files['model.safetensors']];
  const others = Object.keys(files).filter((n) => /\.(bin|h5|msgpack|ckpt|pt|pth|onnx)$/.test(n));
  throw new Error(
    `no model.safetensors in the folder${others.length ? ` (it has ${others.join(', ')})` : ''}: mha-wasm reads ` +
      "safetensors only. Download model.safetensors from the model's page on the Hugging Face Hub (Files and " +
      'versions), or convert with transformers: AutoModel.from_pretrained(folder).save_pretrained(folder, safe_serialization=True)',
  );
}

// ---- Loading ----------------------------------------------------------------

/**
 * Loads a checkpoint into the model build's engine (`call` is its calls) and
 * resolves to a TransformerModel. `readFolder`: Node's reader of folder paths;
 * `limits`: the model build's limits.model.
 */
export async function loadModel(call, source, options, { readFolder, onDispose, limits }) {
  const { onProgress } = checkLoadOptions(options);
  const files = await openSource(source, readFolder);
  if (!files['config.json'])
    throw new Error(
      `no config.json in the folder (it has ${Object.keys(files).join(', ') || 'no files'}): download config.json with the weights`,
    );
  const config = readConfig(await json(files['config.json']), limits);
  const texts = {};
  for (const name of ['tokenizer.json', 'tokenizer_config.json', 'vocab.txt'])
    if (files[name]) texts[name] = await text(files[name]);
  const tokenizer = await createTokenizer(texts);
  const sources = await weightFiles(files);
  const headers = await Promise.all(sources.map((file) => readHeader(file)));

  const { id, tensors, maxLength } = await call(CALLS.createModel, [config.engine]);
  // The longest input in tokens, as the model reports it (Model::max_length).
  config.public = Object.freeze({ ...config.public, maxLength });
  try {
    const wanted = new Map(tensors.map((t, index) => [t.name, { ...t, index }]));
    const found = new Map(); // name → { file, tensor }
    const plan = sources.map(() => []);
    headers.forEach((header, f) => {
      for (const tensor of header) {
        const name = canonicalName(tensor.name);
        const want = wanted.get(name);
        const where = `${sources[f].name}: tensor "${tensor.name}"`;
        if (!want) {
          if (BACKBONE.test(name) && !UNUSED.test(name))
            throw new Error(
              `${where} is not part of a ${config.public.modelType} with config.json's sizes ` +
                `(${config.public.numLayers} layers, hidden size ${config.public.hiddenSize}); is config.json this model's?`,
            );
          continue;
        }
        if (found.has(name)) throw new Error(`${where} is in the checkpoint twice (also in ${found.get(name).file})`);
        if (!FLOAT_DTYPES.includes(tensor.dtype))
          throw new Error(`${where} has dtype ${tensor.dtype}; expected one of ${FLOAT_DTYPES.join(', ')}`);
        if (tensor.shape.length !== want.shape.length || tensor.shape.some((n, i) => n !== want.shape[i]))
          throw new Error(`${where} has shape [${tensor.shape}], but config.json's sizes make it [${want.shape}]`);
        found.set(name, { file: sources[f].name });
        plan[f].push({ ...tensor, index: want.index });
      }
    });
    const absent = tensors.filter((t) => !found.has(t.name)).map((t) => t.name);
    if (absent.length)
      throw new Error(
        `${sources.map((s) => s.name).join(', ')}: ${absent.length === 1 ? 'tensor' : `${absent.length} tensors`} missing: ` +
          `${absent.slice(0, 3).join(', ')}${absent.length > 3 ? ', …' : ''} (a ${config.public.modelType} of ` +
          `${config.public.numLayers} layers, as config.json says, needs ${tensors.length})`,
      );
    const totalBytes = plan.flat().reduce((sum, t) => sum + t.end - t.begin, 0);
    let loadedBytes = 0;
    for (let f = 0; f < sources.length; f++)
      for (const tensor of plan[f]) {
        const size = DTYPE_BYTES[tensor.dtype];
        for (let at = tensor.begin; at < tensor.end;) {
          const end = Math.min(tensor.end, at + CHUNK_BYTES);
          const bytes = await sources[f].read(at, end);
          if (bytes.byteLength !== end - at)
            throw new Error(
              `${sources[f].name}: ended at byte ${at + bytes.byteLength} while reading "${tensor.name}"`,
            );
          await call(CALLS.modelWrite, [id, tensor.index, tensor.dtype, (at - tensor.begin) / size, bytes]);
          loadedBytes += end - at;
          at = end;
          onProgress?.({ loadedBytes, totalBytes, file: sources[f].name });
        }
      }
    const missing = await call(CALLS.modelMissing, [id]);
    if (missing.length) throw new Error(`tensors not loaded: ${missing.join(', ')}`);
  } catch (error) {
    call(CALLS.disposeModel, [id]).catch(() => {});
    throw error;
  }
  return new TransformerModel(call, id, config, tokenizer, onDispose);
}

function checkLoadOptions(options) {
  if (options === undefined) return {};
  if (!options || typeof options !== 'object')
    throw new TypeError(`loadModel options: expected { onProgress }, got ${describe(options)}`);
  rejectUnknown(options, new Set(['onProgress']), 'loadModel');
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function')
    throw new TypeError(
      `onProgress: expected a function ({ loadedBytes, totalBytes, file }) => void, got ${describe(options.onProgress)}`,
    );
  return options;
}

// ---- Running ----------------------------------------------------------------

const RUN_OPTIONS = new Set(['returnAttention', 'returnHiddenStates']);
const INPUT_KEYS = new Set(['text', 'textPair', 'inputIds', 'tokenTypeIds']);

function ids(value, name, length) {
  if (!(value instanceof Int32Array) && !Array.isArray(value))
    throw new TypeError(`${name}: expected an Int32Array or an array of integers, got ${describe(value)}`);
  if (length !== undefined && value.length !== length)
    throw new RangeError(`${name}: expected ${length} ids (one per token of inputIds), got ${value.length}`);
  const out = new Int32Array(value.length);
  for (let i = 0; i < value.length; i++) {
    const v = value[i];
    if (!Number.isInteger(v) || v < 0 || v > 2 ** 31 - 1)
      throw new RangeError(`${name}[${i}]: expected a non-negative integer id, got ${describe(v)}`);
    out[i] = v;
  }
  return out;
}

export class TransformerModel extends EngineResource {
  #tokenizer;
  #config;

  constructor(call, id, config, tokenizer, onDispose) {
    super(call, id, 'model', CALLS.disposeModel, onDispose);
    this.#tokenizer = tokenizer;
    this.#config = config;
    /** { modelType, numLayers, numHeads, hiddenSize, vocabSize, maxPositions, maxLength (the longest input, in tokens) }. */
    this.config = config.public;
    Object.freeze(this);
  }

  /**
   * Runs the model on one sequence: a string, { text, textPair } or
   * { inputIds, tokenTypeIds? }. Resolves to { inputIds, tokens,
   * lastHiddenState, attention?, hiddenStates? } (see index.d.ts).
   */
  async run(input, options) {
    let tokens;
    let inputIds;
    const result = await this[CALL](CALLS.modelRun, () => {
      const { returnAttention = true, returnHiddenStates = false } = checkRunOptions(options);
      let typeIds = null;
      if (typeof input === 'string' || (input && typeof input === 'object' && 'text' in input)) {
        const [text, textPair] = typeof input === 'string' ? [input, undefined] : [input.text, input.textPair];
        if (typeof input !== 'string') rejectUnknown(input, INPUT_KEYS, 'run input');
        if (typeof text !== 'string') throw new TypeError(`input.text: expected a string, got ${describe(text)}`);
        if (textPair !== undefined && typeof textPair !== 'string')
          throw new TypeError(`input.textPair: expected a string, got ${describe(textPair)}`);
        if (!this.#tokenizer)
          throw new TypeError(
            'input: this model folder has no tokenizer.json or vocab.txt, so it cannot read text; pass { inputIds }',
          );
        const encoding = this.#tokenizer.encode(text, textPair);
        inputIds = Int32Array.from(encoding.ids);
        if (encoding.typeIds && this.#config.engine.family === 'bert') typeIds = Int32Array.from(encoding.typeIds);
      } else if (input && typeof input === 'object' && 'inputIds' in input) {
        rejectUnknown(input, INPUT_KEYS, 'run input');
        inputIds = ids(input.inputIds, 'input.inputIds');
        if (input.tokenTypeIds !== undefined) typeIds = ids(input.tokenTypeIds, 'input.tokenTypeIds', inputIds.length);
      } else {
        throw new TypeError(
          `input: expected a string, { text, textPair } or { inputIds, tokenTypeIds }, got ${describe(input)}`,
        );
      }
      const max = this.config.maxLength;
      if (inputIds.length === 0)
        throw new RangeError('input: no tokens (an empty text gives none with this tokenizer)');
      if (inputIds.length > max)
        throw new RangeError(`input: ${inputIds.length} tokens, more than the ${max} this model has positions for`);
      const vocab = this.config.vocabSize;
      const bad = inputIds.findIndex((v) => v >= vocab);
      if (bad >= 0)
        throw new RangeError(
          `input.inputIds[${bad}]: expected an id below the vocabulary size ${vocab}, got ${inputIds[bad]}`,
        );
      tokens = this.#tokenizer ? this.#tokenizer.pieces(inputIds) : Array.from(inputIds, String);
      return [inputIds, typeIds, returnAttention, returnHiddenStates];
    });
    return { inputIds, tokens, ...result };
  }
}

function checkRunOptions(options) {
  if (options === undefined) return {};
  if (!options || typeof options !== 'object')
    throw new TypeError(`run options: expected { returnAttention, returnHiddenStates }, got ${describe(options)}`);
  rejectUnknown(options, RUN_OPTIONS, 'run');
  for (const name of RUN_OPTIONS)
    if (options[name] !== undefined && typeof options[name] !== 'boolean')
      throw new TypeError(`${name}: expected a boolean, got ${describe(options[name])}`);
  return options;
}
