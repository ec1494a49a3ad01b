#include "head_outputs.hpp"

#include <cmath>

#include "linear.hpp"

namespace mha::model {

void head_norms(Attention& attention, std::size_t rows, const float* vectors, std::size_t ld, std::size_t H,
                std::size_t share, std::size_t headDim, const Slot& wO, float* scratch, float* norms) {
  const std::size_t D = wO.N;
  for (std::size_t h = 0; h < H; ++h) {
    linear_rows(attention, rows, vectors + h / share * headDim, ld, wO, h * headDim, headDim, scratch, D);
    for (std::size_t r = 0; r < rows; ++r) {
      const float* f = scratch + r * D;
      double sum = 0;
      for (std::size_t e = 0; e < D; ++e) sum += double(f[e]) * double(f[e]);
      norms[h * rows + r] = float(std::sqrt(sum));
    }
  }
}

void keep_head_outputs(Attention& attention, const Outputs& out, std::size_t layer, std::size_t L, const float* qkv,
                       const QkvLayout& layout, const float* heads, const Slot& wO, float* scratch) {
  if (!out.valueNorms) return;
  const std::size_t H = layout.H, hd = layout.headDim, at = layer * H * L;
  head_norms(attention, L, qkv + layout.values(), layout.width(), H, H / layout.G, hd, wO, scratch,
             out.valueNorms + at);
  head_norms(attention, L, heads, H * hd, H, 1, hd, wO, scratch, out.headOutputNorms + at);
}

}  // namespace mha::model
