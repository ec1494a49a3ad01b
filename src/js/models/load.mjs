// Transformer models from Hugging Face checkpoints (engine.loadModel): the
// road from a source to a model, each step in a module of its own — the
// source's files (sources/), the tokenizer (tokenizers/), the weights' format
// (formats/) — and here what joins them: config.json read by the model build
// itself (describeModel: the C++ architecture reads and checks its fields,
// src/model/arch/), the checkpoint's tensors matched to the list it lays out
// before anything is allocated, then streamed into the engine's memory
// tensor by tensor (the model build's Model packs each as it arrives: no
// second copy of the file is ever held).
import { describe, rejectUnknown } from '../checks.mjs';
import { CALLS } from '../protocol.mjs';
import { BINARY_FILES, chooseGgufFile, tokenizerFilesToRead } from './checkpoint-files.mjs';
import { ggufChunks } from './formats/gguf/chunks.mjs';
import { openGguf } from './formats/gguf/checkpoint.mjs';
import { DTYPE_BYTES, FLOAT_DTYPES } from './formats/safetensors.mjs';
import { readTensors, weightFiles } from './formats/weight-files.mjs';
import { openSource } from './sources/files.mjs';
import { readBytes, readJson, readText } from './read-file.mjs';
import { createTokenizer } from './tokenizers/tokenizer.mjs';
import { TransformerModel } from './transformer-model.mjs';
import { readSentenceTransformers, taskLabels } from './tasks/task-config.mjs';
import { ArgumentRangeError, ArgumentTypeError, codeIfNone, codedError, fileError } from '../errors.mjs';

/** Bytes of weights per call into the engine while loading. */
const CHUNK_BYTES = 8 << 20;
/** Chunks being read while one is written (at most (1 + READ_AHEAD) × CHUNK_BYTES held). */
const READ_AHEAD = 3;
// Tensors of checkpoints that the blocks do not use (unless config.json's architectures name the task head
// whose they are: src/model/arch/bert.cpp): task heads, pooler,
// GPT-2's mask buffers, position id buffers.
const UNUSED =
  /^(cls|lm_head|pooler|classifier|qa_outputs|score)\.|(^|\.)attn\.(masked_)?bias$|(^|\.)position_ids$|(^|\.)rotary_emb\.inv_freq$/;
// Tensors of the backbone: one of these that the config does not explain means config.json is not this model's.
const BACKBONE = /^(embeddings|encoder|decoder|shared|wte|wpe|h|ln_f|embed_tokens|layers|norm)\./;

/**
 * A Hugging Face tensor name as the engine's model lists it: the first of the
 * architecture's `prefixes` it starts with off ("bert." of a BertForMaskedLM
 * file), gamma/beta renamed.
 */
export function canonicalName(name, prefixes) {
  const prefix = prefixes.find((p) => name.startsWith(p));
  if (prefix) name = name.slice(prefix.length);
  return name.replace(/LayerNorm\.gamma$/, 'LayerNorm.weight').replace(/LayerNorm\.beta$/, 'LayerNorm.bias');
}

// ---- Loading ----------------------------------------------------------------

/**
 * Loads a checkpoint into the model build's engine (`call` is its calls) and
 * resolves to a TransformerModel. `openNamed`: the platform's opener of a
 * name (a Hub repo; in Node, a folder too): sources/hub-node.mjs,
 * sources/hub-browser.mjs. `tokenizerHost`: where the checkpoint's tokenizer
 * runs, bounded in time (tokenizers/node-host.mjs in Node, with a heap limit;
 * a Web Worker in browsers, browser.mjs).
 */
export async function loadModel(call, source, options, { openNamed, tokenizerHost, onDispose }) {
  const opts = checkLoadOptions(options);
  const { onProgress, signal } = opts;
  const files = await openSource(source, openNamed, opts);
  // A GGUF file (the one `file` names, or a folder's one .gguf when it has no config.json) holds the
  // config, the tokenizer and the weights in one (formats/gguf/); otherwise a Hugging Face folder.
  const ggufFile = chooseGgufFile(files, opts.file);
  const checkpoint = ggufFile ? await step('BadCheckpoint', () => openGguf(ggufFile)) : await folderCheckpoint(files);
  const { json, configFile } = checkpoint;
  // Read and checked by the model build (an Error naming config.json's field: BadConfig, UnsupportedModel).
  const layout = await step('BadConfig', () => call(CALLS.describeModel, [json]), { file: configFile });
  if (opts.kind !== undefined && opts.kind !== layout.architecture.kind)
    throw new ArgumentTypeError(
      `kind: expected a checkpoint of kind '${opts.kind}', got a ${layout.config.modelType} (kind ` +
        `'${layout.architecture.kind}', ${configFile})`,
    );
  const tokenizer = await step('BadTokenizer', async () =>
    createTokenizer(await checkpoint.tokenizerFiles(), tokenizerHost, {
      vocabSize: layout.config.vocabSize,
      chatTemplateSource: checkpoint.chatTemplateSource,
    }),
  );
  const { sources, plan, generation } = await step('BadCheckpoint', async () => {
    const { sources, headers, generation } = await checkpoint.weights();
    return { sources, plan: planLoad(layout, sources, headers, checkpoint.words, checkpoint.dtypes), generation };
  });
  // Each element goes straight to its place: the load needs the parameters' memory and no more.
  const { weights, storage, holds } = chooseWeights(opts.weights ?? 'auto', layout, plan);
  const activations = opts.activations ?? 'float32';
  const { id, tensors, bytes } = await call(CALLS.createModel, [json, storage, holds, activations === 'llama.cpp']);
  const weightTypes = {}; // matrix tensors by the element type they are held in
  for (const t of tensors.filter((t) => t.matrix))
    weightTypes[t.storage ?? storage] = (weightTypes[t.storage ?? storage] ?? 0) + 1;
  const config = {
    architecture: layout.architecture, // what run() needs of it: token types, attention groups
    generation,
    public: Object.freeze({
      ...layout.config,
      kind: layout.architecture.kind,
      causal: layout.architecture.causal,
      // The longest input in tokens, as the model reports it (Model::max_length).
      maxLength: layout.maxLength,
      // How its weight matrices are held ('gguf': a GGUF file's quantized ones in its blocks; 'q8', 'q4'),
      // how many of them in each element type, and the bytes its parameters take.
      weights,
      weightTypes: Object.freeze(weightTypes),
      weightBytes: bytes,
      activations, // 'llama.cpp': the products round their activations as llama.cpp's do
    }),
  };
  try {
    const chunks = plan.flatMap((tensors, f) =>
      tensors.flatMap((tensor) =>
        (ggufFile ? ggufChunks(tensor, sources[f], CHUNK_BYTES) : chunksOf(tensor, sources[f])).map((c) => ({
          ...c,
          file: sources[f].name,
          tensor,
        })),
      ),
    );
    await writeChunks(call, id, chunks, { signal, onProgress });
    const missing = await call(CALLS.modelMissing, [id]);
    if (missing.length) throw codedError('BadCheckpoint', `tensors not loaded: ${missing.join(', ')}`);
    // Known once the weights are in: a BERT's masked-LM head, a task head, read only when the checkpoint holds all.
    const taskHead = await call(CALLS.modelTaskHead, [id]);
    config.public = Object.freeze({
      ...config.public,
      hasLogits: await call(CALLS.modelHasLogits, [id]),
      taskHead,
      labels: taskHead ? taskLabels(json, layout.config.numLabels, configFile) : null,
      sentenceTransformers: await step('BadCheckpoint', () => readSentenceTransformers(checkpoint.files ?? {})),
    });
  } catch (error) {
    call(CALLS.disposeModel, [id]).catch(() => {});
    // The signal's reason is the caller's own object: thrown as it is.
    throw signal?.aborted && error === signal.reason ? error : codeIfNone(error, 'BadCheckpoint');
  }
  return new TransformerModel(call, id, config, tokenizer, onDispose);
}

/**
 * Writes `chunks` ([{ file (its name), tensor, at, end, first, dtype, read(into) }], in order) into the
 * engine's model `id`. The next READ_AHEAD chunks are being read while one is written: the source's
 * reads (the disk, a Blob, the network) overlap the engine's packing. They are read into the loader's
 * arrays, each read into again once the engine has the bytes and gives it back (from its Worker,
 * transferred): new memory for every chunk is what bounded a load where touching new memory is slow
 * (sources/blob-file.mjs), so a load holds at most 1 + READ_AHEAD of them.
 */
export async function writeChunks(call, id, chunks, { signal, onProgress } = {}) {
  const totalBytes = chunks.reduce((sum, c) => sum + c.end - c.at, 0);
  const arrayBytes = Math.min(
    CHUNK_BYTES,
    chunks.reduce((most, c) => Math.max(most, c.end - c.at), 0),
  );
  const spare = [];
  const reads = [];
  const readAhead = (upTo) => {
    for (let j = reads.length; j < Math.min(upTo, chunks.length); j++) {
      reads.push(Promise.resolve(chunks[j].read(spare.pop() ?? new Uint8Array(arrayBytes))));
      reads[j].catch(() => {}); // a read not awaited (a write failed first) must not be an unhandled rejection
    }
  };
  let loadedBytes = 0;
  for (let i = 0; i < chunks.length; i++) {
    const { file, tensor, at, end, first, dtype } = chunks[i];
    signal?.throwIfAborted();
    readAhead(i + 1 + READ_AHEAD);
    const bytes = await reads[i];
    reads[i] = null; // the loader holds no chunk it has written
    // Transferred to the engine's Worker, not copied (the loader owns what read() gives), and back.
    const back = await step(
      'BadCheckpoint',
      () => call(CALLS.modelWrite, [id, tensor.index, dtype, first, bytes], [bytes.buffer]),
      { file },
    );
    if (back?.bytes?.buffer.byteLength === arrayBytes) spare.push(new Uint8Array(back.bytes.buffer));
    loadedBytes += end - at;
    onProgress?.({ phase: 'load', loadedBytes, totalBytes, file });
  }
}

/**
 * `body()`, its errors coded `code` (with `fields`) unless they have a code
 * of their own: what a step of the load is about. A RangeError the engine
 * gives a file's content ('InvalidArgument') is the file's fault here: a
 * step's arguments are the checkpoint's, checked options aside.
 */
async function step(code, body, fields = {}) {
  try {
    return await body();
  } catch (error) {
    throw codeIfNone(error, code, fields, true);
  }
}

/**
 * Which tensor of which file fills which of the model's tensors (`layout`,
 * from describeModel): per file, its header entries with the model's index.
 * Throws an Error naming the file and tensor for one the model does not
 * explain, a duplicate, a dtype or shape it cannot take (`dtypes`: the
 * checkpoint's format's that the engine reads), or a missing one.
 */
function planLoad(
  layout,
  sources,
  headers,
  words = { config: 'config.json', sizes: "config.json's sizes" },
  dtypes = FLOAT_DTYPES,
) {
  const wanted = new Map(layout.tensors.map((t, index) => [t.name, { ...t, index }]));
  const found = new Map(); // name → { file, tensor }
  const plan = sources.map(() => []);
  headers.forEach((header, f) => {
    for (const tensor of header) {
      const name = canonicalName(tensor.name, layout.prefixes);
      const want = wanted.get(name);
      // (A GGUF tensor by its name in the file, not the transformers name it fills.)
      const where = `${sources[f].name}: tensor "${tensor.nameInFile ?? tensor.name}"`;
      const fail = (message) => {
        throw fileError(sources[f].name, message);
      };
      // A copy of a tied tensor, or one the model computes (Marian's positions): not read.
      if (!want && layout.derived.includes(name)) continue;
      if (!want) {
        if (BACKBONE.test(name) && !UNUSED.test(name))
          fail(
            `${where} is not part of a ${layout.config.modelType} with ${words.sizes} ` +
              `(${layout.config.numLayers} layers, hidden size ${layout.config.hiddenSize}); is ${words.config} this model's?`,
          );
        continue;
      }
      if (found.has(name)) fail(`${where} is in the checkpoint twice (also in ${found.get(name).file})`);
      if (!dtypes.includes(tensor.dtype))
        fail(`${where} has dtype ${tensor.dtype}; expected one of ${dtypes.join(', ')}`);
      if (tensor.shape.length !== want.shape.length || tensor.shape.some((n, i) => n !== want.shape[i]))
        fail(`${where} has shape [${tensor.shape}], but ${words.sizes} make it [${want.shape}]`);
      found.set(name, { file: sources[f].name });
      plan[f].push({ ...tensor, index: want.index });
    }
  });
  const absent = layout.tensors.filter((t) => !found.has(t.name) && !t.optional).map((t) => t.name);
  if (absent.length)
    throw fileError(
      sources[0].name,
      `${sources.map((s) => s.name).join(', ')}: ${absent.length === 1 ? 'tensor' : `${absent.length} tensors`} missing: ` +
        `${absent.slice(0, 3).join(', ')}${absent.length > 3 ? ', …' : ''} (a ${layout.config.modelType} of ` +
        `${layout.config.numLayers} layers, as ${words.config} says, needs ${layout.tensors.length})`,
    );
  return plan;
}

/**
 * How loadModel can hold a model's weight matrices: the `weights` option's names (the public ones) and
 * the element type each is in the engine (DType, src/core/dtype.hpp; its names cross the boundary): the
 * float types every matrix can be held in, and the block types a float matrix is quantized into ('q8',
 * 'q4': ggml's Q8_0 and Q4_0, src/model/ggml_blocks.hpp, where the engine can hold it; others float32).
 */
export const STORAGE = Object.freeze({ float32: 'F32', bf16: 'BF16', f16: 'F16' });
const QUANTIZED = Object.freeze({ q8: 'Q8_0', q4: 'Q4_0' });
const WEIGHTS = [...Object.keys(STORAGE), ...Object.keys(QUANTIZED)];
const FLOAT_STORAGE = Object.values(STORAGE);

/**
 * How the weight matrices are held for `requested` ('auto', or one of
 * WEIGHTS) and this checkpoint: { weights (the public name: one of WEIGHTS,
 * or 'gguf'), storage (the engine's type of the matrices not held in
 * blocks), holds (null, or [[tensor index, block type], …]: the matrices to
 * hold in blocks, where the engine can: src/model/weights.hpp, hold) }.
 * 'auto' never rounds a weight: the matrices stay in the 16-bit type the
 * checkpoint stores every one of them in (widening is exact, so the results
 * are the float32 ones, in half the memory); a GGUF file's quantized
 * matrices stay in their blocks (read exactly as ggml dequantizes them:
 * src/core/quant.hpp); float32 otherwise. 'q8' and 'q4' quantize the float
 * matrices (a GGUF file's blocks are dequantized into float32 instead).
 * `layout` is describeModel's, `plan` planLoad's.
 */
export function chooseWeights(requested, layout, plan) {
  const matrices = plan.flat().filter((t) => layout.tensors[t.index].matrix);
  const floats = matrices.filter((t) => FLOAT_STORAGE.includes(t.dtype));
  if (Object.hasOwn(QUANTIZED, requested)) {
    // The output head (lm_head, else the tied token embeddings; the architecture marks it: outputHead) in
    // Q8_0 with 'q4', as llama-quantize keeps it at a higher precision (Q6_K where its rows are whole blocks
    // of 256, else Q8_0; Q8_0 here always).
    const type = (t) =>
      requested === 'q4' && layout.tensors[t.index].outputHead ? QUANTIZED.q8 : QUANTIZED[requested];
    return { weights: requested, storage: 'F32', holds: floats.map((t) => [t.index, type(t)]) };
  }
  if (requested !== 'auto') return { weights: requested, storage: STORAGE[requested], holds: null };
  const blocks = matrices.filter((t) => !FLOAT_STORAGE.includes(t.dtype));
  if (blocks.length) return { weights: 'gguf', storage: 'F32', holds: blocks.map((t) => [t.index, t.dtype]) };
  const types = new Set(matrices.map((t) => t.dtype));
  const only = types.size === 1 && Object.keys(STORAGE).find((w) => w !== 'float32' && types.has(STORAGE[w]));
  return only
    ? { weights: only, storage: STORAGE[only], holds: null }
    : { weights: 'float32', storage: 'F32', holds: null };
}

/**
 * The chunks of `tensor` of a checkpoint folder's weight file `file` the loader writes, at most
 * CHUNK_BYTES each: [{ at, end, first, dtype, read(into) }], the file's bytes [at, end) written as they
 * are from element `first` on (formats/gguf/chunks.mjs makes a GGUF file's).
 */
function chunksOf(tensor, file) {
  const chunks = [];
  for (let at = tensor.begin; at < tensor.end; at += CHUNK_BYTES) {
    const end = Math.min(tensor.end, at + CHUNK_BYTES);
    chunks.push({
      at,
      end,
      first: (at - tensor.begin) / DTYPE_BYTES[tensor.dtype],
      dtype: tensor.dtype,
      read: async (into) => {
        const bytes = await file.read(at, end, into);
        if (bytes.byteLength !== end - at)
          throw fileError(
            file.name,
            `${file.name}: ended at byte ${at + bytes.byteLength} while reading "${tensor.name}"`,
          );
        return bytes;
      },
    });
  }
  return chunks;
}

/**
 * A Hugging Face checkpoint folder's files (`files`: { [fileName]: file })
 * as the loader reads a checkpoint: { json (config.json's), configFile,
 * tokenizerFiles() → { [fileName]: text or bytes }, weights() → { sources,
 * headers, generation } } (formats/gguf/checkpoint.mjs gives a GGUF file's).
 */
async function folderCheckpoint(files) {
  if (!files['config.json'])
    throw codedError(
      'NoConfig',
      `no config.json in the folder (it has ${Object.keys(files).join(', ') || 'no files'}): download config.json with the weights`,
      { file: 'config.json' },
    );
  // An object, or an Error naming config.json.
  const json = await step('BadCheckpoint', () => readJson(files['config.json']));
  return {
    json,
    configFile: 'config.json',
    files,
    async tokenizerFiles() {
      const read = {};
      for (const name of tokenizerFilesToRead((n) => Boolean(files[n])))
        read[name] = await (BINARY_FILES.includes(name) ? readBytes : readText)(files[name]);
      return read;
    },
    async weights() {
      const sources = await weightFiles(files);
      return {
        sources,
        headers: await Promise.all(sources.map((file) => readTensors(file))),
        // What generate() starts from: generation_config.json, else config.json's own generation fields.
        generation: files['generation_config.json']
          ? { json: await readJson(files['generation_config.json']), file: 'generation_config.json' }
          : { json, file: 'config.json' },
      };
    },
  };
}

// A model's kinds (src/model/arch/registry.cpp's kind_name): loadModel's `kind` asks for one.
const KINDS = ['encoder', 'decoder', 'encoder-decoder'];
// How the weight matrices' products take their activations (src/model/model.hpp, round_activations).
const ACTIVATIONS = ['float32', 'llama.cpp'];
export const LOAD_OPTIONS = new Set([
  'onProgress',
  'signal',
  'weights',
  'activations',
  'revision',
  'endpoint',
  'cacheDir',
  'token',
  'offline',
  'forceDownload',
  'file',
  'kind',
]);

/** loadModel's options, checked here where they are the same for every source (the Hub's by sources/hub.mjs). */
function checkLoadOptions(options) {
  if (options === undefined) return {};
  if (!options || typeof options !== 'object')
    throw new ArgumentTypeError(
      `loadModel options: expected { onProgress, signal, weights, activations, revision, endpoint, cacheDir, token, offline, forceDownload, file, kind }, got ${describe(options)}`,
    );
  rejectUnknown(options, LOAD_OPTIONS, 'loadModel');
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function')
    throw new ArgumentTypeError(
      `onProgress: expected a function ({ phase, file, loadedBytes, totalBytes }) => void, got ${describe(options.onProgress)}`,
    );
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal))
    throw new ArgumentTypeError(
      `signal: expected an AbortSignal (new AbortController().signal), got ${describe(options.signal)}`,
    );
  if (options.weights !== undefined) {
    const expected = `'auto', ${WEIGHTS.map((w) => `'${w}'`).join(', ')}`;
    if (typeof options.weights !== 'string')
      throw new ArgumentTypeError(`weights: expected one of ${expected}, got ${describe(options.weights)}`);
    if (options.weights !== 'auto' && !WEIGHTS.includes(options.weights))
      throw new ArgumentRangeError(`weights: expected one of ${expected}, got ${JSON.stringify(options.weights)}`);
  }
  if (options.activations !== undefined && !ACTIVATIONS.includes(options.activations))
    throw new (typeof options.activations === 'string' ? ArgumentRangeError : ArgumentTypeError)(
      `activations: expected 'float32' or 'llama.cpp', got ${describe(options.activations)}`,
    );
  if (options.kind !== undefined && !KINDS.includes(options.kind))
    throw new (typeof options.kind === 'string' ? ArgumentRangeError : ArgumentTypeError)(
      `kind: expected one of ${KINDS.map((k) => `'${k}'`).join(', ')}, got ${describe(options.kind)}`,
    );
  if (options.file !== undefined) {
    const expected = "the name of a .gguf file of the folder or repo ('model-q8_0.gguf')";
    if (typeof options.file !== 'string')
      throw new ArgumentTypeError(`file: expected ${expected}, got ${describe(options.file)}`);
    if (!/^[^/\\]+\.gguf$/i.test(options.file))
      throw new ArgumentRangeError(`file: expected ${expected}, got ${JSON.stringify(options.file)}`);
  }
  options.signal?.throwIfAborted();
  return options;
}
