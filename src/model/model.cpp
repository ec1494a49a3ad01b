#include "model.hpp"

#include <algorithm>
#include <cmath>

#include "blocks/profile.hpp"
#include "blocks/self_attention.hpp"

namespace mha::model {
namespace {

unsigned long long magnitude(std::int32_t v) { return static_cast<unsigned long long>(v < 0 ? -std::int64_t(v) : v); }

}  // namespace

Model::Model(const Config& c, bool allocate, DType matrices, const Holds& holds) : config_(c), weights_(matrices) {
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
  if (c.headDim == 0 && c.hiddenSize % c.numHeads != 0)
    (Message() << "hiddenSize: expected a multiple of numHeads (" << c.numHeads << "), got " << c.hiddenSize).raise();
  if (c.numKVHeads && c.numHeads % c.numKVHeads != 0)
    (Message() << "numKVHeads: expected a divisor of numHeads (" << c.numHeads << "), got " << c.numKVHeads).raise();
  if (c.architecture->kind == Kind::EncoderDecoder) {
    check_dim(c.decoderLayers, "decoderLayers", Limits::numLayers);
    check_dim(c.decoderHeads, "decoderHeads", Limits::numHeads);
    check_dim(c.decoderIntermediateSize, "decoderIntermediateSize", Limits::intermediateSize);
    if (c.hiddenSize % c.decoderHeads != 0)
      (Message() << "hiddenSize: expected a multiple of decoderHeads (" << c.decoderHeads << "), got " << c.hiddenSize)
          .raise();
  }
  if (!(c.layerNormEps > 0.0f) || !std::isfinite(c.layerNormEps))
    (Message() << "layerNormEps: expected a finite number > 0, got ").real(c.layerNormEps).raise();
  network_ = c.architecture->build(config_, weights_);
  for (const auto& [index, type] : holds) weights_.hold(index, type);
  weights_.settle();
  if (allocate) weights_.allocate();
}

double Model::bytes_for(const Config& config, DType matrices, const Holds& holds) {
  const Model laidOut(config, false, matrices, holds);
  return laidOut.weights_.bytes_to_allocate();
}

double Model::query_key_scale() const noexcept { return model::query_key_scale(config_.head_dim()); }

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

void Model::check_loaded() const {
  if (const std::vector<std::string> absent = missing(); !absent.empty())
    (Message() << "model: " << absent.size() << " tensors not loaded, the first " << absent[0].c_str()).raise();
}

void Model::check(const std::int32_t* ids, const std::int32_t* types, std::size_t past, std::size_t L,
                  const Outputs& out) {
  check_loaded();
  check_length(L, past);
  check_rows(ids, types, past, L, out);
}

void Model::check_rows(const std::int32_t* ids, const std::int32_t* types, std::size_t past, std::size_t L,
                       const Outputs& out) {
  const Config& c = config_;
  check_ids(ids, L, "inputIds");
  for (std::size_t i = 0; i < L; ++i) {
    if (types && (types[i] < 0 || std::size_t(types[i]) >= c.typeVocabSize))
      (Message() << "tokenTypeIds[" << i << "]: expected 0 to " << c.typeVocabSize - 1 << ", got "
                 << (types[i] < 0 ? "-" : "") << magnitude(types[i]))
          .raise();
  }
  if (out.attention) checked_product({c.numLayers, c.numHeads, L, past + L}, "attention: numLayers×numHeads×L×Lk");
  if (out.hiddenStates)
    checked_product({c.numLayers + 1, L, c.hiddenSize}, "hiddenStates: (numLayers + 1)×L×hiddenSize");
  if (!out.query != !out.key) throw ArgumentError("query, key: give both outputs or neither");
  if (out.query) {
    checked_product({c.numLayers, c.numHeads, L, c.head_dim()}, "query: numLayers×numHeads×L×headDim");
    checked_product({c.numLayers, c.kv_heads(), L, c.head_dim()}, "key: numLayers×numKVHeads×L×headDim");
  }
  if (!out.valueNorms != !out.headOutputNorms)
    throw ArgumentError("valueNorms, headOutputNorms: give both outputs or neither");
  if (out.valueNorms) checked_product({c.numLayers, c.numHeads, L}, "valueNorms: numLayers×numHeads×L");
  if (out.logits) {
    if (!network_->has_logits())
      (Message() << "returnLogits: this " << c.modelType.c_str()
                 << " has no language-model head the engine reads (a BERT's masked-LM head is read when the "
                    "checkpoint holds all of BertForMaskedLM's cls.predictions)")
          .raise();
    checked_product({logit_rows(out, L), c.vocabSize}, "logits: L×vocabSize");
  }
  if (out.taskLogits && network_->task_head() == TaskHead::None)
    (Message() << "returnTaskLogits: this " << c.modelType.c_str()
               << " has no task head the engine reads (config.json's architectures name none of its "
                  "*ForSequenceClassification, *ForTokenClassification, *ForQuestionAnswering, or the checkpoint "
                  "lacks the head's tensors)")
        .raise();
  check_lens(out, L, c.numLayers);
  scratch_.resize(checked_scratch(network_->scratch_floats(L)));
}

void Model::check_lens(const Outputs& out, std::size_t rows, std::size_t layers) const {
  if (!out.layerLogits) return;
  if (architecture().kind == Kind::Encoder)
    (Message() << "returnLayerLogits: a " << config_.modelType.c_str()
               << " is an encoder; the logit lens reads a decoder's layers (or an encoder-decoder's decoder's)")
        .raise();
  if (out.lensCount == 0 || !out.lensRows) throw ArgumentError("returnLayerLogits.positions: expected at least one");
  for (std::size_t k = 0; k < out.lensCount; ++k)
    if (out.lensRows[k] >= rows)
      (Message() << "returnLayerLogits.positions[" << k << "]: expected a position from 0 to " << rows - 1 << ", got "
                 << out.lensRows[k])
          .raise();
  checked_product({layers + 1, out.lensCount, config_.vocabSize}, "layerLogits: (layers + 1)×positions×vocabSize");
}

void Model::check_ids(const std::int32_t* ids, std::size_t count, const char* name) const {
  for (std::size_t i = 0; i < count; ++i)
    if (ids[i] < 0 || std::size_t(ids[i]) >= config_.vocabSize)
      (Message() << name << "[" << i << "]: expected a token id from 0 to " << config_.vocabSize - 1 << ", got "
                 << (ids[i] < 0 ? "-" : "") << magnitude(ids[i]))
          .raise();
}

void Model::forward(Attention& attention, const std::int32_t* ids, const std::int32_t* types, std::size_t L,
                    const Outputs& out, const std::uint8_t* headMask) {
  if (architecture().kind == Kind::EncoderDecoder)
    (Message() << "model: a " << config_.modelType.c_str() << " is an encoder-decoder; run it with encode and decode")
        .raise();
  check(ids, types, 0, L, out);
  Sequence in{ids, types, L};
  in.headMask = headMask;
  {
    MHA_BLOCK(total);
    network_->forward(attention, in, out, scratch_.data(), nullptr);
  }
}

void Model::forward_batch(Attention& attention, const std::int32_t* ids, const std::int32_t* types,
                          const std::size_t* lengths, std::size_t B, const Outputs& out, const std::uint8_t* headMask,
                          std::size_t headMaskStride) {
  const Config& c = config_;
  if (architecture().kind == Kind::EncoderDecoder)
    (Message() << "input: a batch (an array of inputs) is run by an encoder or a decoder; a " << c.modelType.c_str()
               << " is an encoder-decoder, run its sequences one at a time")
        .raise();
  if (out.layerLogits) throw ArgumentError("returnLayerLogits: not for a batch (run its sequences one at a time)");
  if (out.query || out.key) throw ArgumentError("returnQueryKey: not for a batch (run its sequences one at a time)");
  if (out.valueNorms || out.headOutputNorms)
    throw ArgumentError("returnHeadOutputs: not for a batch (run its sequences one at a time)");
  if (out.logitRows) throw ArgumentError("returnLogits: a batch's are every row's");
  check_dim(B, "input: sequences of the batch", kMaxElements);
  check_loaded();
  std::size_t N = 0;
  double weights = 0;
  for (std::size_t b = 0; b < B; ++b) {
    check_length(lengths[b]);
    N += lengths[b];
    weights += double(lengths[b]) * double(lengths[b]);
  }
  if (out.attention && weights > double(kMaxElements))
    (Message() << "attention: Σ L² over the batch's sequences = ").real(weights).raise();
  if (out.attention) checked_product({c.numLayers, c.numHeads, std::size_t(weights)}, "attention: layers×heads×Σ L²");
  Outputs rows = out;
  rows.attention = nullptr;  // checked above: its rows are each sequence's
  check_rows(ids, types, 0, N, rows);
  Sequence in{ids, types, N};
  in.headMask = headMask;
  in.lengths = lengths;
  in.batch = B;
  in.headMaskStride = headMaskStride;
  {
    MHA_BLOCK(total);
    network_->forward(attention, in, out, scratch_.data(), nullptr);
  }
}

std::size_t Model::cache_room(std::size_t positions) const noexcept {
  const std::size_t room = caches_.empty() ? 0 : caches_[0].capacity();
  if (positions <= room) return room;
  return std::min(max_length(), std::max({positions, 2 * room, kFirstCacheRoom}));
}

double Model::cache_floats(std::size_t positions) const noexcept {
  const Config& c = config_;
  const std::size_t room = cache_room(positions);
  if (!caches_.empty() && room == caches_[0].capacity()) return 0;
  return double(c.numLayers) *
         KVCache::floats_for(std::max<std::size_t>(1, beams()), c.kv_heads(), c.head_dim(), c.head_dim(), room);
}

void Model::step_beams(Attention& attention, const std::int32_t* ids, const Outputs& out,
                       const std::uint8_t* headMask) {
  check_decoder();
  const std::size_t B = beams(), past = this->past();
  if (B == 0 || past == 0) throw ArgumentError("model: no past to step the beams from (prefill first)");
  if (out.attention || out.hiddenStates || out.query || out.key || out.valueNorms || out.headOutputNorms ||
      out.layerLogits || out.taskLogits || out.logitRows)
    throw ArgumentError("beams: a step of the beams returns lastHiddenState and logits only");
  check_loaded();
  check_length(1, past);
  check_rows(ids, nullptr, past, B, out);  // one id and one row of outputs a beam
  const std::size_t room = cache_room(past + 1);
  for (KVCache& cache : caches_) cache.reserve(room);
  // The beams as a batch of one token each, over the caches' B items (each sequence's position `past`).
  const std::vector<std::size_t> ones(B, 1);
  Sequence in{ids, nullptr, B};
  in.headMask = headMask;
  in.lengths = ones.data();
  in.batch = B;
  try {
    MHA_BLOCK(total);
    network_->forward(attention, in, out, scratch_.data(), &caches_);
  } catch (...) {
    for (KVCache& cache : caches_) cache.truncate(std::min(past, cache.length()));  // as before the call
    throw;
  }
}

double Model::reorder_floats(std::size_t beams) const noexcept {
  const Config& c = config_;
  if (architecture().kind != Kind::Decoder || caches_.empty() || beams == this->beams()) return 0;
  return double(c.numLayers) * KVCache::floats_for(beams, c.kv_heads(), c.head_dim(), c.head_dim(), capacity());
}

void Model::check_decoder() const {
  const Architecture& a = architecture();
  if (a.kind != Kind::Decoder)
    (Message() << "model: a " << config_.modelType.c_str() << " is an " << kind_name(a.kind)
               << "; prefill and step are a decoder's (run it whole with run)")
        .raise();
}

void Model::step(Attention& attention, const std::int32_t* ids, std::size_t L, const Outputs& out,
                 const std::uint8_t* headMask) {
  check_decoder();
  if (beams() > 1)
    (Message() << "inputIds: the past holds " << beams()
               << " beams (step_beams feeds them; reorder to one parent keeps one)")
        .raise();
  check(ids, nullptr, past(), L, out);
  // Room for the positions so far and these, doubling as the sequence grows (kept until the model goes).
  const std::size_t room = cache_room(past() + L);
  if (caches_.empty()) {
    const Config& c = config_;
    LayerCaches caches(c.numLayers);
    for (KVCache& cache : caches) cache.configure(1, c.kv_heads(), c.head_dim(), c.head_dim(), room);
    caches_ = std::move(caches);
  }
  for (KVCache& cache : caches_) cache.reserve(room);
  const std::size_t before = past();
  try {
    Sequence in{ids, nullptr, L};
    in.headMask = headMask;
    {
      MHA_BLOCK(total);
      network_->forward(attention, in, out, scratch_.data(), &caches_);
    }
  } catch (...) {
    for (KVCache& cache : caches_) cache.truncate(std::min(before, cache.length()));  // as before the call
    throw;
  }
}

void Model::prefill(Attention& attention, const std::int32_t* ids, std::size_t L, const Outputs& out,
                    const std::uint8_t* headMask) {
  check_decoder();
  check(ids, nullptr, 0, L, out);  // a refused prefill keeps the past
  reset();
  step(attention, ids, L, out, headMask);
}

void Model::reset() noexcept {
  // A decoder's beams: one sequence again (step() makes its caches).
  if (architecture().kind == Kind::Decoder && beams() > 1) caches_.clear();
  for (KVCache& cache : caches_) cache.reset();
}

void Model::rewind(std::size_t length) {
  if (length > past())
    (Message() << "past: expected at most the " << past() << " positions seen, got " << length).raise();
  for (KVCache& cache : caches_) cache.truncate(length);
}

// ---- An encoder-decoder ------------------------------------------------------

void Model::check_encoder_decoder() const {
  if (architecture().kind != Kind::EncoderDecoder)
    (Message() << "model: a " << config_.modelType.c_str() << " is an " << kind_name(architecture().kind)
               << "; encode and decode are an encoder-decoder's")
        .raise();
}

void Model::refuse_query_key(const Outputs& out) const {
  if (out.query || out.key)
    (Message() << "returnQueryKey: a " << config_.modelType.c_str()
               << " is an encoder-decoder, whose queries and keys are not returned (an encoder's or a decoder's are)")
        .raise();
}

double Model::encode_floats(std::size_t S) const noexcept {
  const Config& c = config_;
  const std::size_t dk = c.hiddenSize / c.decoderHeads;
  return double(c.decoderLayers) * KVCache::floats_for(1, c.decoderHeads, dk, dk, S);
}

double Model::begin_floats(std::size_t beams, std::size_t capacity) const noexcept {
  const Config& c = config_;
  if (beams == this->beams() && capacity == this->capacity()) return 0;
  const std::size_t dk = c.hiddenSize / c.decoderHeads;
  return double(c.decoderLayers) * KVCache::floats_for(beams, c.decoderHeads, dk, dk, capacity);
}

void Model::encode(Attention& attention, const std::int32_t* ids, std::size_t S, const Outputs& out,
                   const std::uint8_t* headMask) {
  check_encoder_decoder();
  refuse_query_key(out);
  Outputs encoderOnly = out;
  if (out.layerLogits) throw ArgumentError("returnLayerLogits: the logit lens reads the decoder (decode)");
  encoderOnly.logits = encoderOnly.crossAttention = encoderOnly.crossHeadOutputNorms = nullptr;
  check(ids, nullptr, 0, S, encoderOnly);
  if (!out.valueNorms != !out.crossValueNorms)
    throw ArgumentError("valueNorms, crossValueNorms: give both outputs or neither");
  if (out.crossValueNorms) {
    const Config& c = config_;
    checked_product({c.decoderLayers, c.decoderHeads, S}, "crossValueNorms: decoderLayers×decoderHeads×S");
  }
  Sequence in{ids, nullptr, S};
  in.headMask = headMask;
  reset();  // a new input: what the decoder saw was of the last one
  cross_.clear();
  {
    MHA_BLOCK(total);
    network_->encode(attention, in, encoderOnly, scratch_.data(), cross_);
  }
}

void Model::begin(std::size_t beams, std::size_t capacity) {
  check_encoder_decoder();
  check_dim(beams, "beams", kMaxElements);
  if (capacity < 1 || capacity > max_length())
    (Message() << "capacity: expected 1 to " << max_length() << " tokens (max_position_embeddings), got " << capacity)
        .raise();
  if (beams == this->beams() && capacity == this->capacity()) {
    reset();
    return;
  }
  const Config& c = config_;
  const std::size_t dk = c.hiddenSize / c.decoderHeads;
  LayerCaches caches(c.decoderLayers);
  for (KVCache& cache : caches) cache.configure(beams, c.decoderHeads, dk, dk, capacity);
  caches_ = std::move(caches);
}

void Model::decode(Attention& attention, const std::int32_t* ids, std::size_t beams, std::size_t L, const Outputs& out,
                   const std::uint8_t* headMask, const std::uint8_t* crossHeadMask, std::size_t headMaskStride) {
  check_encoder_decoder();
  refuse_query_key(out);
  const Config& c = config_;
  check_loaded();
  if (encoded() == 0) throw ArgumentError("model: nothing encoded yet (encode the input first)");
  if (caches_.empty()) throw ArgumentError("model: the decoder is not ready (begin first)");
  if (beams != this->beams())
    (Message() << "beams: the decoder was readied for " << this->beams() << ", got " << beams).raise();
  const std::size_t past = this->past();
  if (L < 1 || L > capacity() - past)
    (Message() << "decoderInputIds: expected 1 to " << capacity() - past << " tokens after the " << past
               << " decoded (of the " << capacity() << " readied), got " << L)
        .raise();
  const std::size_t N = checked_product({beams, L}, "beams×L");
  check_ids(ids, N, "decoderInputIds");
  const std::size_t H = c.decoderHeads, S = encoded();
  if (out.attention) checked_product({c.decoderLayers, beams, H, L, past + L}, "attention");
  if (out.crossAttention) checked_product({c.decoderLayers, H, N, S}, "crossAttention");
  if (out.hiddenStates) checked_product({c.decoderLayers + 1, N, c.hiddenSize}, "hiddenStates");
  if (out.logits) checked_product({N, c.vocabSize}, "logits");
  check_lens(out, N, c.decoderLayers);
  if (!out.valueNorms != !out.headOutputNorms || !out.valueNorms != !out.crossHeadOutputNorms)
    throw ArgumentError("valueNorms, headOutputNorms, crossHeadOutputNorms: give all three outputs or none");
  if (out.valueNorms) checked_product({c.decoderLayers, H, N}, "valueNorms: decoderLayers×decoderHeads×N");
  scratch_.resize(checked_scratch(network_->scratch_floats(N)));
  Sequence in{ids, nullptr, L};
  in.headMask = headMask;
  in.crossHeadMask = crossHeadMask;
  in.headMaskStride = beams > 1 ? headMaskStride : 0;
  try {
    {
      MHA_BLOCK(total);
      network_->decode(attention, in, beams, out, scratch_.data(), caches_, cross_);
    }
  } catch (...) {
    for (KVCache& cache : caches_) cache.truncate(std::min(past, cache.length()));  // as before the call
    throw;
  }
}

void Model::reorder(const std::size_t* parents, std::size_t beams) {
  const Kind kind = architecture().kind;
  if (kind == Kind::Encoder)
    (Message() << "model: a " << config_.modelType.c_str()
               << " is an encoder; reorder is a decoder's or an encoder-decoder's (beam search)")
        .raise();
  if (caches_.empty())
    throw ArgumentError(kind == Kind::Decoder ? "model: no past to reorder (prefill first)"
                                              : "model: the decoder is not ready (begin first)");
  if (kind == Kind::Decoder && beams != this->beams()) {
    // Every parent checked before any layer changes (regroup checks them too).
    for (std::size_t b = 0; b < beams; ++b)
      if (parents[b] >= this->beams())
        (Message() << "parents[" << b << "]: expected a beam from 0 to " << this->beams() - 1 << ", got " << parents[b])
            .raise();
    for (KVCache& cache : caches_) cache.regroup(parents, beams);
    return;
  }
  caches_[0].select(parents, beams);  // checks them first: a refusal changes nothing
  for (std::size_t l = 1; l < caches_.size(); ++l) caches_[l].select(parents, beams);
}

}  // namespace mha::model
