// A Hugging Face Transformer checkpoint in the engine: its config (read once,
// config.hpp), its tensors (weights.hpp) and its architecture's forward
// (arch/, one file each, found in the registry by model_type). This class is
// what every architecture shares: the checks of a call and its scratch. It
// never names an architecture. No Emscripten, no JS: this builds natively
// and to WebAssembly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../core/attention.hpp"
#include "arch/architecture.hpp"
#include "config.hpp"
#include "weights.hpp"

namespace mha::model {

class Model {
 public:
  // Checks the config (ArgumentError naming the field) and allocates every
  // parameter, its weight matrices held as `matrices` says (weights.hpp);
  // config.architecture must be set (read_config sets it).
  // `holds`: matrices held in a block type instead ({ tensor index, type }: Weights::hold, where it can).
  using Holds = std::vector<std::pair<std::size_t, DType>>;
  explicit Model(const Config& config, DType matrices = DType::F32, const Holds& holds = {})
      : Model(config, true, matrices, holds) {}
  // Bytes of the parameters a Model of `config` allocates, with the
  // constructor's checks; allocates none.
  static double bytes_for(const Config& config, DType matrices = DType::F32, const Holds& holds = {});
  // Brings its parameters' memory in on the pool's threads, before a load writes them (Weights::touch).
  void touch_memory(ThreadPool& pool) { weights_.touch(pool); }
  // Whether its weight matrices' products round their activations as llama.cpp's do (loadModel's
  // `activations: 'llama.cpp'`; linear()): off, every product is float32 over the weights' exact values.
  void round_activations(bool on) noexcept { weights_.round_activations(on); }
  // A Model of `config` laid out but with no parameter allocated: its
  // tensors() and max_length(), for a loader that checks a checkpoint
  // before it allocates anything. It cannot be written or run.
  static Model laid_out(const Config& config) { return Model(config, false, DType::F32, {}); }
  // How its weight matrices are held, and how the matrix tensors()[index] fills is.
  DType matrices() const noexcept { return weights_.matrices(); }
  DType storage_of(std::size_t index) const noexcept { return weights_.storage_of(index); }

  const Config& config() const noexcept { return config_; }
  const Architecture& architecture() const noexcept { return *config_.architecture; }
  const std::vector<Tensor>& tensors() const noexcept { return weights_.tensors(); }

  // Elements [first, first + count) of tensors()[index], from `data` (`dtype`,
  // little-endian, any alignment). A tensor's chunks come in order; each
  // element goes straight to its place (weights.hpp). ArgumentError naming
  // the tensor for a value its 16-bit storage cannot hold.
  void write(std::size_t index, DType dtype, std::size_t first, std::size_t count, const unsigned char* data) {
    weights_.write(index, dtype, first, count, data);
  }
  // The tensors not yet written in full (empty: the model can run).
  std::vector<std::string> missing() const { return weights_.missing(); }
  // Bytes of parameters held.
  std::size_t bytes() const noexcept { return weights_.bytes(); }

  // The longest sequence the position embeddings allow.
  std::size_t max_length() const noexcept { return config_.maxPositions - config_.positionOffset; }
  // ArgumentError naming inputIds unless 1 ≤ L ≤ max_length() − past: the
  // one check of a sequence's length (the bindings ask it before sizing
  // their buffers); `past`, the positions a decoder's step follows.
  void check_length(std::size_t L, std::size_t past = 0) const;
  // Floats of scratch a forward of L tokens takes (the bindings' memory check).
  double scratch_floats(std::size_t L) const { return network_->scratch_floats(L); }
  // Whether forward() can return logits.
  bool has_logits() const { return network_->has_logits(); }
  // The task head forward() can write Outputs::taskLogits with, and the rows it writes for L tokens.
  TaskHead task_head() const { return network_->task_head(); }
  std::size_t task_rows(std::size_t L) const noexcept {
    return config_.taskHead == TaskHead::SequenceClassification ? 1 : L;
  }
  // The factor each layer's attention multiplies q·k by (Outputs::query and key), the same in every layer.
  double query_key_scale() const noexcept;

  // One sequence of L tokens (types: null = all 0). hiddenStates follows
  // Hugging Face's output_hidden_states (each architecture says what its
  // are); query and key, each layer's as its attention takes them
  // (Outputs). Bitwise identical for every thread count of `attention`.
  // headMask: [numLayers, numHeads] (0: that head off), or null.
  void forward(Attention& attention, const std::int32_t* ids, const std::int32_t* types, std::size_t L,
               const Outputs& out, const std::uint8_t* headMask = nullptr);

  // An encoder's or a decoder's batch: B sequences of lengths[b] tokens, one after another in ids and types
  // (null: all 0), each with its own positions and attending to itself alone (a decoder's causally:
  // Sequence::lengths), its outputs packed as Sequence says (no padding); each sequence's results bit for bit
  // its forward()'s. headMaskStride 0: headMask is every sequence's; else sequence b's is headMask + b ·
  // headMaskStride. ArgumentError for an encoder-decoder, and for out.query, key, valueNorms, layerLogits and
  // logitRows.
  void forward_batch(Attention& attention, const std::int32_t* ids, const std::int32_t* types,
                     const std::size_t* lengths, std::size_t B, const Outputs& out,
                     const std::uint8_t* headMask = nullptr, std::size_t headMaskStride = 0);

  // A decoder's calls with state (ArgumentError on an encoder): step() runs
  // L new tokens after the positions the model has seen, each attending to
  // them and to itself, and keeps theirs (out.attention is [numLayers,
  // numHeads, L, past() + L]); prefill() forgets the past first; reset()
  // forgets it. A step's results are bit for bit the rows of forward() over
  // the whole sequence. past() + L must stay within max_length().
  void prefill(Attention& attention, const std::int32_t* ids, std::size_t L, const Outputs& out,
               const std::uint8_t* headMask = nullptr);
  void step(Attention& attention, const std::int32_t* ids, std::size_t L, const Outputs& out,
            const std::uint8_t* headMask = nullptr);
  void reset() noexcept;
  // Keeps the first `length` positions of every layer's cache (a conversation taken back to where its next
  // rendering parts from what was fed); ArgumentError, nothing changed, when it is more than past().
  void rewind(std::size_t length);
  // ArgumentError unless the architecture is a decoder (the bindings ask it first).
  void check_decoder() const;
  std::size_t past() const noexcept { return caches_.empty() ? 0 : caches_[0].length(); }
  // Floats the caches allocate for a call that brings them to `positions`
  // (0 when they have the room), for the bindings' memory check: they start
  // with room for kFirstCacheRoom positions and double as a sequence grows,
  // up to max_length(), rather than holding every position the model allows
  // (a 32k-token Qwen2.5-0.5B's would take 0.8 GB).
  double cache_floats(std::size_t positions) const noexcept;

  // An encoder-decoder's calls (ArgumentError on the others, check_encoder_decoder):
  // encode() runs the encoder over S tokens (out: lastHiddenState [S, D],
  // attention [numLayers, numHeads, S, S], hiddenStates [numLayers + 1, S,
  // D]) and keeps its keys and values for every decoder layer's
  // cross-attention; the decoder's past is forgotten. begin() readies the
  // decoder for `beams` sequences of up to `capacity` tokens, past 0.
  // decode() runs L new tokens of each beam (ids beam after beam) after the
  // past(): outputs as Network::decode says. reorder() makes beam b what beam
  // parents[b] was (beam search). A decoded step is bit for bit the rows of
  // the whole sequence decoded at once.
  void encode(Attention& attention, const std::int32_t* ids, std::size_t S, const Outputs& out,
              const std::uint8_t* headMask);
  void begin(std::size_t beams, std::size_t capacity);
  // headMaskStride: 0, headMask and crossHeadMask are every beam's; else beam b's are at b × it (each null or
  // [beams, decoderLayers, decoderHeads]).
  void decode(Attention& attention, const std::int32_t* ids, std::size_t beams, std::size_t L, const Outputs& out,
              const std::uint8_t* headMask, const std::uint8_t* crossHeadMask, std::size_t headMaskStride = 0);
  // reorder() on a decoder: its past (after prefill) made `beams` sequences, sequence b what parents[b] held,
  // whatever the count was (all 0s: the one sequence copied into each beam of a beam search; one parent: one
  // beam kept). step_beams() then runs one new token of each (ids beam after beam) after the past, out only
  // lastHiddenState and logits [beams, …] (ArgumentError for the others), each beam's row bit for bit its own
  // sequence's step(); step() takes one sequence, and prefill() and reset() make the past one again.
  void reorder(const std::size_t* parents, std::size_t beams);
  void step_beams(Attention& attention, const std::int32_t* ids, const Outputs& out, const std::uint8_t* headMask);
  // Floats a decoder's reorder() into `beams` sequences allocates (0 when their count does not change).
  double reorder_floats(std::size_t beams) const noexcept;
  void check_encoder_decoder() const;
  // The encoder's positions the decoder attends to (0 before encode()), the
  // beams begin() readied and the tokens each can hold.
  std::size_t encoded() const noexcept { return cross_.empty() ? 0 : cross_[0].length(); }
  std::size_t beams() const noexcept { return caches_.empty() ? 0 : caches_[0].batch(); }
  std::size_t capacity() const noexcept { return caches_.empty() ? 0 : caches_[0].capacity(); }
  // Floats begin() allocates for `beams` × `capacity` (0 when what it holds is the same size).
  double begin_floats(std::size_t beams, std::size_t capacity) const noexcept;
  // Floats encode() allocates for the cross-attention keys and values of S positions.
  double encode_floats(std::size_t S) const noexcept;

  // An encoder-decoder's teacher-forced batch (model_pairs.cpp): B pairs, source b of sourceLengths[b] tokens
  // and target b (the decoder's input) of targetLengths[b], each one after another in sourceIds and targetIds;
  // the encoder over every source (encoderOut as forward_batch's: rows packed, attention [numLayers, Σ_b
  // numHeads·S_b²]), then the decoder over every target, each over its own source (decoderOut: the [rows, …]
  // arrays packed, attention [decoderLayers, Σ_b decoderHeads·T_b²], crossAttention [decoderLayers, Σ_b
  // decoderHeads·T_b·S_b]). Each pair's results bit for bit its encode(), begin(1, T) and decode()'s; the
  // model's state (what encode() and begin() hold) is not touched. ArgumentError for the outputs a batch does
  // not return (query and key, head outputs, the logit lens, task logits).
  struct PairMasks {
    const std::uint8_t *encoder = nullptr, *decoder = nullptr, *cross = nullptr;  // each [layers, heads] or null
  };
  void forward_pairs(Attention& attention, const std::int32_t* sourceIds, const std::size_t* sourceLengths,
                     const std::int32_t* targetIds, const std::size_t* targetLengths, std::size_t B,
                     const Outputs& encoderOut, const Outputs& decoderOut, const PairMasks& masks);
  // Floats forward_pairs() allocates for its caches (each pair's cross-attention keys and values and its
  // decoder's).
  double pairs_floats(const std::size_t* sourceLengths, const std::size_t* targetLengths, std::size_t B) const noexcept;

  // Bytes of scratch memory held between calls, and giving it back.
  std::size_t scratch_bytes() const noexcept { return scratch_.capacity() * sizeof(float); }
  void release() noexcept { scratch_.release(); }

 private:
  Model(const Config& config, bool allocate, DType matrices, const Holds& holds);
  static constexpr std::size_t kFirstCacheRoom = 16;
  // The room the caches need for `positions` (cache_floats' rule).
  std::size_t cache_room(std::size_t positions) const noexcept;
  // ArgumentError naming the first tensor not written yet, if any (every call that runs the model).
  void check_loaded() const;
  // The checks of a call of L tokens after `past` positions, then its scratch.
  void check(const std::int32_t* ids, const std::int32_t* types, std::size_t past, std::size_t L, const Outputs& out);
  // check()'s part after the length: the ids, types and outputs of L rows, then the scratch.
  void check_rows(const std::int32_t* ids, const std::int32_t* types, std::size_t past, std::size_t L,
                  const Outputs& out);

  Config config_;
  Weights weights_;
  std::unique_ptr<Network> network_;
  FloatBuffer scratch_;
  // ArgumentError when out asks an encoder-decoder for its queries and keys (Outputs::query).
  void refuse_query_key(const Outputs& out) const;
  // ArgumentError unless out's lens rows (Outputs::layerLogits) are below `rows` on a model with decoder layers.
  void check_lens(const Outputs& out, std::size_t rows, std::size_t layers) const;
  // The ids of a call, below vocabSize (ArgumentError naming inputIds[i] otherwise).
  void check_ids(const std::int32_t* ids, std::size_t count, const char* name) const;

  LayerCaches caches_;  // a decoder's, from its first step on; an encoder-decoder's decoder's, from begin()
  LayerCaches cross_;   // an encoder-decoder's: the encoder's keys and values, per decoder layer
};

}  // namespace mha::model
