// libFuzzer target over the core's public entry point, mha::Attention::forward,
// built with clang under AddressSanitizer and UndefinedBehaviorSanitizer
// (CMake option MHA_FUZZ; scripts/test.sh runs a bounded smoke run).
//
// The input is decoded into small dims, flags, a key padding mask and the data
// of every array: each array picks one of four value modes (small finite
// values; the same with a few specials — NaN, ±Inf, denormals, ±1e30, ±FLT_MAX;
// raw float32 bits; finite values up to ±1e3). Bytes past the end of the input
// come from a generator seeded by the input, so a short input still fills
// large arrays. Each input runs through one-shot and packed weights, with the
// attention weights returned and fused (not returned), on 1 and 3 threads,
// with the SIMD and the scalar kernels. Whatever the values: no crash, no hang,
// no sanitizer report, and
//   - masked attention weights (causal, padding) are exactly 0, even in rows
//     whose logits are NaN or +Inf, and a row with no usable
//     key is all 0 with a head output (concat) of exactly 0, on both paths;
//   - packed weights give the same bits as one-shot; 3 threads the same bits as 1.
// Where every input is finite with |x| <= 1e3 (nothing overflows float32):
//   - every output, weight and projection is finite; weights are in [0, 1];
//   - each row with a usable key sums to 1 within 1e-5 (seqLenK <= 160 keeps
//     the float32 summation's worst case, (n + 1)·2^-24, below that);
//   - a row with no usable key has output == bO (0 without a bias);
//   - fused output, scalar kernels and SIMD kernels agree within 1e-4 of an
//     error scale built from the magnitudes (|bO| + Σ max|V|·|wO|), and the
//     scalar and SIMD projections are bitwise equal (the kernels' contract,
//     kernels_scalar.cpp) unless the host compiles FMA in.
// Bad dims and mismatched packed weights must throw mha::ArgumentError.
//
// Run longer:  build/fuzz/mha_attention_fuzz -max_total_time=3600 -timeout=10 build/fuzz/corpus
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "attention.hpp"
#include "reader.hpp"

namespace {

// The call being checked, printed with any failure (to reproduce it by hand).
char g_call[256];

// Fails the run: libFuzzer saves the input as crash-<sha1> and prints this line.
[[noreturn]] void fail(const char* what, std::size_t at = 0, double got = 0, double want = 0) {
  std::fprintf(stderr, "attention_fuzz: %s (index %zu: got %.9g, want %.9g)\n  in %s\n", what, at, got, want, g_call);
  std::abort();
}

using fuzz::Reader;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kSpecials[] = {std::numeric_limits<float>::quiet_NaN(),
                               -std::numeric_limits<float>::quiet_NaN(),
                               kInf,
                               -kInf,
                               1e30f,
                               -1e30f,
                               std::numeric_limits<float>::max(),
                               -std::numeric_limits<float>::max(),
                               1e-40f /* denormal */,
                               -1e-40f,
                               std::numeric_limits<float>::denorm_min(),
                               std::numeric_limits<float>::min(),
                               -0.0f,
                               1e3f,
                               -1e3f,
                               3e38f};

enum Mode { kSmall, kSpecial, kRawBits, kLarge };

float value(Reader& r, Mode mode) {
  const std::uint8_t b = r.byte();
  switch (mode) {
    case kSmall: return (static_cast<int>(b) - 128) / 32.0f;  // [-4, 3.97]
    case kSpecial: return b >= 240 ? kSpecials[b - 240] : (static_cast<int>(b) - 120) / 30.0f;
    case kRawBits: {
      std::uint32_t bits = b;
      for (int i = 1; i < 4; ++i) bits |= std::uint32_t{r.byte()} << (8 * i);
      float f;
      std::memcpy(&f, &bits, sizeof f);
      return f;
    }
    case kLarge:
    default: return (static_cast<int>(b) - 128) * (1000.0f / 128.0f);  // [-1000, 992]
  }
}

struct Case {
  mha::Dims d;
  bool causal = false, self = false, mask = false, bias[4] = {};
  bool release = false, badCalls = false;
  std::vector<float> query, key, value, wQ, wK, wV, wO, bQ, bK, bV, bO;
  std::vector<std::uint8_t> padding;
  bool tame = true;  // every input finite with |x| <= 1e3
};

void fill(Reader& r, std::vector<float>& v, std::size_t n, Mode mode, bool& tame) {
  v.resize(n);
  for (auto& x : v) {
    x = value(r, mode);
    if (!(std::fabs(x) <= 1e3f)) tame = false;
  }
}

Case decode(const std::uint8_t* data, std::size_t size) {
  Reader r(data, size);
  Case c;
  const std::uint8_t flags = r.byte(), flags2 = r.byte();
  // Mostly small calls (fast); one in four large enough (> 4 MFLOP) that
  // the engine splits it over its threads and the fused path crosses key tiles.
  const bool large = (flags & 3) == 0;
  mha::Dims& d = c.d;
  d.batch = r.range(1, large ? 2 : 3);
  d.seqLenQ = r.range(1, large ? 70 : 40);
  d.seqLenK = (flags2 & 1) ? d.seqLenQ : r.range(1, large ? 160 : 40);
  d.dModel = r.range(large ? 16 : 1, large ? 32 : 12);
  d.numHeads = r.range(1, 4);
  d.dK = r.range(1, large ? 16 : 9);
  d.dV = r.range(1, large ? 16 : 9);
  c.causal = flags & 4;
  c.mask = flags & 8;
  for (int i = 0; i < 4; ++i) c.bias[i] = flags & (16 << i);
  c.self = (flags2 & 2) && d.seqLenK == d.seqLenQ;
  c.release = flags2 & 4;
  c.badCalls = flags2 & 8;
  std::uint32_t modes = 0;
  for (int i = 0; i < 3; ++i) modes |= std::uint32_t{r.byte()} << (8 * i);
  auto mode = [&] {
    const Mode m = static_cast<Mode>(modes & 3);
    modes >>= 2;
    return m;
  };
  const mha::Sizes s = mha::sizes_of(d);
  fill(r, c.query, s.query, mode(), c.tame);
  const Mode mk = mode(), mv = mode();
  if (!c.self) {
    fill(r, c.key, s.key, mk, c.tame);
    fill(r, c.value, s.value, mv, c.tame);
  }
  fill(r, c.wQ, s.wQ, mode(), c.tame);
  fill(r, c.wK, s.wK, mode(), c.tame);
  fill(r, c.wV, s.wV, mode(), c.tame);
  fill(r, c.wO, s.wO, mode(), c.tame);
  std::vector<float>* biases[] = {&c.bQ, &c.bK, &c.bV, &c.bO};
  const std::size_t biasSizes[] = {s.bQ, s.bK, s.bV, s.bO};
  for (int i = 0; i < 4; ++i) {
    const Mode m = mode();
    if (c.bias[i]) fill(r, *biases[i], biasSizes[i], m, c.tame);
  }
  if (c.mask) {
    c.padding.resize(s.keyPaddingMask);
    // Mostly 0/1; the core treats any non-zero byte as "ignore this key".
    for (auto& m : c.padding) {
      const std::uint8_t b = r.byte();
      m = b < 160 ? 0 : b < 250 ? 1 : b;
    }
  }
  return c;
}

mha::Inputs inputs(const Case& c) {
  auto ptr = [](const std::vector<float>& v) { return v.empty() ? nullptr : v.data(); };
  mha::Inputs in;
  in.query = c.query.data();
  in.key = c.self ? c.query.data() : c.key.data();
  in.value = c.self ? c.query.data() : c.value.data();
  in.wQ = c.wQ.data();
  in.wK = c.wK.data();
  in.wV = c.wV.data();
  in.wO = c.wO.data();
  in.bQ = ptr(c.bQ);
  in.bK = ptr(c.bK);
  in.bV = ptr(c.bV);
  in.bO = ptr(c.bO);
  in.keyPaddingMask = c.mask ? c.padding.data() : nullptr;
  in.causal = c.causal;
  return in;
}

struct Result {
  std::vector<float> output, attention, Q, K, V, concat;
};

// One forward: one-shot when `packed` is null; the weights returned unless fused.
Result run(mha::Attention& engine, const Case& c, const mha::PackedWeights* packed, bool fused) {
  const mha::Dims& d = c.d;
  const mha::Sizes s = mha::sizes_of(d);
  Result r;
  r.output.assign(s.output, -1.0f);  // garbage the engine must overwrite
  r.attention.assign(fused ? 0 : s.attention, -1.0f);
  r.Q.assign(d.batch * d.seqLenQ * d.numHeads * d.dK, -1.0f);
  r.K.assign(d.batch * d.seqLenK * d.numHeads * d.dK, -1.0f);
  r.V.assign(d.batch * d.seqLenK * d.numHeads * d.dV, -1.0f);
  r.concat.assign(d.batch * d.seqLenQ * d.numHeads * d.dV, -1.0f);
  mha::Outputs out{r.output.data(), fused ? nullptr : r.attention.data()};
  out.Q = r.Q.data();
  out.K = r.K.data();
  out.V = r.V.data();
  out.concat = r.concat.data();
  const mha::Inputs in = inputs(c);
  if (packed)
    engine.forward(d, *packed, in, out);
  else
    engine.forward(d, in, out);
  return r;
}

void same_bits(const std::vector<float>& a, const std::vector<float>& b, const char* what) {
  if (a.size() != b.size()) fail(what, 0, double(a.size()), double(b.size()));
  if (!a.empty() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) != 0) {
    std::size_t i = 0;
    while (std::memcmp(&a[i], &b[i], sizeof(float)) == 0) ++i;
    fail(what, i, a[i], b[i]);
  }
}

void same_bits(const Result& a, const Result& b, const char* what) {
  same_bits(a.output, b.output, what);
  same_bits(a.attention, b.attention, what);
  same_bits(a.concat, b.concat, what);
}

bool usable(const Case& c, std::size_t b, std::size_t i, std::size_t j) {
  return !(c.causal && j > i) && !(c.mask && c.padding[b * c.d.seqLenK + j] != 0);
}

template <typename F>
void expect_throws(F&& f, const char* what) {
  try {
    f();
  } catch (const mha::ArgumentError&) {
    return;
  }
  fail(what);
}

// Calls that break the contract must throw ArgumentError, never run.
void bad_calls(mha::Attention& engine, const Case& c, const mha::PackedWeights& packed) {
  mha::Dims d = c.d;
  d.dK += 1;
  std::vector<float> output(mha::sizes_of(c.d).output);
  const mha::Inputs in = inputs(c);
  expect_throws([&] { engine.forward(d, packed, in, {output.data(), nullptr}); }, "mismatched packed weights ran");
  for (std::size_t* dim : {&d.batch, &d.seqLenQ, &d.seqLenK, &d.dModel, &d.numHeads, &d.dK, &d.dV}) {
    d = c.d;
    *dim = 0;
    expect_throws([&] { mha::sizes_of(d); }, "a zero dimension was accepted");
    *dim = (std::size_t{1} << 31) + 1;
    expect_throws([&] { mha::sizes_of(d); }, "an oversized dimension was accepted");
  }
  // Every dim in range, their product not: 2^20 × 2^12 query elements.
  d = c.d;
  d.seqLenQ = std::size_t{1} << 20;
  d.dModel = std::size_t{1} << 12;
  expect_throws([&] { mha::sizes_of(d); }, "an element count above 2^31 was accepted");
  mha::Inputs none = in;
  none.query = nullptr;
  expect_throws([&] { engine.forward(c.d, packed, none, {output.data(), nullptr}); }, "a null query ran");
}

// |bO[c]| + Σ_t max_j |V[b, j, t]|·|wO[t][c]|: a bound on |output[b, i, c]|
// (concat is a convex combination of V's rows), the scale of its rounding errors.
std::vector<double> output_scale(const Case& c, const Result& r) {
  const mha::Dims& d = c.d;
  const std::size_t hv = d.numHeads * d.dV;
  std::vector<double> scale(d.batch * d.dModel);
  std::vector<double> vmax(hv);
  for (std::size_t b = 0; b < d.batch; ++b) {
    std::fill(vmax.begin(), vmax.end(), 0.0);
    for (std::size_t j = 0; j < d.seqLenK; ++j)
      for (std::size_t t = 0; t < hv; ++t) vmax[t] = std::fmax(vmax[t], std::fabs(r.V[(b * d.seqLenK + j) * hv + t]));
    for (std::size_t col = 0; col < d.dModel; ++col) {
      double s = c.bO.empty() ? 0.0 : std::fabs(c.bO[col]);
      for (std::size_t t = 0; t < hv; ++t) s += vmax[t] * std::fabs(c.wO[t * d.dModel + col]);
      scale[b * d.dModel + col] = s;
    }
  }
  return scale;
}

void close_outputs(const Case& c, const std::vector<float>& got, const std::vector<float>& want,
                   const std::vector<double>& scale, const char* what) {
  const mha::Dims& d = c.d;
  for (std::size_t b = 0; b < d.batch; ++b)
    for (std::size_t i = 0; i < d.seqLenQ; ++i)
      for (std::size_t col = 0; col < d.dModel; ++col) {
        const std::size_t k = (b * d.seqLenQ + i) * d.dModel + col;
        if (!(std::fabs(double(got[k]) - want[k]) <= 1e-4 * scale[b * d.dModel + col] + 1e-30))
          fail(what, k, got[k], want[k]);
      }
}

void all_finite(const std::vector<float>& v, const char* what) {
  for (std::size_t k = 0; k < v.size(); ++k)
    if (!std::isfinite(v[k])) fail(what, k, v[k], 0);
}

// The engines live across inputs, as in the wasm module: every input also
// tests that scratch memory reused from an earlier (other-sized) call is safe.
struct Engines {
  mha::Attention simd1{1, mha::simd_kernels()};
  mha::Attention simd3{3, mha::simd_kernels()};
  mha::Attention scalar1{1, mha::scalar_kernels()};
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Engines engines;
  const Case c = decode(data, size);
  const mha::Dims& d = c.d;
  std::snprintf(g_call, sizeof g_call,
                "batch %zu seqLenQ %zu seqLenK %zu dModel %zu numHeads %zu dK %zu dV %zu causal %d mask %d "
                "biases %d%d%d%d self %d finite<=1e3 %d",
                d.batch, d.seqLenQ, d.seqLenK, d.dModel, d.numHeads, d.dK, d.dV, c.causal, c.mask, c.bias[0], c.bias[1],
                c.bias[2], c.bias[3], c.self, c.tame);
  if (c.release) {
    engines.simd1.release();
    engines.simd3.release();
  }
  mha::PackedWeights packed;
  packed.assign(d, inputs(c));

  const Result full = run(engines.simd1, c, nullptr, false);
  same_bits(run(engines.simd1, c, &packed, false), full, "packed weights vs one-shot (simd, 1 thread)");
  same_bits(run(engines.simd3, c, nullptr, false), full, "3 threads vs 1 (simd, weights returned)");
  const Result fused = run(engines.simd1, c, &packed, true);
  same_bits(run(engines.simd3, c, nullptr, true), fused, "3 threads vs 1 (simd, fused)");
  const Result scalar = run(engines.scalar1, c, nullptr, false);
  if (c.badCalls) bad_calls(engines.simd1, c, packed);

  const std::size_t B = d.batch, H = d.numHeads, Lq = d.seqLenQ, Lk = d.seqLenK, hv = H * d.dV;
  for (const Result* r : {&full, &scalar}) {
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t i = 0; i < Lq; ++i) {
        bool any = false;
        for (std::size_t j = 0; j < Lk; ++j) any = any || usable(c, b, i, j);
        for (std::size_t h = 0; h < H; ++h) {
          const float* row = &r->attention[((b * H + h) * Lq + i) * Lk];
          bool nanRow = any;
          for (std::size_t j = 0; j < Lk; ++j) nanRow = nanRow && (!usable(c, b, i, j) || std::isnan(row[j]));
          double sum = 0;
          for (std::size_t j = 0; j < Lk; ++j) {
            if (!usable(c, b, i, j) && row[j] != 0.0f) {
              char where[512];
              int at = std::snprintf(where, sizeof where,
                                     "a masked weight is not exactly 0 (%s kernels, batch %zu head %zu row %zu; row:",
                                     r == &full ? "simd" : "scalar", b, h, i);
              for (std::size_t t = 0; t < Lk && t < 12 && at < 480; ++t)
                at += std::snprintf(where + at, sizeof where - at, " %g%s", row[t], usable(c, b, i, t) ? "" : "m");
              std::snprintf(where + at, sizeof where - at, ")");
              fail(where, j, row[j], 0);
            }
            if (c.tame && !(row[j] >= 0.0f && row[j] <= 1.0f)) fail("a weight outside [0, 1]", j, row[j], 0);
            sum += row[j];
          }
          if (c.tame && any && !(std::fabs(sum - 1.0) <= 1e-5)) fail("a weight row does not sum to 1", i, sum, 1);
        }
        if (!any) {
          for (std::size_t t = 0; t < hv; ++t) {
            const float x = r->concat[(b * Lq + i) * hv + t];
            if (x != 0.0f) fail("a row without keys has a non-zero head output", t, x, 0);
          }
          if (c.tame)
            for (std::size_t col = 0; col < d.dModel; ++col) {
              const float want = c.bO.empty() ? 0.0f : c.bO[col];
              if (r->output[(b * Lq + i) * d.dModel + col] != want)
                fail("a row without keys has an output other than bO", col, r->output[(b * Lq + i) * d.dModel + col],
                     want);
            }
        }
      }
  }
  // The fused path has no weights to check, but the same rows without keys.
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t i = 0; i < Lq; ++i) {
      bool any = false;
      for (std::size_t j = 0; j < Lk; ++j) any = any || usable(c, b, i, j);
      if (any) continue;
      for (std::size_t t = 0; t < hv; ++t)
        if (fused.concat[(b * Lq + i) * hv + t] != 0.0f)
          fail("fused: a row without keys has a non-zero head output", t, fused.concat[(b * Lq + i) * hv + t], 0);
      for (std::size_t col = 0; c.tame && col < d.dModel; ++col) {
        const float got = fused.output[(b * Lq + i) * d.dModel + col], want = c.bO.empty() ? 0.0f : c.bO[col];
        if (got != want) fail("fused: a row without keys has an output other than bO", col, got, want);
      }
    }

  if (c.tame) {
    for (const Result* r : {&full, &fused, &scalar}) {
      all_finite(r->output, "a non-finite output from finite inputs");
      all_finite(r->attention, "a non-finite weight from finite inputs");
      all_finite(r->Q, "a non-finite Q from finite inputs");
      all_finite(r->K, "a non-finite K from finite inputs");
      all_finite(r->V, "a non-finite V from finite inputs");
      all_finite(r->concat, "a non-finite head output from finite inputs");
    }
#if !defined(__FMA__)
    same_bits(scalar.Q, full.Q, "scalar vs SIMD projections (Q)");
    same_bits(scalar.K, full.K, "scalar vs SIMD projections (K)");
    same_bits(scalar.V, full.V, "scalar vs SIMD projections (V)");
#endif
    for (std::size_t k = 0; k < full.attention.size(); ++k)
      if (!(std::fabs(scalar.attention[k] - full.attention[k]) <= 1e-5f))
        fail("scalar vs SIMD attention weights", k, scalar.attention[k], full.attention[k]);
    const std::vector<double> scale = output_scale(c, full);
    close_outputs(c, fused.output, full.output, scale, "fused vs unfused output");
    close_outputs(c, scalar.output, full.output, scale, "scalar vs SIMD output");
  }
  return 0;
}
