// Model::forward_pairs (model.hpp): an encoder-decoder's teacher-forced batch, its checks and its memory. The
// passes are the architecture's (Network::forward_pairs); this file is what every encoder-decoder shares.
#include <algorithm>

#include "blocks/profile.hpp"
#include "model.hpp"

namespace mha::model {

double Model::pairs_floats(const std::size_t* sources, const std::size_t* targets, std::size_t B) const noexcept {
  const Config& c = config_;
  const std::size_t dk = c.hiddenSize / c.decoderHeads;
  double floats = 0;
  for (std::size_t b = 0; b < B; ++b)
    floats += KVCache::floats_for(1, c.decoderHeads, dk, dk, sources[b]) +
              KVCache::floats_for(1, c.decoderHeads, dk, dk, targets[b]);
  return double(c.decoderLayers) * floats;
}

void Model::forward_pairs(Attention& attention, const std::int32_t* sourceIds, const std::size_t* sourceLengths,
                          const std::int32_t* targetIds, const std::size_t* targetLengths, std::size_t B,
                          const Outputs& encoderOut, const Outputs& decoderOut, const PairMasks& masks) {
  check_encoder_decoder();
  const Config& c = config_;
  for (const Outputs* out : {&encoderOut, &decoderOut}) {
    refuse_query_key(*out);
    if (out->layerLogits) throw ArgumentError("returnLayerLogits: not for a batch (run its pairs one at a time)");
    if (out->valueNorms || out->headOutputNorms || out->crossValueNorms || out->crossHeadOutputNorms)
      throw ArgumentError("returnHeadOutputs: not for a batch (run its pairs one at a time)");
    if (out->taskLogits || out->logitRows) throw ArgumentError("outputs: a batch of pairs returns every row's logits");
  }
  if (encoderOut.logits || encoderOut.crossAttention)
    throw ArgumentError("encoderOut: the encoder returns no logits and no cross-attention");
  check_dim(B, "input: pairs of the batch", kMaxElements);
  check_loaded();
  for (std::size_t b = 0; b < B; ++b) {
    check_length(sourceLengths[b]);
    if (targetLengths[b] < 1 || targetLengths[b] > max_length())
      (Message() << "decoderInputIds: expected 1 to " << max_length() << " tokens (max_position_embeddings), got "
                 << targetLengths[b])
          .raise();
  }
  const PairSizes z = pair_sizes(sourceLengths, targetLengths, B);
  const std::size_t Ns = z.sourceRows, Nt = z.targetRows;
  check_ids(sourceIds, Ns, "inputIds");
  check_ids(targetIds, Nt, "decoderInputIds");
  const std::size_t D = c.hiddenSize;
  for (const double sum : {z.sourceSquares, z.targetSquares, z.targetsBySources})
    if (sum > double(kMaxElements)) (Message() << "attention: Σ of a batch's rows × keys = ").real(sum).raise();
  if (encoderOut.attention)
    checked_product({c.numLayers, c.numHeads, std::size_t(z.sourceSquares)}, "encoderAttention");
  if (decoderOut.attention)
    checked_product({c.decoderLayers, c.decoderHeads, std::size_t(z.targetSquares)}, "decoderAttention");
  if (decoderOut.crossAttention)
    checked_product({c.decoderLayers, c.decoderHeads, std::size_t(z.targetsBySources)}, "crossAttention");
  if (encoderOut.hiddenStates) checked_product({c.numLayers + 1, Ns, D}, "encoderHiddenStates");
  if (decoderOut.hiddenStates) checked_product({c.decoderLayers + 1, Nt, D}, "decoderHiddenStates");
  if (decoderOut.logits) checked_product({Nt, c.vocabSize}, "logits");
  scratch_.resize(checked_scratch(network_->scratch_floats(std::max(Ns, Nt))));
  Sequence sources{sourceIds, nullptr, Ns};
  sources.lengths = sourceLengths;
  sources.batch = B;
  sources.headMask = masks.encoder;
  Sequence targets{targetIds, nullptr, Nt};
  targets.lengths = targetLengths;
  targets.batch = B;
  targets.headMask = masks.decoder;
  targets.crossHeadMask = masks.cross;
  {
    MHA_BLOCK(total);
    network_->forward_pairs(attention, sources, targets, encoderOut, decoderOut, scratch_.data());
  }
}

}  // namespace mha::model
