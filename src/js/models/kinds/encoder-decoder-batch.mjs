// An encoder-decoder's run() of a batch: an array of inputs (each what run() takes: a source, with the decoder's
// inputs or not) teacher-forced in ONE engine call (src/bindings/model_pairs.hpp): the encoder's products and
// norms over every source's tokens at once, the decoder's over every decoder input's, each attention over its
// own sequence (the cross-attention over its own source), so that each pair's rows are bit for bit its own
// run()'s. The results come back as transformers returns a batch of padding=True: each side padded on the right
// to its longest, with an attentionMask and a decoderAttentionMask (1 a token, 0 padding) and each array's shape.
import { checkSeq2SeqRunOptions } from '../model-options.mjs';
import { readSeq2Seq } from '../model-input.mjs';
import { joined, padded, readEach, refuseUnbatched } from './encoder-batch.mjs';

// The engine's arrays, each the result's field of the same name; attentions groups three of them.
const ATTENTION = { encoder: 'encoderAttention', decoder: 'decoderAttention', cross: 'crossAttention' };

/**
 * run() of an array of inputs on an encoder-decoder; `decoderStart`, the id a decoder input starts from when an
 * input gives none (decoder_start_token_id, as run() of one input does).
 */
export function runPairs(inner, inputs, options, decoderStart) {
  const opts = checkSeq2SeqRunOptions(options, inner.config);
  refuseUnbatched(opts, 'pair');
  const { returnAttention = true, returnHiddenStates = false, returnLogits = false, headMask, truncateTo } = opts;
  return inner.exclusive(async () => {
    const reads = await readEach(inputs, (input) => readSeq2Seq(inner, input, 'run', truncateTo));
    const decoderIds = reads.map((r) => r.decoderInputIds ?? Int32Array.of(decoderStart(inner)));
    const result = await inner.send(() => ({
      call: 'run',
      inputIds: joined(reads.map((r) => r.inputIds)),
      lengths: Int32Array.from(reads, (r) => r.inputIds.length),
      decoderInputIds: joined(decoderIds),
      decoderLengths: Int32Array.from(decoderIds, (ids) => ids.length),
      returnAttention,
      returnHiddenStates,
      returnLogits,
      headMask,
    }));
    return pairsResult(inner, reads, decoderIds, result);
  });
}

// The padded ids and masks of both sides, the tokens of each, then the engine's arrays and their shapes.
function pairsResult(inner, reads, decoderIds, result) {
  const B = reads.length;
  const source = padded(
    inner,
    reads.map((r) => r.inputIds),
  );
  const target = padded(inner, decoderIds);
  const out = {
    batchSize: B,
    lengths: source.lengths,
    inputIds: source.ids,
    attentionMask: source.attentionMask,
    special: source.special,
    tokens: reads.map((r) => r.tokens),
    decoderLengths: target.lengths,
    decoderInputIds: target.ids,
    decoderAttentionMask: target.attentionMask,
    decoderTokens: decoderIds.map((ids) => inner.pieces(ids)),
  };
  const shapes = {
    inputIds: [B, source.Lmax],
    attentionMask: [B, source.Lmax],
    decoderInputIds: [B, target.Lmax],
    decoderAttentionMask: [B, target.Lmax],
  };
  for (const [name, value] of Object.entries(result)) {
    out[name] = value.data;
    shapes[name] = value.shape;
  }
  out.shapes = shapes;
  if (result.encoderAttention)
    out.attentions = Object.fromEntries(Object.entries(ATTENTION).map(([group, name]) => [group, result[name]]));
  return out;
}
