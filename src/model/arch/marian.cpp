// MarianMT (model_type "marian"; Helsinki-NLP's opus-mt translation models):
// a post-LN encoder-decoder of BART's blocks, with static sinusoidal
// positions and one token embedding E shared by the encoder, the decoder and
// the output.
//
//   encoder:  x = s·E[src] + P;  per layer:  x = LN(x + O·MHA(x));  x = LN(x + W₂·act(W₁x))
//   decoder:  y = s·E[tgt] + P;  per layer:  y = LN(y + O·MHA_causal(y));
//                                            y = LN(y + O'·MHA(query y, key and value x));
//                                            y = LN(y + W₂·act(W₁y))
//   logits = y·Eᵀ + final_logits_bias
//
// s is √hiddenSize with scale_embedding, else 1. P is computed, never read
// (MarianSinusoidalPositionalEmbedding): for position p and k < D/2, column k
// is sin(p/10000^(2k/D)) and column D/2 + k its cos, in double, then rounded
// to float32. Each decoder layer's cross-attention keys and values of the
// encoder's output are computed once per input (encode) and read at every
// step (decode).
#include <algorithm>
#include <cmath>

#include "../blocks/head_outputs.hpp"
#include "../blocks/layer_buffers.hpp"
#include "../blocks/lens.hpp"
#include "../blocks/linear.hpp"
#include "../blocks/norm.hpp"
#include "../blocks/self_attention.hpp"
#include "architecture.hpp"

namespace mha::model {
namespace {

// config.json's activation_function values, in this order: GELU (erf), GELU (tanh) twice, SiLU twice, ReLU.
const std::vector<const char*> kActivations = {"gelu", "gelu_new", "gelu_pytorch_tanh", "swish", "silu", "relu"};

void read_config(ConfigReader& r, Config& c) {
  using L = ModelLimits;
  const std::size_t a = r.choice("activation_function", "gelu", kActivations);
  c.activation = a == 0   ? Activation::GeluErf
                 : a <= 2 ? Activation::GeluTanh
                 : a <= 4 ? Activation::Silu
                          : Activation::Relu;
  // The BART family's switches that opus-mt's config.json still carries: Marian's blocks are post-LN, with no
  // LayerNorm of the embeddings or after the last layer, static positions, one shared embedding, no logits bias
  // but final_logits_bias.
  r.refuse_boolean("normalize_before", true);
  r.refuse_boolean("add_final_layer_norm", true);
  r.refuse_boolean("normalize_embedding", true);
  r.refuse_boolean("static_position_embeddings", false);
  r.refuse_boolean("add_bias_logits", true);
  r.refuse_boolean("share_encoder_decoder_embeddings", false);
  r.refuse_boolean("tie_word_embeddings", false);
  // Sizes, with MarianConfig's defaults.
  c.hiddenSize = r.size("d_model", L::hiddenSize, 1024);
  c.numLayers = r.size("encoder_layers", L::numLayers, 12);
  c.numHeads = r.size("encoder_attention_heads", L::numHeads, 16);
  c.intermediateSize = r.size("encoder_ffn_dim", L::intermediateSize, 4096);
  c.decoderLayers = r.size("decoder_layers", L::numLayers, 12);
  c.decoderHeads = r.size("decoder_attention_heads", L::numHeads, 16);
  c.decoderIntermediateSize = r.size("decoder_ffn_dim", L::intermediateSize, 4096);
  c.vocabSize = r.size("vocab_size", L::vocabSize, 58101);
  const std::size_t decoderVocab = r.size("decoder_vocab_size", L::vocabSize, c.vocabSize);
  c.maxPositions = r.size("max_position_embeddings", L::maxPositions, 1024);
  r.finish();
  if (decoderVocab != c.vocabSize)
    r.fail("decoder_vocab_size " + decimal(decoderVocab) + " must be vocab_size (" + decimal(c.vocabSize) +
           "): the encoder and decoder share one embedding");
  if (c.hiddenSize % c.decoderHeads != 0)
    r.fail("the hidden size (" + decimal(c.hiddenSize) + ") must be a multiple of decoder_attention_heads (" +
           decimal(c.decoderHeads) + ")");
  c.typeVocabSize = 1;
  c.layerNormEps = 1e-5f;  // nn.LayerNorm's default: Marian has no config field for it
  c.embedScale = r.flag("scale_embedding", false) ? float(std::sqrt(double(c.hiddenSize))) : 1.0f;
}

// One attention block's parameters: the query, key and value products (one
// packed matrix, or for cross-attention the query's alone and the key's and
// value's together), the output's, and the LayerNorm after the residual sum.
struct AttentionBlock {
  const Slot *q = nullptr, *qBias = nullptr, *kv = nullptr, *kvBias = nullptr, *out, *outBias, *lnGain, *lnBias;
};

// The feed-forward block: W₂·act(W₁x), then the LayerNorm of the residual sum.
struct FeedForward {
  const Slot *fc1, *fc1Bias, *fc2, *fc2Bias, *lnGain, *lnBias;
};

// nn.Linear keeps [out, in]: the parts are the rows of one [n·D, D] = Wᵀ.
void projections(Weights& w, const std::string& p, std::size_t D, const std::vector<const char*>& parts,
                 const Slot*& weight, const Slot*& bias) {
  Slot& product = w.packed(true, D, parts.size() * D);
  Slot& biases = w.plain(parts.size() * D);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    weight = w.tensor(p + parts[i] + "_proj.weight", {D, D}, product, i * D * D);
    bias = w.tensor(p + parts[i] + "_proj.bias", {D}, biases, i * D);
  }
}

AttentionBlock self_block(Weights& w, const std::string& p, std::size_t D) {
  AttentionBlock b;
  projections(w, p + "self_attn.", D, {"q", "k", "v"}, b.q, b.qBias);
  b.out = w.tensor(p + "self_attn.out_proj.weight", {D, D}, w.packed(true, D, D));
  b.outBias = w.vector(p + "self_attn.out_proj.bias", D);
  b.lnGain = w.vector(p + "self_attn_layer_norm.weight", D);
  b.lnBias = w.vector(p + "self_attn_layer_norm.bias", D);
  return b;
}

AttentionBlock cross_block(Weights& w, const std::string& p, std::size_t D) {
  AttentionBlock b;
  projections(w, p + "encoder_attn.", D, {"q"}, b.q, b.qBias);
  projections(w, p + "encoder_attn.", D, {"k", "v"}, b.kv, b.kvBias);
  b.out = w.tensor(p + "encoder_attn.out_proj.weight", {D, D}, w.packed(true, D, D));
  b.outBias = w.vector(p + "encoder_attn.out_proj.bias", D);
  b.lnGain = w.vector(p + "encoder_attn_layer_norm.weight", D);
  b.lnBias = w.vector(p + "encoder_attn_layer_norm.bias", D);
  return b;
}

FeedForward feed_forward(Weights& w, const std::string& p, std::size_t D, std::size_t I) {
  checked_product({D, I}, "the feed-forward weights: hiddenSize×ffn_dim");
  FeedForward f;
  f.fc1 = w.tensor(p + "fc1.weight", {I, D}, w.packed(true, D, I));
  f.fc1Bias = w.vector(p + "fc1.bias", I);
  f.fc2 = w.tensor(p + "fc2.weight", {D, I}, w.packed(true, I, D));
  f.fc2Bias = w.vector(p + "fc2.bias", D);
  f.lnGain = w.vector(p + "final_layer_norm.weight", D);
  f.lnBias = w.vector(p + "final_layer_norm.bias", D);
  return f;
}

class Marian final : public Network {
 public:
  Marian(const Config& c, Weights& w) : c_(c) {
    const std::size_t D = c.hiddenSize, V = c.vocabSize, P = c.maxPositions;
    checked_product({V, D}, "the token embeddings: vocabSize×hiddenSize");
    shared_ = w.tensor("shared.weight", {V, D}, w.packed(true, D, V));  // Eᵀ, as the tied head reads it
    w.output_head(shared_);
    // [1, V], a buffer that transformers creates as zeros when the file has none.
    finalBias_ = w.tensor("final_logits_bias", {1, V}, w.plain(V));
    w.optional();
    // The positions are not the checkpoint's: a slot of the parameters' memory, computed at the first call.
    positions_ = &w.plain(checked_product({P, D}, "the position table: maxPositions×hiddenSize"));
    for (std::size_t l = 0; l < c.numLayers; ++l) {
      const std::string p = "encoder.layers." + decimal(l) + ".";
      encoder_.push_back({self_block(w, p, D), {}, feed_forward(w, p, D, c.intermediateSize)});
    }
    for (std::size_t l = 0; l < c.decoderLayers; ++l) {
      const std::string p = "decoder.layers." + decimal(l) + ".";
      decoder_.push_back({self_block(w, p, D), cross_block(w, p, D), feed_forward(w, p, D, c.decoderIntermediateSize)});
    }
  }

  double scratch_floats(std::size_t rows) const override {
    return LayerBuffers::floats(rows, c_.hiddenSize, std::max(c_.intermediateSize, c_.decoderIntermediateSize));
  }

  void forward(Attention&, const Sequence&, const Outputs&, float*, LayerCaches*) const override {
    throw ArgumentError("model: an encoder-decoder runs through encode and decode");
  }

  // hiddenStates: the embeddings' output, then each layer's (Marian has no final LayerNorm).
  void encode(Attention& attention, const Sequence& in, const Outputs& out, float* scratch,
              LayerCaches& cross) const override {
    const LayerBuffers buffers(scratch, in.length, c_.hiddenSize);
    encoder_layers(attention, in, out, buffers);
    std::vector<LayerCaches> caches;
    cross_keys(attention, in, out, buffers, caches);
    cross = std::move(caches[0]);
  }

  // hiddenStates: the embeddings' output, then each layer's; rows beam after beam.
  void decode(Attention& attention, const Sequence& in, std::size_t beams, const Outputs& out, float* scratch,
              LayerCaches& self, const LayerCaches& cross) const override {
    const std::size_t L = in.length, N = beams * L, D = c_.hiddenSize, H = c_.decoderHeads;
    const std::size_t past = self[0].length(), Lk = past + L, S = cross[0].length();
    const LayerBuffers buffers(scratch, N, D);
    // 1. Scaled token embeddings plus positions past…past+L-1, for each beam.
    for (std::size_t b = 0; b < beams; ++b) embed(in.ids + b * L, L, past, buffers.x + b * L * D);
    // 2. Causal self-attention over each beam's cache.
    const auto attendSelf = [&](std::size_t l, const float* qkv, float* heads) {
      cached_self_attention(attention, L, qkv, D, H, self[l], heads,
                            out.attention ? out.attention + l * beams * H * L * Lk : nullptr, in.head_mask(0, l, H),
                            in.headMaskStride);
    };
    // 3. Cross-attention: every row's query over the encoder's keys and values.
    const auto attendCross = [&](std::size_t l, const float* q, float* heads) {
      float* const crossWeights = out.crossAttention ? out.crossAttention + l * H * N * S : nullptr;
      const std::uint8_t* crossMask = in.crossHeadMask ? in.crossHeadMask + l * H : nullptr;
      cross_attention(attention, N, q, D, H, cross[l], heads, crossWeights, in.headMaskStride ? nullptr : crossMask);
      if (in.headMaskStride && crossMask)
        switch_off_beams(crossMask, in.headMaskStride, beams, L, S, heads, crossWeights);
    };
    decoder_layers(attention, N, out, buffers, attendSelf, attendCross);
  }

  // Pairs teacher-forced (Model::forward_pairs): the encoder over every source's rows at once, each decoder
  // layer's keys and values of each source's, then the decoder over every target's rows at once, each target's
  // attention over its own rows and its own source's, through caches of its own made as Model::begin(1, T)
  // makes them: so each pair's results are bit for bit its encode() and decode()'s (products row by row,
  // bert.cpp).
  void forward_pairs(Attention& attention, const Sequence& sources, const Sequence& targets, const Outputs& encoderOut,
                     const Outputs& decoderOut, float* scratch) const override {
    const std::size_t B = targets.batch, D = c_.hiddenSize, H = c_.decoderHeads, dk = D / H;
    std::vector<LayerCaches> cross;
    {
      const LayerBuffers buffers(scratch, sources.length, D);
      encoder_layers(attention, sources, encoderOut, buffers);
      cross_keys(attention, sources, encoderOut, buffers, cross);
    }
    std::vector<LayerCaches> self;
    for (std::size_t s = 0; s < B; ++s) {
      self.emplace_back(c_.decoderLayers);
      for (KVCache& cache : self[s]) cache.configure(1, H, dk, dk, targets.lengths[s]);
    }
    const LayerBuffers buffers(scratch, targets.length, D);
    for (std::size_t s = 0, first = 0; s < B; first += targets.lengths[s++])
      embed(targets.ids + first, targets.lengths[s], 0, buffers.x + first * D);
    const std::size_t *const T = targets.lengths, *const S = sources.lengths;
    // One layer's weights, every pair's (Model::forward_pairs checked the sums).
    const PairSizes z = pair_sizes(S, T, B);
    const std::size_t selfFloats = H * std::size_t(z.targetSquares), crossFloats = H * std::size_t(z.targetsBySources);
    const auto attendSelf = [&](std::size_t l, const float* qkv, float* heads) {
      float* weights = decoderOut.attention ? decoderOut.attention + l * selfFloats : nullptr;
      for (std::size_t s = 0, first = 0; s < B; first += T[s++]) {
        cached_self_attention(attention, T[s], qkv + first * 3 * D, D, H, self[s][l], heads + first * D, weights,
                              targets.head_mask(0, l, H));
        if (weights) weights += H * T[s] * T[s];
      }
    };
    const auto attendCross = [&](std::size_t l, const float* q, float* heads) {
      float* weights = decoderOut.crossAttention ? decoderOut.crossAttention + l * crossFloats : nullptr;
      for (std::size_t s = 0, first = 0; s < B; first += T[s++]) {
        cross_attention(attention, T[s], q + first * D, D, H, cross[s][l], heads + first * D, weights,
                        targets.crossHeadMask ? targets.crossHeadMask + l * H : nullptr);
        if (weights) weights += H * T[s] * S[s];
      }
    };
    decoder_layers(attention, targets.length, decoderOut, buffers, attendSelf, attendCross);
  }

  bool has_logits() const override { return true; }

 private:
  // Each beam's own cross-attention head mask (Sequence::headMaskStride: beam b's at mask + b × stride): the rows
  // of beam b of a head it switches off zeroed after every head ran, as the core's head mask zeroes a head off
  // (Attention::switch_off_heads), so each beam's rows are bit for bit its own decode's. heads [beams·L, D],
  // weights [H, beams·L, S] or null.
  void switch_off_beams(const std::uint8_t* mask, std::size_t stride, std::size_t beams, std::size_t L, std::size_t S,
                        float* heads, float* weights) const {
    const std::size_t D = c_.hiddenSize, H = c_.decoderHeads, dV = D / H;
    for (std::size_t b = 0; b < beams; ++b)
      for (std::size_t h = 0; h < H; ++h) {
        if (mask[b * stride + h]) continue;
        for (std::size_t i = b * L; i < (b + 1) * L; ++i) {
          std::fill_n(heads + i * D + h * dV, dV, 0.0f);
          if (weights) std::fill_n(weights + (h * beams * L + i) * S, S, 0.0f);
        }
      }
  }

  struct Layer {
    AttentionBlock self, cross;  // cross: the decoder's only
    FeedForward ffn;
  };

  // The encoder over the rows of `in` (a batch, Sequence::lengths: each sequence its own positions and
  // attention, as BERT's, bert.cpp); buffers.x its output.
  void encoder_layers(Attention& attention, const Sequence& in, const Outputs& out, const LayerBuffers& buffers) const {
    const std::size_t N = in.length, D = c_.hiddenSize, H = c_.numHeads;
    const std::size_t B = in.lengths ? in.batch : 1, *const lengths = in.lengths ? in.lengths : &in.length;
    std::size_t attentionFloats = 0;  // one layer's attention weights, every sequence's
    for (std::size_t s = 0; s < B; ++s) attentionFloats += H * lengths[s] * lengths[s];
    float* const x = buffers.x;
    // 1. Scaled token embeddings plus each sequence's positions 0…S-1.
    for (std::size_t s = 0, first = 0; s < B; first += lengths[s++])
      embed(in.ids + first, lengths[s], 0, x + first * D);
    for (std::size_t l = 0; l < c_.numLayers; ++l) {
      const Layer& b = encoder_[l];
      keep_hidden(out, l, x, N, D);
      // 2. Every head over each whole input, then the output product, then LN of the residual sum.
      linear(attention, N, x, D, *b.self.q, b.self.qBias, buffers.qkv, 3 * D, Epilogue::None);
      float* weights = out.attention ? out.attention + l * attentionFloats : nullptr;
      for (std::size_t s = 0, first = 0; s < B; first += lengths[s++]) {
        self_attention(attention, lengths[s], buffers.qkv + first * 3 * D, D, H, false, buffers.heads + first * D,
                       weights, in.head_mask(s, l, H));
        if (weights) weights += H * lengths[s] * lengths[s];
      }
      keep_head_outputs(attention, out, l, N, buffers.qkv, {H, H, D / H}, buffers.heads, *b.self.out, buffers.a);
      residual(attention, N, buffers.heads, b.self, buffers, x);
      // 3. The feed-forward block.
      feed(attention, N, b.ffn, c_.intermediateSize, buffers, x);
    }
    keep_hidden(out, c_.numLayers, x, N, D);
    std::copy(x, x + N * D, out.lastHiddenState);
  }

  // 4. Each decoder layer's keys and values of the encoder's output (buffers.x, the rows of `in`), once for
  // every step to come: cross[s][l], sequence s's of layer l (batch 1, its positions).
  void cross_keys(Attention& attention, const Sequence& in, const Outputs& out, const LayerBuffers& buffers,
                  std::vector<LayerCaches>& cross) const {
    const std::size_t N = in.length, D = c_.hiddenSize, Hd = c_.decoderHeads, dk = D / Hd;
    const std::size_t B = in.lengths ? in.batch : 1, *const lengths = in.lengths ? in.lengths : &in.length;
    cross.clear();
    for (std::size_t s = 0; s < B; ++s) cross.emplace_back(c_.decoderLayers);
    for (std::size_t l = 0; l < c_.decoderLayers; ++l) {
      const AttentionBlock& cb = decoder_[l].cross;
      linear(attention, N, buffers.x, D, *cb.kv, cb.kvBias, buffers.qkv, 2 * D, Epilogue::None);
      for (std::size_t s = 0, first = 0; s < B; first += lengths[s++]) {
        cross[s][l].configure(1, Hd, dk, dk, lengths[s]);
        cross[s][l].append(lengths[s], buffers.qkv + first * 2 * D, 2 * D, buffers.qkv + first * 2 * D + D, 2 * D);
      }
      // What each cross-attention head would write from each position (its values through its share of O').
      if (out.crossValueNorms)
        head_norms(attention, N, buffers.qkv + D, 2 * D, Hd, 1, dk, *cb.out, buffers.a,
                   out.crossValueNorms + l * Hd * N);
    }
  }

  // The decoder's layers over the N embedded rows of buffers.x: per layer attendSelf(l, qkv, heads) and
  // attendCross(l, q, heads) run the rows' attention (each caller's sequences: beams, or pairs); then the
  // output, tied to the shared embedding, plus final_logits_bias. hiddenStates: the embeddings' output, then
  // each layer's.
  template <class Self, class Cross>
  void decoder_layers(Attention& attention, std::size_t N, const Outputs& out, const LayerBuffers& buffers,
                      const Self& attendSelf, const Cross& attendCross) const {
    const std::size_t D = c_.hiddenSize, H = c_.decoderHeads;
    float* const x = buffers.x;
    // The logit lens: Marian has no final norm, its head is the shared embedding plus final_logits_bias.
    const auto none = [](float*, std::size_t, float*) {};
    for (std::size_t l = 0; l < c_.decoderLayers; ++l) {
      const Layer& b = decoder_[l];
      keep_hidden(out, l, x, N, D);
      keep_layer_logits(attention, out, l, x, D, false, none, *shared_, finalBias_);
      // Causal self-attention.
      linear(attention, N, x, D, *b.self.q, b.self.qBias, buffers.qkv, 3 * D, Epilogue::None);
      attendSelf(l, buffers.qkv, buffers.heads);
      keep_head_outputs(attention, out, l, N, buffers.qkv, {H, H, D / H}, buffers.heads, *b.self.out, buffers.a);
      residual(attention, N, buffers.heads, b.self, buffers, x);
      // Cross-attention: every row's query over its encoder's keys and values.
      linear(attention, N, x, D, *b.cross.q, b.cross.qBias, buffers.qkv, D, Epilogue::None);
      attendCross(l, buffers.qkv, buffers.heads);
      if (out.crossHeadOutputNorms)
        head_norms(attention, N, buffers.heads, D, H, 1, D / H, *b.cross.out, buffers.a,
                   out.crossHeadOutputNorms + l * H * N);
      residual(attention, N, buffers.heads, b.cross, buffers, x);
      // The feed-forward block.
      feed(attention, N, b.ffn, c_.decoderIntermediateSize, buffers, x);
    }
    keep_hidden(out, c_.decoderLayers, x, N, D);
    keep_layer_logits(attention, out, c_.decoderLayers, x, D, false, none, *shared_, finalBias_);
    std::copy(x, x + N * D, out.lastHiddenState);
    if (out.logits) linear(attention, N, x, D, *shared_, finalBias_, out.logits, c_.vocabSize, Epilogue::None);
  }

  // x [L, D] = s·E[ids] + P[first…first+L-1].
  void embed(const std::int32_t* ids, std::size_t L, std::size_t first, float* x) const {
    const std::size_t D = c_.hiddenSize;
    const float* table = position_table();
    for (std::size_t i = 0; i < L; ++i) {
      float* row = x + i * D;
      shared_->column(std::size_t(ids[i]), row);
      const float* p = table + (first + i) * D;
      for (std::size_t k = 0; k < D; ++k) row[k] = row[k] * c_.embedScale + p[k];
    }
  }

  // The sinusoidal positions (see the top of this file), computed once.
  const float* position_table() const {
    if (!positionsReady_) {
      const std::size_t P = c_.maxPositions, D = c_.hiddenSize, half = (D + 1) / 2;
      float* table = positions_->data.data();
      for (std::size_t p = 0; p < P; ++p)
        for (std::size_t j = 0; j < D; ++j) {
          // Column j < half is sin of angle 2j's pair, column j ≥ half the cos of pair (2(j − half) + 1) / 2.
          const std::size_t pair = j < half ? j : j - half;
          const double angle = double(p) / std::pow(10000.0, double(2 * pair) / double(D));
          table[p * D + j] = float(j < half ? std::sin(angle) : std::cos(angle));
        }
      positionsReady_ = true;
    }
    return positions_->floats();
  }

  // x = LN(x + O·heads + b).
  void residual(Attention& attention, std::size_t rows, const float* heads, const AttentionBlock& b,
                const LayerBuffers& buffers, float* x) const {
    const std::size_t D = c_.hiddenSize;
    linear(attention, rows, heads, D, *b.out, b.outBias, buffers.a, D, Epilogue::None);
    layer_norm(x, buffers.a, rows, D, b.lnGain->floats(), b.lnBias->floats(), c_.layerNormEps, x);
  }

  // x = LN(x + W₂·act(W₁x)).
  void feed(Attention& attention, std::size_t rows, const FeedForward& f, std::size_t I, const LayerBuffers& buffers,
            float* x) const {
    const std::size_t D = c_.hiddenSize;
    linear(attention, rows, x, D, *f.fc1, f.fc1Bias, buffers.inner, I, epilogue_of(c_.activation));
    linear(attention, rows, buffers.inner, I, *f.fc2, f.fc2Bias, buffers.a, D, Epilogue::None);
    layer_norm(x, buffers.a, rows, D, f.lnGain->floats(), f.lnBias->floats(), c_.layerNormEps, x);
  }

  Config c_;
  const Slot *shared_ = nullptr, *finalBias_ = nullptr;
  Slot* positions_ = nullptr;
  mutable bool positionsReady_ = false;
  std::vector<Layer> encoder_, decoder_;
};

std::unique_ptr<Network> build(const Config& c, Weights& w) { return std::make_unique<Marian>(c, w); }

}  // namespace

extern const Architecture kMarian;
const Architecture kMarian = {"marian",
                              {"marian"},
                              Kind::EncoderDecoder,
                              true,
                              false,
                              {"model."},
                              {"encoder.embed_tokens.weight", "decoder.embed_tokens.weight", "lm_head.weight",
                               "encoder.embed_positions.weight", "decoder.embed_positions.weight"},
                              read_config,
                              build};

}  // namespace mha::model
