// ggml's block types (DType Q8_0 … Q6_K: a GGUF file's quantized tensors) as
// ggml/src/ggml-quants.c's dequantize_row_* read them: each block's integer
// values and the scale (and, for the K-quants' 4- and 5-bit types, the min)
// of each of its sub-blocks. The one place of ggml's bit layouts: the
// weights' writer takes the values as they are into a matrix held in blocks
// (core/quant.hpp), or makes floats of them (to_float), each product and
// difference rounded to float32 where ggml's C rounds it, so that the floats
// are ggml's bit for bit; and floats quantized into Q8_0 and Q4_0 blocks as
// ggml's reference quantizers write them. No Emscripten, no JS.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../core/dtype.hpp"

namespace mha::model {

// One block of a ggml type: its block_elements() values q (value i is
// scale[i / sub]·q[i], or scale·q − min[i / sub] where the type has mins).
struct Decoded {
  std::int8_t q[256];
  float scale[16], min[16];
  std::size_t sub = 32;  // values per sub-block (a scale and min each)
  bool hasMin = false;
};

// Block `block` (block_bytes(type) bytes) of ggml type `type` (not a float type).
void decode(DType type, const unsigned char* block, Decoded& out) noexcept;

// `count` elements (whole blocks) of ggml type `type` at `data` as floats, as ggml's dequantize_row_* makes them.
void dequantize(DType type, const unsigned char* data, std::size_t count, float* out) noexcept;

// Whether floats can be written into `type`'s blocks here (quantize()): Q8_0 and Q4_0.
constexpr bool quantizable(DType type) noexcept { return type == DType::Q8_0 || type == DType::Q4_0; }

// `count` floats (whole blocks of 32) as blocks of `type` (quantizable()), as ggml's quantize_row_q8_0_ref and
// quantize_row_q4_0_ref write them: Q8_0's scale amax / 127, Q4_0's the value of largest magnitude / −8, each
// stored as a half; values x / scale rounded (Q8_0: half away from zero; Q4_0: x / scale + 8.5 truncated, at
// most 15), with the float scale's reciprocal as ggml multiplies by it.
void quantize(DType type, const float* x, std::size_t count, unsigned char* out) noexcept;

// Whether a product with a matrix of `weights` rounds its activations first, as llama.cpp's CPU backend does
// (its vec_dot_type), where that was measured to give llama.cpp's numbers (tests/fixtures/gguf: the first
// step's log-probabilities within 3e-6 of llama-server's): Q8_0, Q5_0 and Q4_0 (to Q8_0 blocks) and BF16.
// Not F16 nor the K-quants: rounding to f16 or to Q8_K blocks, as ggml's generic code does, took the results
// further from that llama.cpp build's (on an x86 machine with AMX and AVX-512, which picks other kernels).
bool rounds_activations(DType weights) noexcept;

// A row of `count` activations rounded as llama.cpp rounds them before a product with a matrix of `weights`,
// as floats: for Q8_0, Q5_0 and Q4_0 to Q8_0 blocks of 32 as x86's quantize_row_q8_0 (scale amax / 127 kept
// as a half, values x · (127 / amax) rounded half to even, each value scale · q); for BF16 to bf16; else as
// they are. `count`: whole blocks.
void round_activations(DType weights, const float* x, std::size_t count, float* out) noexcept;

}  // namespace mha::model
