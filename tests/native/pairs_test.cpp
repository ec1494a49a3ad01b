// Model::forward_pairs: an encoder-decoder's teacher-forced batch of pairs (tests/fixtures/models/batch/
// hf-marian.json, made by tests/tools/make_batch_fixtures.py: transformers' MarianMTModel over four padded
// pairs). Each pair's rows bit for bit its own encode(), begin(1, T) and decode() (seq2seq_reference.hpp), on 1 and
// 3 threads, with and without head masks; its logits and attention against transformers' batch; the refusals.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "model_fixtures.hpp"
#include "seq2seq_reference.hpp"

namespace {

using namespace model_fixtures;

struct Pairs {
  std::vector<std::vector<std::int32_t>> sources, targets;
  std::vector<std::size_t> S, T;
  std::vector<std::int32_t> sourceIds, targetIds;
};

// The reference's pairs, each cut to its real tokens (attention mask 1).
Pairs pairs_of(const json& ref) {
  Pairs p;
  for (std::size_t b = 0; b < ref["inputIds"].size(); ++b) {
    for (const auto& [ids, mask, out] :
         {std::tuple{&ref["inputIds"][b], &ref["attentionMask"][b], &p.sources},
          std::tuple{&ref["decoderInputIds"][b], &ref["decoderAttentionMask"][b], &p.targets}}) {
      std::vector<std::int32_t> real;
      for (std::size_t i = 0; i < ids->size(); ++i)
        if ((*mask)[i].get<int>()) real.push_back((*ids)[i].get<std::int32_t>());
      out->push_back(real);
    }
    p.S.push_back(p.sources.back().size());
    p.T.push_back(p.targets.back().size());
    p.sourceIds.insert(p.sourceIds.end(), p.sources.back().begin(), p.sources.back().end());
    p.targetIds.insert(p.targetIds.end(), p.targets.back().begin(), p.targets.back().end());
  }
  return p;
}

// forward_pairs' packed outputs, named as Seq2SeqResult's.
Seq2SeqResult run_pairs(Model& model, Attention& attention, const Pairs& p, const std::vector<std::uint8_t>* masks) {
  const Config& c = model.config();
  const std::size_t D = c.hiddenSize, B = p.S.size();
  std::size_t Ns = 0, Nt = 0, SS = 0, TT = 0, TS = 0;
  for (std::size_t b = 0; b < B; ++b) {
    Ns += p.S[b];
    Nt += p.T[b];
    SS += p.S[b] * p.S[b];
    TT += p.T[b] * p.T[b];
    TS += p.T[b] * p.S[b];
  }
  Seq2SeqResult r;
  r.encoderLast.resize(Ns * D);
  r.encoderAttention.resize(c.numLayers * c.numHeads * SS);
  r.encoderHidden.resize((c.numLayers + 1) * Ns * D);
  r.decoderLast.resize(Nt * D);
  r.decoderAttention.resize(c.decoderLayers * c.decoderHeads * TT);
  r.crossAttention.resize(c.decoderLayers * c.decoderHeads * TS);
  r.decoderHidden.resize((c.decoderLayers + 1) * Nt * D);
  r.logits.resize(Nt * c.vocabSize);
  Outputs encoderOut{r.encoderLast.data(), r.encoderAttention.data(), r.encoderHidden.data()};
  Outputs decoderOut{r.decoderLast.data(), r.decoderAttention.data(), r.decoderHidden.data(), r.logits.data()};
  decoderOut.crossAttention = r.crossAttention.data();
  Model::PairMasks m;
  if (masks) m = {masks[0].data(), masks[1].data(), masks[2].data()};
  model.forward_pairs(attention, p.sourceIds.data(), p.S.data(), p.targetIds.data(), p.T.data(), B, encoderOut,
                      decoderOut, m);
  return r;
}

// Pair b's part of a packed array: `groups` groups, each of every pair's `per(b)` floats in turn.
std::vector<float> part(const std::vector<float>& packed, std::size_t groups, const std::vector<std::size_t>& per,
                        std::size_t b) {
  std::size_t total = 0, before = 0;
  for (std::size_t i = 0; i < per.size(); ++i) (i < b ? before : total) += per[i];
  total += before;
  std::vector<float> out;
  for (std::size_t g = 0; g < groups; ++g)
    out.insert(out.end(), packed.begin() + g * total + before, packed.begin() + g * total + before + per[b]);
  return out;
}

TEST(Pairs, EachPairIsBitForBitItsOwnRunAndTransformersBatch) {
  const std::string folder = kModels + "hf-marian/";
  Model model(config_of(read_json(folder + "config.json")));
  load(model, folder);
  const json ref = read_json(kModels + "batch/hf-marian.json"), tol = read_json(folder + "reference.json")["tolerance"];
  const Pairs p = pairs_of(ref);
  const Config& c = model.config();
  const std::size_t B = p.S.size(), D = c.hiddenSize, V = c.vocabSize, Le = c.numLayers, Ld = c.decoderLayers;
  const std::size_t He = c.numHeads, Hd = c.decoderHeads, Smax = ref["shape"][1], Tmax = ref["decoderShape"][1];
  std::vector<std::uint8_t> masks[3] = {std::vector<std::uint8_t>(Le * He, 1), std::vector<std::uint8_t>(Ld * Hd, 1),
                                        std::vector<std::uint8_t>(Ld * Hd, 1)};
  masks[0][1] = masks[1][Hd + 2] = masks[2][3] = 0;
  Attention one(1), three(3);
  using Masks = const std::vector<std::uint8_t>*;
  for (const Masks m : {Masks(nullptr), Masks(masks)}) {
    const Seq2SeqResult batch = run_pairs(model, one, p, m), batch3 = run_pairs(model, three, p, m);
    std::vector<std::size_t> S_D, T_D, T_V, SS, TT, TS;
    for (std::size_t b = 0; b < B; ++b) {
      S_D.push_back(p.S[b] * D);
      T_D.push_back(p.T[b] * D);
      T_V.push_back(p.T[b] * V);
      SS.push_back(He * p.S[b] * p.S[b]);
      TT.push_back(Hd * p.T[b] * p.T[b]);
      TS.push_back(Hd * p.T[b] * p.S[b]);
    }
    for (std::size_t b = 0; b < B; ++b) {
      const std::string name = std::string(m ? "masked " : "") + "pair " + std::to_string(b);
      const Seq2SeqResult single = run_seq2seq(model, one, p.sources[b], p.targets[b], m, {p.T[b]});
      for (const Seq2SeqResult* r : {&batch, &batch3}) {
        EXPECT_EQ(part(r->encoderLast, 1, S_D, b), single.encoderLast) << name;
        EXPECT_EQ(part(r->encoderAttention, Le, SS, b), single.encoderAttention) << name;
        EXPECT_EQ(part(r->encoderHidden, Le + 1, S_D, b), single.encoderHidden) << name;
        EXPECT_EQ(part(r->decoderLast, 1, T_D, b), single.decoderLast) << name;
        EXPECT_EQ(part(r->decoderAttention, Ld, TT, b), single.decoderAttention) << name;
        EXPECT_EQ(part(r->crossAttention, Ld, TS, b), single.crossAttention) << name;
        EXPECT_EQ(part(r->decoderHidden, Ld + 1, T_D, b), single.decoderHidden) << name;
        EXPECT_EQ(part(r->logits, 1, T_V, b), single.logits) << name;
      }
      if (m) continue;
      // Against transformers' padded batch: pair b's real rows and keys.
      json logits = json::array(), cross = json::array();
      for (std::size_t t = 0; t < p.T[b]; ++t)
        for (std::size_t v = 0; v < V; ++v) logits.push_back(ref["logits"][(b * Tmax + t) * V + v]);
      for (std::size_t lh = 0; lh < Ld * Hd; ++lh)
        for (std::size_t t = 0; t < p.T[b]; ++t)
          for (std::size_t s = 0; s < p.S[b]; ++s)
            cross.push_back(ref["crossAttention"][(((lh / Hd * B + b) * Hd + lh % Hd) * Tmax + t) * Smax + s]);
      expect_close(part(batch.logits, 1, T_V, b), logits, tol["logitsAbs"], tol["logitsRel"], name + " logits");
      expect_close(part(batch.crossAttention, Ld, TS, b), cross, tol["attentionAbs"], 0, name + " crossAttention");
    }
  }
}

TEST(Pairs, RefusesWhatABatchDoesNotReturnAndOtherKinds) {
  const std::string folder = kModels + "hf-marian/";
  Model model(config_of(read_json(folder + "config.json")));
  load(model, folder);
  const Pairs p = pairs_of(read_json(kModels + "batch/hf-marian.json"));
  Attention attention(1);
  std::vector<float> big(1 << 16);
  Outputs encoderOut{big.data()}, decoderOut{big.data()};
  decoderOut.valueNorms = decoderOut.headOutputNorms = big.data();
  EXPECT_THROW(model.forward_pairs(attention, p.sourceIds.data(), p.S.data(), p.targetIds.data(), p.T.data(), 4,
                                   encoderOut, decoderOut, {}),
               mha::ArgumentError);
  std::vector<std::size_t> empty = p.T;
  empty[2] = 0;
  EXPECT_THROW(model.forward_pairs(attention, p.sourceIds.data(), p.S.data(), p.targetIds.data(), empty.data(), 4,
                                   encoderOut, Outputs{big.data()}, {}),
               mha::ArgumentError);
  const std::string llama = kModels + "hf-llama/";
  Model decoder(config_of(read_json(llama + "config.json")));
  load(decoder, llama);
  EXPECT_THROW(decoder.forward_pairs(attention, p.sourceIds.data(), p.S.data(), p.targetIds.data(), p.T.data(), 4,
                                     encoderOut, Outputs{big.data()}, {}),
               mha::ArgumentError);
}

}  // namespace
