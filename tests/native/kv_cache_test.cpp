// Native tests of Attention::attend for every kind of model (AttendArgs) and of
// the KV cache: grouped-query attention, a causal mask with an offset, key
// padding and a head mask against a plain float64 reference written here from
// the definitions (a second opinion, not a copy: no packing, no tiles); a
// causal sequence computed step by step through the cache equal bit for bit
// to the one-shot call, on 1, 2 and 3 threads, with both kernel sets;
// cross-attention over a cache filled once; truncate, reset and the refusals.
#include "kv_cache.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "attention.hpp"
#include "reference.hpp"

namespace {

using mha_test::same_bits;

// Projections as the model blocks hand them over: Q [B·Lq, H·dK], K [B·Lk,
// G·dK], V [B·Lk, G·dV], each row `pad` floats wider than its heads (a leading
// dimension that is not the width, as in Q|K|V computed by one product).
struct Projections {
  std::size_t B, Lq, Lk, H, G, dK, dV, pad;
  std::vector<float> Q, K, V;
  std::vector<std::uint8_t> padding, headMask;
  std::size_t ldq() const { return H * dK + pad; }
  std::size_t ldk() const { return G * dK + pad; }
  std::size_t ldv() const { return G * dV + pad; }
};

Projections random_projections(std::size_t B, std::size_t Lq, std::size_t Lk, std::size_t H, std::size_t G,
                               std::size_t dK, std::size_t dV, std::uint32_t seed) {
  Projections p{B, Lq, Lk, H, G, dK, dV, 3, {}, {}, {}, {}, {}};
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  auto fill = [&](std::vector<float>& v, std::size_t n) {
    v.resize(n);
    for (float& x : v) x = normal(rng);
  };
  fill(p.Q, B * Lq * p.ldq());
  fill(p.K, B * Lk * p.ldk());
  fill(p.V, B * Lk * p.ldv());
  return p;
}

struct Result {
  std::vector<float> heads, attention;
};

// The float64 reference: head h of item b attends with key/value head
// h / (H / G); query i sees key j when j <= offset + i (causal) and the key
// is not padded; a row that sees no key is 0; a head switched off is 0.
Result reference(const Projections& p, bool causal, std::size_t offset) {
  Result r{std::vector<float>(p.B * p.Lq * p.H * p.dV), std::vector<float>(p.B * p.H * p.Lq * p.Lk)};
  for (std::size_t b = 0; b < p.B; ++b)
    for (std::size_t h = 0; h < p.H; ++h) {
      const std::size_t g = h / (p.H / p.G);
      const bool off = !p.headMask.empty() && p.headMask[h] == 0;
      for (std::size_t i = 0; i < p.Lq; ++i) {
        std::vector<double> s(p.Lk, -std::numeric_limits<double>::infinity());
        double max = -std::numeric_limits<double>::infinity();
        for (std::size_t j = 0; j < p.Lk; ++j) {
          if (causal && j > offset + i) continue;
          if (!p.padding.empty() && p.padding[b * p.Lk + j]) continue;
          double dot = 0;
          for (std::size_t k = 0; k < p.dK; ++k)
            dot += double(p.Q[(b * p.Lq + i) * p.ldq() + h * p.dK + k]) * p.K[(b * p.Lk + j) * p.ldk() + g * p.dK + k];
          s[j] = dot / std::sqrt(double(p.dK));
          max = std::max(max, s[j]);
        }
        if (off || max == -std::numeric_limits<double>::infinity()) continue;
        double sum = 0;
        for (double& x : s) sum += (x = std::exp(x - max));
        for (std::size_t j = 0; j < p.Lk; ++j) {
          const double w = s[j] / sum;
          r.attention[((b * p.H + h) * p.Lq + i) * p.Lk + j] = float(w);
          for (std::size_t c = 0; c < p.dV; ++c)
            r.heads[(b * p.Lq + i) * p.H * p.dV + h * p.dV + c] +=
                float(w * p.V[(b * p.Lk + j) * p.ldv() + g * p.dV + c]);
        }
      }
    }
  return r;
}

mha::AttendArgs args_of(const Projections& p, bool causal, std::size_t offset, Result& r, bool withAttention) {
  r.heads.assign(p.B * p.Lq * p.H * p.dV, std::numeric_limits<float>::quiet_NaN());
  r.attention.assign(withAttention ? p.B * p.H * p.Lq * p.Lk : 0, std::numeric_limits<float>::quiet_NaN());
  mha::AttendArgs a;
  a.batch = p.B;
  a.seqLenQ = p.Lq;
  a.seqLenK = p.Lk;
  a.numHeads = p.H;
  a.numKVHeads = p.G;
  a.dK = p.dK;
  a.dV = p.dV;
  a.query = p.Q.data();
  a.ldq = p.ldq();
  a.key = p.K.data();
  a.ldk = p.ldk();
  a.value = p.V.data();
  a.ldv = p.ldv();
  a.causal = causal;
  a.causalOffset = offset;
  a.keyPaddingMask = p.padding.empty() ? nullptr : p.padding.data();
  a.headMask = p.headMask.empty() ? nullptr : p.headMask.data();
  a.heads = r.heads.data();
  a.attention = withAttention ? r.attention.data() : nullptr;
  a.parallel = true;
  return a;
}

Result one_shot(const Projections& p, bool causal, std::size_t offset, const mha::Kernels& k, std::size_t threads,
                bool withAttention) {
  Result r;
  mha::Attention attention(threads, k);
  attention.attend(args_of(p, causal, offset, r, withAttention));
  return r;
}

void expect_near(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(got[i] - want[i]) <= 2e-5 + 2e-5 * std::fabs(want[i])) && bad++ < 5)
      ADD_FAILURE() << what << "[" << i << "]: got " << got[i] << ", want " << want[i];
  EXPECT_EQ(bad, 0u) << what;
}

std::vector<const mha::Kernels*> kernel_sets() { return {&mha::scalar_kernels(), &mha::simd_kernels()}; }

TEST(Attend, GroupedQueryCausalOffsetPaddingAndHeadMaskAgainstFloat64) {
  std::uint32_t seed = 1;
  for (std::size_t G : {6, 3, 2, 1})
    for (std::size_t offset : {0, 5, 60})
      for (bool causal : {false, true}) {
        Projections p = random_projections(2, 37, 50, 6, G, 12, 10, seed++);
        p.padding.assign(p.B * p.Lk, 0);
        for (std::size_t j = 0; j < p.padding.size(); j += 7) p.padding[j] = 1;
        p.headMask = {1, 1, 0, 1, 1, 1};
        const Result want = reference(p, causal, offset);
        const std::string what =
            "G " + std::to_string(G) + ", offset " + std::to_string(offset) + ", causal " + std::to_string(causal);
        for (const mha::Kernels* k : kernel_sets()) {
          const Result r = one_shot(p, causal, offset, *k, 2, true);
          expect_near(r.heads, want.heads, what + " heads (" + k->name + ")");
          expect_near(r.attention, want.attention, what + " attention (" + k->name + ")");
          expect_near(one_shot(p, causal, offset, *k, 2, false).heads, want.heads,
                      what + " fused heads (" + k->name + ")");
        }
      }
}

TEST(Attend, GroupedQueryEqualsEveryHeadGivenItsGroupsKeys) {
  // numKVHeads < numHeads is the same attention as numHeads key/value heads
  // each a copy of its group's: bit for bit.
  for (const mha::Kernels* k : kernel_sets()) {
    const Projections grouped = random_projections(1, 40, 40, 8, 2, 16, 16, 99);
    Projections full = grouped;
    full.G = 8;
    full.K.assign(full.Lk * full.ldk(), 0.0f);
    full.V.assign(full.Lk * full.ldv(), 0.0f);
    for (std::size_t j = 0; j < full.Lk; ++j)
      for (std::size_t h = 0; h < 8; ++h)
        for (std::size_t c = 0; c < 16; ++c) {
          full.K[j * full.ldk() + h * 16 + c] = grouped.K[j * grouped.ldk() + (h / 4) * 16 + c];
          full.V[j * full.ldv() + h * 16 + c] = grouped.V[j * grouped.ldv() + (h / 4) * 16 + c];
        }
    for (bool withAttention : {true, false}) {
      const Result a = one_shot(grouped, true, 0, *k, 3, withAttention);
      const Result b = one_shot(full, true, 0, *k, 3, withAttention);
      EXPECT_TRUE(same_bits(a.heads, b.heads)) << k->name;
      EXPECT_TRUE(same_bits(a.attention, b.attention)) << k->name;
    }
  }
}

// The rows [first, first + count) of every item and head of a one-shot result.
Result rows_of(const Projections& p, const Result& r, std::size_t first, std::size_t count, std::size_t keys) {
  Result out;
  for (std::size_t b = 0; b < p.B; ++b)
    for (std::size_t i = first; i < first + count; ++i) {
      const float* row = r.heads.data() + (b * p.Lq + i) * p.H * p.dV;
      out.heads.insert(out.heads.end(), row, row + p.H * p.dV);
    }
  if (!r.attention.empty())
    for (std::size_t b = 0; b < p.B; ++b)
      for (std::size_t h = 0; h < p.H; ++h)
        for (std::size_t i = first; i < first + count; ++i) {
          const float* row = r.attention.data() + ((b * p.H + h) * p.Lq + i) * p.Lk;
          out.attention.insert(out.attention.end(), row, row + keys);
        }
  return out;
}

// Projections of positions [first, first + count) of every item, as a step's
// own arrays (what a decoder's projection of its new tokens writes).
Projections slice(const Projections& p, std::size_t first, std::size_t count) {
  Projections s = p;
  s.Lq = s.Lk = count;
  s.Q.clear();
  s.K.clear();
  s.V.clear();
  for (std::size_t b = 0; b < p.B; ++b) {
    s.Q.insert(s.Q.end(), p.Q.begin() + (b * p.Lq + first) * p.ldq(),
               p.Q.begin() + (b * p.Lq + first + count) * p.ldq());
    s.K.insert(s.K.end(), p.K.begin() + (b * p.Lk + first) * p.ldk(),
               p.K.begin() + (b * p.Lk + first + count) * p.ldk());
    s.V.insert(s.V.end(), p.V.begin() + (b * p.Lk + first) * p.ldv(),
               p.V.begin() + (b * p.Lk + first + count) * p.ldv());
  }
  return s;
}

// Runs a causal sequence through a cache in chunks (a prefill then steps),
// each chunk attending with causal offset = the positions before it, and
// returns the rows in the one-shot layout.
Result through_cache(const Projections& p, const std::vector<std::size_t>& chunks, const mha::Kernels& k,
                     std::size_t threads, bool withAttention, mha::KVCache& cache) {
  mha::Attention attention(threads, k);
  cache.configure(p.B, p.G, p.dK, p.dV, p.Lq + 11);
  Result all;
  std::vector<Result> parts;
  std::size_t done = 0;
  for (std::size_t count : chunks) {
    const Projections s = slice(p, done, count);
    cache.append(count, s.K.data(), s.ldk(), s.V.data(), s.ldv());
    Projections q = s;
    q.Lk = cache.length();
    Result r;
    mha::AttendArgs a = args_of(q, true, done, r, withAttention);
    attention.attend(a, cache);
    parts.push_back(r);
    done += count;
  }
  // Back into the one-shot layout: rows of item b, then weights per (b, h, i)
  // over all Lk keys (keys past a step's cache are 0 in the one-shot result).
  all.heads.assign(p.B * p.Lq * p.H * p.dV, 0.0f);
  if (withAttention) all.attention.assign(p.B * p.H * p.Lq * p.Lq, 0.0f);
  done = 0;
  for (std::size_t c = 0; c < chunks.size(); ++c) {
    const std::size_t count = chunks[c], keys = done + count;
    for (std::size_t b = 0; b < p.B; ++b)
      for (std::size_t i = 0; i < count; ++i) {
        std::copy_n(parts[c].heads.data() + (b * count + i) * p.H * p.dV, p.H * p.dV,
                    all.heads.data() + (b * p.Lq + done + i) * p.H * p.dV);
        if (withAttention)
          for (std::size_t h = 0; h < p.H; ++h)
            std::copy_n(parts[c].attention.data() + ((b * p.H + h) * count + i) * keys, keys,
                        all.attention.data() + ((b * p.H + h) * p.Lq + done + i) * p.Lq);
      }
    done += count;
  }
  return all;
}

TEST(KVCache, StepByStepEqualsOneShotBitForBit) {
  // 150 positions: more than one key tile (128) and several query blocks (32).
  const std::vector<std::size_t> chunks = [] {
    std::vector<std::size_t> c{37};  // a prefill
    for (std::size_t n = 37; n < 150;) {
      const std::size_t step = (n % 5 == 0) ? 3 : 1;  // mostly one token, sometimes three
      const std::size_t take = std::min<std::size_t>(step, 150 - n);
      c.push_back(take);
      n += take;
    }
    return c;
  }();
  for (std::size_t G : {4, 2, 1}) {
    const Projections p = random_projections(2, 150, 150, 4, G, 16, 24, 7 + std::uint32_t(G));
    for (const mha::Kernels* k : kernel_sets())
      for (bool withAttention : {true, false}) {
        const Result want = one_shot(p, true, 0, *k, 1, withAttention);
        for (std::size_t threads : {1, 2, 3}) {
          mha::KVCache cache;
          const Result got = through_cache(p, chunks, *k, threads, withAttention, cache);
          const std::string what = std::string(k->name) + ", G " + std::to_string(G) + ", " + std::to_string(threads) +
                                   " threads, weights " + std::to_string(withAttention);
          EXPECT_TRUE(same_bits(got.heads, want.heads)) << what;
          EXPECT_TRUE(same_bits(got.attention, want.attention)) << what;
          EXPECT_EQ(cache.length(), 150u);
        }
      }
  }
}

TEST(KVCache, CausalOffsetOverACacheEqualsTheWholeSequence) {
  // One chunk of 20 queries at offset 90 over a cache of 110 positions: the
  // last 20 rows of the whole sequence's causal attention.
  const Projections p = random_projections(1, 110, 110, 6, 3, 8, 8, 31);
  for (const mha::Kernels* k : kernel_sets()) {
    const Result want = rows_of(p, one_shot(p, true, 0, *k, 2, true), 90, 20, 110);
    mha::KVCache cache;
    cache.configure(1, 3, 8, 8, 128);
    const Projections first = slice(p, 0, 90), last = slice(p, 90, 20);
    cache.append(90, first.K.data(), first.ldk(), first.V.data(), first.ldv());
    cache.append(20, last.K.data(), last.ldk(), last.V.data(), last.ldv());
    Projections q = last;
    q.Lk = 110;
    Result got;
    mha::Attention attention(2, *k);
    attention.attend(args_of(q, true, 90, got, true), cache);
    EXPECT_TRUE(same_bits(got.heads, want.heads)) << k->name;
    EXPECT_TRUE(same_bits(got.attention, want.attention)) << k->name;
  }
}

TEST(KVCache, CrossAttentionReusesTheEncodersKeysForEveryStep) {
  // Decoder queries one at a time over an encoder's 40 keys filled once: each
  // step equals its row of the one-shot cross-attention.
  const Projections p = random_projections(2, 9, 40, 4, 4, 16, 16, 5);
  for (const mha::Kernels* k : kernel_sets()) {
    const Result want = one_shot(p, false, 0, *k, 3, true);
    mha::KVCache encoder;
    encoder.configure(2, 4, 16, 16, 40);
    encoder.append(40, p.K.data(), p.ldk(), p.V.data(), p.ldv());
    mha::Attention attention(3, *k);
    for (std::size_t i = 0; i < p.Lq; ++i) {
      Projections q = p;
      q.Lq = 1;
      q.Q.clear();
      for (std::size_t b = 0; b < 2; ++b)
        q.Q.insert(q.Q.end(), p.Q.begin() + (b * p.Lq + i) * p.ldq(), p.Q.begin() + (b * p.Lq + i + 1) * p.ldq());
      Result got;
      attention.attend(args_of(q, false, 0, got, true), encoder);
      const Result row = rows_of(p, want, i, 1, 40);
      EXPECT_TRUE(same_bits(got.heads, row.heads)) << k->name << " step " << i;
      EXPECT_TRUE(same_bits(got.attention, row.attention)) << k->name << " step " << i;
    }
    EXPECT_EQ(encoder.length(), 40u);
  }
}

TEST(KVCache, TruncateThenAppendEqualsAFreshCache) {
  const Projections p = random_projections(1, 30, 30, 2, 1, 8, 8, 11);
  const Projections other = random_projections(1, 30, 30, 2, 1, 8, 8, 12);
  const mha::Kernels& k = mha::simd_kernels();
  mha::KVCache fresh, reused;
  fresh.configure(1, 1, 8, 8, 30);
  reused.configure(1, 1, 8, 8, 30);
  fresh.append(30, p.K.data(), p.ldk(), p.V.data(), p.ldv());
  // Another continuation after position 13, taken back, then the right one.
  const Projections head = slice(p, 0, 13), tail = slice(p, 13, 17), wrong = slice(other, 13, 17);
  reused.append(13, head.K.data(), head.ldk(), head.V.data(), head.ldv());
  reused.append(17, wrong.K.data(), wrong.ldk(), wrong.V.data(), wrong.ldv());
  reused.truncate(13);
  EXPECT_EQ(reused.length(), 13u);
  reused.append(17, tail.K.data(), tail.ldk(), tail.V.data(), tail.ldv());
  Result a, b;
  mha::Attention attention(1, k);
  attention.attend(args_of(p, true, 0, a, true), fresh);
  attention.attend(args_of(p, true, 0, b, true), reused);
  EXPECT_TRUE(same_bits(a.heads, b.heads));
  EXPECT_TRUE(same_bits(a.attention, b.attention));
  // A cache truncated to 13 attends as one that only ever held 13 (a query
  // that sees every key: the zeroed room is never read as keys).
  mha::KVCache short13;
  short13.configure(1, 1, 8, 8, 30);
  short13.append(13, head.K.data(), head.ldk(), head.V.data(), head.ldv());
  reused.truncate(13);
  Projections q = slice(p, 12, 1);
  q.Lk = 13;
  Result c, d;
  attention.attend(args_of(q, false, 0, c, true), short13);
  attention.attend(args_of(q, false, 0, d, true), reused);
  EXPECT_TRUE(same_bits(c.heads, d.heads));
  EXPECT_TRUE(same_bits(c.attention, d.attention));
  reused.reset();
  EXPECT_EQ(reused.length(), 0u);
  EXPECT_EQ(reused.capacity(), 30u);
}

// Beam search's reordering: a cache of 3 items whose item b becomes item
// parents[b] holds exactly what a cache filled from those items' rows holds
// (every packed float, the zero room included), across a panel boundary.
TEST(KVCache, SelectEqualsACacheFilledFromTheParentsRows) {
  const std::size_t B = 3, L = 21, G = 2, dK = 8, dV = 12;
  const Projections p = random_projections(B, L, L, G, G, dK, dV, 21);
  const std::vector<std::vector<std::size_t>> orders = {{2, 0, 0}, {1, 1, 1}, {0, 2, 1}, {0, 1, 2}};
  for (const std::vector<std::size_t>& parents : orders) {
    mha::KVCache cache, want;
    cache.configure(B, G, dK, dV, 40);
    want.configure(B, G, dK, dV, 40);
    cache.append(L, p.K.data(), p.ldk(), p.V.data(), p.ldv());
    // The rows of item parents[b] as item b's.
    std::vector<float> K(B * L * p.ldk()), V(B * L * p.ldv());
    for (std::size_t b = 0; b < B; ++b) {
      std::copy_n(p.K.data() + parents[b] * L * p.ldk(), L * p.ldk(), K.data() + b * L * p.ldk());
      std::copy_n(p.V.data() + parents[b] * L * p.ldv(), L * p.ldv(), V.data() + b * L * p.ldv());
    }
    want.append(L, K.data(), p.ldk(), V.data(), p.ldv());
    cache.select(parents.data(), parents.size());
    const mha::PackedKeyValues a = cache.view(), w = want.view();
    const std::size_t heads = B * G;
    EXPECT_TRUE(same_bits(std::vector<float>(a.keys, a.keys + heads * a.keyStride),
                          std::vector<float>(w.keys, w.keys + heads * w.keyStride)));
    EXPECT_TRUE(same_bits(std::vector<float>(a.values, a.values + heads * a.valueStride),
                          std::vector<float>(w.values, w.values + heads * w.valueStride)));
    EXPECT_EQ(cache.length(), L);
  }
}

// A cache grown on the way (room for 5, then 11, then 40 positions) holds
// exactly what one configured for 40 from the start holds (every packed
// float, the zero room included) and attends to the same bits.
TEST(KVCache, ReserveKeepsWhatItHoldsAsACacheWithTheRoomFromTheStart) {
  const std::size_t B = 2, L = 21, G = 2, dK = 8, dV = 12;
  const Projections p = random_projections(B, L, L, G, G, dK, dV, 23);
  mha::KVCache grown, want;
  want.configure(B, G, dK, dV, 40);
  grown.configure(B, G, dK, dV, 5);
  // Three appends of 4, 5 and 12 positions per item, the rows of item b of each part together.
  std::size_t at = 0;
  for (std::size_t count : {4u, 5u, 12u}) {
    std::vector<float> K(B * count * p.ldk()), V(B * count * p.ldv());
    for (std::size_t b = 0; b < B; ++b) {
      std::copy_n(p.K.data() + (b * L + at) * p.ldk(), count * p.ldk(), K.data() + b * count * p.ldk());
      std::copy_n(p.V.data() + (b * L + at) * p.ldv(), count * p.ldv(), V.data() + b * count * p.ldv());
    }
    grown.reserve(at + count == 9 ? 11 : at + count > 11 ? 40 : grown.capacity());
    grown.append(count, K.data(), p.ldk(), V.data(), p.ldv());
    at += count;
  }
  want.append(L, p.K.data(), p.ldk(), p.V.data(), p.ldv());
  EXPECT_EQ(grown.capacity(), 40u);
  grown.reserve(12);  // less than it has: nothing changes
  EXPECT_EQ(grown.capacity(), 40u);
  const mha::PackedKeyValues a = grown.view(), w = want.view();
  EXPECT_EQ(a.keyStride, w.keyStride);
  EXPECT_EQ(a.valueStride, w.valueStride);
  const std::size_t heads = B * G;
  EXPECT_TRUE(same_bits(std::vector<float>(a.keys, a.keys + heads * a.keyStride),
                        std::vector<float>(w.keys, w.keys + heads * w.keyStride)));
  EXPECT_TRUE(same_bits(std::vector<float>(a.values, a.values + heads * a.valueStride),
                        std::vector<float>(w.values, w.values + heads * w.valueStride)));
  EXPECT_EQ(grown.length(), L);
}

template <typename F>
void expect_refused(F&& f, const std::string& words) {
  try {
    f();
    ADD_FAILURE() << "not refused: " << words;
  } catch (const mha::ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(KVCache, RefusalsNameWhatIsWrongAndChangeNothing) {
  const Projections p = random_projections(1, 8, 8, 4, 2, 8, 8, 3);
  mha::KVCache cache;
  expect_refused([&] { cache.append(1, p.K.data(), p.ldk(), p.V.data(), p.ldv()); }, "not configured");
  expect_refused([&] { cache.configure(1, 0, 8, 8, 10); }, "numKVHeads");
  expect_refused([&] { cache.configure(1, 1, 8, 8, 0); }, "capacity");
  expect_refused([&] { cache.configure(1 << 16, 1 << 10, 64, 64, 1 << 12); }, "scratch");
  cache.configure(1, 2, 8, 8, 10);
  cache.append(8, p.K.data(), p.ldk(), p.V.data(), p.ldv());
  expect_refused([&] { cache.append(3, p.K.data(), p.ldk(), p.V.data(), p.ldv()); }, "do not fit: it holds 8 of 10");
  EXPECT_EQ(cache.length(), 8u);
  expect_refused([&] { cache.truncate(9); }, "holds 8");
  const std::size_t two[] = {0, 0}, wrong[] = {1};
  expect_refused([&] { cache.select(two, 2); }, "parents: expected 1 (one per item of the cache), got 2");
  expect_refused([&] { cache.select(wrong, 1); }, "parents[0]: expected an item from 0 to 0, got 1");
  mha::Attention attention(1);
  Result r;
  Projections q = p;
  mha::AttendArgs a = args_of(q, true, 0, r, true);
  a.seqLenK = 7;
  expect_refused([&] { attention.attend(a, cache); }, "seqLenK: the keys and values hold 8");
  a = args_of(q, true, 0, r, true);
  a.numKVHeads = 4;
  expect_refused([&] { attention.attend(a, cache); }, "numKVHeads: the keys and values have 2 heads");
  a.numKVHeads = 3;
  expect_refused([&] { attention.attend(a); }, "numKVHeads: expected a divisor of numHeads (4), got 3");
  a = args_of(q, true, 0, r, true);
  a.dV = 4;
  expect_refused([&] { attention.attend(a, cache); }, "kv cache: holds batch 1, dK 8, dV 8");
  // The cache still works afterwards.
  a = args_of(q, true, 0, r, true);
  attention.attend(a, cache);
  expect_near(r.heads, reference(p, true, 0).heads, "after the refusals");
}

}  // namespace
