#include "linear.hpp"

#include "../../core/tiles.hpp"
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
      if (W.storage == DType::F32)
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
  product(attention, M, A, lda, W, 0, W.K, bias, C, ldc, epilogue);
}

void linear_rows(Attention& attention, std::size_t M, const float* A, std::size_t lda, const Slot& W, std::size_t first,
                 std::size_t count, float* C, std::size_t ldc) {
  if (first > W.K || count > W.K - first) throw ArgumentError("linear_rows: rows past the matrix");
  product(attention, M, A, lda, W, first, count, nullptr, C, ldc, Epilogue::None);
}

}  // namespace mha::model
