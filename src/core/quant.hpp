// A weight matrix held in its blocks' integer values (a GGUF file's Q8_0,
// Q5_0, Q4_0, Q4_K, Q5_K and Q6_K tensors, kept as the file quantized them): how
// a packed matrix's panels hold them (this file: the writer, weights.cpp,
// and the kernels, kernels_quant.cpp, read the layout here only), and the
// products that read them (kernels.hpp's QuantKernels).
//
// A panel (kPanel columns of B [K, N], as pack.hpp's) is K / rows blocks of
// `rows` rows; a block is its kPanel columns' scales (float32), then their
// mins (float32; the formats with mins), then its values in groups of 16
// bytes: 2 rows of 8-bit values or 4 rows of 4-bit ones. In a group, the
// 32-bit lane l holds columns l and l + 4 of each row: a byte each (row p's
// at bytes 2p and 2p + 1 of the lane), or a nibble each (row p's at byte p,
// column l in the low nibble). So one 128-bit load and a shift make a row's
// two 4-float vectors, as the 16-bit panels' half_lane() order does.
//
// Element (k, j) stands for scale·q, or scale·q − min: the float32 ggml's
// dequantize_row_* computes (ggml_blocks.hpp; scale·q is exact in float32
// for every type here). The products (kernels_quant.cpp) sum each block's
// a·q first and scale the sum once, so they differ from the float GEMM on
// the dequantized matrix in rounding only, and never by thread count.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dtype.hpp"
#include "kernels.hpp"

namespace mha::quant {

// How a block type's values are held.
enum class Format {
  Q8,     // 8-bit signed values, a scale per 32 rows (Q8_0; Q5_0's 5-bit values − 16)
  Q8x16,  // 8-bit signed values, a scale per 16 rows (Q6_K's 6-bit values − 32)
  Q4,     // 4-bit signed values, a scale per 32 rows (Q4_0's values − 8)
  Q4M,    // 4-bit values, a scale and a min per 32 rows (Q4_K's unsigned values − 8)
  Q8M,    // 8-bit values, a scale and a min per 32 rows (Q5_K's unsigned 5-bit values − 16)
};

// The format a matrix of block type `t` is held in; false for the types held as floats.
constexpr bool held_format(DType t, Format& f) noexcept {
  switch (t) {
    case DType::Q8_0:
    case DType::Q5_0: f = Format::Q8; return true;
    case DType::Q6_K: f = Format::Q8x16; return true;
    case DType::Q4_0: f = Format::Q4; return true;
    case DType::Q4_K: f = Format::Q4M; return true;
    case DType::Q5_K: f = Format::Q8M; return true;
    default: return false;
  }
}

constexpr std::size_t rows_of(Format f) noexcept { return f == Format::Q8x16 ? 16 : 32; }
constexpr bool nibbles(Format f) noexcept { return f == Format::Q4 || f == Format::Q4M; }
constexpr bool has_min(Format f) noexcept { return f == Format::Q4M || f == Format::Q8M; }
// The formats with mins hold ggml's unsigned values less `offset(f)` (Q4_K's 0…15 as −8…7, Q5_K's 0…31 as
// −16…15), so that every format's stored values are signed: the products widen signed values with two shifts,
// where unsigned ones took them twice the time (bench/quant-product.cpp), and add offset·scale·Σa back per block.
constexpr int offset(Format f) noexcept { return f == Format::Q4M ? 8 : f == Format::Q8M ? 16 : 0; }
// Rows per 16-byte group.
constexpr std::size_t group_rows(Format f) noexcept { return nibbles(f) ? 4 : 2; }
// Bytes before a block's values: its scales (and mins).
constexpr std::size_t header_bytes(Format f) noexcept { return (has_min(f) ? 2 : 1) * kPanel * sizeof(float); }
constexpr std::size_t block_size(Format f) noexcept { return header_bytes(f) + rows_of(f) / group_rows(f) * 16; }
// Bytes of one panel of K rows (K a multiple of rows_of(f)), and of a packed [K, N].
constexpr std::size_t panel_bytes(Format f, std::size_t K) noexcept { return K / rows_of(f) * block_size(f); }

// Where value (r, c) of a block (row r < rows_of(f), column c < kPanel) is: its byte from the block's start,
// and for 4-bit values the shift of its nibble (0 or 4).
constexpr std::size_t value_byte(Format f, std::size_t r, std::size_t c) noexcept {
  const std::size_t group = r / group_rows(f), p = r % group_rows(f), lane = c % 4, high = c / 4;
  return header_bytes(f) + group * 16 + 4 * lane + (nibbles(f) ? p : 2 * p + high);
}
constexpr unsigned value_shift(Format f, std::size_t c) noexcept { return nibbles(f) ? unsigned(c / 4) * 4 : 0; }

// Value (r, c) of the block at `block` as ggml's integer (the stored one + offset(f)).
inline int value(Format f, const unsigned char* block, std::size_t r, std::size_t c) noexcept {
  const unsigned char byte = block[value_byte(f, r, c)];
  if (!nibbles(f)) return int(std::int8_t(byte)) + offset(f);
  const int nibble = (byte >> value_shift(f, c)) & 0xf;
  return (nibble >= 8 ? nibble - 16 : nibble) + offset(f);
}

// C = (accumulate ? C : bias or 0) + A·B for B [K, N] held in `f`'s blocks, panels `panelStride` bytes
// apart, K a multiple of rows_of(f): kernels.hpp's GemmFn over the dequantized B, summed block by block.
using GemmQuantFn = void (*)(std::size_t M, std::size_t N, std::size_t K, const float* A, std::size_t lda,
                             const unsigned char* packedB, std::size_t panelStride, const float* bias, bool accumulate,
                             float* C, std::size_t ldc) noexcept;

// A kernel set's products for each format (kernels_quant.cpp, in the model builds only).
struct QuantKernels {
  GemmQuantFn q8, q8x16, q4, q4m, q8m;
  GemmQuantFn of(Format f) const noexcept {
    return f == Format::Q8 ? q8 : f == Format::Q8x16 ? q8x16 : f == Format::Q4 ? q4 : f == Format::Q4M ? q4m : q8m;
  }
};
const QuantKernels& quant_kernels(const Kernels& kernels) noexcept;

}  // namespace mha::quant
