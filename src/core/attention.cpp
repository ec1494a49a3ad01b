#include "attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "pack.hpp"
#include "softmax.hpp"
#include "stage.hpp"
#include "tiles.hpp"

namespace mha {
namespace {

// Task sizes (tiles.hpp cuts the projections): they decide how work is
// shared, never a result.
constexpr std::size_t kQueryBlock = 32;  // query rows of an attention task
// Keys per tile of the fused attention (online softmax): a tile's scores stay
// in L1 and the Lq × Lk matrix never exists. A multiple of kPanel.
constexpr std::size_t kKeyTile = 128;
static_assert(kKeyTile % kPanel == 0, "key tiles start on a panel");
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

const float* or_null(const std::vector<float>& v) { return v.empty() ? nullptr : v.data(); }

// Floats of one worker's scratch in attend(): its query block scaled, and for
// the fused path one tile of scores, the running head output, max and sum of
// its query rows.
std::size_t per_worker_floats(std::size_t dK, std::size_t dV, bool fused) {
  return kQueryBlock * (dK + (fused ? kKeyTile + dV + 2 : 0));
}

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

void Attention::check(const AttendArgs& a, std::size_t numKVHeads, std::size_t length) {
  check_dim(a.batch, "batch", kMaxElements);
  check_dim(a.seqLenQ, "seqLenQ", kMaxElements);
  check_dim(a.seqLenK, "seqLenK", kMaxElements);
  check_dim(a.numHeads, "numHeads", kMaxElements);
  check_dim(a.dK, "dK", kMaxElements);
  check_dim(a.dV, "dV", kMaxElements);
  const std::size_t kvHeads = a.numKVHeads ? a.numKVHeads : a.numHeads;
  if (a.numHeads % kvHeads != 0)
    (Message() << "numKVHeads: expected a divisor of numHeads (" << a.numHeads << "), got " << kvHeads).raise();
  if (kvHeads != numKVHeads)
    (Message() << "numKVHeads: the keys and values have " << numKVHeads << " heads, the call " << kvHeads).raise();
  if (a.seqLenK != length)
    (Message() << "seqLenK: the keys and values hold " << length << " positions, the call says " << a.seqLenK).raise();
  if (!a.query || !a.heads) throw ArgumentError("attend: query and heads are required");
  if (a.scores && !a.attention) throw ArgumentError("scores: need the attention output as well");
}

void Attention::attend(const AttendArgs& a) {
  check(a, a.numKVHeads ? a.numKVHeads : a.numHeads, a.seqLenK);
  if (!a.key || !a.value) throw ArgumentError("attend: key and value are required");
  run_attend(a, nullptr);
  switch_off_heads(a);
}

void Attention::attend(const AttendArgs& a, const KVCache& cache) {
  check(a, cache.numKVHeads(), cache.length());
  if (a.batch != cache.batch() || a.dK != cache.dK() || a.dV != cache.dV())
    (Message() << "kv cache: holds batch " << cache.batch() << ", dK " << cache.dK() << ", dV " << cache.dV()
               << "; the call has batch " << a.batch << ", dK " << a.dK << ", dV " << a.dV)
        .raise();
  run_attend(a, &cache);
  switch_off_heads(a);
}

void Attention::switch_off_heads(const AttendArgs& a) {
  // A head switched off contributes nothing, as a 0 in Hugging Face's
  // head_mask multiplies its weights. (Computed, then zeroed: forward() has
  // no head mask, and the builds of the attention alone carry none of this.)
  if (!a.headMask) return;
  const std::size_t B = a.batch, Lq = a.seqLenQ, Lk = a.seqLenK, H = a.numHeads, dV = a.dV;
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h) {
      if (a.headMask[h]) continue;
      for (std::size_t i = 0; i < Lq; ++i) std::fill_n(a.heads + (b * Lq + i) * H * dV + h * dV, dV, 0.0f);
      for (float* m : {a.attention, a.scores})
        if (m) std::fill_n(m + (b * H + h) * Lq * Lk, Lq * Lk, 0.0f);
    }
}

void Attention::run_attend(const AttendArgs& a, const KVCache* cache) {
  const Kernels& kern = kernels_;
  const std::size_t B = a.batch, Lq = a.seqLenQ, Lk = a.seqLenK, H = a.numHeads;
  const std::size_t G = a.numKVHeads ? a.numKVHeads : H, headsPerGroup = H / G;
  const std::size_t dK = a.dK, dV = a.dV, hv = H * dV, ldq = a.ldq;
  const float* const Q = a.query;
  float* const heads = a.heads;
  float* const attention = a.attention;
  float* const scores = a.scores;
  const std::uint8_t* const keyPaddingMask = a.keyPaddingMask;
  const bool causal = a.causal;
  const std::size_t offset = a.causal ? a.causalOffset : 0;
  const bool fused = attention == nullptr;
  const std::size_t workers = a.parallel ? pool_.size() : 1;
  // Scratch: without a cache, per (batch, key/value head) K_gᵀ and V_g
  // packed as a KV cache of exactly Lk positions would hold them; per worker,
  // what per_worker_floats() lists.
  const std::size_t pk = cache ? 0 : packed_size(dK, Lk), pv = cache ? 0 : packed_size(Lk, dV);
  const std::size_t perWorker = per_worker_floats(dK, dV, fused);
  attendScratch_.resize(checked_scratch(double(B * G) * double(pk + pv) + double(workers) * double(perWorker)));
  float* const packedK = attendScratch_.data();
  float* const packedV = packedK + B * G * pk;
  float* const work = packedV + B * G * pv;
#if MHA_PROFILE
  ForwardProfile* const profile = this->profile;
#endif

  // 2. Per (batch, key/value head): K_gᵀ and V_g packed, the right-hand sides
  //    of QKᵀ and A·V (a cache holds them packed already).
  if (!cache) {
    MHA_STAGE(packing);
    run_tasks(pool_, a.parallel, B * G, [&](std::size_t t, std::size_t) {
      const std::size_t b = t / G, g = t % G;
      pack_nk(dK, Lk, a.key + b * Lk * a.ldk + g * dK, a.ldk, packedK + t * pk);
      pack_kn(Lk, dV, a.value + b * Lk * a.ldv + g * dV, a.ldv, packedV + t * pv);
    });
  }
  const PackedKeyValues kv = cache ? cache->view() : PackedKeyValues{packedK, packedV, pk, pv, Lk * kPanel, Lk};
  const std::size_t vStride = kv.valuePanelStride;

  // 3. Per (batch, head, block of query rows): head_h = softmax(Q_h K_hᵀ/√dK + mask) V_h,
  //    written into its dV columns of the concatenation. The scale and log2(e)
  //    are folded into the block's query rows, so the scores come out in
  //    base-2 units and the softmax is 2^(s − max) with nothing to multiply.
  const std::size_t queryBlocks = blocks(Lq, kQueryBlock);
  const float log2e = 1.44269504088896341f;
  const float queryScale = log2e / std::sqrt(static_cast<float>(dK));
  run_tasks(pool_, a.parallel, B * H * queryBlocks, [&](std::size_t t, std::size_t worker) {
    const std::size_t b = t / (H * queryBlocks), h = (t / queryBlocks) % H;
    // Causal blocks grow with the row index: hand out the largest first, so
    // the last tasks to finish are small ones and no thread waits long.
    const std::size_t block = causal ? queryBlocks - 1 - t % queryBlocks : t % queryBlocks;
    const std::size_t i0 = block * kQueryBlock, rows = std::min(kQueryBlock, Lq - i0);
    const std::uint8_t* padding = keyPaddingMask ? keyPaddingMask + b * Lk : nullptr;
    const std::size_t group = b * G + h / headsPerGroup;
    const float* pK = kv.keys + group * kv.keyStride;
    const float* pV = kv.values + group * kv.valueStride;
    float* headOut = heads + (b * Lq + i0) * hv + h * dV;
    float* const q = work + worker * perWorker;
    {
      MHA_STAGE(scores);
      scaled_copy(rows, dK, Q + (b * Lq + i0) * ldq + h * dK, ldq, queryScale, q);
    }
    // Causal: no row of this block sees a key at or past offset + i0 + rows,
    // so those keys are never computed (a loop bound, as in llm.c).
    const std::size_t limit = causal ? std::min(Lk, offset + i0 + rows) : Lk;
    auto visible = [&](std::size_t i) { return causal ? std::min(offset + i + 1, Lk) : Lk; };
    // product(r, g, n) for groups of rows of keys [t0, t0 + kt): the whole
    // block at once where every row sees every key, else (the causal
    // diagonal) groups of the kernel's mr rows, each over the keys its last
    // row sees, so the masked triangle is skipped but for what falls inside a
    // group. Each element is still summed in one fixed order (kernels.hpp).
    auto byVisibleKeys = [&](std::size_t t0, std::size_t kt, const auto& product) {
      if (visible(i0) >= t0 + kt) return product(std::size_t{0}, rows, kt);
      for (std::size_t r = 0; r < rows; r += kern.mr) {
        const std::size_t g = std::min(kern.mr, rows - r), seen = visible(i0 + r + g - 1);
        if (seen > t0) product(r, g, std::min(kt, seen - t0));
      }
    };

    if (!fused) {
      // The weights are wanted: they go straight into the caller's buffer.
      float* p = attention + ((b * H + h) * Lq + i0) * Lk;
      {
        MHA_STAGE(scores);
        // With the scores returned, every pair is computed (masked ones too).
        const auto product = [&](std::size_t r, std::size_t g, std::size_t n) {
          kern.gemm(g, n, dK, q + r * dK, dK, pK, dK * kPanel, nullptr, false, p + r * Lk, Lk);
        };
        if (scores)
          product(0, rows, Lk);
        else
          byVisibleKeys(0, limit, product);
      }
      bool keyless[kQueryBlock] = {};
      {
        MHA_STAGE(softmax);
        if (scores) {
          // Back from base-2 units: QKᵀ/√dK.
          float* rowScores = scores + ((b * H + h) * Lq + i0) * Lk;
          for (std::size_t e = 0; e < rows * Lk; ++e) rowScores[e] = p[e] / log2e;
        }
        for (std::size_t r = 0; r < rows; ++r) {
          float* row = p + r * Lk;
          const std::size_t n = visible(i0 + r);
          if (padding)
            for (std::size_t j = 0; j < n; ++j)
              if (padding[j]) row[j] = kNegInf;
          keyless[r] = !softmax_row(kern, row, n);
          std::fill(row + n, row + Lk, 0.0f);
        }
      }
      {
        MHA_STAGE(weighted);
        byVisibleKeys(0, limit, [&](std::size_t r, std::size_t g, std::size_t n) {
          kern.gemm(g, dV, n, p + r * Lk, Lk, pV, vStride, nullptr, false, headOut + r * hv, hv);
        });
      }
      // A row with no usable key outputs exactly 0, even where an ignored
      // key's value is not finite (0·NaN would be NaN), as in the fused path.
      for (std::size_t r = 0; r < rows; ++r)
        if (keyless[r]) std::fill(headOut + r * hv, headOut + r * hv + dV, 0.0f);
      return;
    }

    // Fused: key tiles with an online softmax (softmax.hpp).
    float* S = q + kQueryBlock * dK;
    float* acc = S + kQueryBlock * kKeyTile;
    float* m = acc + kQueryBlock * dV;
    const OnlineSoftmax online{m, m + kQueryBlock, acc, dV};
    online.start(rows);
    for (std::size_t t0 = 0; t0 < limit; t0 += kKeyTile) {
      const std::size_t kt = std::min(kKeyTile, limit - t0);
      {
        MHA_STAGE(scores);
        byVisibleKeys(t0, kt, [&](std::size_t r, std::size_t g, std::size_t n) {
          kern.gemm(g, n, dK, q + r * dK, dK, pK + t0 * dK, dK * kPanel, nullptr, false, S + r * kKeyTile, kKeyTile);
        });
      }
      {
        MHA_STAGE(softmax);
        std::size_t seen[kQueryBlock];
        for (std::size_t r = 0; r < rows; ++r) {
          const std::size_t keys = visible(i0 + r);
          seen[r] = keys > t0 ? std::min(kt, keys - t0) : 0;
        }
        online.tile(kern, S, kKeyTile, rows, kt, seen, padding ? padding + t0 : nullptr);
      }
      MHA_STAGE(weighted);
      byVisibleKeys(t0, kt, [&](std::size_t r, std::size_t g, std::size_t n) {
        kern.gemm(g, dV, n, S + r * kKeyTile, kKeyTile, pV + t0 * kPanel, vStride, nullptr, true, acc + r * dV, dV);
      });
    }
    MHA_STAGE(softmax);
    online.finish(rows, headOut, hv);
  });
}

}  // namespace mha
