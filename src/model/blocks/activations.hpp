// The activations of the Transformer blocks (GELU, SiLU, ReLU), vectorized where the build has SIMD
// (xsimd's erf and tanh; WASM SIMD128 under em++). Only the model builds
// compile it, so the attention builds stay small.
#pragma once

#include <cstddef>

namespace mha::model {

// x[j] = gelu(x[j]) in place. Exact: x/2·(1 + erf(x/√2)), Hugging Face's
// "gelu"; tanh: x/2·(1 + tanh(√(2/π)·(x + 0.044715x³))), its "gelu_new".
// Each element's result does not depend on n or on where it lies in x.
void gelu_erf(float* x, std::size_t n) noexcept;
void gelu_tanh(float* x, std::size_t n) noexcept;
// SiLU (Hugging Face's "swish" and "silu"): x·sigmoid(x) = x/(1 + e^−x); ReLU: max(x, 0).
void silu(float* x, std::size_t n) noexcept;
// SwiGLU (Llama's MLP): out[r, i] = silu(gateUp[r, i]) · gateUp[r, I + i] for
// `rows` rows of [gate I | up I] (one product of gate_proj and up_proj).
void swiglu(const float* gateUp, std::size_t rows, std::size_t I, float* out) noexcept;
void relu(float* x, std::size_t n) noexcept;

}  // namespace mha::model
