#include "model.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "../core/pack.hpp"
#include "../core/tiles.hpp"
#include "activations.hpp"

namespace mha::model {
namespace {

float half_to_float(std::uint16_t h) noexcept {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  std::uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu, bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);  // inf, NaN
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;  // ±0
  } else {        // subnormal: normalize
    exponent = 113;
    while ((mantissa & 0x400u) == 0) mantissa <<= 1, --exponent;
    bits = sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

unsigned long long magnitude(std::int32_t v) { return static_cast<unsigned long long>(v < 0 ? -std::int64_t(v) : v); }

}  // namespace

void to_float(DType dtype, const unsigned char* data, std::size_t count, float* out) noexcept {
  switch (dtype) {
    case DType::F32:
      std::memcpy(out, data, count * sizeof(float));  // little-endian, like wasm and x86
      break;
    case DType::F16:
      for (std::size_t i = 0; i < count; ++i) out[i] = half_to_float(std::uint16_t(data[2 * i] | data[2 * i + 1] << 8));
      break;
    case DType::BF16:
      for (std::size_t i = 0; i < count; ++i) {
        const std::uint32_t bits = std::uint32_t(data[2 * i] | data[2 * i + 1] << 8) << 16;
        std::memcpy(out + i, &bits, sizeof(float));
      }
      break;
  }
}

namespace {

// x = LN(x + add) row by row (add null: LN(x)), each row in double, in one order.
void layer_norm(float* x, const float* add, std::size_t rows, std::size_t D, const float* gain, const float* bias,
                float eps, float* out) noexcept {
  for (std::size_t r = 0; r < rows; ++r) {
    float* row = x + r * D;
    if (add)
      for (std::size_t c = 0; c < D; ++c) row[c] += add[r * D + c];
    double mean = 0, var = 0;
    for (std::size_t c = 0; c < D; ++c) mean += row[c];
    mean /= double(D);
    for (std::size_t c = 0; c < D; ++c) var += (row[c] - mean) * (row[c] - mean);
    const double inv = 1.0 / std::sqrt(var / double(D) + double(eps));
    float* o = out + r * D;
    for (std::size_t c = 0; c < D; ++c) o[c] = float((row[c] - mean) * inv) * gain[c] + bias[c];
  }
}

}  // namespace

Model::Model(const Config& c, bool allocate) : config_(c) {
  using Limits = ModelLimits;
  check_dim(c.numLayers, "numLayers", Limits::numLayers);
  check_dim(c.numHeads, "numHeads", Limits::numHeads);
  check_dim(c.hiddenSize, "hiddenSize", Limits::hiddenSize);
  check_dim(c.intermediateSize, "intermediateSize", Limits::intermediateSize);
  check_dim(c.vocabSize, "vocabSize", Limits::vocabSize);
  check_dim(c.maxPositions, "maxPositions", Limits::maxPositions);
  if (c.family == Family::Bert) check_dim(c.typeVocabSize, "typeVocabSize", Limits::typeVocabSize);
  if (c.positionOffset >= c.maxPositions)
    (Message() << "positionOffset: expected less than maxPositions (" << c.maxPositions << "), got "
               << c.positionOffset)
        .raise();
  if (c.hiddenSize % c.numHeads != 0)
    (Message() << "hiddenSize: expected a multiple of numHeads (" << c.numHeads << "), got " << c.hiddenSize).raise();
  if (!(c.layerNormEps > 0.0f) || !std::isfinite(c.layerNormEps))
    (Message() << "layerNormEps: expected a finite number > 0, got ").real(c.layerNormEps).raise();
  layout();
  if (allocate)
    for (Slot& s : slots_) s.data.resize(s.size);
}

double Model::bytes_for(const Config& config) {
  const Model laidOut(config, false);
  double floats = 0;
  for (const Slot& s : laidOut.slots_) floats += double(s.size);
  return floats * sizeof(float);
}

void Model::check_length(std::size_t L) const {
  if (L >= 1 && L <= max_length()) return;
  Message m;
  m << "inputIds: expected 1 to " << max_length() << " tokens (max_position_embeddings " << config_.maxPositions;
  if (config_.positionOffset) m << ", less the " << config_.positionOffset << " position ids before the first";
  (m << "), got " << L).raise();
}

Model::Slot& Model::plain(std::size_t n) {
  Slot& s = slots_.emplace_back();
  s.size = n;
  s.missing = n;
  return s;
}

Model::Slot& Model::packed(bool packNK, std::size_t K, std::size_t N) {
  Slot& s = slots_.emplace_back();
  s.packed = true;
  s.packNK = packNK;
  s.K = K;
  s.N = N;
  s.size = checked_product({panels(N) * kPanel, K}, "a packed weight matrix");
  s.missing = K * N;
  return s;
}

const Model::Slot* Model::tensor(std::string name, std::vector<std::size_t> shape, Slot& slot, std::size_t offset) {
  Tensor t{std::move(name), std::move(shape), 1};
  for (std::size_t n : t.shape) t.elements *= n;
  tensors_.push_back(std::move(t));
  places_.push_back({&slot, offset, 0});
  return &slot;
}

// The one place that says which tensors a checkpoint holds, their shapes,
// and which parameter each becomes.
void Model::layout() {
  const Config& c = config_;
  const std::size_t D = c.hiddenSize, I = c.intermediateSize, V = c.vocabSize, P = c.maxPositions;
  checked_product({V, D}, "the token embeddings: vocabSize×hiddenSize");
  checked_product({D, I}, "the MLP's weights: hiddenSize×intermediateSize");
  const auto vector = [&](const std::string& name, std::size_t n) { return tensor(name, {n}, plain(n)); };
  if (c.family == Family::Bert) {
    word_ = tensor("embeddings.word_embeddings.weight", {V, D}, plain(V * D));
    position_ = tensor("embeddings.position_embeddings.weight", {P, D}, plain(P * D));
    type_ = tensor("embeddings.token_type_embeddings.weight", {c.typeVocabSize, D}, plain(c.typeVocabSize * D));
    lnGain_ = vector("embeddings.LayerNorm.weight", D);
    lnBias_ = vector("embeddings.LayerNorm.bias", D);
    for (std::size_t l = 0; l < c.numLayers; ++l) {
      const std::string p = "encoder.layer." + decimal(l) + ".";
      Block b{};
      // nn.Linear keeps [out, in]: query, key and value are the rows of one [3D, D] = (W_QKV)ᵀ.
      Slot& qkv = packed(true, D, 3 * D);
      Slot& qkvBias = plain(3 * D);
      const char* parts[] = {"query", "key", "value"};
      for (std::size_t i = 0; i < 3; ++i) {
        b.qkv = tensor(p + "attention.self." + parts[i] + ".weight", {D, D}, qkv, i * D * D);
        b.qkvBias = tensor(p + "attention.self." + parts[i] + ".bias", {D}, qkvBias, i * D);
      }
      b.out = tensor(p + "attention.output.dense.weight", {D, D}, packed(true, D, D));
      b.outBias = vector(p + "attention.output.dense.bias", D);
      b.ln1Gain = vector(p + "attention.output.LayerNorm.weight", D);
      b.ln1Bias = vector(p + "attention.output.LayerNorm.bias", D);
      b.fc1 = tensor(p + "intermediate.dense.weight", {I, D}, packed(true, D, I));
      b.fc1Bias = vector(p + "intermediate.dense.bias", I);
      b.fc2 = tensor(p + "output.dense.weight", {D, I}, packed(true, I, D));
      b.fc2Bias = vector(p + "output.dense.bias", D);
      b.ln2Gain = vector(p + "output.LayerNorm.weight", D);
      b.ln2Bias = vector(p + "output.LayerNorm.bias", D);
      blocks_.push_back(b);
    }
  } else {
    word_ = tensor("wte.weight", {V, D}, plain(V * D));
    position_ = tensor("wpe.weight", {P, D}, plain(P * D));
    for (std::size_t l = 0; l < c.numLayers; ++l) {
      const std::string p = "h." + decimal(l) + ".";
      Block b{};
      // Conv1D keeps [in, out]: c_attn's columns are Q, then K, then V.
      b.ln1Gain = vector(p + "ln_1.weight", D);
      b.ln1Bias = vector(p + "ln_1.bias", D);
      b.qkv = tensor(p + "attn.c_attn.weight", {D, 3 * D}, packed(false, D, 3 * D));
      b.qkvBias = vector(p + "attn.c_attn.bias", 3 * D);
      b.out = tensor(p + "attn.c_proj.weight", {D, D}, packed(false, D, D));
      b.outBias = vector(p + "attn.c_proj.bias", D);
      b.ln2Gain = vector(p + "ln_2.weight", D);
      b.ln2Bias = vector(p + "ln_2.bias", D);
      b.fc1 = tensor(p + "mlp.c_fc.weight", {D, I}, packed(false, D, I));
      b.fc1Bias = vector(p + "mlp.c_fc.bias", I);
      b.fc2 = tensor(p + "mlp.c_proj.weight", {I, D}, packed(false, I, D));
      b.fc2Bias = vector(p + "mlp.c_proj.bias", D);
      blocks_.push_back(b);
    }
    lnGain_ = vector("ln_f.weight", D);
    lnBias_ = vector("ln_f.bias", D);
  }
}

void Model::write(std::size_t index, DType dtype, std::size_t first, std::size_t count, const unsigned char* data) {
  if (index >= tensors_.size())
    (Message() << "index: expected a tensor index below " << tensors_.size() << ", got " << index).raise();
  const Tensor& t = tensors_[index];
  Place& place = places_[index];
  if (first != place.written || count > t.elements - first)
    (Message() << t.name.c_str() << ": chunk [" << first << ", " << first + count << ") does not continue the "
               << place.written << " of " << t.elements << " elements written")
        .raise();
  Slot& slot = *place.slot;
  if (slot.packed && slot.staging.empty()) slot.staging.resize(slot.K * slot.N);
  float* destination = (slot.packed ? slot.staging.data() : slot.data.data()) + place.offset + first;
  to_float(dtype, data, count, destination);
  place.written += count;
  slot.missing -= count;
  if (slot.packed && slot.missing == 0) {
    if (slot.packNK)
      pack_nk(slot.K, slot.N, slot.staging.data(), slot.K, slot.data.data());
    else
      pack_kn(slot.K, slot.N, slot.staging.data(), slot.N, slot.data.data());
    std::vector<float>().swap(slot.staging);
  }
}

std::vector<std::string> Model::missing() const {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < tensors_.size(); ++i)
    if (places_[i].written != tensors_[i].elements) names.push_back(tensors_[i].name);
  return names;
}

std::size_t Model::bytes() const noexcept {
  std::size_t n = 0;
  for (const Slot& s : slots_) n += s.data.capacity() + s.staging.capacity();
  return n * sizeof(float);
}

// C [M, N] = A [M, K]·W + bias (then GELU when `gelu`), in tiles (tiles.hpp).
void Model::dense(Attention& attention, std::size_t M, const float* A, std::size_t lda, const Slot& W, const Slot* bias,
                  float* C, std::size_t ldc, bool gelu) {
  const Kernels& kern = attention.kernels();
  const std::size_t K = W.K, N = W.N;
  const Tiles tiles(M, N);
  const auto activation = config_.activation == Activation::GeluErf ? gelu_erf : gelu_tanh;
  const bool parallel = 2.0 * double(M) * double(N) * double(K) >= kParallelFlops;
  run_tasks(attention.pool(), parallel, tiles.count(), [&](std::size_t t, std::size_t) {
    const Tile tile = tiles[t];
    float* c = C + tile.row * ldc + tile.column;
    kern.gemm(tile.rows, tile.columns, K, A + tile.row * lda, lda, W.data.data() + tile.column * K, K * kPanel,
              bias ? bias->data.data() + tile.column : nullptr, false, c, ldc);
    if (gelu)
      for (std::size_t r = 0; r < tile.rows; ++r) activation(c + r * ldc, tile.columns);
  });
}

void Model::forward(Attention& attention, const std::int32_t* ids, const std::int32_t* types, std::size_t L,
                    const Outputs& out) {
  const Config& c = config_;
  if (const std::vector<std::string> absent = missing(); !absent.empty())
    (Message() << "model: " << absent.size() << " tensors not loaded, the first " << absent[0].c_str()).raise();
  check_length(L);
  const std::size_t D = c.hiddenSize, I = c.intermediateSize, H = c.numHeads, dK = D / H;
  for (std::size_t i = 0; i < L; ++i) {
    if (ids[i] < 0 || std::size_t(ids[i]) >= c.vocabSize)
      (Message() << "inputIds[" << i << "]: expected a token id from 0 to " << c.vocabSize - 1 << ", got "
                 << (ids[i] < 0 ? "-" : "") << magnitude(ids[i]))
          .raise();
    const std::size_t typeCount = c.family == Family::Bert ? c.typeVocabSize : 1;
    if (types && (types[i] < 0 || std::size_t(types[i]) >= typeCount))
      (Message() << "tokenTypeIds[" << i << "]: expected 0 to " << typeCount - 1 << ", got "
                 << (types[i] < 0 ? "-" : "") << magnitude(types[i]))
          .raise();
  }
  if (out.attention) checked_product({c.numLayers, H, L, L}, "attention: numLayers×numHeads×L×L");
  if (out.hiddenStates) checked_product({c.numLayers + 1, L, D}, "hiddenStates: (numLayers + 1)×L×hiddenSize");

  // Scratch: x [L, D] (the residual stream), a [L, D], qkv [L, 3D], heads [L, D], inner [L, I].
  scratch_.resize(checked_scratch(double(L) * double(6 * D + I)));
  float* const x = scratch_.data();
  float* const a = x + L * D;
  float* const qkv = a + L * D;
  float* const heads = qkv + 3 * L * D;
  float* const inner = heads + L * D;
  const auto keep = [&](std::size_t index, const float* from) {
    if (out.hiddenStates) std::copy(from, from + L * D, out.hiddenStates + index * L * D);
  };

  for (std::size_t i = 0; i < L; ++i) {
    const float* w = word_->data.data() + std::size_t(ids[i]) * D;
    const float* p = position_->data.data() + (c.positionOffset + i) * D;
    float* row = x + i * D;
    for (std::size_t k = 0; k < D; ++k) row[k] = w[k] + p[k];
    if (type_) {
      const float* t = type_->data.data() + std::size_t(types ? types[i] : 0) * D;
      for (std::size_t k = 0; k < D; ++k) row[k] += t[k];
    }
  }
  const bool bert = c.family == Family::Bert;
  if (bert) layer_norm(x, nullptr, L, D, lnGain_->data.data(), lnBias_->data.data(), c.layerNormEps, x);

  AttendArgs attend;
  attend.seqLenQ = attend.seqLenK = L;
  attend.numHeads = H;
  attend.dK = attend.dV = dK;
  attend.query = qkv;
  attend.key = qkv + D;
  attend.value = qkv + 2 * D;
  attend.ldq = attend.ldk = attend.ldv = 3 * D;
  attend.causal = !bert;
  attend.heads = heads;
  attend.parallel = 4.0 * double(L) * double(L) * double(D) >= kParallelFlops;
  for (std::size_t l = 0; l < c.numLayers; ++l) {
    const Block& b = blocks_[l];
    keep(l, x);
    float* const weights = out.attention ? out.attention + l * H * L * L : nullptr;
    const float* attentionInput = x;
    if (!bert) {
      layer_norm(x, nullptr, L, D, b.ln1Gain->data.data(), b.ln1Bias->data.data(), c.layerNormEps, a);
      attentionInput = a;
    }
    dense(attention, L, attentionInput, D, *b.qkv, b.qkvBias, qkv, 3 * D, false);
    attend.attention = weights;
    attention.attend(attend);
    dense(attention, L, heads, D, *b.out, b.outBias, a, D, false);
    if (bert) {
      layer_norm(x, a, L, D, b.ln1Gain->data.data(), b.ln1Bias->data.data(), c.layerNormEps, x);
      dense(attention, L, x, D, *b.fc1, b.fc1Bias, inner, I, true);
      dense(attention, L, inner, I, *b.fc2, b.fc2Bias, a, D, false);
      layer_norm(x, a, L, D, b.ln2Gain->data.data(), b.ln2Bias->data.data(), c.layerNormEps, x);
    } else {
      for (std::size_t e = 0; e < L * D; ++e) x[e] += a[e];
      layer_norm(x, nullptr, L, D, b.ln2Gain->data.data(), b.ln2Bias->data.data(), c.layerNormEps, a);
      dense(attention, L, a, D, *b.fc1, b.fc1Bias, inner, I, true);
      dense(attention, L, inner, I, *b.fc2, b.fc2Bias, a, D, false);
      for (std::size_t e = 0; e < L * D; ++e) x[e] += a[e];
    }
  }
  if (!bert) layer_norm(x, nullptr, L, D, lnGain_->data.data(), lnBias_->data.data(), c.layerNormEps, x);
  keep(c.numLayers, x);
  std::copy(x, x + L * D, out.lastHiddenState);
}

}  // namespace mha::model
