// The element types of the model path (DType) and their sizes: F32, F16 and
// BF16 as safetensors names them, and ggml's block types as GGUF files hold
// them. Only names and sizes here: half.hpp has the 16-bit rules,
// src/model/ggml_blocks.hpp decodes ggml's blocks, quant.hpp lays out a
// matrix held in its blocks' values.
#pragma once

#include <cstddef>

namespace mha {

// The element types of the model path: what a checkpoint's tensor holds and
// how the model holds a weight matrix alike (one enum from the file to the
// GEMM). F32, F16 and BF16 as safetensors names them; the rest are ggml's
// block types as GGUF files hold them (src/model/ggml_blocks.hpp decodes
// them; src/core/quant.hpp says how a matrix is held in its blocks' values).
// They cross to JS by name (dtype_name).
enum class DType { F32, F16, BF16, Q8_0, Q4_0, Q5_0, Q4_K, Q5_K, Q6_K };

// A type's elements come in blocks of block_elements(), each block_bytes() long (1 and 4 or 2 for floats).
constexpr std::size_t block_elements(DType t) noexcept {
  return t == DType::F32 || t == DType::F16 || t == DType::BF16     ? 1
         : t == DType::Q4_K || t == DType::Q5_K || t == DType::Q6_K ? 256
                                                                    : 32;
}
constexpr std::size_t block_bytes(DType t) noexcept {
  switch (t) {
    case DType::F32: return 4;
    case DType::F16:
    case DType::BF16: return 2;
    case DType::Q8_0: return 34;
    case DType::Q4_0: return 18;
    case DType::Q5_0: return 22;
    case DType::Q4_K: return 144;
    case DType::Q5_K: return 176;
    case DType::Q6_K: return 210;
  }
  return 0;
}
constexpr bool is_float(DType t) noexcept { return block_elements(t) == 1; }
constexpr const char* dtype_name(DType t) noexcept {
  switch (t) {
    case DType::F32: return "F32";
    case DType::F16: return "F16";
    case DType::BF16: return "BF16";
    case DType::Q8_0: return "Q8_0";
    case DType::Q4_0: return "Q4_0";
    case DType::Q5_0: return "Q5_0";
    case DType::Q4_K: return "Q4_K";
    case DType::Q5_K: return "Q5_K";
    case DType::Q6_K: return "Q6_K";
  }
  return "?";
}

}  // namespace mha
