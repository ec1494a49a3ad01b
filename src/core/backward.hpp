// Backward pass of multi-head attention (attention.hpp): the gradients of a
// scalar loss with respect to every input and weight, given the gradient of
// that loss with respect to the output. Training needs nothing else from the
// core; the forward quantities (Q, K, V, the attention weights, the heads)
// are recomputed rather than kept from the forward call, so the caller
// holds no state between the two.
//
// With dY = gradOutput and, per head h, P_h the attention weights:
//   dWO = concatᵀ·dY, dbO = Σ_rows dY, dConcat = dY·WOᵀ
//   dP = dO_h·V_hᵀ, dV_h = P_hᵀ·dO_h, dS = P_h ⊙ (dP − rowsum(dP ⊙ P_h))
//   dQ_h = dS·K_h/√dK, dK_h = dSᵀ·Q_h/√dK
//   dWQ = queryᵀ·dQ, dbQ = Σ_rows dQ, gradQuery = dQ·WQᵀ (and so for K, V).
// Masked keys have P = 0, so they get no gradient; a query row with no usable
// key (zero weights, output bO) passes no gradient to Q, K or V.
#pragma once

#include <cstddef>
#include <vector>

#include "attention.hpp"

namespace mha {

// Where the gradients go, each shaped like the input it belongs to. A null
// pointer means "not wanted" and that gradient is not computed.
struct Gradients {
  // Self-attention (Inputs::key and Inputs::value both point at Inputs::query):
  // `query` receives the whole gradient of the shared input, and `key` and
  // `value` are neither read nor written. Otherwise each gets its own.
  float* query = nullptr;  // [batch, seqLenQ, dModel]
  float* key = nullptr;    // [batch, seqLenK, dModel]
  float* value = nullptr;  // [batch, seqLenK, dModel]
  float* wQ = nullptr;     // [dModel, numHeads*dK]
  float* wK = nullptr;     // [dModel, numHeads*dK]
  float* wV = nullptr;     // [dModel, numHeads*dV]
  float* wO = nullptr;     // [numHeads*dV, dModel]
  // Written only when the matching bias was given in Inputs (a missing bias
  // is a constant 0, not a parameter).
  float* bQ = nullptr;  // [numHeads*dK]
  float* bK = nullptr;  // [numHeads*dK]
  float* bV = nullptr;  // [numHeads*dV]
  float* bO = nullptr;  // [dModel]
};

// True when `in` is self-attention in the sense of Gradients::query.
inline bool is_self_attention(const Inputs& in) noexcept { return in.key == in.query && in.value == in.query; }

// Runs the backward pass on the kernels and threads of a forward engine, so
// that a trainer holds one pool of threads (under Emscripten the number of
// Web Workers is fixed when the module starts). Results are bitwise identical
// for every thread count: no task shares an output element with another, and
// no sum is split between tasks.
class AttentionBackward {
 public:
  explicit AttentionBackward(Attention& engine) : engine_(engine) {}

  // gradOutput: [batch, seqLenQ, dModel]. Inputs as for Attention::forward,
  // with the raw (unpacked) weights.
  void backward(const Dims& dims, const Inputs& in, const float* gradOutput, const Gradients& grads);

  // For a caller whose gradOutput depends on the output (training: the loss
  // is computed from it): the forward runs once, here, and gradientOf(context,
  // output) is called with its output [batch, seqLenQ, dModel] (valid during
  // the call) and returns gradOutput, never null. Saves the caller a forward
  // call of its own. The overload above is this one with a given gradOutput:
  // one instantiation of the computation, so that every build compiles this
  // file once (CMakeLists.txt).
  using GradientOf = const float* (*)(void* context, const float* output);
  void backward(const Dims& dims, const Inputs& in, GradientOf gradientOf, void* context, const Gradients& grads);

  // Bytes of scratch memory a call of these dims needs, for callers that check
  // a size limit before allocating anything. The recomputed forward also uses
  // the engine's scratch: add engine.scratch_bytes_for(dims, true, true).
  double scratch_bytes_for(const Dims& dims, bool selfAttention) const;
  // Bytes of scratch memory held between calls (the forward engine's own
  // scratch, used for the recomputation, is not counted).
  std::size_t scratch_bytes() const noexcept { return scratch_.capacity() * sizeof(float); }
  void release() noexcept { scratch_ = std::vector<float>(); }

 private:
  // The backward pass, with gradOutput = gradientOf(output of the forward it recomputes).
  template <typename GradientSource>
  void compute(const Dims& dims, const Inputs& in, const GradientSource& gradientOf, const Gradients& grads);

  Attention& engine_;
  std::vector<float> scratch_;
};

// One call on the calling thread only (tests, tools).
void multi_head_attention_backward(const Dims& dims, const Inputs& in, const float* gradOutput, const Gradients& grads,
                                   const Kernels& kernels = default_kernels());

}  // namespace mha
