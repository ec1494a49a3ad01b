// The 16-bit products (kernels.hpp's half_kernels): the float GEMMs of
// gemm_scalar.hpp and gemm_simd.hpp instantiated for panels of bfloat16 or
// float16 (half.hpp), widened exactly as they are read, so each is bit for
// bit its kernel set's float product on the widened matrix. Compiled into
// the builds with the models only (CMakeLists.txt: MHA_MODEL_SOURCES).
#include <cstdint>

#include "gemm_scalar.hpp"
#include "half.hpp"
#include "kernels.hpp"
#if MHA_WITH_SIMD
#include "gemm_simd.hpp"
#endif

namespace mha {
namespace {

// A 16-bit panel row's column j, from its half_lane() place (kernels.hpp).
template <DType S>
struct HalfRow {
  using T = std::uint16_t;
  static float at(const std::uint16_t* row, std::size_t j) noexcept { return widen(S, row[half_lane(j)]); }
};

#if MHA_WITH_SIMD
using simd::NV;
using simd::Vec;
using Half8 = xsimd::batch<std::uint16_t>;
using Lanes = xsimd::batch<std::int32_t>;
static_assert(Half8::size == kPanel && NV == 2, "a 16-bit panel row is one 128-bit vector, two float vectors");

// A 16-bit panel row (columns c and c + 4 share a 32-bit lane) as its two
// float vectors, widened from one 128-bit load with integer operations.
struct Bf16Panel {
  using T = std::uint16_t;
  using Cursor = simd::RowCursor<Bf16Panel>;
  static void load(const std::uint16_t* row, Vec b[NV]) noexcept {
    const Lanes u = xsimd::bitwise_cast<std::int32_t>(Half8::load_unaligned(row));
    b[0] = xsimd::bitwise_cast<float>(u << 16);                               // columns 0–3: the low halves
    b[1] = xsimd::bitwise_cast<float>(u & Lanes(std::int32_t(0xffff0000u)));  // columns 4–7: the high halves
  }
};

struct F16Panel {
  using T = std::uint16_t;
  using Cursor = simd::RowCursor<F16Panel>;
  // binary16 in the low 16 bits of each lane → float32: exponent and
  // mantissa moved to float32's places, then scaled by 2^112 (15 → 127 of
  // exponent bias), which is exact and makes subnormals normal; infinities
  // and NaNs (exponent 31) get float32's all-ones exponent instead.
  static Vec widen(const Lanes& h) noexcept {
    const Lanes em = (h & Lanes(0x7fff)) << 13, sign = (h & Lanes(0x8000)) << 16;
    const Lanes scaled = xsimd::bitwise_cast<std::int32_t>(xsimd::bitwise_cast<float>(em) * Vec(0x1p112f));
    const Lanes magnitude = xsimd::select(em >= Lanes(0x0f800000), em | Lanes(0x7f800000), scaled);
    return xsimd::bitwise_cast<float>(magnitude | sign);
  }
  static void load(const std::uint16_t* row, Vec b[NV]) noexcept {
    const Lanes u = xsimd::bitwise_cast<std::int32_t>(Half8::load_unaligned(row));
    b[0] = widen(u & Lanes(0xffff));
    b[1] = widen(xsimd::bitwise_cast<std::int32_t>(xsimd::bitwise_cast<std::uint32_t>(u) >> 16));
  }
};
#endif

}  // namespace

const HalfKernels& half_kernels(const Kernels& kernels) noexcept {
  static const HalfKernels plain{scalar::gemm_1x8_scalar<HalfRow<DType::BF16>>,
                                 scalar::gemm_1x8_scalar<HalfRow<DType::F16>>};
#if MHA_WITH_SIMD
  static const HalfKernels vector{simd::gemm_4x8_xsimd<Bf16Panel>, simd::gemm_4x8_xsimd<F16Panel>};
  if (&kernels == &simd_kernels()) return vector;
#endif
  (void)kernels;
  return plain;
}

}  // namespace mha
