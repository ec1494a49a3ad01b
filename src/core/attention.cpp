// Attention::forward (attention.hpp): multi-head attention from the inputs
// and the weights — the projections, the attention of every head (attend.cpp's
// run_attend), Concat and the output projection — and the shapes and scratch
// of a call (sizes_of, scratch_bytes_for), the weights packed once
// (PackedWeights).
#include "attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "attention_tiles.hpp"
#include "pack.hpp"
#include "softmax.hpp"
#include "stage.hpp"
#include "tiles.hpp"

namespace mha {
namespace {

using detail::per_worker_floats;

const float* or_null(const std::vector<float>& v) { return v.empty() ? nullptr : v.data(); }

// Floats of Attention::forward's scratch (the layout is spelled out there).
// Counted in double: a caller checking a size limit may ask about calls far
// beyond what a 32-bit size_t can hold.
double scratch_floats(const Dims& d, bool fused, double workers) {
  const double B = double(d.batch), Lq = double(d.seqLenQ), Lk = double(d.seqLenK), H = double(d.numHeads);
  const double hk = H * double(d.dK), hv = H * double(d.dV);
  const double packedK = double(panels(d.seqLenK) * kPanel) * double(d.dK);
  const double packedV = Lk * double(panels(d.dV) * kPanel);
  const double tiles = workers * double(per_worker_floats(d.dK, d.dV, fused));
  return B * Lq * (hk + hv) + B * Lk * (hk + hv) + B * H * (packedK + packedV) + tiles;
}

}  // namespace

Sizes sizes_of(const Dims& d, bool withAttention) {
  check_dim(d.batch, "batch", kMaxElements);
  check_dim(d.seqLenQ, "seqLenQ", kMaxElements);
  check_dim(d.seqLenK, "seqLenK", kMaxElements);
  check_dim(d.dModel, "dModel", kMaxElements);
  check_dim(d.numHeads, "numHeads", kMaxElements);
  check_dim(d.dK, "dK", kMaxElements);
  check_dim(d.dV, "dV", kMaxElements);
  // Element counts, each within kMaxElements (elementBytes 1: whether their
  // bytes fit the memory is the caller's check, e.g. the bindings' check_fits,
  // which says how many bytes a call needs).
  Sizes s{};
  const std::size_t B = d.batch, Lq = d.seqLenQ, Lk = d.seqLenK, D = d.dModel, H = d.numHeads;
  const std::size_t hk = checked_product({H, d.dK}, "bQ: numHeads×dK", 1);
  const std::size_t hv = checked_product({H, d.dV}, "bV: numHeads×dV", 1);
  s.query = checked_product({B, Lq, D}, "query: batch×seqLenQ×dModel", 1);
  s.key = s.value = checked_product({B, Lk, D}, "key: batch×seqLenK×dModel", 1);
  s.wQ = s.wK = checked_product({D, H, d.dK}, "wQ: dModel×numHeads×dK", 1);
  s.wV = checked_product({D, H, d.dV}, "wV: dModel×numHeads×dV", 1);
  s.wO = checked_product({H, d.dV, D}, "wO: numHeads×dV×dModel", 1);
  s.bQ = s.bK = hk;
  s.bV = hv;
  s.bO = D;
  s.keyPaddingMask = checked_product({B, Lk}, "keyPaddingMask: batch×seqLenK", 1);
  s.output = s.query;
  s.attention = withAttention ? checked_product({B, H, Lq, Lk}, "attention: batch×numHeads×seqLenQ×seqLenK", 1) : 0;
  // The engine's own scratch is bounded like the arrays (indices fit 32 bits):
  // the most any call of these dims uses (one worker; see scratch_floats),
  // computed in double so that it cannot wrap. Not an argument's limit, so not
  // one src/js checks: a call this large also fails the bindings' memory budget.
  checked_scratch(scratch_floats(d, false, 1), 1);
  return s;
}

void default_key_value(const Dims& d, Inputs& in) {
  if (!in.key && in.value) throw ArgumentError("key: required when value is given");
  if (!in.key) in.key = in.query;
  if (!in.value) in.value = in.key;
  if ((in.key == in.query || in.value == in.query) && d.seqLenK != d.seqLenQ)
    throw ArgumentError(std::string(in.key == in.query ? "key" : "value") + ": required when seqLenK (" +
                        decimal(d.seqLenK) + ") differs from seqLenQ (" + decimal(d.seqLenQ) + ")");
}

void PackedWeights::assign(const Dims& d, const Inputs& in, ThreadPool* pool) {
  if (!in.wQ || !in.wK || !in.wV || !in.wO) throw ArgumentError("weights: wQ, wK, wV and wO are required");
  dModel = d.dModel;
  numHeads = d.numHeads;
  dK = d.dK;
  dV = d.dV;
  const std::size_t D = dModel, hk = numHeads * dK, hv = numHeads * dV;
  struct Matrix {
    std::vector<float>& packed;
    const float* source;
    std::size_t K, N;
  };
  const Matrix matrices[] = {{wQ, in.wQ, D, hk}, {wK, in.wK, D, hk}, {wV, in.wV, D, hv}, {wO, in.wO, hv, D}};
  for (const Matrix& m : matrices) m.packed.resize(packed_size(m.K, m.N));
  // Tasks of kColumnTile columns; packing is a copy, so any split is exact.
  constexpr std::size_t kPanelsPerTask = kColumnTile / kPanel;
  std::size_t taskStart[5] = {0};
  for (std::size_t i = 0; i < 4; ++i) taskStart[i + 1] = taskStart[i] + blocks(matrices[i].N, kColumnTile);
  const auto task = [&](std::size_t t, std::size_t) {
    const std::size_t i = product_of(taskStart, t);
    const Matrix& m = matrices[i];
    const std::size_t first = (t - taskStart[i]) * kPanelsPerTask;
    pack_kn_panels(m.K, m.N, m.source, m.N, m.packed.data(), first, std::min(first + kPanelsPerTask, panels(m.N)));
  };
  if (pool && D * (hk + hv) >= (1u << 16))
    pool->run(taskStart[4], task);
  else
    for (std::size_t t = 0; t < taskStart[4]; ++t) task(t, 0);
  auto copy = [](std::vector<float>& dst, const float* src, std::size_t n) {
    if (src)
      dst.assign(src, src + n);
    else
      dst.clear();
  };
  copy(bQ, in.bQ, hk);
  copy(bK, in.bK, hk);
  copy(bV, in.bV, hv);
  copy(bO, in.bO, D);
}

std::size_t PackedWeights::bytes() const noexcept {
  std::size_t n = 0;
  for (const auto* v : {&wQ, &wK, &wV, &wO, &bQ, &bK, &bV, &bO}) n += v->capacity();
  return n * sizeof(float);
}

double Attention::scratch_bytes_for(const Dims& d, bool wantAttention, bool oneShot) const {
  double floats = scratch_floats(d, !wantAttention, double(pool_.size()));
  if (oneShot) {
    const double D = double(d.dModel), hk = double(d.numHeads * d.dK), hv = double(d.numHeads * d.dV);
    const auto panelled = [](double n) { return std::ceil(n / kPanel) * kPanel; };
    floats += 2 * D * panelled(hk) + D * panelled(hv) + hv * panelled(D);
  }
  return floats * sizeof(float);
}

void Attention::release() noexcept {
  scratch_.release();
  attendScratch_.release();
  oneShot_ = PackedWeights();
}

void Attention::forward(const Dims& d, const Inputs& in, const Outputs& out) {
  sizes_of(d, out.attention != nullptr);
  oneShot_.assign(d, in, &pool_);
  forward(d, oneShot_, in, out);
}

void Attention::forward(const Dims& d, const PackedWeights& w, const Inputs& given, const Outputs& out) {
  sizes_of(d, out.attention != nullptr);
  if (w.dModel != d.dModel || w.numHeads != d.numHeads || w.dK != d.dK || w.dV != d.dV)
    (Message() << "weights: packed for dModel " << w.dModel << ", numHeads " << w.numHeads << ", dK " << w.dK << ", dV "
               << w.dV << "; the call has dModel " << d.dModel << ", numHeads " << d.numHeads << ", dK " << d.dK
               << ", dV " << d.dV)
        .raise();
  if (!given.query || !out.output) throw ArgumentError("multi_head_attention: query and output are required");
  Inputs in = given;
  default_key_value(d, in);
  if (out.scores && !out.attention) throw ArgumentError("scores: need the attention output as well");

  const Kernels& kern = kernels_;
  const std::size_t B = d.batch, Lq = d.seqLenQ, Lk = d.seqLenK, D = d.dModel, H = d.numHeads;
  const std::size_t dK = d.dK, dV = d.dV, hk = H * dK, hv = H * dV;
  const double flops = 2.0 * B * ((Lq + 2.0 * Lk) * D * hk + Lq * Lk * (hk + hv) + Lq * hv * D);
  const bool parallel = flops >= kParallelFlops;
  const std::size_t workers = parallel ? pool_.size() : 1;
  const bool fused = out.attention == nullptr;

  // Scratch: Q [B·Lq, hk], K [B·Lk, hk], V [B·Lk, hv], heads [B·Lq, hv]
  // (attend() has the rest of scratch_floats in a buffer of its own).
  const std::size_t nq = B * Lq * hk, nk = B * Lk * hk, nv = B * Lk * hv, nh = B * Lq * hv;
  checked_scratch(scratch_floats(d, fused, double(workers)));
  scratch_.resize(nq + nk + nv + nh);
  float* const Q = scratch_.data();
  float* const K = Q + nq;
  float* const V = K + nk;
  float* const heads = V + nv;

  // 1. Projections over the whole sequence (every head sees every token), all
  //    batch items as one tall matrix, in tiles of whole rows (tiles.hpp).
  struct Product {
    const float *A, *W, *bias;
    float* C;
    std::size_t N;
    Tiles tiles;
  };
  const Product projections[] = {{in.query, w.wQ.data(), or_null(w.bQ), Q, hk, {B * Lq, hk, hk}},
                                 {in.key, w.wK.data(), or_null(w.bK), K, hk, {B * Lk, hk, hk}},
                                 {in.value, w.wV.data(), or_null(w.bV), V, hv, {B * Lk, hv, hv}}};
  std::size_t start[4] = {0};
  for (std::size_t i = 0; i < 3; ++i) start[i + 1] = start[i] + projections[i].tiles.count();
#if MHA_PROFILE
  ForwardProfile* const profile = this->profile;
#endif
  {
    MHA_STAGE(projections);
    run_tasks(pool_, parallel, start[3], [&](std::size_t t, std::size_t) {
      const std::size_t i = product_of(start, t);
      const Product& p = projections[i];
      const Tile tile = p.tiles[t - start[i]];
      kern.gemm(tile.rows, p.N, D, p.A + tile.row * D, D, p.W, D * kPanel, p.bias, false, p.C + tile.row * p.N, p.N);
    });
  }

  // 2–3. The heads, into their columns of the concatenation.
  AttendArgs args;
  args.batch = B;
  args.seqLenQ = Lq;
  args.seqLenK = Lk;
  args.numHeads = H;
  args.dK = dK;
  args.dV = dV;
  args.query = Q;
  args.ldq = hk;
  args.key = K;
  args.ldk = hk;
  args.value = V;
  args.ldv = hv;
  args.causal = in.causal;
  args.keyPaddingMask = in.keyPaddingMask;
  args.heads = heads;
  args.attention = out.attention;
  args.scores = out.scores;
  args.parallel = parallel;
  run_attend(args, nullptr);  // sizes_of() checked the call

  // 4. output = concat(heads)·wO + bO.
  {
    MHA_STAGE(output);
    const Tiles tiles(B * Lq, D, D);
    run_tasks(pool_, parallel, tiles.count(), [&](std::size_t t, std::size_t) {
      const Tile tile = tiles[t];
      kern.gemm(tile.rows, D, hv, heads + tile.row * hv, hv, w.wO.data(), hv * kPanel, or_null(w.bO), false,
                out.output + tile.row * D, D);
    });
  }

  MHA_STAGE(copies);
  if (out.Q) std::copy(Q, Q + nq, out.Q);
  if (out.K) std::copy(K, K + nk, out.K);
  if (out.V) std::copy(V, V + nv, out.V);
  if (out.concat) std::copy(heads, heads + nh, out.concat);
}

}  // namespace mha
