// run() of a batch on an encoder or a decoder (src/bindings/model.cpp's call with `lengths`): the sequences in one
// model::Model::forward_batch over their packed rows, then its packed outputs padded to the longest
// sequence as transformers returns a batch of padding=True: lastHiddenState [B, Lmax, D], attention
// [numLayers, B, numHeads, Lmax, Lmax] (0 where a query or a key is padding), hiddenStates [numLayers + 1, B,
// Lmax, D], logits [B, Lmax, vocabSize], taskLogits [B, numLabels] (sequence classification) or [B, Lmax,
// numLabels]; padding rows are 0. And a decoder's beams as a batch of one token each (beam_step, call "beamStep").
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "../model/model.hpp"
#include "outputs.hpp"

namespace mha::bindings {

// A head mask from JS: a Uint8Array of layers × heads (0: off), every sequence's; with sets > 1 also sets × layers ×
// heads, each sequence's (a batch's inputs, a decode's beams); or null (every head on).
inline const std::uint8_t* copy_mask(const val& src, std::vector<std::uint8_t>& buffer, std::size_t layers,
                                     std::size_t heads, const char* name, std::size_t sets = 1) {
  if (src.isNull() || src.isUndefined()) return nullptr;
  const std::size_t count = layers * heads, given = src["length"].as<std::size_t>();
  if (given != count && (sets < 2 || given != sets * count)) {
    Message m;
    m << name << ": expected " << layers << " × " << heads << " = " << count << " values";
    if (sets > 1) m << " (every sequence's), or " << sets << " × " << count << " (each sequence's)";
    (m << ", got " << given).raise();
  }
  buffer.resize(given);
  val(emscripten::typed_memory_view(given, buffer.data())).call<void>("set", src);
  return buffer.data();
}

// A decode's masks when either is each beam's (copy_mask with sets = beams): both made each beam's (a mask of
// every beam repeated, null all ones), and the stride between beams returned; 0 when both are every beam's.
inline std::size_t per_beam(std::vector<std::uint8_t>& self, const std::uint8_t*& selfMask,
                            std::vector<std::uint8_t>& cross, const std::uint8_t*& crossMask, std::size_t count,
                            std::size_t beams) {
  const bool selfEach = selfMask && self.size() > count, crossEach = crossMask && cross.size() > count;
  if (!selfEach && !crossEach) return 0;
  for (auto [buffer, mask] : {std::pair{&self, &selfMask}, std::pair{&cross, &crossMask}}) {
    if (*mask && buffer->size() > count) continue;
    std::vector<std::uint8_t> each(beams * count, 1);
    for (std::size_t b = 0; *mask && b < beams; ++b)
      std::copy(buffer->begin(), buffer->begin() + count, each.begin() + b * count);
    *buffer = std::move(each);
    *mask = buffer->data();
  }
  return count;
}

// Counts from JS (an Int32Array: a batch's lengths), each from 0 (ArgumentError naming name[i] otherwise).
inline void read_counts(const val& src, std::vector<std::size_t>& counts, const char* name) {
  const std::size_t n = src["length"].as<std::size_t>();
  std::vector<std::int32_t> values(n);
  val(emscripten::typed_memory_view(n, values.data())).call<void>("set", src);
  for (std::size_t i = 0; i < n; ++i)
    if (values[i] < 0) (Message() << name << "[" << i << "]: expected a count from 0, got a negative one").raise();
  counts.assign(values.begin(), values.end());
}

// Ids from JS (an Int32Array, the sequences one after another): `expected` of them (the lengths' sum), else
// ArgumentError naming `name`; the model checks each id.
inline void read_ids(const val& src, std::vector<std::int32_t>& ids, std::size_t expected, const char* name) {
  const std::size_t n = src["length"].as<std::size_t>();
  if (n != expected) (Message() << name << ": expected " << expected << " ids (the lengths' sum), got " << n).raise();
  ids.resize(n);
  val(emscripten::typed_memory_view(n, ids.data())).call<void>("set", src);
}

// Rows of width W of `groups` groups of packed rows (sequence b's lengths[b] rows in turn) into [groups, B,
// Lmax, W]; nothing when `from` is null.
inline void pad_rows(const float* from, float* to, std::size_t groups, const std::vector<std::size_t>& lengths,
                     std::size_t Lmax, std::size_t W) {
  if (!from) return;
  const std::size_t B = lengths.size();
  for (std::size_t g = 0; g < groups; ++g)
    for (std::size_t b = 0; b < B; ++b) {
      std::copy(from, from + lengths[b] * W, to + (g * B + b) * Lmax * W);
      from += lengths[b] * W;
    }
}

// Attention weights packed per layer as [Σ_b H·rows[b]·keys[b]] (each sequence's [H, rows[b], keys[b]] in turn)
// into [layers, B, H, Rmax, Kmax]; nothing when `from` is null.
inline void pad_attention(const float* from, float* to, std::size_t layers, std::size_t H,
                          const std::vector<std::size_t>& rows, const std::vector<std::size_t>& keys, std::size_t Rmax,
                          std::size_t Kmax) {
  if (!from) return;
  const std::size_t B = rows.size();
  for (std::size_t l = 0; l < layers; ++l)
    for (std::size_t b = 0; b < B; ++b) {
      const std::size_t n = keys[b];
      for (std::size_t r = 0; r < H * rows[b]; ++r, from += n)
        std::copy(from, from + n, to + (((l * B + b) * H + r / rows[b]) * Rmax + r % rows[b]) * Kmax);
    }
}

// The request's fields (as model.cpp's call reads them): inputIds (Int32Array, the sequences one after
// another), lengths (Int32Array, each sequence's tokens), tokenTypeIds (Int32Array or null), the return
// flags; headMask (a Uint8Array [layers × heads], every sequence's, or [B × layers × heads], each sequence's,
// or null). `fits` is the model's memory check of a byte count; `out` and `packed` hold the results and the
// packed rows.
inline val run_batch(model::Model& m, Attention& attention, const val& request, const val& headMask, FloatBuffer& out,
                     FloatBuffer& packed, const std::function<void(double)>& fits) {
  const model::Config& c = m.config();
  if (!request["layerLogitPositions"].isNull() && !request["layerLogitPositions"].isUndefined())
    throw ArgumentError("returnLayerLogits: not for a batch (run its sequences one at a time)");
  if (request["returnLogits"].as<int>() == 2) throw ArgumentError("returnLogits: a batch's are every row's");
  std::vector<std::size_t> lengths;
  read_counts(request["lengths"], lengths, "lengths");
  const std::size_t B = lengths.size();
  if (B == 0) throw ArgumentError("input: expected at least one sequence in the batch, got none");
  std::size_t N = 0, Lmax = 0;
  for (std::size_t b = 0; b < B; ++b) {
    m.check_length(lengths[b]);
    N += lengths[b];
    Lmax = std::max(Lmax, lengths[b]);
  }
  std::vector<std::int32_t> ids, types;
  read_ids(request["inputIds"], ids, N, "inputIds");
  const val typeIds = request["tokenTypeIds"];
  const bool typed = !typeIds.isNull() && !typeIds.isUndefined();
  if (typed) read_ids(typeIds, types, N, "tokenTypeIds");
  std::vector<std::uint8_t> mask;
  copy_mask(headMask, mask, c.numLayers, c.numHeads, "headMask", B);
  const std::size_t maskStride = mask.size() > c.numLayers * c.numHeads ? c.numLayers * c.numHeads : 0;
  const bool wantAttention = request["returnAttention"].as<bool>(), hidden = request["returnHiddenStates"].as<bool>();
  const bool logits = request["returnLogits"].as<int>() != 0, taskAsked = request["returnTaskLogits"].as<bool>();
  const bool task = taskAsked && m.task_head() != model::TaskHead::None;
  const bool perSequence = m.task_head() == model::TaskHead::SequenceClassification;
  const std::size_t D = c.hiddenSize, H = c.numHeads, V = c.vocabSize, Ln = c.numLayers, hd = c.head_dim();
  double squares = 0;
  for (const std::size_t n : lengths) squares += double(n) * double(n);
  OutputLayout rows;  // what forward_batch writes
  const auto rLast = rows.add("lastHiddenState", {N, D});
  const auto rAttention =
      rows.add("attention", {Ln, H, std::size_t(std::min(squares, double(kMaxElements)))}, wantAttention);
  const auto rHidden = rows.add("hiddenStates", {Ln + 1, N, D}, hidden);
  const auto rLogits = rows.add("logits", {N, V}, logits && m.has_logits());
  const auto rTask = rows.add("taskLogits", {perSequence ? B : N, c.numLabels}, task);
  OutputLayout result;  // what the caller gets
  const auto last = result.add("lastHiddenState", {B, Lmax, D});
  const auto weights = result.add("attention", {Ln, B, H, Lmax, Lmax}, wantAttention);
  const auto states = result.add("hiddenStates", {Ln + 1, B, Lmax, D}, hidden);
  const auto scores = result.add("logits", {B, Lmax, V}, logits && m.has_logits());
  const auto taskLogits = perSequence ? result.add("taskLogits", {B, c.numLabels}, task)
                                      : result.add("taskLogits", {B, Lmax, c.numLabels}, task);
  fits(4.0 * (rows.floats() + result.floats() + m.scratch_floats(N)) +
       attention.scratch_bytes_for({1, Lmax, Lmax, D, H, hd, hd}, wantAttention, false));
  rows.place(packed);
  result.place(out);
  std::fill(out.data(), out.data() + std::size_t(result.floats()), 0.0f);
  model::Outputs o{rows[rLast], rows[rAttention], rows[rHidden]};
  // (A model without the head gets a pointer anyway, so that Model refuses it by name.)
  o.logits = logits ? (m.has_logits() ? rows[rLogits] : rows[rLast]) : nullptr;
  o.taskLogits = taskAsked ? (task ? rows[rTask] : rows[rLast]) : nullptr;
  o.query = o.key = request["returnQueryKey"].as<bool>() ? rows[rLast] : nullptr;
  o.valueNorms = o.headOutputNorms = request["returnHeadOutputs"].as<bool>() ? rows[rLast] : nullptr;
  m.forward_batch(attention, ids.data(), typed ? types.data() : nullptr, lengths.data(), B, o,
                  mask.empty() ? nullptr : mask.data(), maskStride);
  pad_rows(rows[rLast], result[last], 1, lengths, Lmax, D);
  pad_rows(rows[rHidden], result[states], Ln + 1, lengths, Lmax, D);
  pad_rows(rows[rLogits], result[scores], 1, lengths, Lmax, V);
  if (perSequence && task)
    std::copy(rows[rTask], rows[rTask] + B * c.numLabels, result[taskLogits]);
  else
    pad_rows(rows[rTask], result[taskLogits], 1, lengths, Lmax, c.numLabels);
  pad_attention(rows[rAttention], result[weights], Ln, H, lengths, lengths, Lmax, Lmax);
  val outcome = result.result();
  trim(packed);
  return outcome;
}

// One new token of each of a decoder's beams after its past (model::Model::step_beams, once reorder made the
// beams): `ids` one a beam; { lastHiddenState [beams, D], logits [beams, vocabSize], past }.
inline val beam_step(model::Model& m, Attention& attention, const std::vector<std::int32_t>& ids, const val& headMask,
                     FloatBuffer& out, const std::function<void(double)>& fits) {
  m.check_decoder();
  const model::Config& c = m.config();
  const std::size_t B = m.beams(), past = m.past();
  if (B == 0 || past == 0) throw ArgumentError("model: no past to step the beams from (prefill first)");
  if (ids.size() != B)
    (Message() << "inputIds: expected one id for each of the " << B << " beams, got " << ids.size()).raise();
  m.check_length(1, past);
  const std::size_t D = c.hiddenSize, H = c.numHeads, hd = c.head_dim();
  OutputLayout layout;
  const auto last = layout.add("lastHiddenState", {B, D});
  const auto logits = layout.add("logits", {B, c.vocabSize});
  std::vector<std::uint8_t> mask;
  const std::uint8_t* headMaskData = copy_mask(headMask, mask, c.numLayers, H, "headMask");
  fits(4.0 * (layout.floats() + m.scratch_floats(B) + m.cache_floats(past + 1)) +
       attention.scratch_bytes_for({B, 1, past + 1, D, H, hd, hd}, false, false));
  layout.place(out);
  model::Outputs o{layout[last], nullptr, nullptr};
  o.logits = layout[logits];
  m.step_beams(attention, ids.data(), o, headMaskData);
  val result = layout.result();
  result.set("past", static_cast<double>(past));
  return result;
}

}  // namespace mha::bindings
