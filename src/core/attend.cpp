// Attention::attend (attention.hpp): the attention of a call whose queries,
// keys and values are already projected (a model's layers), over packed keys
// or a KV cache, grouped-query, causal with an offset, with padding and a
// head mask; the same phase that forward() runs after its projections.
#include <algorithm>
#include <cmath>

#include "attention.hpp"
#include "attention_tiles.hpp"
#include "pack.hpp"
#include "softmax.hpp"
#include "stage.hpp"
#include "tiles.hpp"

namespace mha {

using detail::kKeyTile;
using detail::kNegInf;
using detail::kQueryBlock;
using detail::per_worker_floats;

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
      if (a.headMask[b * a.headMaskStride + h]) continue;
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
