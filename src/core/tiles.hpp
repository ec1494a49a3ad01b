// How a product C [M, N] = A·B is cut into tasks: tiles of kRowBlock rows
// (common.hpp) × a width of columns, numbered row by row. Tiles decide how
// work is shared, never a result: the gemm kernels sum every element of C in
// the same order whatever tile it falls in (kernels.hpp), and no tile splits
// a sum.
#pragma once

#include <algorithm>
#include <cstddef>

#include "common.hpp"
#include "kernels.hpp"

namespace mha {

// The width of a tile: eight panels. With kRowBlock rows, a short sequence
// (17 tokens) still gives every thread work.
constexpr std::size_t kColumnTile = 8 * kPanel;
static_assert(kColumnTile % kPanel == 0, "column tiles start on a panel");

struct Tile {
  std::size_t row, rows, column, columns;
};

// The tiles of C [M, N], `width` columns wide: kColumnTile, or N (whole rows).
class Tiles {
 public:
  Tiles(std::size_t M, std::size_t N, std::size_t width = kColumnTile) noexcept
      : M_(M), N_(N), width_(width), across_(blocks(N, width)) {}
  std::size_t count() const noexcept { return blocks(M_, kRowBlock) * across_; }
  Tile operator[](std::size_t t) const noexcept {
    const std::size_t row = t / across_ * kRowBlock, column = t % across_ * width_;
    return {row, std::min(kRowBlock, M_ - row), column, std::min(width_, N_ - column)};
  }

 private:
  std::size_t M_, N_, width_, across_;
};

// Several products' tasks as one set: product i has the tasks [start[i],
// start[i + 1]), start[0] = 0. The product task t (below the last start) belongs to.
inline std::size_t product_of(const std::size_t* start, std::size_t t) noexcept {
  std::size_t i = 0;
  while (t >= start[i + 1]) ++i;
  return i;
}

}  // namespace mha
