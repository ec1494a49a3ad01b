#include "linear.hpp"

#include "../../core/tiles.hpp"
#include "activations.hpp"

namespace mha::model {

void linear(Attention& attention, std::size_t M, const float* A, std::size_t lda, const Slot& W, const Slot* bias,
            float* C, std::size_t ldc, Epilogue epilogue) {
  const Kernels& kern = attention.kernels();
  const std::size_t K = W.K, N = W.N;
  const Tiles tiles(M, N);
  void (*const activation)(float*, std::size_t) noexcept = epilogue == Epilogue::GeluErf    ? gelu_erf
                                                           : epilogue == Epilogue::GeluTanh ? gelu_tanh
                                                           : epilogue == Epilogue::Silu     ? silu
                                                                                            : relu;
  const bool parallel =
      2.0 * double(M) * double(N) * double(K) >= kParallelFlops || double(K) * double(N) >= kParallelWeights;
  run_tasks(attention.pool(), parallel, tiles.count(), [&](std::size_t t, std::size_t) {
    const Tile tile = tiles[t];
    float* c = C + tile.row * ldc + tile.column;
    kern.gemm(tile.rows, tile.columns, K, A + tile.row * lda, lda, W.floats() + tile.column * K, K * kPanel,
              bias ? bias->floats() + tile.column : nullptr, false, c, ldc);
    if (epilogue != Epilogue::None)
      for (std::size_t r = 0; r < tile.rows; ++r) activation(c + r * ldc, tile.columns);
  });
}

}  // namespace mha::model
