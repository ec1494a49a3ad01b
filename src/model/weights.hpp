// A checkpoint's tensors and where the blocks read them: the one mechanism
// every architecture lays its parameters out with (arch/*.cpp say which
// tensors, this file how they are held). A tensor is written in chunks, in
// order, each element converted as it arrives and stored straight into its
// place: the weights of a product in the GEMM's packed panels (pack.hpp), so
// a checkpoint is never held twice, nor staged. The matrices (every packed
// slot, the token embeddings among them) are held in float32, or in 16 bits
// (DType, half.hpp) for a model twice as large in the same memory, or in the
// blocks of a GGUF file's quantized types (hold(), core/quant.hpp): the GEMM
// widens them exactly as it reads them. Vectors (norms, biases, position
// tables) are float32 always. No Emscripten, no JS.
#pragma once

#include <cstddef>
#include <deque>
#include <string>
#include <vector>

#include "../core/common.hpp"
#include "../core/half.hpp"
#include "../core/thread_pool.hpp"
#include "config.hpp"

namespace mha::model {

// `count` elements of `dtype` (little-endian, any alignment; whole blocks of a block type) as floats.
void to_float(DType dtype, const unsigned char* data, std::size_t count, float* out) noexcept;

// One tensor a checkpoint must hold.
struct Tensor {
  std::string name;                // e.g. "encoder.layer.0.attention.self.query.weight"
  std::vector<std::size_t> shape;  // as stored, e.g. [out, in] for nn.Linear, [in, out] for GPT-2's Conv1D
  std::size_t elements = 0;
  // The slot it fills (tensors that share one are loaded into one matrix),
  // and whether that slot is a matrix (packed: held in the model's DType).
  std::size_t slot = 0;
  bool matrix = false;
  // A checkpoint may leave it out, and it is then zero (Marian's
  // final_logits_bias, which transformers creates as zeros when absent).
  bool optional = false;
  // The optional group it belongs to (0: none): a part of the model read
  // only when the checkpoint holds all of its tensors (BERT's masked-LM head).
  std::size_t group = 0;
  // Whether it is the output head: the matrix the logits are read through (lm_head, or the token
  // embeddings a tied head multiplies by), which Weights::output_head() marks.
  bool outputHead = false;
};

// Where the blocks read a parameter: `plain` floats, or a GEMM's right-hand
// matrix [K, N] packed (pack.hpp) from its file layout, which is [N, K] for
// nn.Linear (packNK) and [K, N] for Conv1D. Several tensors may fill one
// packed slot (BERT's query, key and value weights are one [hiddenSize,
// 3·hiddenSize] product), each at its offset in the slot's file layout. The
// token embeddings are a packed slot too, Eᵀ [hiddenSize, vocabSize], the
// layout a tied output head multiplies by: one copy serves the lookup
// (column()) and the head.
struct Slot {
  // Not zeroed when allocated (Weights::allocate says which elements are).
  Buffer<float> data;            // DType::F32
  Buffer<std::uint16_t> halves;  // DType::BF16, F16 (packed slots only)
  Buffer<unsigned char> blocks;  // a block type's values (packed slots only: quant.hpp's layout)
  DType storage = DType::F32;
  std::size_t size = 0;  // elements of `data` or `halves`, allocated or not (of the matrix for blocks)
  bool packed = false, packNK = false;
  std::size_t K = 0, N = 0;
  std::size_t missing = 0;  // elements not written yet
  // A packed slot's products round their activations as llama.cpp does for its type (Model::round_activations).
  bool roundsActivations = false;
  const float* floats() const noexcept { return data.data(); }
  const std::uint16_t* half_data() const noexcept { return halves.data(); }
  // The bytes it holds once allocated.
  double bytes() const noexcept;
  // Column j of a packed B [K, N] as K floats (row j of an nn.Linear or
  // embedding tensor [N, K]): a token's embedding.
  void column(std::size_t j, float* out) const noexcept;
};

class Weights {
 public:
  // `matrices`: how packed slots are held (vectors are float32 always).
  explicit Weights(DType matrices = DType::F32) noexcept : matrices_(matrices) {}
  DType matrices() const noexcept { return matrices_; }

  // Laying out (an architecture's build()): a slot of n plain floats, or of
  // a packed [K, N] matrix; then the tensors that fill it (at `offset`
  // floats in, for a slot several tensors share).
  Slot& plain(std::size_t n);
  Slot& packed(bool packNK, std::size_t K, std::size_t N);
  const Slot* tensor(std::string name, std::vector<std::size_t> shape, Slot& slot, std::size_t offset = 0);
  // The last tensor laid out may be left out of a checkpoint (Tensor::optional; a plain slot only).
  void optional();
  // The tensors laid out from begin_group() to end_group() are an optional
  // group (Tensor::group); end_group() returns its number, for complete().
  void begin_group();
  std::size_t end_group();
  // Marks the tensors that fill `slot` as the output head (Tensor::outputHead; an architecture's build()).
  void output_head(const Slot* slot) noexcept;
  // Whether every tensor of a group has been written in full.
  bool complete(std::size_t group) const noexcept;
  // A plain vector of n floats filled by one tensor, the commonest case.
  const Slot* vector(std::string name, std::size_t n) { return tensor(std::move(name), {n}, plain(n)); }
  // Asks to hold the matrix tensors()[index] fills in block type `type` (after the layout, before
  // settle()): a file's quantized blocks kept as they are (quant.hpp), or floats quantized into them
  // (ggml_blocks.hpp, quantizable()). False where it cannot be: a type quant.hpp does not hold, a matrix
  // not in nn.Linear's layout [N, K], or whose K is not whole blocks of the type. A matrix several tensors
  // fill (a fused query/key/value) is held only when every one of them asks for the same type.
  bool hold(std::size_t index, DType type);
  // Decides how each slot is held, from hold()'s requests (allocate() and the byte counts read it).
  void settle();
  // How the slot tensors()[index] fills is held.
  DType storage_of(std::size_t index) const noexcept { return places_[index].slot->storage; }
  // Gives every slot its memory (after the layout; bytes_for() skips it).
  void allocate();
  // Brings the packed slots' memory in on the pool's threads side by side, before a load writes it: a
  // first write faults fresh memory in page by page, which on some machines costs far more than the write
  // (a virtual machine here: 11 us a page, 1.2 s of a 406.7 MB checkpoint's first load on one thread), and
  // the faults of several threads run at once. Sets a page's first byte to zero (allocate() leaves the
  // memory as it comes): call it before any write.
  void touch(ThreadPool& pool);
  // Bytes the slots take once allocated.
  double bytes_to_allocate() const noexcept;
  // Whether the products with the packed slots round their activations as llama.cpp does for their type
  // (ggml_blocks.hpp's rounds_activations, round_activations; after settle()).
  void round_activations(bool on) noexcept;

  const std::vector<Tensor>& tensors() const noexcept { return tensors_; }
  // Elements [first, first + count) of tensors()[index] (see Model::write).
  void write(std::size_t index, DType dtype, std::size_t first, std::size_t count, const unsigned char* data);
  std::vector<std::string> missing() const;
  std::size_t bytes() const noexcept;

 private:
  struct Place {
    Slot* slot = nullptr;
    std::size_t offset = 0, written = 0;
  };
  std::deque<Slot> slots_;  // a deque: the architectures' pointers into it stay valid
  std::vector<Tensor> tensors_;
  std::vector<Place> places_;
  std::vector<DType> requested_;  // hold()'s type per tensor (its slot's storage when none)
  DType matrices_;
  bool allocated_ = false;
  std::size_t groups_ = 0, open_ = 0;  // groups made; the one being laid out (0: none)
};

}  // namespace mha::model
