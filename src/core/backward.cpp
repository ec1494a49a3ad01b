#include "backward.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <functional>
#include <utility>

#include "pack.hpp"
#include "tiles.hpp"

namespace mha {
namespace {

// dst [cols, rows] = src [rows, cols]ᵀ. The kernels take A row-major only, and
// the reductions over rows (queryᵀ·dQ, Pᵀ·dO) need it as the left-hand side.
void transpose(std::size_t rows, std::size_t cols, const float* src, std::size_t lds, float* dst,
               std::size_t ldd) noexcept {
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) dst[j * ldd + i] = src[i * lds + j];
}

// One term A·B: A [M, K] row-major (leading dimension lda), B [K, N] packed.
struct Term {
  const float* A;
  std::size_t lda;
  const float* B;
  std::size_t K;
};

// C [M, N] = the sum of up to three terms, added in the order given (the
// gradient of a shared self-attention input has three).
struct Product {
  std::size_t M, N;
  float* C;
  std::size_t ldc;
  Term terms[3];
  std::size_t count;
};

// out[c] = Σ_r G[r][c], r in order: a bias gradient, one task for the whole sum.
struct ColumnSum {
  const float* G;
  std::size_t rows, cols, ld;
  float* out;
};

// Runs every product, in tiles (tiles.hpp), and every column sum, as one set
// of tasks.
void run(ThreadPool& pool, bool parallel, const Kernels& kern, const std::vector<Product>& products,
         const std::vector<ColumnSum>& sums) {
  std::vector<std::size_t> start{0};
  for (const Product& p : products) start.push_back(start.back() + Tiles(p.M, p.N).count());
  const std::size_t tiles = start.back();
  run_tasks(pool, parallel, tiles + sums.size(), [&](std::size_t t, std::size_t) {
    if (t >= tiles) {
      const ColumnSum& s = sums[t - tiles];
      std::fill(s.out, s.out + s.cols, 0.0f);
      for (std::size_t r = 0; r < s.rows; ++r)
        for (std::size_t c = 0; c < s.cols; ++c) s.out[c] += s.G[r * s.ld + c];
      return;
    }
    const std::size_t i = product_of(start.data(), t);
    const Product& p = products[i];
    const Tile tile = Tiles(p.M, p.N)[t - start[i]];
    for (std::size_t j = 0; j < p.count; ++j) {
      const Term& term = p.terms[j];
      kern.gemm(tile.rows, tile.columns, term.K, term.A + tile.row * term.lda, term.lda, term.B + tile.column * term.K,
                term.K * kPanel, nullptr, j > 0, p.C + tile.row * p.ldc + tile.column, p.ldc);
    }
  });
}

// About twice the forward's work, plus the forward itself.
double flops_of(const Dims& d) {
  const double B = double(d.batch), Lq = double(d.seqLenQ), Lk = double(d.seqLenK), D = double(d.dModel);
  const double hk = double(d.numHeads) * double(d.dK), hv = double(d.numHeads) * double(d.dV);
  return 6.0 * B * ((Lq + 2.0 * Lk) * D * hk + Lq * Lk * (hk + hv) + Lq * hv * D);
}

// Floats of AttentionBackward::backward's scratch, the buffers of its layout
// summed in double (callers checking a size limit may ask about calls beyond
// what size_t holds).
double scratch_floats(const Dims& d, bool self, double workers) {
  const double B = double(d.batch), Lq = double(d.seqLenQ), Lk = double(d.seqLenK), D = double(d.dModel);
  const double H = double(d.numHeads), dK = double(d.dK), dV = double(d.dV), hk = H * dK, hv = H * dV;
  const auto panelled = [](double n) { return std::ceil(n / kPanel) * kPanel; };
  const double perWorker =
      2 * Lq * Lk + std::max({panelled(Lk) * dV, panelled(dV) * Lq, panelled(dK) * Lk, panelled(dK) * Lq});
  return B * H * Lq * Lk + 2 * B * Lq * hk + 2 * B * Lk * hk + 2 * B * Lk * hv + 3 * B * Lq * hv + B * Lq * D +
         D * panelled(hv) + 2 * hk * panelled(D) + hv * panelled(D) + B * Lq * panelled(D) + D * B * Lq +
         (self ? 0 : 2 * D * B * Lk) + B * Lq * panelled(hk) + B * Lk * panelled(hk) + B * Lk * panelled(hv) +
         workers * perWorker;
}

}  // namespace

double AttentionBackward::scratch_bytes_for(const Dims& d, bool selfAttention) const {
  const double workers = flops_of(d) >= kParallelFlops ? double(engine_.threads()) : 1.0;
  return scratch_floats(d, selfAttention, workers) * sizeof(float);
}

template <typename GradientSource>
void AttentionBackward::compute(const Dims& d, const Inputs& given, const GradientSource& gradientOf,
                                const Gradients& g) {
  sizes_of(d, true);
  if (!given.query || !given.wQ || !given.wK || !given.wV || !given.wO)
    throw ArgumentError("multi_head_attention_backward: query, wQ, wK, wV, wO and gradOutput are required");
  Inputs in = given;
  default_key_value(d, in);
  const bool self = is_self_attention(in);
  // A shared input has one gradient (Gradients::query); one that is shared by
  // the key alone or the value alone would have no place for its own.
  if (!self && (in.key == in.query || in.value == in.query))
    throw ArgumentError("key/value: give both (cross-attention) or neither (self-attention)");

  const Kernels& kern = engine_.kernels();
  ThreadPool& pool = engine_.pool();
  const std::size_t B = d.batch, Lq = d.seqLenQ, Lk = d.seqLenK, D = d.dModel, H = d.numHeads;
  const std::size_t dK = d.dK, dV = d.dV, hk = H * dK, hv = H * dV, rowsQ = B * Lq, rowsK = B * Lk;
  const bool parallel = flops_of(d) >= kParallelFlops;
  const std::size_t workers = parallel ? pool.size() : 1;

  // Scratch: the forward quantities, the gradients of Q, K, V and the heads,
  // the packed or transposed operands of the products, and per worker dS with
  // its transpose and one packed right-hand side of the per-head products.
  // Its size summed in double first: each buffer's size is formed in size_t
  // below, and cannot wrap once their sum is known to fit (32 bits on wasm32).
  const std::size_t total = checked_scratch(scratch_floats(d, self, double(workers)));
  const std::size_t perWorker =
      2 * Lq * Lk + std::max({packed_size(dV, Lk), packed_size(Lq, dV), packed_size(Lk, dK), packed_size(Lq, dK)});
  float *P, *Q, *K, *V, *heads, *output, *gHeads, *gQ, *gK, *gV, *woT, *wqT, *wkT, *wvT, *packedDY, *headsT;
  float *queryT, *keyT, *valueT, *packedGQ, *packedGK, *packedGV, *work;
  const std::pair<float**, std::size_t> layout[] = {{&P, B * H * Lq * Lk},
                                                    {&Q, rowsQ * hk},
                                                    {&K, rowsK * hk},
                                                    {&V, rowsK * hv},
                                                    {&heads, rowsQ * hv},
                                                    {&output, rowsQ * D},
                                                    {&gHeads, rowsQ * hv},
                                                    {&gQ, rowsQ * hk},
                                                    {&gK, rowsK * hk},
                                                    {&gV, rowsK * hv},
                                                    {&woT, packed_size(D, hv)},
                                                    {&wqT, packed_size(hk, D)},
                                                    {&wkT, packed_size(hk, D)},
                                                    {&wvT, packed_size(hv, D)},
                                                    {&packedDY, packed_size(rowsQ, D)},
                                                    {&headsT, hv * rowsQ},
                                                    {&queryT, D * rowsQ},
                                                    {&keyT, self ? 0 : D * rowsK},
                                                    {&valueT, self ? 0 : D * rowsK},
                                                    {&packedGQ, packed_size(rowsQ, hk)},
                                                    {&packedGK, packed_size(rowsK, hk)},
                                                    {&packedGV, packed_size(rowsK, hv)},
                                                    {&work, workers * perWorker}};
  std::size_t laidOut = 0;
  for (const auto& buffer : layout) laidOut += buffer.second;
  assert(laidOut == total);  // scratch_floats() is this layout's size
  (void)laidOut;
  scratch_.resize(total);
  float* next = scratch_.data();
  for (const auto& buffer : layout) {
    *buffer.first = next;
    next += buffer.second;
  }
  if (self) keyT = valueT = queryT;

  // 1. The forward again, keeping P, Q, K, V and the heads (the engine's
  //    unfused path: the same numbers a forward call with weights wanted gives).
  Outputs fwd;
  fwd.output = output;
  fwd.attention = P;
  fwd.Q = Q;
  fwd.K = K;
  fwd.V = V;
  fwd.concat = heads;
  engine_.forward(d, in, fwd);
  const float* dY = gradientOf(output);  // never null (backward.hpp)

  // 2. Operands: transposed weights packed, dY packed, inputs and heads transposed.
  std::vector<std::function<void()>> jobs = {[&] { pack_nk(D, hv, in.wO, D, woT); },
                                             [&] { pack_nk(hk, D, in.wQ, hk, wqT); },
                                             [&] { pack_nk(hk, D, in.wK, hk, wkT); },
                                             [&] { pack_nk(hv, D, in.wV, hv, wvT); },
                                             [&] { pack_kn(rowsQ, D, dY, D, packedDY); },
                                             [&] { transpose(rowsQ, hv, heads, hv, headsT, rowsQ); },
                                             [&] { transpose(rowsQ, D, in.query, D, queryT, rowsQ); }};
  if (!self) {
    jobs.push_back([&] { transpose(rowsK, D, in.key, D, keyT, rowsK); });
    jobs.push_back([&] { transpose(rowsK, D, in.value, D, valueT, rowsK); });
  }
  run_tasks(pool, parallel, jobs.size(), [&](std::size_t t, std::size_t) { jobs[t](); });

  // 3. Output projection: dHeads = dY·WOᵀ, dWO = headsᵀ·dY, dbO = Σ dY.
  {
    std::vector<Product> products = {{rowsQ, hv, gHeads, hv, {{dY, D, woT, D}}, 1}};
    if (g.wO) products.push_back({hv, D, g.wO, D, {{headsT, rowsQ, packedDY, rowsQ}}, 1});
    std::vector<ColumnSum> sums;
    if (in.bO && g.bO) sums.push_back({dY, rowsQ, D, D, g.bO});
    run(pool, parallel, kern, products, sums);
  }

  // 4. Per (batch, head): through the softmax to dQ_h, dK_h and dV_h, each
  //    written into its own columns of dQ, dK, dV.
  const float scale = 1.0f / std::sqrt(static_cast<float>(dK));
  run_tasks(pool, parallel, B * H, [&](std::size_t t, std::size_t worker) {
    const std::size_t b = t / H, h = t % H;
    float* dS = work + worker * perWorker;  // [Lq, Lk]: dP, then dS
    float* T = dS + Lq * Lk;                // [Lk, Lq]: Pᵀ, then dSᵀ
    float* packed = T + Lq * Lk;
    const float* p = P + t * Lq * Lk;
    const float* dO = gHeads + b * Lq * hv + h * dV;
    const float* q = Q + b * Lq * hk + h * dK;
    const float* k = K + b * Lk * hk + h * dK;
    const float* v = V + b * Lk * hv + h * dV;

    transpose(Lq, Lk, p, Lk, T, Lq);
    pack_kn(Lq, dV, dO, hv, packed);
    kern.gemm(Lk, dV, Lq, T, Lq, packed, Lq * kPanel, nullptr, false, gV + b * Lk * hv + h * dV, hv);

    pack_nk(dV, Lk, v, hv, packed);
    kern.gemm(Lq, Lk, dV, dO, hv, packed, dV * kPanel, nullptr, false, dS, Lk);
    for (std::size_t i = 0; i < Lq; ++i) {
      const float* pi = p + i * Lk;
      float* si = dS + i * Lk;
      // Entries with P = 0 (masked keys, rows with no usable key) are skipped
      // rather than multiplied: a masked key's value may be non-finite, and
      // the forward ignores it (0·NaN would be NaN).
      float dot = 0.0f;
      for (std::size_t j = 0; j < Lk; ++j)
        if (pi[j] != 0.0f) dot += pi[j] * si[j];
      for (std::size_t j = 0; j < Lk; ++j) si[j] = pi[j] != 0.0f ? pi[j] * (si[j] - dot) * scale : 0.0f;
    }

    pack_kn(Lk, dK, k, hk, packed);
    kern.gemm(Lq, dK, Lk, dS, Lk, packed, Lk * kPanel, nullptr, false, gQ + b * Lq * hk + h * dK, hk);

    transpose(Lq, Lk, dS, Lk, T, Lq);
    pack_kn(Lq, dK, q, hk, packed);
    kern.gemm(Lk, dK, Lq, T, Lq, packed, Lq * kPanel, nullptr, false, gK + b * Lk * hk + h * dK, hk);
  });

  // 5. dQ, dK, dV packed as the right-hand sides of the weight gradients.
  jobs.clear();
  if (g.wQ) jobs.push_back([&] { pack_kn(rowsQ, hk, gQ, hk, packedGQ); });
  if (g.wK) jobs.push_back([&] { pack_kn(rowsK, hk, gK, hk, packedGK); });
  if (g.wV) jobs.push_back([&] { pack_kn(rowsK, hv, gV, hv, packedGV); });
  run_tasks(pool, parallel, jobs.size(), [&](std::size_t t, std::size_t) { jobs[t](); });

  // 6. Input projections: dW = inputᵀ·dX, db = Σ dX, gradInput = dX·Wᵀ.
  std::vector<Product> products;
  if (g.wQ) products.push_back({D, hk, g.wQ, hk, {{queryT, rowsQ, packedGQ, rowsQ}}, 1});
  if (g.wK) products.push_back({D, hk, g.wK, hk, {{keyT, rowsK, packedGK, rowsK}}, 1});
  if (g.wV) products.push_back({D, hv, g.wV, hv, {{valueT, rowsK, packedGV, rowsK}}, 1});
  const Term fromQ{gQ, hk, wqT, hk}, fromK{gK, hk, wkT, hk}, fromV{gV, hv, wvT, hv};
  if (self) {
    if (g.query) products.push_back({rowsQ, D, g.query, D, {fromQ, fromK, fromV}, 3});
  } else {
    if (g.query) products.push_back({rowsQ, D, g.query, D, {fromQ}, 1});
    if (g.key) products.push_back({rowsK, D, g.key, D, {fromK}, 1});
    if (g.value) products.push_back({rowsK, D, g.value, D, {fromV}, 1});
  }
  std::vector<ColumnSum> sums;
  if (in.bQ && g.bQ) sums.push_back({gQ, rowsQ, hk, hk, g.bQ});
  if (in.bK && g.bK) sums.push_back({gK, rowsK, hk, hk, g.bK});
  if (in.bV && g.bV) sums.push_back({gV, rowsK, hv, hv, g.bV});
  run(pool, parallel, kern, products, sums);
}

// One instantiation of compute(): the function-pointer one.
void AttentionBackward::backward(const Dims& d, const Inputs& in, GradientOf gradientOf, void* context,
                                 const Gradients& g) {
  const auto source = [&](const float* output) { return gradientOf(context, output); };
  compute(d, in, source, g);
}

void AttentionBackward::backward(const Dims& d, const Inputs& in, const float* dY, const Gradients& g) {
  if (!dY) throw ArgumentError("multi_head_attention_backward: gradOutput is required");
  const auto given = [](void* context, const float*) -> const float* { return static_cast<const float*>(context); };
  backward(d, in, given, const_cast<float*>(dY), g);
}

void multi_head_attention_backward(const Dims& dims, const Inputs& in, const float* gradOutput, const Gradients& grads,
                                   const Kernels& kernels) {
  Attention engine(1, kernels);
  AttentionBackward(engine).backward(dims, in, gradOutput, grads);
}

}  // namespace mha
