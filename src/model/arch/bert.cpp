// BERT and the architectures of its exact shape (model_type "bert",
// "roberta", "xlm-roberta", "camembert"): post-LN encoders.
//
//   x = LN(word + position + type)
//   per layer:  a = LN₁(x + O·MHA(x));  x = LN₂(a + W₂·gelu(W₁·a))
//
// RoBERTa's design (roberta, xlm-roberta, camembert) is BERT's blocks with
// positions as transformers' create_position_ids_from_input_ids numbers
// them: a token's position is pad_token_id + 1 + the count of non-pad tokens
// before it, and a <pad> token's is pad_token_id (it does not advance).
#include <algorithm>
#include <cmath>
#include <utility>

#include "../blocks/embeddings.hpp"
#include "../blocks/head_outputs.hpp"
#include "../blocks/layer_buffers.hpp"
#include "../blocks/linear.hpp"
#include "../blocks/norm.hpp"
#include "../blocks/self_attention.hpp"
#include "architecture.hpp"

namespace mha::model {
namespace {

// config.json's hidden_act values, in Activation's order.
const std::vector<const char*> kActivations = {"gelu", "gelu_new", "gelu_pytorch_tanh"};

// The task head config.json's architectures name (BertForSequenceClassification, RobertaForTokenClassification
// …, by the model_type's class prefix), with its outputs: id2label's labels "0" … "n − 1" (transformers writes
// it for every config; 2 when absent, its default num_labels); question answering's are its start and end.
void read_task_head(ConfigReader& r, Config& c) {
  const std::string family = c.modelType == "bert"          ? "Bert"
                             : c.modelType == "roberta"     ? "Roberta"
                             : c.modelType == "xlm-roberta" ? "XLMRoberta"
                                                            : "Camembert";
  const std::pair<const char*, TaskHead> heads[] = {{"ForSequenceClassification", TaskHead::SequenceClassification},
                                                    {"ForTokenClassification", TaskHead::TokenClassification},
                                                    {"ForQuestionAnswering", TaskHead::QuestionAnswering}};
  for (const auto& [suffix, head] : heads)
    if (r.lists("architectures", (family + suffix).c_str())) c.taskHead = head;
  if (c.taskHead == TaskHead::None) return;
  const ConfigReader labels = r.section("id2label");
  std::size_t n = 0;
  while (n < ModelLimits::vocabSize && labels.has(decimal(n).c_str())) ++n;
  c.numLabels = r.has("id2label") ? n : 2;
  if (c.numLabels == 0) r.fail("id2label: expected labels \"0\" … \"n − 1\" of the task head, got none");
  if (c.taskHead == TaskHead::QuestionAnswering && c.numLabels != 2)
    r.fail("id2label: a question-answering head has 2 outputs (start, end), got " + decimal(c.numLabels));
}

void read_config(ConfigReader& r, Config& c) {
  using L = ModelLimits;
  c.activation = r.choice("hidden_act", "gelu", kActivations) == 0 ? Activation::GeluErf : Activation::GeluTanh;
  r.choice("position_embedding_type", "absolute", {"absolute"});
  const bool roberta = c.modelType != "bert";
  const std::size_t pad = r.id("pad_token_id", roberta ? 1 : 0);
  c.numLayers = r.size("num_hidden_layers", L::numLayers);
  c.numHeads = r.size("num_attention_heads", L::numHeads);
  c.hiddenSize = r.size("hidden_size", L::hiddenSize);
  c.intermediateSize = r.size("intermediate_size", L::intermediateSize);
  c.vocabSize = r.size("vocab_size", L::vocabSize);
  c.maxPositions = r.size("max_position_embeddings", L::maxPositions);
  c.typeVocabSize = r.size("type_vocab_size", L::typeVocabSize, 2);
  r.finish();
  // RoBERTa numbers positions from pad_token_id + 1 (see the top of this file).
  c.positionOffset = roberta ? pad + 1 : 0;
  c.padTokenId = roberta ? pad : Config::kNoPad;
  if (c.positionOffset >= c.maxPositions) r.fail("pad_token_id " + decimal(pad) + " leaves no position for a token");
  c.layerNormEps = r.epsilon("layer_norm_eps", 1e-12, "layer norm epsilon");
  // BertForMaskedLM's head (cls.predictions), which a checkpoint saved by that class carries.
  c.maskedLM = !roberta && r.lists("architectures", "BertForMaskedLM");
  read_task_head(r, c);
}

class Bert final : public Network {
 public:
  Bert(const Config& c, Weights& w) : c_(c) {
    const std::size_t D = c.hiddenSize, I = c.intermediateSize, V = c.vocabSize, P = c.maxPositions;
    checked_product({V, D}, "the token embeddings: vocabSize×hiddenSize");
    checked_product({D, I}, "the MLP's weights: hiddenSize×intermediateSize");
    word_ = w.tensor("embeddings.word_embeddings.weight", {V, D},
                     w.packed(true, D, V));  // Eᵀ, as the tied head reads it (masked LM)
    // The output head whether or not the checkpoint has the masked-LM head, as llama-quantize counts the token
    // embeddings of a model without output.weight.
    w.output_head(word_);
    position_ = w.tensor("embeddings.position_embeddings.weight", {P, D}, w.plain(P * D));
    type_ = w.tensor("embeddings.token_type_embeddings.weight", {c.typeVocabSize, D}, w.plain(c.typeVocabSize * D));
    lnGain_ = w.vector("embeddings.LayerNorm.weight", D);
    lnBias_ = w.vector("embeddings.LayerNorm.bias", D);
    for (std::size_t l = 0; l < c.numLayers; ++l) {
      const std::string p = "encoder.layer." + decimal(l) + ".";
      Layer b{};
      // nn.Linear keeps [out, in]: query, key and value are the rows of one [3D, D] = (W_QKV)ᵀ.
      Slot& qkv = w.packed(true, D, 3 * D);
      Slot& qkvBias = w.plain(3 * D);
      const char* parts[] = {"query", "key", "value"};
      for (std::size_t i = 0; i < 3; ++i) {
        b.qkv = w.tensor(p + "attention.self." + parts[i] + ".weight", {D, D}, qkv, i * D * D);
        b.qkvBias = w.tensor(p + "attention.self." + parts[i] + ".bias", {D}, qkvBias, i * D);
      }
      b.out = w.tensor(p + "attention.output.dense.weight", {D, D}, w.packed(true, D, D));
      b.outBias = w.vector(p + "attention.output.dense.bias", D);
      b.ln1Gain = w.vector(p + "attention.output.LayerNorm.weight", D);
      b.ln1Bias = w.vector(p + "attention.output.LayerNorm.bias", D);
      b.fc1 = w.tensor(p + "intermediate.dense.weight", {I, D}, w.packed(true, D, I));
      b.fc1Bias = w.vector(p + "intermediate.dense.bias", I);
      b.fc2 = w.tensor(p + "output.dense.weight", {D, I}, w.packed(true, I, D));
      b.fc2Bias = w.vector(p + "output.dense.bias", D);
      b.ln2Gain = w.vector(p + "output.LayerNorm.weight", D);
      b.ln2Bias = w.vector(p + "output.LayerNorm.bias", D);
      layers_.push_back(b);
    }
    if (c.maskedLM) {
      // cls.predictions: transform (dense, the activation, LayerNorm), then the word embeddings' transpose plus
      // bias. Read when the checkpoint holds all of it (one saved by BertForMaskedLM does), else left out.
      w.begin_group();
      mlmDense_ = w.tensor("cls.predictions.transform.dense.weight", {D, D}, w.packed(true, D, D));
      mlmDenseBias_ = w.vector("cls.predictions.transform.dense.bias", D);
      mlmLnGain_ = w.vector("cls.predictions.transform.LayerNorm.weight", D);
      mlmLnBias_ = w.vector("cls.predictions.transform.LayerNorm.bias", D);
      mlmBias_ = w.vector("cls.predictions.bias", V);
      mlmGroup_ = w.end_group();
    }
    if (c.taskHead != TaskHead::None) lay_out_task_head(c, w);
    weights_ = &w;
  }

  double scratch_floats(std::size_t L) const override {
    return LayerBuffers::floats(L, c_.hiddenSize, c_.intermediateSize);
  }

  bool has_logits() const override { return c_.maskedLM && weights_->complete(mlmGroup_); }
  TaskHead task_head() const override {
    return c_.taskHead != TaskHead::None && weights_->complete(headGroup_) ? c_.taskHead : TaskHead::None;
  }

  // hiddenStates: the embeddings' output, then each layer's. A batch (Sequence::lengths) is the same passes
  // over its N packed rows, but the attention, per sequence over its own rows: every product and norm computes
  // a row from that row alone (the gemm kernels sum each element in one order whatever rows share its tile,
  // core/tiles.hpp), so each sequence's results are bit for bit its own call's.
  // (An encoder keeps no state: Model never passes it caches.)
  void forward(Attention& attention, const Sequence& in, const Outputs& out, float* scratch,
               LayerCaches*) const override {
    const std::size_t L = in.length, D = c_.hiddenSize, I = c_.intermediateSize, H = c_.numHeads;
    const std::size_t B = in.lengths ? in.batch : 1, *const lengths = in.lengths ? in.lengths : &in.length;
    std::size_t attentionFloats = 0;  // one layer's attention weights, every sequence's
    for (std::size_t b = 0; b < B; ++b) attentionFloats += H * lengths[b] * lengths[b];
    const float eps = c_.layerNormEps;
    const LayerBuffers buffers(scratch, L, D);
    float *const x = buffers.x, *const a = buffers.a, *const qkv = buffers.qkv, *const heads = buffers.heads,
                 *const inner = buffers.inner;
    const auto keep = [&](std::size_t index, const float* from) { keep_hidden(out, index, from, L, D); };
    // 1. Embeddings, normalized; RoBERTa's positions skip its <pad> tokens. Each sequence's from the first.
    std::vector<std::int32_t> positions(L);
    for (std::size_t b = 0, i = 0; b < B; ++b) {
      std::int32_t next = std::int32_t(c_.positionOffset);
      for (const std::size_t end = i + lengths[b]; i < end; ++i)
        positions[i] = c_.padTokenId != Config::kNoPad && in.ids[i] == std::int32_t(c_.padTokenId)
                           ? std::int32_t(c_.padTokenId)
                           : next++;
    }
    embed(*word_, *position_, type_, in.ids, in.types, L, positions.data(), 0, D, x);
    layer_norm(x, nullptr, L, D, lnGain_->floats(), lnBias_->floats(), eps, x);
    for (std::size_t l = 0; l < c_.numLayers; ++l) {
      const Layer& b = layers_[l];
      keep(l, x);
      // 2. Attention of every head over each whole sequence, then O, then LN₁ of the residual sum.
      linear(attention, L, x, D, *b.qkv, b.qkvBias, qkv, 3 * D, Epilogue::None);
      keep_query_key(out, l, L, qkv, {H, H, D / H});
      float* weights = out.attention ? out.attention + l * attentionFloats : nullptr;
      for (std::size_t s = 0, first = 0; s < B; first += lengths[s++]) {
        const std::size_t n = lengths[s];
        self_attention(attention, n, qkv + first * 3 * D, D, H, false, heads + first * D, weights,
                       in.head_mask(s, l, H));
        if (weights) weights += H * n * n;
      }
      keep_head_outputs(attention, out, l, L, qkv, {H, H, D / H}, heads, *b.out, a);
      linear(attention, L, heads, D, *b.out, b.outBias, a, D, Epilogue::None);
      layer_norm(x, a, L, D, b.ln1Gain->floats(), b.ln1Bias->floats(), eps, x);
      // 3. The MLP, then LN₂ of the residual sum.
      linear(attention, L, x, D, *b.fc1, b.fc1Bias, inner, I, epilogue_of(c_.activation));
      linear(attention, L, inner, I, *b.fc2, b.fc2Bias, a, D, Epilogue::None);
      layer_norm(x, a, L, D, b.ln2Gain->floats(), b.ln2Bias->floats(), eps, x);
    }
    keep(c_.numLayers, x);
    std::copy(x, x + L * D, out.lastHiddenState);
    // 4. The masked-LM head: logits = LN(act(dense x)) · Eᵀ + bias (rows of the last logitRows tokens).
    if (out.logits) {
      const std::size_t rows = logit_rows(out, L), first = L - rows;
      linear(attention, rows, x + first * D, D, *mlmDense_, mlmDenseBias_, a, D, epilogue_of(c_.activation));
      layer_norm(a, nullptr, rows, D, mlmLnGain_->floats(), mlmLnBias_->floats(), eps, a);
      linear(attention, rows, a, D, *word_, mlmBias_, out.logits, c_.vocabSize, Epilogue::None);
    }
    // 5. The task head: the first token's row ([CLS], <s>) through dense and tanh, then the labels' product
    // (sequence classification); or every row's labels (token classification; question answering's start, end).
    if (out.taskLogits) {
      const std::size_t N = c_.numLabels;
      if (c_.taskHead == TaskHead::SequenceClassification) {
        // Each sequence's first row, gathered (a batch's B rows).
        for (std::size_t s = 0, first = 0; s < B; first += lengths[s++])
          std::copy(x + first * D, x + (first + 1) * D, heads + s * D);
        linear(attention, B, heads, D, *headDense_, headDenseBias_, a, D, Epilogue::None);
        for (std::size_t i = 0; i < B * D; ++i) a[i] = std::tanh(a[i]);
        linear(attention, B, a, D, *head_, headBias_, out.taskLogits, N, Epilogue::None);
      } else {
        linear(attention, L, x, D, *head_, headBias_, out.taskLogits, N, Epilogue::None);
      }
    }
  }

 private:
  // The task head's tensors, an optional group (read when the checkpoint holds all of them). Sequence
  // classification: BERT's pooler (dense, tanh) and classifier; RoBERTa's classifier.dense and .out_proj.
  void lay_out_task_head(const Config& c, Weights& w) {
    const std::size_t D = c.hiddenSize, N = c.numLabels;
    const bool roberta = c.modelType != "bert";
    std::string out = c.taskHead == TaskHead::QuestionAnswering ? "qa_outputs." : "classifier.";
    w.begin_group();
    if (c.taskHead == TaskHead::SequenceClassification) {
      const std::string dense = roberta ? "classifier.dense." : "pooler.dense.";
      headDense_ = w.tensor(dense + "weight", {D, D}, w.packed(true, D, D));
      headDenseBias_ = w.vector(dense + "bias", D);
      if (roberta) out = "classifier.out_proj.";
    }
    head_ = w.tensor(out + "weight", {N, D}, w.packed(true, D, N));
    headBias_ = w.vector(out + "bias", N);
    headGroup_ = w.end_group();
  }

  struct Layer {
    const Slot *qkv, *qkvBias, *out, *outBias, *ln1Gain, *ln1Bias, *fc1, *fc1Bias, *fc2, *fc2Bias, *ln2Gain, *ln2Bias;
  };
  Config c_;
  const Slot *word_ = nullptr, *position_ = nullptr, *type_ = nullptr, *lnGain_ = nullptr, *lnBias_ = nullptr;
  std::vector<Layer> layers_;
  const Slot *mlmDense_ = nullptr, *mlmDenseBias_ = nullptr, *mlmLnGain_ = nullptr, *mlmLnBias_ = nullptr,
             *mlmBias_ = nullptr;
  const Weights* weights_ = nullptr;  // (Model's, which outlives this) to ask whether a head was read
  std::size_t mlmGroup_ = 0;
  const Slot *headDense_ = nullptr, *headDenseBias_ = nullptr, *head_ = nullptr, *headBias_ = nullptr;
  std::size_t headGroup_ = 0;
};

std::unique_ptr<Network> build(const Config& c, Weights& w) { return std::make_unique<Bert>(c, w); }

}  // namespace

extern const Architecture kBert;
const Architecture kBert = {"bert",
                            {"bert", "roberta", "xlm-roberta", "camembert"},
                            Kind::Encoder,
                            false,
                            true,
                            {"bert.", "roberta."},
                            {},
                            read_config,
                            build};

}  // namespace mha::model
