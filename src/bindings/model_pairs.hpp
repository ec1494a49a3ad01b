// run() of a batch of pairs on an encoder-decoder (src/bindings/model.cpp's call "run" with `lengths` on one):
// B sources and B decoder inputs in one model::Model::forward_pairs over their packed rows, teacher-forced, then
// its packed outputs padded as transformers returns a batch of padding=True (each side to its longest):
// encoderLastHiddenState [B, Smax, D], encoderAttention [numLayers, B, numHeads, Smax, Smax],
// encoderHiddenStates [numLayers + 1, B, Smax, D]; lastHiddenState [B, Tmax, D], decoderAttention
// [decoderLayers, B, decoderHeads, Tmax, Tmax], crossAttention [decoderLayers, B, decoderHeads, Tmax, Smax],
// decoderHiddenStates [decoderLayers + 1, B, Tmax, D], logits [B, Tmax, vocabSize]; padding is 0.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "model_batch.hpp"

namespace mha::bindings {

// The request's fields: inputIds and lengths (the sources, as run_batch's), decoderInputIds and
// decoderLengths (the decoder's inputs, one after another), returnAttention, returnHiddenStates,
// returnLogits (0 or 1), headMask { encoder, decoder, cross } (each a Uint8Array [layers × heads] or null).
inline val run_pairs(model::Model& m, Attention& attention, const val& request, FloatBuffer& out, FloatBuffer& packed,
                     const std::function<void(double)>& fits) {
  m.check_encoder_decoder();
  const model::Config& c = m.config();
  if (request["returnQueryKey"].as<bool>() || request["returnHeadOutputs"].as<bool>() ||
      request["returnTaskLogits"].as<bool>())
    throw ArgumentError("returnQueryKey, returnHeadOutputs, returnTaskLogits: not for a batch of pairs");
  if (request["returnLogits"].as<int>() == 2) throw ArgumentError("returnLogits: a batch's are every row's");
  std::vector<std::size_t> S, T;
  std::vector<std::int32_t> sources, targets;
  read_counts(request["lengths"], S, "lengths");
  if (request["decoderLengths"].isNull() || request["decoderInputIds"].isNull())
    throw ArgumentError("decoderInputIds, decoderLengths: an encoder-decoder's batch needs its decoder inputs");
  read_counts(request["decoderLengths"], T, "decoderLengths");
  const std::size_t B = S.size();
  if (B == 0) throw ArgumentError("input: expected at least one pair in the batch, got none");
  if (T.size() != B)
    (Message() << "decoderLengths: expected " << B << " counts (one for each source), got " << T.size()).raise();
  const model::PairSizes z = model::pair_sizes(S.data(), T.data(), B);
  const std::size_t Ns = z.sourceRows, Nt = z.targetRows, Smax = z.longestSource, Tmax = z.longestTarget;
  read_ids(request["inputIds"], sources, Ns, "inputIds");
  read_ids(request["decoderInputIds"], targets, Nt, "decoderInputIds");
  const val masks = request["headMask"];
  std::vector<std::uint8_t> encoderMask, decoderMask, crossMask;
  const std::size_t Le = c.numLayers, He = c.numHeads, Ld = c.decoderLayers, Hd = c.decoderHeads;
  const std::size_t D = c.hiddenSize, V = c.vocabSize;
  model::Model::PairMasks pairMasks;
  pairMasks.encoder = copy_mask(masks["encoder"], encoderMask, Le, He, "headMask.encoder");
  pairMasks.decoder = copy_mask(masks["decoder"], decoderMask, Ld, Hd, "headMask.decoder");
  pairMasks.cross = copy_mask(masks["cross"], crossMask, Ld, Hd, "headMask.cross");
  const bool weights = request["returnAttention"].as<bool>(), hidden = request["returnHiddenStates"].as<bool>();
  const bool logits = request["returnLogits"].as<int>() != 0;
  const auto capped = [](double n) { return std::size_t(std::min(n, double(kMaxElements))); };
  OutputLayout rows;  // what forward_pairs writes
  const auto rEncoder = rows.add("encoderLastHiddenState", {Ns, D});
  const auto rEncoderAttention = rows.add("encoderAttention", {Le, He, capped(z.sourceSquares)}, weights);
  const auto rEncoderHidden = rows.add("encoderHiddenStates", {Le + 1, Ns, D}, hidden);
  const auto rLast = rows.add("lastHiddenState", {Nt, D});
  const auto rDecoderAttention = rows.add("decoderAttention", {Ld, Hd, capped(z.targetSquares)}, weights);
  const auto rCross = rows.add("crossAttention", {Ld, Hd, capped(z.targetsBySources)}, weights);
  const auto rDecoderHidden = rows.add("decoderHiddenStates", {Ld + 1, Nt, D}, hidden);
  const auto rLogits = rows.add("logits", {Nt, V}, logits);
  OutputLayout result;  // what the caller gets
  const auto encoderLast = result.add("encoderLastHiddenState", {B, Smax, D});
  const auto encoderAttention = result.add("encoderAttention", {Le, B, He, Smax, Smax}, weights);
  const auto encoderHidden = result.add("encoderHiddenStates", {Le + 1, B, Smax, D}, hidden);
  const auto last = result.add("lastHiddenState", {B, Tmax, D});
  const auto decoderAttention = result.add("decoderAttention", {Ld, B, Hd, Tmax, Tmax}, weights);
  const auto cross = result.add("crossAttention", {Ld, B, Hd, Tmax, Smax}, weights);
  const auto decoderHidden = result.add("decoderHiddenStates", {Ld + 1, B, Tmax, D}, hidden);
  const auto scores = result.add("logits", {B, Tmax, V}, logits);
  const double attend =
      std::max(attention.scratch_bytes_for({1, Smax, Smax, D, He, D / He, D / He}, weights, false),
               attention.scratch_bytes_for({1, Tmax, std::max(Smax, Tmax), D, Hd, D / Hd, D / Hd}, weights, false));
  fits(4.0 * (rows.floats() + result.floats() + m.scratch_floats(std::max(Ns, Nt)) +
              m.pairs_floats(S.data(), T.data(), B)) +
       attend);
  rows.place(packed);
  result.place(out);
  std::fill(out.data(), out.data() + std::size_t(result.floats()), 0.0f);
  model::Outputs encoderOut{rows[rEncoder], rows[rEncoderAttention], rows[rEncoderHidden]};
  model::Outputs decoderOut{rows[rLast], rows[rDecoderAttention], rows[rDecoderHidden]};
  decoderOut.crossAttention = rows[rCross];
  decoderOut.logits = rows[rLogits];
  m.forward_pairs(attention, sources.data(), S.data(), targets.data(), T.data(), B, encoderOut, decoderOut, pairMasks);
  pad_rows(rows[rEncoder], result[encoderLast], 1, S, Smax, D);
  pad_rows(rows[rEncoderHidden], result[encoderHidden], Le + 1, S, Smax, D);
  pad_rows(rows[rLast], result[last], 1, T, Tmax, D);
  pad_rows(rows[rDecoderHidden], result[decoderHidden], Ld + 1, T, Tmax, D);
  pad_rows(rows[rLogits], result[scores], 1, T, Tmax, V);
  pad_attention(rows[rEncoderAttention], result[encoderAttention], Le, He, S, S, Smax, Smax);
  pad_attention(rows[rDecoderAttention], result[decoderAttention], Ld, Hd, T, T, Tmax, Tmax);
  pad_attention(rows[rCross], result[cross], Ld, Hd, T, S, Tmax, Smax);
  val outcome = result.result();
  trim(packed);
  return outcome;
}

}  // namespace mha::bindings
