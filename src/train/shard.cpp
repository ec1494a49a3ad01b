// The model on one shard of sentences, on one thread: the forward (embedding,
// attention, MLP, classifier, loss) and, when training, the backward into the
// shard's own gradient buffer (trainer.hpp explains the shards).
#include <algorithm>
#include <cmath>

#include "workspace.hpp"

namespace mha {

double Trainer::run_shard(const Sentences& s, std::size_t first, std::size_t count, double tagged, float* grads,
                          const Evaluation* out, Workspace& w) const {
  const TrainerConfig& c = config_;
  const std::size_t D = c.dModel, T = c.numTags, F = c.mlpHidden, H = c.numHeads, stride = c.maxLength;
  std::size_t L = 1;
  for (std::size_t i = 0; i < count; ++i) L = std::max(L, std::size_t(s.lengths[first + i]));
  const std::size_t rows = count * L;
  Dense dense{w.attention.kernels(), w.packed, w.transposed};
  // The parameters and, when training, their gradients, by name.
  const Parameters param = point_parameters(tensors_, const_cast<float*>(params_.data()));
  const Parameters grad = grads ? point_parameters(tensors_, grads) : Parameters{};
  const auto valid = [&](std::size_t row) { return row % L < std::size_t(s.lengths[first + row / L]); };
  const auto slot = [&](std::size_t row) { return (first + row / L) * stride + row % L; };

  // Embeddings: padded slots are zero vectors and masked keys.
  w.x.assign(rows * D, 0.0f);
  w.mask.resize(rows);
  for (std::size_t row = 0; row < rows; ++row) {
    w.mask[row] = !valid(row);
    if (!valid(row)) continue;
    const float* e = param.embedding + std::size_t(s.tokens[slot(row)]) * D;
    const float* p = positions_.data() + (row % L) * D;
    for (std::size_t i = 0; i < D; ++i) w.x[row * D + i] = e[i] + p[i];
  }

  // h = x + attention(x), then everything above attention: the loss and, when
  // training, its gradient down to h (dH, the gradient of attention's output).
  const Dims dims{count, L, L, D, H, D / H, D / H};
  Inputs in;
  in.query = in.key = in.value = w.x.data();
  in.wQ = param.wQ, in.wK = param.wK, in.wV = param.wV, in.wO = param.wO;
  in.bQ = param.bQ, in.bK = param.bK, in.bV = param.bV, in.bO = param.bO;
  in.keyPaddingMask = w.mask.data();
  double loss = 0;
  auto above_attention = [&](const float* a) -> const float* {
    w.h.resize(rows * D);
    for (std::size_t i = 0; i < rows * D; ++i) w.h[i] = w.x[i] + a[i];

    // out = h + W2·relu(W1·h + b1) + b2, or h.
    const float* top = w.h.data();
    if (F) {
      w.z.resize(rows * F);
      w.r.resize(rows * F);
      w.out.resize(rows * D);
      dense.product(rows, F, D, w.h.data(), param.w1, param.b1, w.z.data());
      for (std::size_t i = 0; i < rows * F; ++i) w.r[i] = w.z[i] > 0 ? w.z[i] : 0.0f;
      dense.product(rows, D, F, w.r.data(), param.w2, param.b2, w.out.data());
      for (std::size_t i = 0; i < rows * D; ++i) w.out[i] += w.h[i];
      top = w.out.data();
    }

    // Logits, softmax, loss.
    w.logits.resize(rows * T);
    dense.product(rows, T, D, top, param.wC, param.bC, w.logits.data());
    if (grads) w.dLogits.assign(rows * T, 0.0f);
    for (std::size_t row = 0; row < rows; ++row) {
      float* l = w.logits.data() + row * T;
      const std::size_t at = slot(row);
      if (!valid(row)) continue;
      const std::size_t best = std::size_t(std::max_element(l, l + T) - l);
      const std::int32_t tag = s.tags ? s.tags[at] : -1;
      const float peak = l[best], logit = tag >= 0 ? l[tag] : 0.0f;
      float sum = 0;
      for (std::size_t k = 0; k < T; ++k) sum += (l[k] = std::exp(l[k] - peak));  // l: exp(logit − max) from here
      if (tag >= 0) loss += double(std::log(sum) - (logit - peak));
      if (out && out->probabilities)
        for (std::size_t k = 0; k < T; ++k) out->probabilities[at * T + k] = l[k] / sum;
      if (out && out->predictions) out->predictions[at] = std::int32_t(best);
      if (grads && tag >= 0)
        for (std::size_t k = 0; k < T; ++k)
          w.dLogits[row * T + k] = float((double(l[k] / sum) - (std::int32_t(k) == tag)) / tagged);
    }
    if (!grads) return nullptr;

    // Backward, from the loss down to h.
    dense.add_weight_gradient(rows, T, D, top, w.dLogits.data(), grad.wC, grad.bC);
    w.dOut.assign(rows * D, 0.0f);
    dense.add_product_transposed(rows, D, T, w.dLogits.data(), param.wC, w.dOut.data());
    w.dH = w.dOut;  // the residual around the MLP
    if (F) {
      dense.add_weight_gradient(rows, D, F, w.r.data(), w.dOut.data(), grad.w2, grad.b2);
      w.dz.assign(rows * F, 0.0f);
      dense.add_product_transposed(rows, F, D, w.dOut.data(), param.w2, w.dz.data());
      for (std::size_t i = 0; i < rows * F; ++i)
        if (!(w.z[i] > 0)) w.dz[i] = 0.0f;
      dense.add_weight_gradient(rows, F, D, w.h.data(), w.dz.data(), grad.w1, grad.b1);
      dense.add_product_transposed(rows, D, F, w.dz.data(), param.w1, w.dH.data());
    }
    return w.dH.data();
  };

  if (!grads) {  // evaluation: the forward, with the weights when asked for
    w.a.resize(rows * D);
    Outputs o;
    o.output = w.a.data();
    if (out && out->attention) {
      w.attentionWeights.resize(count * H * L * L);
      o.attention = w.attentionWeights.data();
    }
    w.attention.forward(dims, in, o);
    above_attention(w.a.data());
    if (out && out->attention)
      for (std::size_t i = 0; i < count; ++i)
        for (std::size_t h = 0; h < H; ++h) {
          float* dst = out->attention + ((first + i) * H + h) * stride * stride;
          std::fill_n(dst, stride * stride, 0.0f);
          for (std::size_t q = 0; q < std::size_t(s.lengths[first + i]); ++q)
            std::copy_n(w.attentionWeights.data() + ((i * H + h) * L + q) * L, s.lengths[first + i], dst + q * stride);
        }
    return loss;
  }

  // Training: the backward pass runs attention's forward once and hands us
  // its output; the gradient we return for it (dH) comes from the loss above.
  Gradients g;
  w.dX.resize(rows * D);
  g.query = w.dX.data();
  g.wQ = grad.wQ, g.wK = grad.wK, g.wV = grad.wV, g.wO = grad.wO;
  g.bQ = grad.bQ, g.bK = grad.bK, g.bV = grad.bV, g.bO = grad.bO;
  using Above = decltype(above_attention);
  const auto gradient_of = [](void* above, const float* a) { return (*static_cast<Above*>(above))(a); };
  w.backward.backward(dims, in, gradient_of, &above_attention, g);
  // x feeds attention and, through the residual, h: both gradients reach the embedding rows.
  for (std::size_t row = 0; row < rows; ++row) {
    if (!valid(row)) continue;
    float* e = grad.embedding + std::size_t(s.tokens[slot(row)]) * D;
    for (std::size_t i = 0; i < D; ++i) e[i] += w.dH[row * D + i] + w.dX[row * D + i];
  }
  return loss;
}

}  // namespace mha
