// The Llama family (model_type "llama", "qwen2", "qwen3"): pre-norm causal
// decoders with RMSNorm, rotary positions and a SwiGLU MLP.
//
//   x = E[ids]
//   per layer:  x += o_proj(MHA(RoPE(q), RoPE(k), v of RMSNorm(x)))  (causal, grouped-query)
//               x += down_proj(silu(gate_proj(y)) · up_proj(y)),  y = RMSNorm(x)
//   out = RMSNorm(x);  logits = out · Wᵀ (W: lm_head, or E when tied)
//
// Qwen2 has biases on q, k and v (not on o); Llama has them where
// attention_bias / mlp_bias say; Qwen3 none, but an RMSNorm over each head of
// the queries and keys before RoPE (q_norm, k_norm).
#include <algorithm>

#include "../blocks/activations.hpp"
#include "../blocks/head_outputs.hpp"
#include "../blocks/layer_buffers.hpp"
#include "../blocks/lens.hpp"
#include "../blocks/linear.hpp"
#include "../blocks/norm.hpp"
#include "../blocks/rotary.hpp"
#include "../blocks/self_attention.hpp"
#include "architecture.hpp"

namespace mha::model {
namespace {

// What distinguishes the family's members.
struct Flavour {
  bool qkvBias, outBias, mlpBias, headNorm;
};

Flavour flavour_of(const Config& c) {
  if (c.modelType == "qwen2") return {true, false, false, false};
  if (c.modelType == "qwen3") return {c.qkvBias, c.qkvBias, false, true};
  return {c.qkvBias, c.qkvBias, c.mlpBias, false};
}

// rope_parameters (transformers 5), or the older rope_scaling with a top-level rope_theta.
RopeSettings read_rope(ConfigReader& r) {
  RopeSettings s;
  const char* field = r.has("rope_parameters") ? "rope_parameters" : "rope_scaling";
  ConfigReader rope = r.section(field);
  s.theta = rope.positive("rope_theta", r.positive("rope_theta", 10000.0));
  const char* key = rope.has("rope_type") ? "rope_type" : "type";
  const std::size_t type = rope.choice(key, "default", {"default", "linear", "llama3"});
  s.type = type == 0 ? RopeType::Default : type == 1 ? RopeType::Linear : RopeType::Llama3;
  if (s.type != RopeType::Default) s.factor = rope.positive("factor", 1.0);
  if (s.type == RopeType::Llama3) {
    s.lowFreqFactor = rope.positive("low_freq_factor", 1.0);
    s.highFreqFactor = rope.positive("high_freq_factor", 4.0);
    if (!(s.highFreqFactor > s.lowFreqFactor)) rope.fail("high_freq_factor must be more than low_freq_factor");
    s.originalMaxPositions = rope.positive("original_max_position_embeddings", 8192.0);
  }
  if (rope.has("partial_rotary_factor") && rope.positive("partial_rotary_factor", 1.0) != 1.0)
    rope.fail("partial_rotary_factor other than 1 is not supported");
  return s;
}

void read_config(ConfigReader& r, Config& c) {
  using L = ModelLimits;
  r.choice("hidden_act", "silu", {"silu"});
  // Settings of the family the blocks do not implement, refused by name.
  r.refuse_boolean("use_sliding_window", true);
  c.numLayers = r.size("num_hidden_layers", L::numLayers);
  c.numHeads = r.size("num_attention_heads", L::numHeads);
  c.hiddenSize = r.size("hidden_size", L::hiddenSize);
  c.intermediateSize = r.size("intermediate_size", L::intermediateSize);
  c.vocabSize = r.size("vocab_size", L::vocabSize);
  c.maxPositions = r.size("max_position_embeddings", L::maxPositions);
  c.numKVHeads = r.size("num_key_value_heads", L::numHeads, std::min(c.numHeads, L::numHeads));
  const bool qwen3 = c.modelType == "qwen3";
  c.headDim = r.has("head_dim") ? r.size("head_dim", L::hiddenSize) : qwen3 ? 128 : 0;
  r.finish();
  if (c.numHeads % c.numKVHeads != 0)
    r.fail("num_key_value_heads (" + decimal(c.numKVHeads) + ") must divide num_attention_heads (" +
           decimal(c.numHeads) + ")");
  if (c.headDim == 0) {
    if (c.hiddenSize % c.numHeads != 0)
      r.fail("the hidden size (" + decimal(c.hiddenSize) + ") must be a multiple of the number of heads (" +
             decimal(c.numHeads) + ") when head_dim is not given");
    c.headDim = c.hiddenSize / c.numHeads;
  }
  if (c.headDim % 2 != 0) r.fail("head_dim must be even (rotary positions turn pairs), got " + decimal(c.headDim));
  c.typeVocabSize = 1;
  c.activation = Activation::Silu;
  c.layerNormEps = r.epsilon("rms_norm_eps", 1e-6, "RMSNorm epsilon");
  c.qkvBias = r.flag("attention_bias", false);
  c.mlpBias = r.flag("mlp_bias", false);
  c.tiedHead = r.flag("tie_word_embeddings", false);
  c.rope = read_rope(r);
}

class Llama final : public Network {
 public:
  Llama(const Config& c, Weights& w) : c_(c), f_(flavour_of(c)), layout_{c.numHeads, c.kv_heads(), c.head_dim()} {
    const std::size_t D = c.hiddenSize, I = c.intermediateSize, V = c.vocabSize, hd = c.head_dim();
    const std::size_t Q = c.numHeads * hd, KV = c.kv_heads() * hd, W = layout_.width();
    checked_product({V, D}, "the token embeddings: vocabSize×hiddenSize");
    checked_product({D, 2 * I}, "the MLP's weights: hiddenSize×2·intermediateSize");
    checked_product({D, W}, "the attention's weights: hiddenSize×(heads + 2·key/value heads)·head_dim");
    word_ = w.tensor("embed_tokens.weight", {V, D}, w.packed(true, D, V));  // Eᵀ, as the tied head reads it when tied
    for (std::size_t l = 0; l < c.numLayers; ++l) {
      const std::string p = "layers." + decimal(l) + ".";
      Layer b{};
      b.norm1 = w.vector(p + "input_layernorm.weight", D);
      // nn.Linear keeps [out, in]: q, k and v are the rows of one [W, D] = (W_QKV)ᵀ.
      Slot& qkv = w.packed(true, D, W);
      Slot* qkvBias = f_.qkvBias ? &w.plain(W) : nullptr;
      const std::size_t offsets[] = {0, Q, Q + KV}, widths[] = {Q, KV, KV};
      const char* parts[] = {"q_proj", "k_proj", "v_proj"};
      for (std::size_t i = 0; i < 3; ++i) {
        b.qkv = w.tensor(p + "self_attn." + parts[i] + ".weight", {widths[i], D}, qkv, offsets[i] * D);
        if (qkvBias) b.qkvBias = w.tensor(p + "self_attn." + parts[i] + ".bias", {widths[i]}, *qkvBias, offsets[i]);
      }
      if (f_.headNorm) {
        b.qNorm = w.vector(p + "self_attn.q_norm.weight", hd);
        b.kNorm = w.vector(p + "self_attn.k_norm.weight", hd);
      }
      b.out = w.tensor(p + "self_attn.o_proj.weight", {D, Q}, w.packed(true, Q, D));
      if (f_.outBias) b.outBias = w.vector(p + "self_attn.o_proj.bias", D);
      b.norm2 = w.vector(p + "post_attention_layernorm.weight", D);
      // gate_proj and up_proj: the rows of one [2I, D], gate first.
      Slot& gateUp = w.packed(true, D, 2 * I);
      Slot* gateUpBias = f_.mlpBias ? &w.plain(2 * I) : nullptr;
      b.gateUp = w.tensor(p + "mlp.gate_proj.weight", {I, D}, gateUp, 0);
      w.tensor(p + "mlp.up_proj.weight", {I, D}, gateUp, I * D);
      if (gateUpBias) {
        b.gateUpBias = w.tensor(p + "mlp.gate_proj.bias", {I}, *gateUpBias, 0);
        w.tensor(p + "mlp.up_proj.bias", {I}, *gateUpBias, I);
      }
      b.down = w.tensor(p + "mlp.down_proj.weight", {D, I}, w.packed(true, I, D));
      if (f_.mlpBias) b.downBias = w.vector(p + "mlp.down_proj.bias", D);
      layers_.push_back(b);
    }
    norm_ = w.vector("norm.weight", D);
    if (!c.tiedHead) head_ = w.tensor("lm_head.weight", {V, D}, w.packed(true, D, V));
    w.output_head(head_ ? head_ : word_);
    rotary_ = Rotary(hd, c.rope);
  }

  // x and a [L, D], qkv [L, W], heads [L, H·hd], the MLP's [L, 2I] and [L, I].
  double scratch_floats(std::size_t L) const override {
    const std::size_t D = c_.hiddenSize, I = c_.intermediateSize;
    return double(L) * double(2 * D + layout_.width() + c_.numHeads * c_.head_dim() + 3 * I);
  }

  // hiddenStates: each layer's input, then the final RMSNorm of the last layer's output. A batch: as BERT's
  // (bert.cpp), the attention and the rotary positions per sequence (Model::forward_batch passes no caches).
  void forward(Attention& attention, const Sequence& in, const Outputs& out, float* scratch,
               LayerCaches* caches) const override {
    const std::size_t L = in.length, D = c_.hiddenSize, I = c_.intermediateSize, H = c_.numHeads, hd = c_.head_dim();
    const std::size_t past = caches ? (*caches)[0].length() : 0, W = layout_.width();
    const std::size_t B = in.lengths ? in.batch : 1, *const lengths = in.lengths ? in.lengths : &in.length;
    std::size_t attentionFloats = 0;  // one layer's attention weights, every sequence's
    for (std::size_t s = 0; s < B; ++s) attentionFloats += H * lengths[s] * (past + lengths[s]);
    const float eps = c_.layerNormEps;
    float *const x = scratch, *const a = x + L * D, *const qkv = a + L * D, *const heads = qkv + L * W,
                 *const gateUp = heads + L * H * hd, *const inner = gateUp + 2 * L * I;
    // 1. Token embeddings (no positions: they turn the queries and keys).
    for (std::size_t i = 0; i < L; ++i) word_->column(std::size_t(in.ids[i]), x + i * D);
    const Slot& head = head_ ? *head_ : *word_;
    const auto norm = [&](float* rows, std::size_t n, float* to) {
      rms_norm(rows, nullptr, n, D, norm_->floats(), eps, to);
    };
    for (std::size_t l = 0; l < c_.numLayers; ++l) {
      const Layer& b = layers_[l];
      keep_hidden(out, l, x, L, D);
      keep_layer_logits(attention, out, l, x, D, true, norm, head, nullptr);
      // 2. x += o_proj(causal grouped-query attention over RMSNorm(x), its queries and keys turned by RoPE).
      rms_norm(x, nullptr, L, D, b.norm1->floats(), eps, a);
      linear(attention, L, a, D, *b.qkv, b.qkvBias, qkv, W, Epilogue::None);
      if (f_.headNorm)
        for (std::size_t i = 0; i < L; ++i) {
          float* row = qkv + i * W;
          rms_norm(row, nullptr, H, hd, b.qNorm->floats(), eps, row, hd);
          rms_norm(row + layout_.keys(), nullptr, layout_.G, hd, b.kNorm->floats(), eps, row + layout_.keys(), hd);
        }
      // Each sequence of a batch (Sequence::lengths) turned from its own past (0 for Model::forward_batch, the
      // caches' length for Model::step_beams' beams), attending to itself.
      float* weights = out.attention ? out.attention + l * attentionFloats : nullptr;
      for (std::size_t s = 0, first = 0; s < B; first += lengths[s++]) {
        float* const rows = qkv + first * W;
        rotary_.apply(rows, lengths[s], W, H, past);
        rotary_.apply(rows + layout_.keys(), lengths[s], W, layout_.G, past);
      }
      if (B == 1) keep_query_key(out, l, L, qkv, layout_);
      if (caches)  // one sequence, or the beams of a cache of B items (rows one after another, lengths alike)
        grouped_self_attention(attention, lengths[0], qkv, layout_, true, &(*caches)[l], heads, weights,
                               in.head_mask(0, l, H));
      else
        for (std::size_t s = 0, first = 0; s < B; first += lengths[s++]) {
          const std::size_t n = lengths[s];
          grouped_self_attention(attention, n, qkv + first * W, layout_, true, nullptr, heads + first * H * hd, weights,
                                 in.head_mask(s, l, H));
          if (weights) weights += H * n * n;
        }
      keep_head_outputs(attention, out, l, L, qkv, layout_, heads, *b.out, a);
      linear(attention, L, heads, H * hd, *b.out, b.outBias, a, D, Epilogue::None);
      for (std::size_t e = 0; e < L * D; ++e) x[e] += a[e];
      // 3. x += down_proj(silu(gate_proj(y)) · up_proj(y)), y = RMSNorm(x).
      rms_norm(x, nullptr, L, D, b.norm2->floats(), eps, a);
      linear(attention, L, a, D, *b.gateUp, b.gateUpBias, gateUp, 2 * I, Epilogue::None);
      swiglu(gateUp, L, I, inner);
      linear(attention, L, inner, I, *b.down, b.downBias, a, D, Epilogue::None);
      for (std::size_t e = 0; e < L * D; ++e) x[e] += a[e];
    }
    // 4. The final RMSNorm, then the head.
    rms_norm(x, nullptr, L, D, norm_->floats(), eps, x);
    keep_hidden(out, c_.numLayers, x, L, D);
    keep_layer_logits(attention, out, c_.numLayers, x, D, false, norm, head, nullptr);
    std::copy(x, x + L * D, out.lastHiddenState);
    if (out.logits) {
      const std::size_t rows = logit_rows(out, L);
      linear(attention, rows, x + (L - rows) * D, D, head, nullptr, out.logits, c_.vocabSize, Epilogue::None);
    }
  }

  bool has_logits() const override { return true; }

 private:
  struct Layer {
    const Slot *norm1, *qkv, *qkvBias, *qNorm, *kNorm, *out, *outBias, *norm2, *gateUp, *gateUpBias, *down, *downBias;
  };
  Config c_;
  Flavour f_;
  QkvLayout layout_;
  const Slot *word_ = nullptr, *norm_ = nullptr, *head_ = nullptr;
  std::vector<Layer> layers_;
  Rotary rotary_;
};

std::unique_ptr<Network> build(const Config& c, Weights& w) { return std::make_unique<Llama>(c, w); }

}  // namespace

extern const Architecture kLlama;
const Architecture kLlama = {
    "llama", {"llama", "qwen2", "qwen3"}, Kind::Decoder, true, false, {"model."}, {}, read_config, build};

}  // namespace mha::model
