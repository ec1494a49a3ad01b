// Packing of right-hand matrices into kPanel-column panels (kernels.hpp), so
// that the GEMM micro-kernels read B contiguously. Named after the layout they
// read, as XNNPACK's packing functions are: pack_kn takes B as [K, N], pack_nk
// takes Bᵀ as [N, K]. Plain C++: the layout is the same for every build, and
// packing is a copy, not arithmetic. Compiled for speed (pack.cpp), for every caller.
#pragma once

#include <cstddef>

#include "kernels.hpp"

namespace mha {

inline std::size_t panels(std::size_t n) { return (n + kPanel - 1) / kPanel; }

// Floats a packed K × N matrix takes.
inline std::size_t packed_size(std::size_t K, std::size_t N) { return panels(N) * kPanel * K; }

// B [K, N] row-major (leading dimension ldb) → panels [first, last) of its packed form.
void pack_kn_panels(std::size_t K, std::size_t N, const float* B, std::size_t ldb, float* packed, std::size_t first,
                    std::size_t last) noexcept;

// B [K, N] row-major (leading dimension ldb) → every panel.
void pack_kn(std::size_t K, std::size_t N, const float* B, std::size_t ldb, float* packed) noexcept;

// B given as its transpose T [N, K] row-major (leading dimension ldt) → panels of B = Tᵀ
// [K, N]: for QKᵀ, T is K_h, so each panel holds kPanel keys.
void pack_nk(std::size_t K, std::size_t N, const float* T, std::size_t ldt, float* packed) noexcept;

// The same layouts, written a few rows at a time into a packed matrix that
// has room for more (a KV cache, kv_cache.hpp), so appending positions packs
// only the new ones and never moves the old.
//
// Columns [first, first + count) of pack_nk's form of B [K, ·]: T [count, K]
// (leading dimension ldt) holds them as rows, keys for QKᵀ.
void pack_nk_columns(std::size_t K, std::size_t first, std::size_t count, const float* T, std::size_t ldt,
                     float* packed) noexcept;
// Rows [first, first + count) of pack_kn's form of B [·, N] whose panels are
// panelStride floats apart (kPanel times the rows it has room for): B [count,
// N] (leading dimension ldb) holds them, values for A·V.
void pack_kn_rows(std::size_t N, std::size_t first, std::size_t count, const float* B, std::size_t ldb,
                  std::size_t panelStride, float* packed) noexcept;

}  // namespace mha
