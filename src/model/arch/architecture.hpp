// What an architecture is, for the files of this folder: one file each
// (bert.cpp, gpt2.cpp, llama.cpp, marian.cpp), holding everything about it: the config.json fields it
// reads with their defaults (read_config), its tensors with Hugging Face's
// names, shapes and roles (build, into Weights), and its forward as numbered
// passes over the shared blocks (../blocks/) and the core's attention. The
// registry (registry.cpp) is the only list of them; nothing outside this
// folder names one. Adding one: ARCHITECTURE.md, "How to add an architecture".
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../../core/attention.hpp"
#include "../../core/kv_cache.hpp"
#include "../config.hpp"
#include "../weights.hpp"

namespace mha::model {

// Of the L tokens of a call: Lk is L, or with a cache the positions it holds
// after them (the earlier ones and these).
struct Outputs {
  float* lastHiddenState = nullptr;  // [L, hiddenSize]
  float* attention = nullptr;        // [numLayers, numHeads, L, Lk] (rows are queries), or null
  float* hiddenStates = nullptr;     // [numLayers + 1, L, hiddenSize], or null (see Model::forward)
  float* logits = nullptr;           // [L, vocabSize] of the language-model head (Network::has_logits)
  // [1, numLabels] of a sequence-classification head (the first token's row), [L, numLabels] of a
  // token-classification or question-answering head (Network::task_head), or null.
  float* taskLogits = nullptr;
  // When not 0: logits for the last `logitRows` rows only ([logitRows, vocabSize]: a generation's next token).
  std::size_t logitRows = 0;
  // An encoder-decoder's decoder: [decoderLayers, decoderHeads, L, S] over the S encoded positions.
  float* crossAttention = nullptr;
  // Both or neither (Model::check): each layer's queries and keys of the L tokens as its attention takes them
  // (biases added, Qwen3's q/k norms and the rotary positions applied), head by head: query [numLayers,
  // numHeads, L, headDim], key [numLayers, numKVHeads, L, headDim]; query head h uses key head
  // h / (numHeads / numKVHeads). The attention's scores are query_key_scale(headDim) · q·k (+ the mask).
  // With a cache, the L new tokens' only (the earlier keys are in the cache). Not an encoder-decoder's.
  float* query = nullptr;
  float* key = nullptr;
  // Both or neither (Model::check): what each head writes (blocks/head_outputs.hpp), per layer and query head
  // h: valueNorms [numLayers, numHeads, L], ‖v_h(x_j)·W_O^h‖ of each token j (grouped-query attention: v of key
  // head h / (numHeads / numKVHeads)); headOutputNorms [numLayers, numHeads, L], ‖Σ_j α_ij v_h(x_j)·W_O^h‖ at
  // each query i (0 for a head the head mask switches off); the output product's bias left out. An
  // encoder-decoder's encode: the encoder's; its decode: the decoder's self-attention's over the beams·L rows
  // of the call (beam after beam), and of its cross-attention crossValueNorms [decoderLayers, decoderHeads, S]
  // (encode: the encoder's output through each decoder layer's cross-attention values) and
  // crossHeadOutputNorms [decoderLayers, decoderHeads, beams·L] (decode). With a cache, the L new tokens' only.
  float* valueNorms = nullptr;
  float* headOutputNorms = nullptr;
  float* crossValueNorms = nullptr;
  float* crossHeadOutputNorms = nullptr;
  // The logit lens (blocks/lens.hpp): at the `lensCount` rows lensRows of the call (of its L; an encoder-decoder's
  // decode: of its beams·L), the hidden state hiddenStates[i] through the final norm and the output head (its
  // bias too: Marian's final_logits_bias), layerLogits [numLayers + 1, lensCount, vocabSize] (a decoder's; an
  // encoder-decoder's decode: decoderLayers + 1). Index 0 reads the embeddings, the last is the logits' row.
  float* layerLogits = nullptr;
  const std::size_t* lensRows = nullptr;
  std::size_t lensCount = 0;
};

// One sequence, checked by Model::forward: ids below vocabSize, types below
// typeVocabSize (null: all 0), 1 ≤ length ≤ Model::max_length().
struct Sequence {
  const std::int32_t* ids = nullptr;
  const std::int32_t* types = nullptr;
  std::size_t length = 0;
  // Heads switched off, [layers, heads] (0: off; its weights and output are
  // 0, Hugging Face's head_mask), or null: the call's self-attention, and an
  // encoder-decoder's decoder's cross-attention.
  const std::uint8_t* headMask = nullptr;
  const std::uint8_t* crossHeadMask = nullptr;
  // A batch (Model::forward_batch, an encoder's or a decoder's): `batch` sequences of lengths[b] tokens, one
  // after another in ids and types, `length` their sum; each has its own positions 0 … lengths[b] − 1 and
  // attends to itself alone (a decoder's causally). Its outputs are packed as its rows are: the N = length rows
  // of every [L, …] array, attention [numLayers, Σ_b numHeads·lengths[b]²] (each sequence's [numHeads,
  // lengths[b], lengths[b]] in turn), a sequence-classification head's taskLogits [batch, numLabels]. null: one
  // sequence. headMaskStride: 0, every sequence's head mask is headMask; else sequence b's is headMask + b ·
  // headMaskStride (its own [layers, heads]).
  const std::size_t* lengths = nullptr;
  std::size_t batch = 1;
  std::size_t headMaskStride = 0;
  // Sequence b's head mask of layer l ([heads]), or null.
  const std::uint8_t* head_mask(std::size_t b, std::size_t l, std::size_t heads) const noexcept {
    return headMask ? headMask + b * headMaskStride + l * heads : nullptr;
  }
};

// The sizes of a batch of B pairs, source b of sources[b] tokens and target b of targets[b] (Model::forward_pairs):
// each side's rows and longest sequence, and the Σ over the pairs of each attention's rows × keys (in double: a
// sum a caller checks against kMaxElements before it sizes anything by it).
struct PairSizes {
  std::size_t sourceRows = 0, targetRows = 0, longestSource = 0, longestTarget = 0;
  double sourceSquares = 0, targetSquares = 0, targetsBySources = 0;
};
inline PairSizes pair_sizes(const std::size_t* sources, const std::size_t* targets, std::size_t B) noexcept {
  PairSizes z;
  for (std::size_t b = 0; b < B; ++b) {
    const std::size_t S = sources[b], T = targets[b];
    z.sourceRows += S;
    z.targetRows += T;
    z.longestSource = S > z.longestSource ? S : z.longestSource;
    z.longestTarget = T > z.longestTarget ? T : z.longestTarget;
    z.sourceSquares += double(S) * double(S);
    z.targetSquares += double(T) * double(T);
    z.targetsBySources += double(T) * double(S);
  }
  return z;
}

// The rows of the L of a call that get logits (Outputs::logitRows), and the first of them.
inline std::size_t logit_rows(const Outputs& out, std::size_t L) noexcept {
  return out.logitRows && out.logitRows < L ? out.logitRows : L;
}

// A decoder's state between calls: per layer, the keys and values of the
// positions it has seen (kv_cache.hpp), so that a step computes only its new
// tokens. State of the model, not of a call (Model::prefill, step, reset).
using LayerCaches = std::vector<KVCache>;

// An architecture's parameters (pointers into Weights) and its forward.
class Network {
 public:
  virtual ~Network() = default;
  // Floats of scratch forward() needs for `length` tokens.
  virtual double scratch_floats(std::size_t length) const = 0;
  // The tokens of `in`; with `caches` (a decoder's, one per layer, configured
  // by Model) after the positions they hold, which the call appends to:
  // positions and the causal mask continue from there.
  virtual void forward(Attention& attention, const Sequence& in, const Outputs& out, float* scratch,
                       LayerCaches* caches) const = 0;
  // Whether forward() can write Outputs::logits (a language-model head, such
  // as GPT-2's tied to its token embeddings).
  virtual bool has_logits() const { return false; }
  // The task head forward() can write Outputs::taskLogits with (None: none read).
  virtual TaskHead task_head() const { return TaskHead::None; }

  // An encoder-decoder's halves (Kind::EncoderDecoder; Model calls them only
  // for one). encode(): the S tokens of `in` through the encoder (out:
  // lastHiddenState, attention, hiddenStates), then each decoder layer's
  // cross-attention keys and values of its output into `cross` (one cache a
  // layer, configured here for S positions). decode(): `beams` sequences of
  // in.length tokens each (in.ids beam after beam), after the positions
  // `self` holds (one cache a decoder layer, batch `beams`), over `cross`:
  // out.attention [decoderLayers, beams, decoderHeads, L, past + L],
  // out.crossAttention [decoderLayers, decoderHeads, beams·L, S],
  // out.hiddenStates [decoderLayers + 1, beams·L, hiddenSize], out.logits
  // [beams·L, vocabSize], out.lastHiddenState [beams·L, hiddenSize].
  virtual void encode(Attention& attention, const Sequence& in, const Outputs& out, float* scratch,
                      LayerCaches& cross) const;
  virtual void decode(Attention& attention, const Sequence& in, std::size_t beams, const Outputs& out, float* scratch,
                      LayerCaches& self, const LayerCaches& cross) const;
  // forward_pairs(): a teacher-forced batch of pairs (Model::forward_pairs): `sources` and `targets` two batches
  // of the same count (Sequence::lengths), target b over source b; no state kept.
  virtual void forward_pairs(Attention& attention, const Sequence& sources, const Sequence& targets,
                             const Outputs& encoderOut, const Outputs& decoderOut, float* scratch) const;
};

// The kinds of model (transformers.js groups architectures the same way):
// what a caller can ask of one.
enum class Kind { Encoder, Decoder, EncoderDecoder };
const char* kind_name(Kind kind) noexcept;  // "encoder", "decoder", "encoder-decoder"
// The groups of attention weights a kind's results carry, as transformers
// names them: an encoder's self-attention, a decoder's (causal), and
// cross-attention (the decoder's queries over the encoder's keys).
std::vector<const char*> attention_groups(Kind kind);

struct Architecture {
  const char* name;                     // its file: arch/<name>.cpp
  std::vector<const char*> modelTypes;  // the config.json model_type values it runs
  Kind kind;
  bool causal;      // its self-attention sees only earlier positions
  bool tokenTypes;  // it has token type embeddings (a text pair's second text)
  // Prefixes of a checkpoint's tensor names that build()'s names leave out
  // ("bert." of BertForMaskedLM's file), tried in order.
  std::vector<const char*> prefixes;
  // Tensors a checkpoint may hold that the model ties to another or computes
  // (Marian's copies of its shared embeddings, its sinusoidal positions),
  // as build() would name them: the loader skips them.
  std::vector<const char*> derived;
  // Reads its fields of config.json into `config` (sizes by reader.size()).
  void (*read_config)(ConfigReader& reader, Config& config);
  // Lays out its tensors in `weights` and returns its forward.
  std::unique_ptr<Network> (*build)(const Config& config, Weights& weights);
};

// The registry (registry.cpp).
const std::vector<const Architecture*>& architectures();
const Architecture* find_architecture(const std::string& modelType);  // null: none runs it
std::vector<const char*> model_types();                               // every model_type, in the registry's order

}  // namespace mha::model
