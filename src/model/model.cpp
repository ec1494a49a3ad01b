#include "model.hpp"

#include <algorithm>
#include <cmath>

namespace mha::model {
namespace {

unsigned long long magnitude(std::int32_t v) { return static_cast<unsigned long long>(v < 0 ? -std::int64_t(v) : v); }

}  // namespace

Model::Model(const Config& c, bool allocate) : config_(c) {
  using Limits = ModelLimits;
  if (!c.architecture) throw ArgumentError("architecture: not set (read_config finds it by model_type)");
  check_dim(c.numLayers, "numLayers", Limits::numLayers);
  check_dim(c.numHeads, "numHeads", Limits::numHeads);
  check_dim(c.hiddenSize, "hiddenSize", Limits::hiddenSize);
  check_dim(c.intermediateSize, "intermediateSize", Limits::intermediateSize);
  check_dim(c.vocabSize, "vocabSize", Limits::vocabSize);
  check_dim(c.maxPositions, "maxPositions", Limits::maxPositions);
  check_dim(c.typeVocabSize, "typeVocabSize", Limits::typeVocabSize);
  if (c.positionOffset >= c.maxPositions)
    (Message() << "positionOffset: expected less than maxPositions (" << c.maxPositions << "), got "
               << c.positionOffset)
        .raise();
  if (c.hiddenSize % c.numHeads != 0)
    (Message() << "hiddenSize: expected a multiple of numHeads (" << c.numHeads << "), got " << c.hiddenSize).raise();
  if (!(c.layerNormEps > 0.0f) || !std::isfinite(c.layerNormEps))
    (Message() << "layerNormEps: expected a finite number > 0, got ").real(c.layerNormEps).raise();
  network_ = c.architecture->build(config_, weights_);
  if (allocate) weights_.allocate();
}

double Model::bytes_for(const Config& config) {
  const Model laidOut(config, false);
  return laidOut.weights_.floats() * sizeof(float);
}

void Model::check_length(std::size_t L, std::size_t past) const {
  if (past > 0) {
    if (L >= 1 && L <= max_length() - past) return;
    (Message() << "inputIds: expected 1 to " << max_length() - past << " tokens after the " << past
               << " the model has seen (max_position_embeddings " << config_.maxPositions << "), got " << L)
        .raise();
  }
  if (L >= 1 && L <= max_length()) return;
  Message m;
  m << "inputIds: expected 1 to " << max_length() << " tokens (max_position_embeddings " << config_.maxPositions;
  if (config_.positionOffset) m << ", less the " << config_.positionOffset << " position ids before the first";
  (m << "), got " << L).raise();
}

void Model::check(const std::int32_t* ids, const std::int32_t* types, std::size_t past, std::size_t L,
                  const Outputs& out) {
  const Config& c = config_;
  if (const std::vector<std::string> absent = missing(); !absent.empty())
    (Message() << "model: " << absent.size() << " tensors not loaded, the first " << absent[0].c_str()).raise();
  check_length(L, past);
  for (std::size_t i = 0; i < L; ++i) {
    if (ids[i] < 0 || std::size_t(ids[i]) >= c.vocabSize)
      (Message() << "inputIds[" << i << "]: expected a token id from 0 to " << c.vocabSize - 1 << ", got "
                 << (ids[i] < 0 ? "-" : "") << magnitude(ids[i]))
          .raise();
    if (types && (types[i] < 0 || std::size_t(types[i]) >= c.typeVocabSize))
      (Message() << "tokenTypeIds[" << i << "]: expected 0 to " << c.typeVocabSize - 1 << ", got "
                 << (types[i] < 0 ? "-" : "") << magnitude(types[i]))
          .raise();
  }
  if (out.attention) checked_product({c.numLayers, c.numHeads, L, past + L}, "attention: numLayers×numHeads×L×Lk");
  if (out.hiddenStates)
    checked_product({c.numLayers + 1, L, c.hiddenSize}, "hiddenStates: (numLayers + 1)×L×hiddenSize");
  if (out.logits) {
    if (!network_->has_logits())
      (Message() << "returnLogits: this " << c.modelType.c_str()
                 << " has no language-model head the engine reads (a masked-LM head is not read yet)")
          .raise();
    checked_product({L, c.vocabSize}, "logits: L×vocabSize");
  }
  scratch_.resize(checked_scratch(network_->scratch_floats(L)));
}

void Model::forward(Attention& attention, const std::int32_t* ids, const std::int32_t* types, std::size_t L,
                    const Outputs& out) {
  check(ids, types, 0, L, out);
  network_->forward(attention, Sequence{ids, types, L}, out, scratch_.data(), nullptr);
}

double Model::cache_floats() const noexcept {
  const Config& c = config_;
  if (!caches_.empty()) return 0;
  return double(c.numLayers) *
         KVCache::floats_for(1, c.numHeads, c.hiddenSize / c.numHeads, c.hiddenSize / c.numHeads, max_length());
}

void Model::check_decoder() const {
  const Architecture& a = architecture();
  if (a.kind != Kind::Decoder)
    (Message() << "model: a " << config_.modelType.c_str() << " is an " << kind_name(a.kind)
               << "; prefill and step are a decoder's (run it whole with run)")
        .raise();
}

void Model::step(Attention& attention, const std::int32_t* ids, std::size_t L, const Outputs& out) {
  check_decoder();
  check(ids, nullptr, past(), L, out);
  if (caches_.empty()) {
    // Room for every position the model has; allocated once, kept until the model goes.
    const Config& c = config_;
    LayerCaches caches(c.numLayers);
    for (KVCache& cache : caches)
      cache.configure(1, c.numHeads, c.hiddenSize / c.numHeads, c.hiddenSize / c.numHeads, max_length());
    caches_ = std::move(caches);
  }
  const std::size_t before = past();
  try {
    network_->forward(attention, Sequence{ids, nullptr, L}, out, scratch_.data(), &caches_);
  } catch (...) {
    for (KVCache& cache : caches_) cache.truncate(std::min(before, cache.length()));  // as before the call
    throw;
  }
}

void Model::prefill(Attention& attention, const std::int32_t* ids, std::size_t L, const Outputs& out) {
  check_decoder();
  check(ids, nullptr, 0, L, out);  // a refused prefill keeps the past
  reset();
  step(attention, ids, L, out);
}

void Model::reset() noexcept {
  for (KVCache& cache : caches_) cache.reset();
}

}  // namespace mha::model
