// Transformer encoders and decoders of the Hugging Face families BERT,
// RoBERTa and GPT-2, on the core's packed GEMM, thread pool and attention.
//
//   BERT / RoBERTa (post-LN):  x = LN(word + position + type)
//                              a = LN₁(x + O·MHA(x));  x = LN₂(a + W₂·gelu(W₁·a))
//   GPT-2 (pre-LN, causal):    x = wte + wpe
//                              x += c_proj(MHA(ln_1 x));  x += mlp(ln_2 x);  out = ln_f(x)
//
// The checkpoint's tensors are this file's business in one place: tensors()
// lists every tensor a checkpoint must hold (Hugging Face's names without the
// bert./roberta./transformer. prefix, shapes as stored), and write() puts one
// where the blocks read it, converting F16/BF16 and packing the weight
// matrices for the GEMM once. The loader (loadModel in src/js/model.mjs) only
// streams bytes. No Emscripten, no JS: this builds natively and to WebAssembly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "../core/attention.hpp"

namespace mha::model {

enum class Family { Bert, Gpt2 };             // RoBERTa is a Bert with positionOffset
enum class Activation { GeluErf, GeluTanh };  // Hugging Face's "gelu" and "gelu_new"
enum class DType { F32, F16, BF16 };          // as safetensors names them

// Bytes of one element of `dtype`.
constexpr std::size_t bytes_of(DType dtype) noexcept { return dtype == DType::F32 ? 4 : 2; }

// The largest value of each size of a Config. src/js reads them through the
// bindings (modelLimits()) and checks config.json against them first.
struct ModelLimits {
  static constexpr std::size_t numLayers = std::size_t{1} << 10;
  static constexpr std::size_t numHeads = std::size_t{1} << 10;
  static constexpr std::size_t hiddenSize = std::size_t{1} << 16;
  static constexpr std::size_t intermediateSize = std::size_t{1} << 18;
  static constexpr std::size_t vocabSize = std::size_t{1} << 24;
  static constexpr std::size_t maxPositions = std::size_t{1} << 16;
  static constexpr std::size_t typeVocabSize = std::size_t{1} << 10;
};

struct Config {
  Family family = Family::Bert;
  std::size_t numLayers = 0, numHeads = 0, hiddenSize = 0, intermediateSize = 0;
  std::size_t vocabSize = 0, maxPositions = 0, typeVocabSize = 0;  // typeVocabSize: Bert only (≥ 1)
  std::size_t positionOffset = 0;  // the first position id: RoBERTa's pad_token_id + 1, else 0
  float layerNormEps = 1e-12f;
  Activation activation = Activation::GeluErf;
};

// `count` elements of `dtype` (little-endian, any alignment) as floats.
void to_float(DType dtype, const unsigned char* data, std::size_t count, float* out) noexcept;

// One tensor a checkpoint must hold.
struct Tensor {
  std::string name;                // e.g. "encoder.layer.0.attention.self.query.weight"
  std::vector<std::size_t> shape;  // as stored, e.g. [out, in] for nn.Linear, [in, out] for GPT-2's Conv1D
  std::size_t elements = 0;
};

struct Outputs {
  float* lastHiddenState = nullptr;  // [L, hiddenSize]
  float* attention = nullptr;        // [numLayers, numHeads, L, L] (rows are queries), or null
  float* hiddenStates = nullptr;     // [numLayers + 1, L, hiddenSize], or null (see forward())
};

class Model {
 public:
  // Checks the config (ArgumentError naming the field) and allocates every parameter.
  explicit Model(const Config& config) : Model(config, true) {}
  // Bytes of the parameters a Model of `config` allocates (their layout, as
  // layout() lays them out), with the constructor's checks; allocates none.
  static double bytes_for(const Config& config);

  const Config& config() const noexcept { return config_; }
  const std::vector<Tensor>& tensors() const noexcept { return tensors_; }

  // Elements [first, first + count) of tensors()[index], from `data` (`dtype`,
  // little-endian, any alignment). A tensor's chunks come in order; the
  // weights of a product are packed when the last of their tensors is complete.
  void write(std::size_t index, DType dtype, std::size_t first, std::size_t count, const unsigned char* data);
  // The tensors not yet written in full (empty: the model can run).
  std::vector<std::string> missing() const;
  // Bytes of parameters held.
  std::size_t bytes() const noexcept;

  // The longest sequence the position embeddings allow.
  std::size_t max_length() const noexcept { return config_.maxPositions - config_.positionOffset; }
  // ArgumentError naming inputIds unless 1 ≤ L ≤ max_length(): the one check
  // of a sequence's length (the bindings ask it before sizing their buffers).
  void check_length(std::size_t L) const;

  // One sequence of L tokens (types: null = all 0). hiddenStates follows
  // Hugging Face's output_hidden_states: BERT, the embeddings' output then
  // each layer's; GPT-2, each block's input then ln_f of the last block's
  // output. Bitwise identical for every thread count of `attention`.
  void forward(Attention& attention, const std::int32_t* ids, const std::int32_t* types, std::size_t L,
               const Outputs& out);

  // Bytes of scratch memory held between calls, and giving it back.
  std::size_t scratch_bytes() const noexcept { return scratch_.capacity() * sizeof(float); }
  void release() noexcept { scratch_.release(); }

 private:
  // Where the blocks read a parameter: `plain` floats, or a GEMM's right-hand
  // matrix [K, N] packed (pack.hpp) from its file layout, which is [N, K] for
  // nn.Linear (packNK) and [K, N] for Conv1D. A packed slot gathers its
  // tensors (BERT's query, key and value weights are one [hiddenSize, 3·hiddenSize]
  // product) in `staging` until the last is complete.
  struct Slot {
    std::vector<float> data;
    std::size_t size = 0;  // floats of `data`, allocated or not
    bool packed = false, packNK = false;
    std::size_t K = 0, N = 0;
    std::size_t missing = 0;  // elements not written yet
    std::vector<float> staging;
  };
  struct Place {
    Slot* slot = nullptr;
    std::size_t offset = 0, written = 0;
  };
  // The parameters of one block, by role (llm.c's named pointers). For BERT
  // ln1 and ln2 follow the attention and the MLP; for GPT-2 they precede them.
  struct Block {
    const Slot *qkv, *qkvBias, *out, *outBias, *ln1Gain, *ln1Bias, *fc1, *fc1Bias, *fc2, *fc2Bias, *ln2Gain, *ln2Bias;
  };

  Model(const Config& config, bool allocate);
  Slot& plain(std::size_t n);
  Slot& packed(bool packNK, std::size_t K, std::size_t N);
  const Slot* tensor(std::string name, std::vector<std::size_t> shape, Slot& slot, std::size_t offset = 0);
  void layout();
  void dense(Attention& attention, std::size_t M, const float* A, std::size_t lda, const Slot& W, const Slot* bias,
             float* C, std::size_t ldc, bool gelu);

  Config config_;
  std::deque<Slot> slots_;  // a deque: blocks_ points into it
  std::vector<Tensor> tensors_;
  std::vector<Place> places_;
  const Slot *word_ = nullptr, *position_ = nullptr, *type_ = nullptr, *lnGain_ = nullptr, *lnBias_ = nullptr;
  std::vector<Block> blocks_;
  FloatBuffer scratch_;
};

}  // namespace mha::model
