#include "embeddings.hpp"

#include "profile.hpp"

namespace mha::model {

void embed(const Slot& word, const Slot& position, const Slot* type, const std::int32_t* ids, const std::int32_t* types,
           std::size_t L, const std::int32_t* positions, std::size_t first, std::size_t D, float* x) noexcept {
  MHA_BLOCK(embeddings);
  for (std::size_t i = 0; i < L; ++i) {
    const float* p = position.floats() + (positions ? std::size_t(positions[i]) : first + i) * D;
    float* row = x + i * D;
    word.column(std::size_t(ids[i]), row);
    for (std::size_t k = 0; k < D; ++k) row[k] += p[k];
    if (type) {
      const float* t = type->floats() + std::size_t(types ? types[i] : 0) * D;
      for (std::size_t k = 0; k < D; ++k) row[k] += t[k];
    }
  }
}

}  // namespace mha::model
