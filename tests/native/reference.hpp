// What the native tests share: a test case, seeded random cases, and an
// independent float64 reference of the forward and backward passes, written
// as plainly as tests/fixtures/README.md states the math (no tiles, no
// packing, no threads), so that it is a second opinion and not a copy.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "attention.hpp"

namespace mha_test {

struct Case {
  mha::Dims d;
  bool causal = false;
  std::vector<float> query, key, value, wQ, wK, wV, wO, bQ, bK, bV, bO;
  std::vector<std::uint8_t> mask;
};

inline const float* ptr(const std::vector<float>& v) { return v.empty() ? nullptr : v.data(); }

// Bitwise equality (memcmp is not called on empty vectors).
inline bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

// The fixture README's rule: |got - want| <= abs + rel * |want|, nothing NaN.
inline void expect_close(const std::vector<float>& got, const std::vector<double>& want, double abs, double rel,
                         const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const bool ok = std::isfinite(got[i]) && std::fabs(got[i] - want[i]) <= abs + rel * std::fabs(want[i]);
    if (!ok && bad++ < 5) ADD_FAILURE() << what << "[" << i << "]: got " << got[i] << ", want " << want[i];
  }
  EXPECT_EQ(bad, 0u) << what;
}

inline std::vector<float> floats(const nlohmann::json& j) {
  std::vector<float> v;
  if (j.is_null()) return v;
  for (const auto& x : j) v.push_back(static_cast<float>(x.get<double>()));
  return v;
}

// The core's view of a case; with `self`, key and value are the query itself.
inline mha::Inputs inputs_of(const Case& c, bool self = false) {
  mha::Inputs in;
  in.query = c.query.data();
  in.key = self ? c.query.data() : c.key.data();
  in.value = self ? c.query.data() : c.value.data();
  in.wQ = c.wQ.data();
  in.wK = c.wK.data();
  in.wV = c.wV.data();
  in.wO = c.wO.data();
  in.bQ = ptr(c.bQ);
  in.bK = ptr(c.bK);
  in.bV = ptr(c.bV);
  in.bO = ptr(c.bO);
  in.keyPaddingMask = c.mask.empty() ? nullptr : c.mask.data();
  in.causal = c.causal;
  return in;
}

// A fixture file's inputs (tests/fixtures/README.md) as float32, masks as bytes.
inline Case fixture_case(const nlohmann::json& j) {
  Case c;
  c.d = {j["batch"], j["seqLenQ"], j["seqLenK"], j["dModel"], j["numHeads"], j["dK"], j["dV"]};
  c.causal = j["causal"];
  c.query = floats(j["query"]);
  c.key = floats(j["key"]);
  c.value = floats(j["value"]);
  c.wQ = floats(j["wQ"]);
  c.wK = floats(j["wK"]);
  c.wV = floats(j["wV"]);
  c.wO = floats(j["wO"]);
  c.bQ = floats(j["bQ"]);
  c.bK = floats(j["bK"]);
  c.bV = floats(j["bV"]);
  c.bO = floats(j["bO"]);
  if (!j["keyPaddingMask"].is_null())
    for (const auto& x : j["keyPaddingMask"]) c.mask.push_back(static_cast<std::uint8_t>(x.get<int>()));
  return c;
}

inline Case random_case(mha::Dims d, bool causal, bool bias, bool padding, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> n01(0.0f, 1.0f);
  auto fill = [&](std::size_t n, float s) {
    std::vector<float> v(n);
    for (auto& x : v) x = n01(rng) * s;
    return v;
  };
  const mha::Sizes s = mha::sizes_of(d);
  Case c;
  c.d = d;
  c.causal = causal;
  c.query = fill(s.query, 1);
  c.key = fill(s.key, 1);
  c.value = fill(s.value, 1);
  c.wQ = fill(s.wQ, 1 / std::sqrt(float(d.dModel)));
  c.wK = fill(s.wK, 1 / std::sqrt(float(d.dModel)));
  c.wV = fill(s.wV, 1 / std::sqrt(float(d.dModel)));
  c.wO = fill(s.wO, 1 / std::sqrt(float(d.numHeads * d.dV)));
  if (bias) {
    c.bQ = fill(s.bQ, 0.1f);
    c.bK = fill(s.bK, 0.1f);
    c.bV = fill(s.bV, 0.1f);
    c.bO = fill(s.bO, 0.1f);
  }
  if (padding) {
    c.mask.resize(s.keyPaddingMask);
    for (auto& m : c.mask) m = (rng() % 4) == 0;
  }
  return c;
}

// Every input in float64: finite differences perturb them far below float32's resolution.
struct Ref {
  mha::Dims d;
  bool causal = false;
  std::vector<double> query, key, value, wQ, wK, wV, wO, bQ, bK, bV, bO;  // biases empty = none
  std::vector<std::uint8_t> mask;
  // The parameters, in one fixed order (finite differences walk them).
  std::vector<std::vector<double>*> params() { return {&query, &key, &value, &wQ, &wK, &wV, &wO, &bQ, &bK, &bV, &bO}; }
};

inline Ref to_double(const Case& c) {
  auto d = [](const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); };
  return {c.d,     c.causal, d(c.query), d(c.key), d(c.value), d(c.wQ), d(c.wK),
          d(c.wV), d(c.wO),  d(c.bQ),    d(c.bK),  d(c.bV),    d(c.bO), c.mask};
}

struct Forward {
  std::vector<double> Q, K, V, P, concat, output;  // P: [B, H, Lq, Lk]
};

// Y [rows, n] = X [rows, k]·W [k, n] + bias (empty = none).
inline std::vector<double> affine(const std::vector<double>& X, std::size_t rows, std::size_t k,
                                  const std::vector<double>& W, const std::vector<double>& bias, std::size_t n) {
  std::vector<double> Y(rows * n);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t j = 0; j < n; ++j) {
      double acc = bias.empty() ? 0.0 : bias[j];
      for (std::size_t m = 0; m < k; ++m) acc += X[r * k + m] * W[m * n + j];
      Y[r * n + j] = acc;
    }
  return Y;
}

inline Forward forward(const Ref& c) {
  const mha::Dims& d = c.d;
  const std::size_t B = d.batch, Lq = d.seqLenQ, Lk = d.seqLenK, D = d.dModel, H = d.numHeads;
  const std::size_t dK = d.dK, dV = d.dV, hk = H * dK, hv = H * dV;
  Forward f;
  f.Q = affine(c.query, B * Lq, D, c.wQ, c.bQ, hk);
  f.K = affine(c.key, B * Lk, D, c.wK, c.bK, hk);
  f.V = affine(c.value, B * Lk, D, c.wV, c.bV, hv);
  f.P.assign(B * H * Lq * Lk, 0.0);
  f.concat.assign(B * Lq * hv, 0.0);
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t i = 0; i < Lq; ++i) {
        std::vector<double> s(Lk, -INFINITY);
        double mx = -INFINITY;
        for (std::size_t j = 0; j < Lk; ++j) {
          if ((c.causal && j > i) || (!c.mask.empty() && c.mask[b * Lk + j])) continue;
          double dot = 0;
          for (std::size_t t = 0; t < dK; ++t)
            dot += f.Q[(b * Lq + i) * hk + h * dK + t] * f.K[(b * Lk + j) * hk + h * dK + t];
          s[j] = dot / std::sqrt(double(dK));
          mx = std::max(mx, s[j]);
        }
        if (mx == -INFINITY) continue;  // no usable key: weights and head output 0
        double sum = 0;
        for (auto& x : s) sum += (x = std::exp(x - mx));
        for (std::size_t j = 0; j < Lk; ++j) {
          const double a = s[j] / sum;
          f.P[((b * H + h) * Lq + i) * Lk + j] = a;
          for (std::size_t t = 0; t < dV; ++t)
            f.concat[(b * Lq + i) * hv + h * dV + t] += a * f.V[(b * Lk + j) * hv + h * dV + t];
        }
      }
  f.output = affine(f.concat, B * Lq, hv, c.wO, c.bO, D);
  return f;
}

// The forward's output and attention weights, from the float32 inputs of a case.
inline void reference(const Case& c, std::vector<double>& output, std::vector<double>& attention) {
  Forward f = forward(to_double(c));
  output = std::move(f.output);
  attention = std::move(f.P);
}

// Gradients of Σ dY ⊙ output, one per input (bias gradients empty where the case has none).
struct Grads {
  std::vector<double> query, key, value, wQ, wK, wV, wO, bQ, bK, bV, bO;
  // Gradients of Q, K, V (the projections) and of the heads, for judging errors.
  std::vector<double> dQ, dK, dV, dConcat;
  std::vector<const std::vector<double>*> all() const {
    return {&query, &key, &value, &wQ, &wK, &wV, &wO, &bQ, &bK, &bV, &bO};
  }
};

// For Y = X·W + b given dY [rows, n]: dX = dY·Wᵀ, dW = Xᵀ·dY, db = Σ_rows dY.
inline void affine_backward(const std::vector<double>& X, std::size_t rows, std::size_t k, const std::vector<double>& W,
                            bool bias, std::size_t n, const std::vector<double>& dY, std::vector<double>& dX,
                            std::vector<double>& dW, std::vector<double>& db) {
  dX.assign(rows * k, 0.0);
  dW.assign(k * n, 0.0);
  db.assign(bias ? n : 0, 0.0);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t j = 0; j < n; ++j) {
      const double g = dY[r * n + j];
      if (bias) db[j] += g;
      for (std::size_t m = 0; m < k; ++m) {
        dX[r * k + m] += g * W[m * n + j];
        dW[m * n + j] += X[r * k + m] * g;
      }
    }
}

inline Grads backward(const Ref& c, const std::vector<double>& dY) {
  const mha::Dims& d = c.d;
  const std::size_t B = d.batch, Lq = d.seqLenQ, Lk = d.seqLenK, D = d.dModel, H = d.numHeads;
  const std::size_t dK = d.dK, dV = d.dV, hk = H * dK, hv = H * dV;
  const Forward f = forward(c);
  Grads g;
  std::vector<double>& dConcat = g.dConcat;
  affine_backward(f.concat, B * Lq, hv, c.wO, !c.bO.empty(), D, dY, dConcat, g.wO, g.bO);
  std::vector<double>&dQ = g.dQ, &dK_ = g.dK, &dV_ = g.dV;
  dQ.assign(B * Lq * hk, 0.0);
  dK_.assign(B * Lk * hk, 0.0);
  dV_.assign(B * Lk * hv, 0.0);
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t i = 0; i < Lq; ++i) {
        const double* P = &f.P[((b * H + h) * Lq + i) * Lk];
        const double* dO = &dConcat[(b * Lq + i) * hv + h * dV];
        std::vector<double> dP(Lk, 0.0);
        double dot = 0;
        for (std::size_t j = 0; j < Lk; ++j) {
          for (std::size_t t = 0; t < dV; ++t) dP[j] += dO[t] * f.V[(b * Lk + j) * hv + h * dV + t];
          dot += dP[j] * P[j];
        }
        for (std::size_t j = 0; j < Lk; ++j) {
          const double dS = P[j] * (dP[j] - dot) / std::sqrt(double(dK));
          for (std::size_t t = 0; t < dK; ++t) {
            dQ[(b * Lq + i) * hk + h * dK + t] += dS * f.K[(b * Lk + j) * hk + h * dK + t];
            dK_[(b * Lk + j) * hk + h * dK + t] += dS * f.Q[(b * Lq + i) * hk + h * dK + t];
          }
          for (std::size_t t = 0; t < dV; ++t) dV_[(b * Lk + j) * hv + h * dV + t] += P[j] * dO[t];
        }
      }
  affine_backward(c.query, B * Lq, D, c.wQ, !c.bQ.empty(), hk, dQ, g.query, g.wQ, g.bQ);
  affine_backward(c.key, B * Lk, D, c.wK, !c.bK.empty(), hk, dK_, g.key, g.wK, g.bK);
  affine_backward(c.value, B * Lk, D, c.wV, !c.bV.empty(), hv, dV_, g.value, g.wV, g.bV);
  return g;
}

// The loss whose gradients backward() gives.
inline double loss(const Ref& c, const std::vector<double>& dY) {
  const Forward f = forward(c);
  double sum = 0;
  for (std::size_t i = 0; i < dY.size(); ++i) sum += dY[i] * f.output[i];
  return sum;
}

}  // namespace mha_test
