// The logit lens (nostalgebraist 2020): each layer's hidden state at one
// position read through the model's final norm and output head, as if that
// layer were the last (run()'s returnLayerLogits, computed by the engine for
// that position alone). Per layer: the top tokens, and the rank of the token
// the last layer puts first — where the prediction is decided. Layer 0 reads
// the embeddings; the last is the model's own logits. A decoder's input, or an
// encoder-decoder's decoder teacher-forced (decoderInputIds given, else the
// model's greedy translation fed back). Softmax in float64 over float32 logits.
import { describe } from '../checks.mjs';
import { ArgumentRangeError, ArgumentTypeError } from '../errors.mjs';
import { checkModel, checkOptions, wholeOption } from './options.mjs';

const QUIET = { returnAttention: false };
const MOST_TOP_K = 100;

/** 1 + the ids ranked above `id` in one logits row: larger logits, or equal ones with a lower id (torch.argmax's tie). */
export function rankIn(row, id) {
  const x = row[id];
  let rank = 1;
  for (let v = 0; v < row.length; v++) if (row[v] > x || (row[v] === x && v < id)) rank++;
  return rank;
}

/** The `k` ids of a row with the largest logits, largest first (ties: the lower id first). */
export function topIds(row, k) {
  const best = [];
  for (let v = 0; v < row.length; v++) {
    if (best.length === k && row[v] <= row[best[k - 1]]) continue;
    let at = best.length;
    while (at > 0 && row[best[at - 1]] < row[v]) at--;
    best.splice(at, 0, v);
    if (best.length > k) best.pop();
  }
  return best;
}

/** Softmax of one row in float64: (id) => probability. */
function softmaxOf(row) {
  let max = -Infinity;
  for (let v = 0; v < row.length; v++) max = Math.max(max, row[v]);
  let sum = 0;
  for (let v = 0; v < row.length; v++) sum += Math.exp(row[v] - max);
  return (id) => Math.exp(row[id] - max) / sum;
}

// The decoder's ids the lens reads and what the run takes: a decoder's input as given; an encoder-decoder's
// with its decoderInputIds, or its greedy translation teacher-forced (all but its last token).
async function lensInput(model, input, signal) {
  if (model.config.kind === 'decoder' || input?.decoderInputIds !== undefined) return input;
  const translated = await model.generate(input, { numBeams: 1, ...QUIET, signal });
  const ids = translated.outputIds;
  return { inputIds: translated.inputIds, decoderInputIds: Array.from(ids.subarray(0, Math.max(1, ids.length - 1))) };
}

/**
 * logitLens(model, input, { position?, topK?, target?, signal?, onProgress? }): { inputIds, tokens,
 * decoderInputIds?, decoderTokens?, position, token, finalTop, target?, layers: [{ layer, top, finalTop, target? }] }.
 */
export async function logitLens(model, input, options) {
  checkModel(model, 'logitLens');
  const opts = checkOptions(options, 'logitLens', ['position', 'topK', 'target'], false);
  const { config } = model;
  if (config.kind === 'encoder')
    throw new ArgumentTypeError(
      `model: a ${config.modelType} is an encoder; the logit lens reads a decoder's layers (or an encoder-decoder's decoder's)`,
    );
  if (!config.hasLogits)
    throw new ArgumentTypeError(`model: a ${config.modelType} without an output head has no logits to read`);
  const topK = wholeOption(opts, 'topK', 1, Math.min(MOST_TOP_K, config.vocabSize), 5);
  const target = wholeOption(opts, 'target', 0, config.vocabSize - 1, undefined);
  if (opts.position !== undefined && !Number.isInteger(opts.position))
    throw new ArgumentTypeError(`position: expected an integer, got ${describe(opts.position)}`);
  const given = await lensInput(model, input, opts.signal);
  opts.signal?.throwIfAborted();
  // The length, to place the default position (the last) and check a given one: the ids read by one run.
  const seq2seq = config.kind === 'encoder-decoder';
  const read = await model.run(given, QUIET);
  const ids = seq2seq ? read.decoderInputIds : read.inputIds;
  const position = opts.position ?? ids.length - 1;
  if (position < 0 || position >= ids.length)
    throw new ArgumentRangeError(
      `position: expected a position of the ${ids.length} ${seq2seq ? 'decoderInputIds' : 'input tokens'} (0 to ${ids.length - 1}), got ${position}`,
    );
  opts.signal?.throwIfAborted();
  const lensed = seq2seq ? { inputIds: read.inputIds, decoderInputIds: ids } : { inputIds: ids };
  const r = await model.run(lensed, { ...QUIET, returnLayerLogits: { positions: [position] } });
  opts.onProgress({ phase: 'lens', done: 1, total: 1 });
  const V = config.vocabSize;
  const rows = r.layerLogits.length / V;
  const row = (l) => r.layerLogits.subarray(l * V, (l + 1) * V);
  const finalId = topIds(row(rows - 1), 1)[0];
  const texts = new Map();
  const described = async (id) => {
    if (!texts.has(id)) texts.set(id, await model.decode([id], { skipSpecialTokens: false }));
    return { id, token: model.pieces([id])[0], text: texts.get(id) };
  };
  const layers = [];
  for (let l = 0; l < rows; l++) {
    const logits = row(l);
    const p = softmaxOf(logits);
    const top = [];
    for (const id of topIds(logits, topK)) top.push({ ...(await described(id)), probability: p(id) });
    const layer = { layer: l, top, finalTop: { rank: rankIn(logits, finalId), probability: p(finalId) } };
    if (target !== undefined) layer.target = { rank: rankIn(logits, target), probability: p(target) };
    layers.push(layer);
  }
  const out = { inputIds: read.inputIds, tokens: read.tokens ?? read.inputTokens };
  if (seq2seq) Object.assign(out, { decoderInputIds: read.decoderInputIds, decoderTokens: read.decoderTokens });
  const tokens = seq2seq ? read.decoderTokens : out.tokens;
  Object.assign(out, { position, token: tokens[position], finalTop: await described(finalId), layers });
  if (target !== undefined) out.target = await described(target);
  return out;
}
