// The two 16-bit float formats checkpoints are stored in, and the rules for
// holding a weight in them (model weights kept 16-bit in memory, widened in
// the GEMM: kernels.hpp). One place for the bit rules, which the scalar
// kernels, the SIMD kernels' tests and the weights' conversion all use:
//   bfloat16: the top half of a float32 (8 exponent bits, 7 mantissa bits);
//   float16:  IEEE binary16 (5 exponent bits, 10 mantissa bits, max 65504).
// Widening is exact for both. Narrowing rounds to nearest, ties to even, as
// torch's .to(torch.bfloat16) and .half() do; a NaN stays a quiet NaN.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "dtype.hpp"

namespace mha {

inline std::uint32_t bits_of(float f) noexcept {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

inline float float_of(std::uint32_t u) noexcept {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

inline float bf16_to_float(std::uint16_t h) noexcept { return float_of(std::uint32_t(h) << 16); }

inline float f16_to_float(std::uint16_t h) noexcept {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  std::uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  if (exponent == 0x1f) return float_of(sign | 0x7f800000u | (mantissa << 13));  // inf, NaN
  if (exponent != 0) return float_of(sign | ((exponent + 112) << 23) | (mantissa << 13));
  if (mantissa == 0) return float_of(sign);  // ±0
  exponent = 113;                            // subnormal: normalize
  while ((mantissa & 0x400u) == 0) mantissa <<= 1, --exponent;
  return float_of(sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13));
}

inline std::uint16_t float_to_bf16(float f) noexcept {
  const std::uint32_t u = bits_of(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return std::uint16_t((u >> 16) | 0x40u);  // NaN, kept quiet
  // Adding 0x7fff plus the kept part's lowest bit rounds to nearest, ties to
  // even; a carry into the exponent is the right result (up to infinity).
  return std::uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

// Beyond ±65504 (after rounding) a float has no float16: the result is ±inf
// and the caller refuses it (weights.cpp names the tensor).
inline std::uint16_t float_to_f16(float f) noexcept {
  const std::uint32_t u = bits_of(f), sign = (u >> 16) & 0x8000u, magnitude = u & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return std::uint16_t(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));  // NaN
  if (magnitude >= 0x477ff000u) return std::uint16_t(sign | 0x7c00u);  // rounds to 65536 or more: inf
  if (magnitude >= 0x38800000u) {                                      // a normal float16 (≥ 2^-14)
    const std::uint32_t rounded = magnitude + 0xfffu + ((magnitude >> 13) & 1u);
    return std::uint16_t(sign | ((rounded - 0x38000000u) >> 13));  // rebias 127 → 15
  }
  if (magnitude < 0x33000000u) return std::uint16_t(sign);  // below half the least subnormal (2^-25): ±0
  // A subnormal float16: the mantissa with its implicit bit, shifted to units
  // of 2^-24, rounded to nearest even (a carry to 2^-14 is the normal it is).
  const std::uint32_t exponent = magnitude >> 23, mantissa = (magnitude & 0x7fffffu) | 0x800000u;
  const std::uint32_t shift = 126 - exponent;  // 14..24: 2^(exponent-127) in units of 2^-24, from 23 bits
  const std::uint32_t kept = mantissa >> shift, rest = mantissa & ((1u << shift) - 1), half = 1u << (shift - 1);
  return std::uint16_t(sign | (kept + (rest > half || (rest == half && (kept & 1u)))));
}

inline float widen(DType s, std::uint16_t h) noexcept { return s == DType::BF16 ? bf16_to_float(h) : f16_to_float(h); }
inline std::uint16_t narrow(DType s, float f) noexcept { return s == DType::BF16 ? float_to_bf16(f) : float_to_f16(f); }

}  // namespace mha
