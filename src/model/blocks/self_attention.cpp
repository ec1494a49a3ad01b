#include "self_attention.hpp"

namespace mha::model {

void self_attention(Attention& attention, std::size_t L, const float* qkv, std::size_t D, std::size_t H, bool causal,
                    float* heads, float* weights, const std::uint8_t* headMask) {
  AttendArgs a;
  a.seqLenQ = a.seqLenK = L;
  a.numHeads = H;
  a.dK = a.dV = D / H;
  a.query = qkv;
  a.key = qkv + D;
  a.value = qkv + 2 * D;
  a.ldq = a.ldk = a.ldv = 3 * D;
  a.causal = causal;
  a.headMask = headMask;
  a.heads = heads;
  a.attention = weights;
  a.parallel = 4.0 * double(L) * double(L) * double(D) >= kParallelFlops;
  attention.attend(a);
}

void cached_self_attention(Attention& attention, std::size_t L, const float* qkv, std::size_t D, std::size_t H,
                           KVCache& cache, float* heads, float* weights, const std::uint8_t* headMask) {
  const std::size_t past = cache.length();
  cache.append(L, qkv + D, 3 * D, qkv + 2 * D, 3 * D);
  AttendArgs a;
  a.batch = cache.batch();
  a.seqLenQ = L;
  a.seqLenK = cache.length();
  a.numHeads = H;
  a.numKVHeads = cache.numKVHeads();
  a.dK = a.dV = D / H;
  a.query = qkv;
  a.ldq = 3 * D;
  a.causal = true;
  a.causalOffset = past;
  a.headMask = headMask;
  a.heads = heads;
  a.attention = weights;
  a.parallel = 4.0 * double(a.batch) * double(L) * double(a.seqLenK) * double(D) >= kParallelFlops;
  attention.attend(a, cache);
}

void cross_attention(Attention& attention, std::size_t N, const float* q, std::size_t D, std::size_t H,
                     const KVCache& encoded, float* heads, float* weights, const std::uint8_t* headMask) {
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
