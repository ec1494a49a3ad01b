#include "linear.hpp"

#include <algorithm>
#include <vector>

#include "../../core/pack.hpp"
#include "../../core/quant.hpp"
#include "../../core/tiles.hpp"
#include "../ggml_blocks.hpp"
#include "activations.hpp"
#include "profile.hpp"

namespace mha::model {

namespace {

// C = A·W[first, first + count) + bias, then the epilogue: linear() is the whole of W (first 0, count K).
// Panel p of W holds its K rows of kPanel columns one after another (kernels.hpp), so row `first` of a
// panel is first·kPanel elements into it, and the panels stay K·kPanel apart.
void product(Attention& attention, std::size_t M, const float* A, std::size_t lda, const Slot& W, std::size_t first,
             std::size_t count, const Slot* bias, float* C, std::size_t ldc, Epilogue epilogue) {
  const Kernels& kern = attention.kernels();
  const HalfKernels& half = half_kernels(kern);
  quant::Format format;
  const bool blocks = quant::held_format(W.storage, format);
  const quant::GemmQuantFn gemmQuant = blocks ? quant::quant_kernels(kern).of(format) : nullptr;
  const std::size_t R = blocks ? quant::rows_of(format) : 1, panelBytes = blocks ? quant::panel_bytes(format, W.K) : 0;
  const std::size_t K = W.K, N = W.N;
  const Tiles tiles(M, N);
  void (*const activation)(float*, std::size_t) noexcept = epilogue == Epilogue::GeluErf    ? gelu_erf
                                                           : epilogue == Epilogue::GeluTanh ? gelu_tanh
                                                           : epilogue == Epilogue::Silu     ? silu
                                                                                            : relu;
  const bool parallel =
      2.0 * double(M) * double(N) * double(count) >= kParallelFlops || double(count) * double(N) >= kParallelWeights;
  run_tasks(attention.pool(), parallel, tiles.count(), [&](std::size_t t, std::size_t) {
    const Tile tile = tiles[t];
    float* c = C + tile.row * ldc + tile.column;
    const float* a = A + tile.row * lda;
    const float* b = bias ? bias->floats() + tile.column : nullptr;
    const std::size_t at = tile.column * K + first * kPanel;
    {
      MHA_BLOCK(linear);
      if (blocks)
        gemmQuant(tile.rows, tile.columns, count, a, lda,
                  W.blocks.data() + tile.column / kPanel * panelBytes + first / R * quant::block_size(format),
                  panelBytes, b, false, c, ldc);
      else if (W.storage == DType::F32)
        kern.gemm(tile.rows, tile.columns, count, a, lda, W.floats() + at, K * kPanel, b, false, c, ldc);
      else
        (W.storage == DType::BF16 ? half.bf16 : half.f16)(tile.rows, tile.columns, count, a, lda, W.half_data() + at,
                                                          K * kPanel, b, false, c, ldc);
    }
    if (epilogue != Epilogue::None) {
      MHA_BLOCK(activation);
      for (std::size_t r = 0; r < tile.rows; ++r) activation(c + r * ldc, tile.columns);
    }
  });
}

}  // namespace

void linear(Attention& attention, std::size_t M, const float* A, std::size_t lda, const Slot& W, const Slot* bias,
            float* C, std::size_t ldc, Epilogue epilogue) {
  if (W.roundsActivations) {
    // The rows as llama.cpp multiplies them by a matrix of this type (ggml_blocks.hpp), one after another.
    std::vector<float> rounded(M * W.K);
    for (std::size_t r = 0; r < M; ++r) round_activations(W.storage, A + r * lda, W.K, rounded.data() + r * W.K);
    product(attention, M, rounded.data(), W.K, W, 0, W.K, bias, C, ldc, epilogue);
    return;
  }
  product(attention, M, A, lda, W, 0, W.K, bias, C, ldc, epilogue);
}

void linear_rows(Attention& attention, std::size_t M, const float* A, std::size_t lda, const Slot& W, std::size_t first,
                 std::size_t count, float* C, std::size_t ldc) {
  if (first > W.K || count > W.K - first) throw ArgumentError("linear_rows: rows past the matrix");
  quant::Format format;
  if (quant::held_format(W.storage, format) &&
      (first % quant::rows_of(format) != 0 || count % quant::rows_of(format) != 0)) {
    // Rows that cut a matrix's blocks: those rows as floats (the values the blocks' product reads), packed.
    Slot rows;
    rows.packed = rows.packNK = true;
    rows.K = count;
    rows.N = W.N;
    rows.data.resize(packed_size(count, W.N));
    std::vector<float> column(W.K), part(count * W.N);
    for (std::size_t j = 0; j < W.N; ++j) {
      W.column(j, column.data());
      std::copy_n(column.data() + first, count, part.data() + j * count);
    }
    pack_nk(count, W.N, part.data(), count, rows.data.data());
    product(attention, M, A, lda, rows, 0, count, nullptr, C, ldc, Epilogue::None);
    return;
  }
  product(attention, M, A, lda, W, first, count, nullptr, C, ldc, Epilogue::None);
}

}  // namespace mha::model
