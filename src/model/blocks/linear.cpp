#include "linear.hpp"

#include "../../core/tiles.hpp"
#include "activations.hpp"
#include "profile.hpp"

namespace mha::model {

void linear(Attention& attention, std::size_t M, const float* A, std::size_t lda, const Slot& W, const Slot* bias,
            float* C, std::size_t ldc, Epilogue epilogue) {
  const Kernels& kern = attention.kernels();
  const HalfKernels& half = half_kernels(kern);
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
    const float* a = A + tile.row * lda;
    const float* b = bias ? bias->floats() + tile.column : nullptr;
    {
      MHA_BLOCK(linear);
      if (W.storage == DType::F32)
        kern.gemm(tile.rows, tile.columns, K, a, lda, W.floats() + tile.column * K, K * kPanel, b, false, c, ldc);
      else
        (W.storage == DType::BF16 ? half.bf16 : half.f16)(
            tile.rows, tile.columns, K, a, lda, W.half_data() + tile.column * K, K * kPanel, b, false, c, ldc);
    }
    if (epilogue != Epilogue::None) {
      MHA_BLOCK(activation);
      for (std::size_t r = 0; r < tile.rows; ++r) activation(c + r * ldc, tile.columns);
    }
  });
}

}  // namespace mha::model
