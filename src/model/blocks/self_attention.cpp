#include "self_attention.hpp"

#include "profile.hpp"

namespace mha::model {

void grouped_self_attention(Attention& attention, std::size_t L, const float* qkv, const QkvLayout& layout, bool causal,
                            KVCache* cache, float* heads, float* weights, const std::uint8_t* headMask,
                            std::size_t headMaskStride) {
  MHA_BLOCK(attention);
  const std::size_t ld = layout.width();
  AttendArgs a;
  a.seqLenQ = L;
  a.numHeads = layout.H;
  a.numKVHeads = layout.G;
  a.dK = a.dV = layout.headDim;
  a.query = qkv;
  a.ldq = ld;
  a.causal = causal;
  a.headMask = headMask;
  a.headMaskStride = headMaskStride;
  a.heads = heads;
  a.attention = weights;
  if (!cache) {
    a.seqLenK = L;
    a.key = qkv + layout.keys();
    a.value = qkv + layout.values();
    a.ldk = a.ldv = ld;
    a.parallel = 4.0 * double(L) * double(L) * double(layout.H * layout.headDim) >= kParallelFlops;
    attention.attend(a);
    return;
  }
  const std::size_t past = cache->length();
  cache->append(L, qkv + layout.keys(), ld, qkv + layout.values(), ld);
  a.batch = cache->batch();
  a.seqLenK = cache->length();
  a.causal = true;
  a.causalOffset = past;
  a.parallel =
      4.0 * double(a.batch) * double(L) * double(a.seqLenK) * double(layout.H * layout.headDim) >= kParallelFlops;
  attention.attend(a, *cache);
}

void self_attention(Attention& attention, std::size_t L, const float* qkv, std::size_t D, std::size_t H, bool causal,
                    float* heads, float* weights, const std::uint8_t* headMask) {
  grouped_self_attention(attention, L, qkv, {H, H, D / H}, causal, nullptr, heads, weights, headMask);
}

void cached_self_attention(Attention& attention, std::size_t L, const float* qkv, std::size_t D, std::size_t H,
                           KVCache& cache, float* heads, float* weights, const std::uint8_t* headMask,
                           std::size_t headMaskStride) {
  grouped_self_attention(attention, L, qkv, {H, cache.numKVHeads(), D / H}, true, &cache, heads, weights, headMask,
                         headMaskStride);
}

void cross_attention(Attention& attention, std::size_t N, const float* q, std::size_t D, std::size_t H,
                     const KVCache& encoded, float* heads, float* weights, const std::uint8_t* headMask) {
  MHA_BLOCK(attention);
  AttendArgs a;
  a.seqLenQ = N;
  a.seqLenK = encoded.length();
  a.numHeads = H;
  a.numKVHeads = encoded.numKVHeads();
  a.dK = a.dV = D / H;
  a.query = q;
  a.ldq = D;
  a.headMask = headMask;
  a.heads = heads;
  a.attention = weights;
  a.parallel = 4.0 * double(N) * double(a.seqLenK) * double(D) >= kParallelFlops;
  attention.attend(a, encoded);
}

}  // namespace mha::model
