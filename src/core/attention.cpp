#include "attention.hpp"

#include <cmath>
#include <limits>

namespace mha {
namespace {

constexpr std::size_t kMaxElements = std::size_t{1} << 31;

std::size_t mul(std::size_t a, std::size_t b, const char* what) {
  if (a != 0 && b > kMaxElements / a)
    throw ArgumentError(std::string(what) + ": more than 2^31 elements");
  return a * b;
}

void check_dim(std::size_t v, const char* name) {
  if (v < 1 || v > kMaxElements)
    throw ArgumentError(std::string(name) + ": expected an integer >= 1, got " + std::to_string(v));
}

}  // namespace

Sizes sizes_of(const Dims& d) {
  check_dim(d.batch, "batch");
  check_dim(d.seqLenQ, "seqLenQ");
  check_dim(d.seqLenK, "seqLenK");
  check_dim(d.dModel, "dModel");
  check_dim(d.numHeads, "numHeads");
  check_dim(d.dK, "dK");
  check_dim(d.dV, "dV");
  Sizes s{};
  const std::size_t hk = mul(d.numHeads, d.dK, "numHeads*dK");
  const std::size_t hv = mul(d.numHeads, d.dV, "numHeads*dV");
  s.query = mul(mul(d.batch, d.seqLenQ, "query"), d.dModel, "query");
  s.key = s.value = mul(mul(d.batch, d.seqLenK, "key"), d.dModel, "key");
  s.wQ = s.wK = mul(d.dModel, hk, "wQ");
  s.wV = mul(d.dModel, hv, "wV");
  s.wO = mul(hv, d.dModel, "wO");
  s.bQ = s.bK = hk;
  s.bV = hv;
  s.bO = d.dModel;
  s.keyPaddingMask = mul(d.batch, d.seqLenK, "keyPaddingMask");
  s.output = s.query;
  s.attention = mul(mul(mul(d.batch, d.numHeads, "attention"), d.seqLenQ, "attention"), d.seqLenK,
                    "attention");
  return s;
}

float* Workspace::reserve(const Dims& d, bool needScores) {
  const std::size_t hk = d.numHeads * d.dK, hv = d.numHeads * d.dV;
  const std::size_t nq = d.seqLenQ * hk, nk = d.seqLenK * hk, nv = d.seqLenK * hv;
  const std::size_t nkt = d.dK * d.seqLenK, ns = needScores ? d.seqLenQ * d.seqLenK : 0;
  const std::size_t nh = d.seqLenQ * hv;
  buffer_.resize(nq + nk + nv + nkt + ns + nh);
  float* p = buffer_.data();
  q = p;
  k = q + nq;
  v = k + nk;
  kt = v + nv;
  scores = ns ? kt + nkt : nullptr;
  heads = kt + nkt + ns;
  return p;
}

void multi_head_attention(const Dims& d, const Inputs& in, const Outputs& out, Workspace& ws,
                          const Kernels& kern) {
  sizes_of(d);
  if (!in.query || !in.key || !in.value || !in.wQ || !in.wK || !in.wV || !in.wO || !out.output)
    throw ArgumentError("multi_head_attention: a required array is missing");

  const std::size_t Lq = d.seqLenQ, Lk = d.seqLenK, D = d.dModel, H = d.numHeads;
  const std::size_t hk = H * d.dK, hv = H * d.dV;
  const float scale = 1.0f / std::sqrt(static_cast<float>(d.dK));
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  ws.reserve(d, out.attention == nullptr);

  for (std::size_t b = 0; b < d.batch; ++b) {
    const float* query = in.query + b * Lq * D;
    const float* key = in.key + b * Lk * D;
    const float* value = in.value + b * Lk * D;
    const std::uint8_t* padding = in.keyPaddingMask ? in.keyPaddingMask + b * Lk : nullptr;

    // Projections over the whole sequence: every head sees every token.
    kern.gemm(Lq, hk, D, query, D, in.wQ, hk, in.bQ, ws.q, hk);
    kern.gemm(Lk, hk, D, key, D, in.wK, hk, in.bK, ws.k, hk);
    kern.gemm(Lk, hv, D, value, D, in.wV, hv, in.bV, ws.v, hv);

    for (std::size_t h = 0; h < H; ++h) {
      // K_hᵀ [dK, Lk], so QKᵀ is one more row-major product.
      for (std::size_t j = 0; j < Lk; ++j)
        for (std::size_t c = 0; c < d.dK; ++c) ws.kt[c * Lk + j] = ws.k[j * hk + h * d.dK + c];

      float* p = out.attention ? out.attention + ((b * H + h) * Lq) * Lk : ws.scores;
      kern.gemm(Lq, Lk, d.dK, ws.q + h * d.dK, hk, ws.kt, Lk, nullptr, p, Lk);

      for (std::size_t i = 0; i < Lq; ++i) {
        float* row = p + i * Lk;
        // Causal: keys after i are never part of the softmax (a loop bound,
        // as in llm.c); they are written as exact zeros.
        const std::size_t visible = in.causal ? (i + 1 < Lk ? i + 1 : Lk) : Lk;
        if (padding)
          for (std::size_t j = 0; j < visible; ++j)
            if (padding[j]) row[j] = kNegInf;
        kern.softmax(row, visible, scale);
        for (std::size_t j = visible; j < Lk; ++j) row[j] = 0.0f;
      }

      // head_h = A_h V_h, written into its dV columns of the concatenation.
      kern.gemm(Lq, d.dV, Lk, p, Lk, ws.v + h * d.dV, hv, nullptr, ws.heads + h * d.dV, hv);
    }

    kern.gemm(Lq, D, hv, ws.heads, hv, in.wO, D, in.bO, out.output + b * Lq * D, D);
  }
}

}  // namespace mha
