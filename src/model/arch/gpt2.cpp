// GPT-2 (model_type "gpt2"): a pre-LN causal decoder.
//
//   x = wte + wpe
//   per block:  x += c_proj(MHA(ln_1 x)) (causal);  x += mlp(ln_2 x)
//   out = ln_f(x)
#include <algorithm>

#include "../blocks/embeddings.hpp"
#include "../blocks/head_outputs.hpp"
#include "../blocks/layer_buffers.hpp"
#include "../blocks/lens.hpp"
#include "../blocks/linear.hpp"
#include "../blocks/norm.hpp"
#include "../blocks/self_attention.hpp"
#include "architecture.hpp"

namespace mha::model {
namespace {

// config.json's activation_function values, in Activation's order.
const std::vector<const char*> kActivations = {"gelu", "gelu_new", "gelu_pytorch_tanh"};

void read_config(ConfigReader& r, Config& c) {
  using L = ModelLimits;
  c.activation =
      r.choice("activation_function", "gelu_new", kActivations) == 0 ? Activation::GeluErf : Activation::GeluTanh;
  r.refuse_boolean("scale_attn_weights", false);
  r.refuse_boolean("scale_attn_by_inverse_layer_idx", true);
  c.numLayers = r.size("n_layer", L::numLayers);
  c.numHeads = r.size("n_head", L::numHeads);
  c.hiddenSize = r.size("n_embd", L::hiddenSize);
  // n_inner null means 4·n_embd; a file without n_positions says n_ctx.
  c.intermediateSize = r.size("n_inner", L::intermediateSize, 4 * std::min(c.hiddenSize, L::hiddenSize));
  c.vocabSize = r.size("vocab_size", L::vocabSize);
  c.maxPositions = r.size("n_positions", L::maxPositions, 0, "n_ctx");
  c.typeVocabSize = 1;
  c.layerNormEps = r.epsilon("layer_norm_epsilon", 1e-5, "layer norm epsilon");
}

class Gpt2 final : public Network {
 public:
  Gpt2(const Config& c, Weights& w) : c_(c) {
    const std::size_t D = c.hiddenSize, I = c.intermediateSize, V = c.vocabSize, P = c.maxPositions;
    checked_product({V, D}, "the token embeddings: vocabSize×hiddenSize");
    checked_product({D, I}, "the MLP's weights: hiddenSize×intermediateSize");
    word_ = w.tensor("wte.weight", {V, D}, w.packed(true, D, V));  // Eᵀ, as the tied head reads it
    w.output_head(word_);
    position_ = w.tensor("wpe.weight", {P, D}, w.plain(P * D));
    for (std::size_t l = 0; l < c.numLayers; ++l) {
      const std::string p = "h." + decimal(l) + ".";
      Layer b{};
      // Conv1D keeps [in, out]: c_attn's columns are Q, then K, then V.
      b.ln1Gain = w.vector(p + "ln_1.weight", D);
      b.ln1Bias = w.vector(p + "ln_1.bias", D);
      b.qkv = w.tensor(p + "attn.c_attn.weight", {D, 3 * D}, w.packed(false, D, 3 * D));
      b.qkvBias = w.vector(p + "attn.c_attn.bias", 3 * D);
      b.out = w.tensor(p + "attn.c_proj.weight", {D, D}, w.packed(false, D, D));
      b.outBias = w.vector(p + "attn.c_proj.bias", D);
      b.ln2Gain = w.vector(p + "ln_2.weight", D);
      b.ln2Bias = w.vector(p + "ln_2.bias", D);
      b.fc1 = w.tensor(p + "mlp.c_fc.weight", {D, I}, w.packed(false, D, I));
      b.fc1Bias = w.vector(p + "mlp.c_fc.bias", I);
      b.fc2 = w.tensor(p + "mlp.c_proj.weight", {I, D}, w.packed(false, I, D));
      b.fc2Bias = w.vector(p + "mlp.c_proj.bias", D);
      layers_.push_back(b);
    }
    lnGain_ = w.vector("ln_f.weight", D);
    lnBias_ = w.vector("ln_f.bias", D);
  }

  double scratch_floats(std::size_t L) const override {
    return LayerBuffers::floats(L, c_.hiddenSize, c_.intermediateSize);
  }

  // hiddenStates: each block's input, then ln_f of the last block's output.
  // With caches, the tokens follow the `past` positions they hold.
  void forward(Attention& attention, const Sequence& in, const Outputs& out, float* scratch,
               LayerCaches* caches) const override {
    const std::size_t L = in.length, D = c_.hiddenSize, I = c_.intermediateSize, H = c_.numHeads;
    const std::size_t past = caches ? (*caches)[0].length() : 0;
    const std::size_t B = in.lengths ? in.batch : 1, *const lengths = in.lengths ? in.lengths : &in.length;
    std::size_t attentionFloats = 0;  // one layer's attention weights, every sequence's
    for (std::size_t s = 0; s < B; ++s) attentionFloats += H * lengths[s] * (past + lengths[s]);
    const float eps = c_.layerNormEps;
    const LayerBuffers buffers(scratch, L, D);
    float *const x = buffers.x, *const a = buffers.a, *const qkv = buffers.qkv, *const heads = buffers.heads,
                 *const inner = buffers.inner;
    const auto norm = [&](float* rows, std::size_t n, float* to) {
      layer_norm(rows, nullptr, n, D, lnGain_->floats(), lnBias_->floats(), eps, to);
    };
    const auto keep = [&](std::size_t index, const float* from) {
      keep_hidden(out, index, from, L, D);
      keep_layer_logits(attention, out, index, from, D, index < c_.numLayers, norm, *word_, nullptr);
    };
    // 1. Token and position embeddings.
    // A batch (Sequence::lengths): each sequence's positions from its past, 0 for Model::forward_batch (no
    // caches), the caches' length for Model::step_beams (a token of each beam).
    std::vector<std::int32_t> positions(in.lengths ? L : 0);
    for (std::size_t s = 0, i = 0; s < B && in.lengths; ++s)
      for (std::size_t p = 0; p < lengths[s]; ++p) positions[i++] = std::int32_t(past + p);
    embed(*word_, *position_, nullptr, in.ids, nullptr, L, in.lengths ? positions.data() : nullptr, past, D, x);
    for (std::size_t l = 0; l < c_.numLayers; ++l) {
      const Layer& b = layers_[l];
      keep(l, x);
      // 2. x += c_proj(causal attention of every head over ln_1 x).
      layer_norm(x, nullptr, L, D, b.ln1Gain->floats(), b.ln1Bias->floats(), eps, a);
      linear(attention, L, a, D, *b.qkv, b.qkvBias, qkv, 3 * D, Epilogue::None);
      keep_query_key(out, l, L, qkv, {H, H, D / H});
      float* weights = out.attention ? out.attention + l * attentionFloats : nullptr;
      if (caches) {
        // One sequence, or the beams of a cache of B items (their rows one after another, lengths alike).
        cached_self_attention(attention, lengths[0], qkv, D, H, (*caches)[l], heads, weights, in.head_mask(0, l, H));
      } else {
        for (std::size_t s = 0, first = 0; s < B; first += lengths[s++]) {
          const std::size_t n = lengths[s];
          self_attention(attention, n, qkv + first * 3 * D, D, H, true, heads + first * D, weights,
                         in.head_mask(s, l, H));
          if (weights) weights += H * n * n;
        }
      }
      keep_head_outputs(attention, out, l, L, qkv, {H, H, D / H}, heads, *b.out, a);
      linear(attention, L, heads, D, *b.out, b.outBias, a, D, Epilogue::None);
      for (std::size_t e = 0; e < L * D; ++e) x[e] += a[e];
      // 3. x += mlp(ln_2 x).
      layer_norm(x, nullptr, L, D, b.ln2Gain->floats(), b.ln2Bias->floats(), eps, a);
      linear(attention, L, a, D, *b.fc1, b.fc1Bias, inner, I, epilogue_of(c_.activation));
      linear(attention, L, inner, I, *b.fc2, b.fc2Bias, a, D, Epilogue::None);
      for (std::size_t e = 0; e < L * D; ++e) x[e] += a[e];
    }
    // 4. ln_f.
    layer_norm(x, nullptr, L, D, lnGain_->floats(), lnBias_->floats(), eps, x);
    keep(c_.numLayers, x);
    std::copy(x, x + L * D, out.lastHiddenState);
    // 5. The language-model head, tied to the token embeddings: logits = x·wteᵀ.
    if (out.logits) {
      const std::size_t rows = logit_rows(out, L);
      linear(attention, rows, x + (L - rows) * D, D, *word_, nullptr, out.logits, c_.vocabSize, Epilogue::None);
    }
  }

  bool has_logits() const override { return true; }

 private:
  struct Layer {
    const Slot *ln1Gain, *ln1Bias, *qkv, *qkvBias, *out, *outBias, *ln2Gain, *ln2Bias, *fc1, *fc1Bias, *fc2, *fc2Bias;
  };
  Config c_;
  const Slot *word_ = nullptr, *position_ = nullptr, *lnGain_ = nullptr, *lnBias_ = nullptr;
  std::vector<Layer> layers_;
};

std::unique_ptr<Network> build(const Config& c, Weights& w) { return std::make_unique<Gpt2>(c, w); }

}  // namespace

extern const Architecture kGpt2;
const Architecture kGpt2 = {"gpt2", {"gpt2"}, Kind::Decoder, true, false, {"transformer."}, {}, read_config, build};

}  // namespace mha::model
