#include "attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>


namespace mha {
namespace {

constexpr std::size_t kMaxElements = std::size_t{1} << 31;

std::size_t mul(std::size_t a, std::size_t b, const char* what) {
  if (a != 0 && b > kMaxElements / a) throw ArgumentError(std::string(what) + ": more than 2^31 elements");
  return a * b;
}

void check_dim(std::size_t v, const char* name) {
  if (v < 1 || v > kMaxElements)
    throw ArgumentError(std::string(name) + ": expected an integer >= 1, got " + std::to_string(v));
}

// Rows per task. A multiple of the GEMM kernel's 4-row tile; the split never
// changes a result, only how the work is shared.
constexpr std::size_t kRowBlock = 32;
constexpr std::size_t kQueryBlock = 16;
// Below this many FLOPs a call runs on the calling thread alone.
constexpr double kParallelFlops = 4e6;

std::size_t blocks(std::size_t n, std::size_t block) { return (n + block - 1) / block; }

}  // namespace

Sizes sizes_of(const Dims& d, bool withAttention) {
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
  s.attention = withAttention ? mul(mul(mul(d.batch, d.numHeads, "attention"), d.seqLenQ, "attention"), d.seqLenK, "attention") : 0;
  // Scratch: Q, K, V, Kᵀ and the concatenated heads, all batch items at once.
  mul(mul(d.batch, std::max(d.seqLenQ, d.seqLenK), "scratch"), std::max(hk, hv) * 5, "scratch");
  return s;
}

void Attention::forward(const Dims& d, const Inputs& in, const Outputs& out) {
  sizes_of(d, out.attention != nullptr);
  if (!in.query || !in.key || !in.value || !in.wQ || !in.wK || !in.wV || !in.wO || !out.output)
    throw ArgumentError("multi_head_attention: a required array is missing");

  const Kernels& kern = kernels_;
  const std::size_t B = d.batch, Lq = d.seqLenQ, Lk = d.seqLenK, D = d.dModel, H = d.numHeads;
  const std::size_t dK = d.dK, dV = d.dV, hk = H * dK, hv = H * dV;
  // Small calls (the 15-token sentence) cost less than waking the threads.
  const double flops = 2.0 * B * ((Lq + 2.0 * Lk) * D * hk + Lq * Lk * (hk + hv) + Lq * hv * D);
  const bool parallel = flops >= kParallelFlops;
  const std::size_t workers = parallel ? pool_.size() : 1;
  auto each = [&](std::size_t count, const ThreadPool::Task& task) {
    if (parallel) pool_.run(count, task);
    else
      for (std::size_t i = 0; i < count; ++i) task(i, 0);
  };
  const bool wantAttention = out.attention != nullptr;

  // Scratch: Q [B·Lq, hk], K [B·Lk, hk], V [B·Lk, hv], Kᵀ [B, H, dK, Lk],
  // heads [B·Lq, hv], and per worker one block of scores [kQueryBlock, Lk].
  const std::size_t nq = B * Lq * hk, nk = B * Lk * hk, nv = B * Lk * hv, nkt = nk, nh = B * Lq * hv;
  const std::size_t nscores = wantAttention ? 0 : workers * kQueryBlock * Lk;
  scratch_.resize(nq + nk + nv + nkt + nh + nscores);
  float* const Q = scratch_.data();
  float* const K = Q + nq;
  float* const V = K + nk;
  float* const Kt = V + nv;
  float* const heads = Kt + nkt;
  float* const scores = heads + nh;

  // 1. Projections over the whole sequence (every head sees every token), all
  //    batch items as one tall matrix, split into row blocks.
  struct Product {
    const float *A, *W, *bias;
    float* C;
    std::size_t M, N;
  };
  const Product projections[] = {{in.query, in.wQ, in.bQ, Q, B * Lq, hk},
                                 {in.key, in.wK, in.bK, K, B * Lk, hk},
                                 {in.value, in.wV, in.bV, V, B * Lk, hv}};
  const std::size_t qBlocks = blocks(B * Lq, kRowBlock), kBlocks = blocks(B * Lk, kRowBlock);
  each(qBlocks + 2 * kBlocks, [&](std::size_t t, std::size_t) {
    const Product& p = t < qBlocks ? projections[0] : t < qBlocks + kBlocks ? projections[1] : projections[2];
    const std::size_t row = (t < qBlocks ? t : (t - qBlocks) % kBlocks) * kRowBlock;
    const std::size_t rows = std::min(kRowBlock, p.M - row);
    kern.gemm(rows, p.N, D, p.A + row * D, D, p.W, p.N, p.bias, p.C + row * p.N, p.N);
  });

  // 2. K_hᵀ [dK, Lk] per (batch, head), so QKᵀ is one more row-major product.
  each(B * H, [&](std::size_t t, std::size_t) {
    const std::size_t b = t / H, h = t % H;
    float* kt = Kt + t * dK * Lk;
    const float* k = K + b * Lk * hk + h * dK;
    for (std::size_t j = 0; j < Lk; ++j)
      for (std::size_t c = 0; c < dK; ++c) kt[c * Lk + j] = k[j * hk + c];
  });

  // 3. Per (batch, head, block of query rows): scores, masked softmax, and
  //    head_h = A_h V_h into its dV columns of the concatenation.
  const std::size_t queryBlocks = blocks(Lq, kQueryBlock);
  const float scale = 1.0f / std::sqrt(static_cast<float>(dK));
  each(B * H * queryBlocks, [&](std::size_t t, std::size_t worker) {
    constexpr float kNegInf = -std::numeric_limits<float>::infinity();
    const std::size_t b = t / (H * queryBlocks), h = (t / queryBlocks) % H;
    const std::size_t i0 = (t % queryBlocks) * kQueryBlock, rows = std::min(kQueryBlock, Lq - i0);
    const std::uint8_t* padding = in.keyPaddingMask ? in.keyPaddingMask + b * Lk : nullptr;
    float* p = wantAttention ? out.attention + ((b * H + h) * Lq + i0) * Lk : scores + worker * kQueryBlock * Lk;

    kern.gemm(rows, Lk, dK, Q + (b * Lq + i0) * hk + h * dK, hk, Kt + (b * H + h) * dK * Lk, Lk, nullptr, p, Lk);
    for (std::size_t r = 0; r < rows; ++r) {
      float* row = p + r * Lk;
      const std::size_t i = i0 + r;
      // Causal: keys after i are never part of the softmax (a loop bound, as
      // in llm.c); they are written as exact zeros.
      const std::size_t visible = in.causal ? std::min(i + 1, Lk) : Lk;
      if (padding)
        for (std::size_t j = 0; j < visible; ++j)
          if (padding[j]) row[j] = kNegInf;
      kern.softmax(row, visible, scale);
      std::fill(row + visible, row + Lk, 0.0f);
    }
    kern.gemm(rows, dV, Lk, p, Lk, V + b * Lk * hv + h * dV, hv, nullptr, heads + (b * Lq + i0) * hv + h * dV, hv);
  });

  // 4. output = concat(heads)·wO + bO.
  each(qBlocks, [&](std::size_t t, std::size_t) {
    const std::size_t row = t * kRowBlock, rows = std::min(kRowBlock, B * Lq - row);
    kern.gemm(rows, D, hv, heads + row * hv, hv, in.wO, D, in.bO, out.output + row * D, D);
  });

  if (out.Q) std::copy(Q, Q + nq, out.Q);
  if (out.K) std::copy(K, K + nk, out.K);
  if (out.V) std::copy(V, V + nv, out.V);
  if (out.concat) std::copy(heads, heads + nh, out.concat);
}

void multi_head_attention(const Dims& dims, const Inputs& in, const Outputs& out, const Kernels& kernels) {
  Attention attention(1, kernels);
  attention.forward(dims, in, out);
}

}  // namespace mha
