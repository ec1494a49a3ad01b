// An encoder-decoder's teacher-forced cases (tests/fixtures/models/TRANSFORMERS.md, make_marian_fixtures.py)
// through the native model: encode, then the decoder's inputs in chunks, against the float64 reference.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "model_fixtures.hpp"

namespace model_fixtures {

using mha::Attention;
using mha::model::Outputs;

// An encoder-decoder's teacher-forced run: encode, then the decoder inputs at once.
struct Seq2SeqResult {
  std::vector<float> encoderLast, encoderAttention, encoderHidden, decoderLast, decoderAttention, crossAttention,
      decoderHidden, logits;
};

// The decoder's inputs in `chunks` calls (their lengths), each continuing the last.
inline Seq2SeqResult run_seq2seq(Model& model, Attention& attention, const std::vector<std::int32_t>& ids,
                                 const std::vector<std::int32_t>& decoderIds, const std::vector<std::uint8_t>* masks,
                                 const std::vector<std::size_t>& chunks) {
  const Config& c = model.config();
  const std::size_t S = ids.size(), T = decoderIds.size(), D = c.hiddenSize;
  Seq2SeqResult r;
  r.encoderLast.resize(S * D);
  r.encoderAttention.resize(c.numLayers * c.numHeads * S * S);
  r.encoderHidden.resize((c.numLayers + 1) * S * D);
  model.encode(attention, ids.data(), S,
               Outputs{r.encoderLast.data(), r.encoderAttention.data(), r.encoderHidden.data()},
               masks ? masks[0].data() : nullptr);
  model.begin(1, T);
  const std::size_t Ld = c.decoderLayers, H = c.decoderHeads;
  r.decoderLast.resize(T * D);
  r.decoderAttention.assign(Ld * H * T * T, 0.0f);
  r.crossAttention.resize(Ld * H * T * S);
  r.decoderHidden.resize((Ld + 1) * T * D);
  r.logits.resize(T * c.vocabSize);
  std::size_t at = 0;
  for (std::size_t L : chunks) {
    // This chunk's rows, then into the whole sequence's places.
    std::vector<float> last(L * D), self(Ld * H * L * (at + L)), cross(Ld * H * L * S), hidden((Ld + 1) * L * D),
        logits(L * c.vocabSize);
    Outputs o{last.data(), self.data(), hidden.data(), logits.data()};
    o.crossAttention = cross.data();
    model.decode(attention, decoderIds.data() + at, 1, L, o, masks ? masks[1].data() : nullptr,
                 masks ? masks[2].data() : nullptr);
    std::copy(last.begin(), last.end(), r.decoderLast.begin() + at * D);
    std::copy(logits.begin(), logits.end(), r.logits.begin() + at * c.vocabSize);
    for (std::size_t l = 0; l <= Ld; ++l)
      std::copy_n(hidden.begin() + l * L * D, L * D, r.decoderHidden.begin() + (l * T + at) * D);
    for (std::size_t lh = 0; lh < Ld * H; ++lh)
      for (std::size_t i = 0; i < L; ++i) {
        std::copy_n(self.begin() + (lh * L + i) * (at + L), at + L, r.decoderAttention.begin() + (lh * T + at + i) * T);
        std::copy_n(cross.begin() + (lh * L + i) * S, S, r.crossAttention.begin() + (lh * T + at + i) * S);
      }
    at += L;
  }
  return r;
}

// The teacher-forced cases of an encoder-decoder's reference (tests/fixtures/models/TRANSFORMERS.md).
inline void expect_seq2seq_reference(Model& model, const json& reference, const std::string& folder) {
  const json& tol = reference["tolerance"];
  Attention one(1), three(3);
  std::vector<json> cases(reference["forward"].begin(), reference["forward"].end());
  cases.insert(cases.end(), reference["headMask"].begin(), reference["headMask"].end());
  for (const json& c : cases) {
    const std::vector<std::int32_t> ids = c["inputIds"], decoderIds = c["decoderInputIds"];
    std::vector<std::uint8_t> masks[3];
    const bool masked = c.contains("headMask");
    if (masked) {
      masks[0] = mask_of(c["headMask"]["encoder"]);
      masks[1] = mask_of(c["headMask"]["decoder"]);
      masks[2] = mask_of(c["headMask"]["cross"]);
    }
    const std::size_t T = decoderIds.size();
    const Seq2SeqResult r = run_seq2seq(model, one, ids, decoderIds, masked ? masks : nullptr, {T});
    const std::string name = folder + " " + std::string(c["name"]);
    const double attention = tol["attentionAbs"], hAbs = tol["hiddenAbs"], hRel = tol["hiddenRel"];
    expect_close(r.encoderAttention, c["encoderAttention"], attention, 0, name + " encoderAttention");
    expect_close(r.decoderAttention, c["decoderAttention"], attention, 0, name + " decoderAttention");
    expect_close(r.crossAttention, c["crossAttention"], attention, 0, name + " crossAttention");
    expect_close(r.encoderHidden, c["encoderHiddenStates"], hAbs, hRel, name + " encoderHiddenStates");
    expect_close(r.decoderHidden, c["decoderHiddenStates"], hAbs, hRel, name + " decoderHiddenStates");
    expect_close(r.logits, c["logits"], tol["logitsAbs"], tol["logitsRel"], name + " logits");
    // Bit for bit the same on three threads, and decoded a token at a time.
    const Seq2SeqResult r3 = run_seq2seq(model, three, ids, decoderIds, masked ? masks : nullptr, {T});
    const Seq2SeqResult steps =
        run_seq2seq(model, three, ids, decoderIds, masked ? masks : nullptr, std::vector<std::size_t>(T, 1));
    for (const Seq2SeqResult* other : {&r3, &steps}) {
      EXPECT_EQ(other->encoderAttention, r.encoderAttention) << name;
      EXPECT_EQ(other->decoderAttention, r.decoderAttention) << name;
      EXPECT_EQ(other->crossAttention, r.crossAttention) << name;
      EXPECT_EQ(other->decoderHidden, r.decoderHidden) << name;
      EXPECT_EQ(other->logits, r.logits) << name;
    }
  }
}

}  // namespace model_fixtures
