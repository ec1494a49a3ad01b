// Embind registration of the Transformer models (src/model), only in the
// model builds (mha-model-*): Model, which src/js/models/load.mjs fills tensor
// by tensor from a checkpoint (loadModel) and runs (src/js/models/kinds/*.mjs, through one named call).
#include "../model/model.hpp"

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "../model/blocks/profile.hpp"
#include "engine.hpp"
#include "model_batch.hpp"
#include "model_description.hpp"
#include "model_pairs.hpp"
#include "outputs.hpp"

namespace mha::bindings {
namespace {

// Like a Layer, a Model runs on the engine it was made with and must not
// outlive it (src/js disposes an engine's models first).
class Model {
 public:
  explicit Model(Engine& engine) : engine_(engine) {}

  // Separate from the constructor, as Layer::assign: the model of `json` (config.json), its parameters
  // allocated, its weight matrices held in the DType of code `storage` (its place in dtypeNames(), as
  // EngineHost sends it); returns its description.
  // `holds`: null, or [[tensor index, type code], …], matrices held in a block type (Model::Holds); `llama`:
  // whether their products round the activations as llama.cpp's (Model::round_activations).
  val configure(const val& json, unsigned storage, const val& holds, bool llama) {
    return with_config(json, [&](const model::Config& config) {
      const DType matrices = dtype_of(storage, "storage");
      const model::Model::Holds held = holds_of(holds);
      check_fits(model::Model::bytes_for(config, matrices, held));
      model_.reset();
      model_ = std::make_unique<model::Model>(config, matrices, held);
      model_->round_activations(llama);
      model_->touch_memory(engine_.attention().pool());
      return description(*model_);
    });
  }

  // The chunk write() reads, `length` bytes, as a view of the wasm memory:
  // engine-host.js copies a tensor's bytes into it on the JS side, so that
  // nothing of the copy (a detached or hostile array, a patched set()) runs
  // under this frame, where a JS exception would skip the clean-up.
  val chunk(double length) {
    return guarded([&] {
      live();
      if (!(length >= 0 && length <= double(kMaxElements)) || length != double(std::size_t(length)))
        throw ArgumentError("length: expected a byte count");
      chunk_.resize(std::size_t(length));
      return val(emscripten::typed_memory_view(std::size_t(length), chunk_.data()));
    });
  }

  // Elements [first, first + length / element size) of tensor `index` from
  // the first `length` bytes of the chunk (chunk()), of the DType of code
  // `dtype` (dtypeNames(); a block type's bytes are whole blocks). No argument owns memory here.
  val write(unsigned index, unsigned dtype, double first, double length) {
    return guarded([&] {
      model::Model& m = live();
      const DType type = dtype_of(dtype, "dtype");
      const std::size_t size = block_bytes(type);
      if (!(length >= 0 && length <= double(chunk_.size())) || length != double(std::size_t(length)))
        throw ArgumentError("length: expected at most the chunk's bytes");
      const std::size_t bytes = std::size_t(length);
      if (bytes % size != 0) throw ArgumentError("bytes: not a whole number of elements (blocks)");
      m.write(index, type, static_cast<std::size_t>(first), bytes / size * block_elements(type), chunk_.data());
      return val::undefined();
    });
  }

  val missing() {  // the names of the tensors not written in full
    return guarded([&] {
      val names = val::array();
      for (const std::string& name : live().missing()) names.call<void>("push", name);
      chunk_.release();
      return names;
    });
  }

  // One model call, named (engine-host.js modelCall makes the request whole): { call: "run" | "prefill" |
  // "step" | "beamStep" | "encode" | "decode", inputIds (Int32Array), tokenTypeIds (Int32Array or null; run), beams
  // (decode), returnAttention, returnHiddenStates, returnLogits (0 none, 1 every row's, 2 the last row's),
  // returnQueryKey (run), returnHeadOutputs (run, encode, decode), returnTaskLogits (run), layerLogitPositions (run,
  // decode: an Int32Array of the call's rows for the logit lens, or null), headMask: { encoder, decoder, cross } (each
  // a Uint8Array [layers × heads], 0: that head off, or null) }. Resolves to { lastHiddenState, attention?,
  // crossAttention?, hiddenStates?, logits?, taskLogits?, query?, key?, valueNorms?, headOutputNorms?,
  // crossValueNorms? (encode), crossHeadOutputNorms? (decode), layerLogits? ([layers + 1, positions, vocabSize]) },
  // each { data, shape } (OutputLayout), with queryKeyScale (run with returnQueryKey: the factor of the dot products)
  // and past (prefill, step, decode: the positions seen before the call). run, prefill and step take the group their
  // stack's architecture names (its first of attention_groups); a decoder's prefill and step use its cache
  // (model::Model::prefill, step). run with lengths (an Int32Array, not null): a batch (model_batch.hpp; pairs of an
  // encoder-decoder with decoderInputIds and decoderLengths, model_pairs.hpp).
  val call(const val& request) {
    return guarded([&] {
      model::Model& m = live();
      const std::string call = request["call"].as<std::string>();
      const Flags f{request["returnAttention"].as<bool>(),   request["returnHiddenStates"].as<bool>(),
                    request["returnLogits"].as<int>(),       request["returnQueryKey"].as<bool>(),
                    request["returnHeadOutputs"].as<bool>(), request["returnTaskLogits"].as<bool>()};
      const val masks = request["headMask"];
      lens_rows(request["layerLogitPositions"], call == "run" || call == "decode");
      if (call == "encode") return encode(m, request["inputIds"], f, masks);
      if (call == "decode") return decode(m, request["inputIds"], request["beams"].as<double>(), f, masks);
      const char* group = model::attention_groups(m.architecture().kind).front();
      const auto fits = [this](double bytes) { check_fits(bytes); };
      if (call == "beamStep") {  // model_batch.hpp
        std::vector<std::int32_t> ids(request["inputIds"]["length"].as<std::size_t>());
        copy_ids(request["inputIds"], ids, ids.size(), "inputIds");
        const val result = beam_step(m, engine_.attention(), ids, masks[group], out_, fits);
        return release_scratch(m), result;
      }
      const Mode mode = call == "run" ? Mode::Run : call == "prefill" ? Mode::Prefill : Mode::Step;
      if (mode == Mode::Step && call != "step") (Message() << "call: no model call named " << call.c_str()).raise();
      if (mode == Mode::Run && !request["lengths"].isNull()) {  // a batch
        const val result = m.architecture().kind == model::Kind::EncoderDecoder
                               ? run_pairs(m, engine_.attention(), request, out_, packed_, fits)
                               : run_batch(m, engine_.attention(), request, masks[group], out_, packed_, fits);
        return release_scratch(m), result;
      }
      return stack(m, mode, request["inputIds"], request["tokenTypeIds"], f, masks[group]);
    });
  }

  val reset() {
    return guarded([&] {
      live().reset();
      return val::undefined();
    });
  }
  // Keeps the first `length` positions a decoder has seen (Model::rewind).
  val rewind(double length) {
    return guarded([&] {
      if (!(length >= 0 && length <= double(kMaxElements)) || length != double(std::size_t(length)))
        throw ArgumentError("past: expected a count of positions");
      live().rewind(std::size_t(length));
      return val::undefined();
    });
  }
  // The positions a decoder has seen (0 for an encoder).
  double past() const { return model_ ? static_cast<double>(model_->past()) : 0.0; }

  // The decoder readied for `beams` sequences of up to `capacity` tokens.
  val begin(double beams, double capacity) {
    return guarded([&] {
      model::Model& m = live();
      m.check_encoder_decoder();
      const std::size_t B = whole(beams, "beams"), T = whole(capacity, "capacity");
      m.check_length(T);
      check_fits(4.0 * m.begin_floats(B, T));
      m.begin(B, T);
      return val::undefined();
    });
  }

  // Beam b becomes what beam parents[b] was (an Int32Array, one per beam; a decoder's may change their count:
  // model::Model::reorder).
  val reorder(const val& parents) {
    return guarded([&] {
      model::Model& m = live();
      const std::size_t B = parents["length"].as<std::size_t>();
      copy_ids(parents, ids_, B, "parents");
      std::vector<std::size_t> from(B);
      for (std::size_t b = 0; b < B; ++b) {
        if (ids_[b] < 0) (Message() << "parents[" << b << "]: expected a beam from 0, got a negative number").raise();
        from[b] = static_cast<std::size_t>(ids_[b]);
      }
      check_fits(4.0 * m.reorder_floats(B));
      m.reorder(from.data(), B);
      return val::undefined();
    });
  }

  double bytes() const { return model_ ? static_cast<double>(model_->bytes()) : 0.0; }
  // Whether run() can return logits: an architecture's head, read (a BERT's masked-LM head only when the
  // checkpoint held all of it).
  bool hasLogits() const { return model_ && model_->has_logits(); }
  // The task head run() can return taskLogits of ("sequence-classification" …; "" none: the checkpoint held not
  // all of the head config.json names, or it names none).
  std::string taskHead() const { return model_ ? model::task_head_name(model_->task_head()) : ""; }

 private:
  enum class Mode { Run, Prefill, Step };
  struct Flags {
    bool attention, hidden;
    int logits;  // 0 none, 1 every row's, 2 the last row's
    bool queryKey, headOutputs;
    bool taskLogits;  // the task head's (run)
  };

  // run, prefill or step of one stack (an encoder's, a decoder's).
  val stack(model::Model& m, Mode mode, const val& ids, const val& types, const Flags& f, const val& headMask) {
    const model::Config& c = m.config();
    if (mode != Mode::Run) m.check_decoder();
    if (mode != Mode::Run && f.queryKey) throw ArgumentError("returnQueryKey: run() only");
    if (mode != Mode::Run && f.headOutputs) throw ArgumentError("returnHeadOutputs: run() only");
    if (mode != Mode::Run && f.taskLogits) throw ArgumentError("returnTaskLogits: run() only");
    const std::size_t past = mode == Mode::Step ? m.past() : 0;
    const std::size_t L = ids["length"].as<std::size_t>();
    m.check_length(L, past);
    copy_ids(ids, ids_, L, "inputIds");
    const bool typed = !types.isNull() && !types.isUndefined();
    if (typed) copy_ids(types, types_, L, "tokenTypeIds");
    const std::size_t D = c.hiddenSize, H = c.numHeads, Lk = past + L, hd = c.head_dim();
    const bool logits = f.logits != 0;
    OutputLayout out;
    const auto last = out.add("lastHiddenState", {L, D});
    const auto attention = out.add("attention", {c.numLayers, H, L, Lk}, f.attention);
    const auto hidden = out.add("hiddenStates", {c.numLayers + 1, L, D}, f.hidden);
    const auto logitRows = out.add("logits", {f.logits == 2 ? 1 : L, c.vocabSize}, logits && m.has_logits());
    const bool task = f.taskLogits && m.task_head() != model::TaskHead::None;
    const auto taskLogits = out.add("taskLogits", {m.task_rows(L), c.numLabels}, task);
    const auto query = out.add("query", {c.numLayers, H, L, hd}, f.queryKey);
    const auto key = out.add("key", {c.numLayers, c.kv_heads(), L, hd}, f.queryKey);
    const auto valueNorms = out.add("valueNorms", {c.numLayers, H, L}, f.headOutputs);
    const auto headOutputNorms = out.add("headOutputNorms", {c.numLayers, H, L}, f.headOutputs);
    const auto lens = out.add("layerLogits", {c.numLayers + 1, lensRows_.size(), c.vocabSize}, !lensRows_.empty());
    const std::uint8_t* mask = copy_mask(headMask, masks_[0], c.numLayers, H, "headMask");
    const double caches = mode == Mode::Run ? 0.0 : m.cache_floats(past + L);
    check_fits(4.0 * (out.floats() + m.scratch_floats(L) + caches) +
               engine_.attention().scratch_bytes_for({1, L, Lk, D, H, hd, hd}, f.attention, false));
    out.place(out_);
    model::Outputs o{out[last], out[attention], out[hidden]};
    // (A model without a head gets a pointer anyway, so that Model refuses it by name.)
    o.logits = logits ? (logitRows == OutputLayout::kNone ? out[last] : out[logitRows]) : nullptr;
    o.logitRows = f.logits == 2 ? 1 : 0;
    o.taskLogits = f.taskLogits ? (task ? out[taskLogits] : out[last]) : nullptr;
    o.query = out[query];
    o.key = out[key];
    o.valueNorms = out[valueNorms];
    o.headOutputNorms = out[headOutputNorms];
    lens_outputs(o, out[lens]);
    if (mode == Mode::Run)
      m.forward(engine_.attention(), ids_.data(), typed ? types_.data() : nullptr, L, o, mask);
    else if (mode == Mode::Prefill)
      m.prefill(engine_.attention(), ids_.data(), L, o, mask);
    else
      m.step(engine_.attention(), ids_.data(), L, o, mask);
    val result = out.result();
    if (f.queryKey) result.set("queryKeyScale", m.query_key_scale());
    if (mode != Mode::Run) result.set("past", static_cast<double>(past));
    release_scratch(m);
    return result;
  }

  // An encoder-decoder's encoder over the input (model::Model::encode).
  val encode(model::Model& m, const val& ids, const Flags& f, const val& masks) {
    m.check_encoder_decoder();
    const model::Config& c = m.config();
    const std::size_t S = ids["length"].as<std::size_t>(), D = c.hiddenSize, H = c.numHeads;
    m.check_length(S);
    copy_ids(ids, ids_, S, "inputIds");
    const std::uint8_t* mask = copy_mask(masks["encoder"], masks_[0], c.numLayers, H, "headMask.encoder");
    OutputLayout out;
    const auto last = out.add("lastHiddenState", {S, D});
    const auto attention = out.add("attention", {c.numLayers, H, S, S}, f.attention);
    const auto hidden = out.add("hiddenStates", {c.numLayers + 1, S, D}, f.hidden);
    const auto valueNorms = out.add("valueNorms", {c.numLayers, H, S}, f.headOutputs);
    const auto headOutputNorms = out.add("headOutputNorms", {c.numLayers, H, S}, f.headOutputs);
    const auto crossValueNorms = out.add("crossValueNorms", {c.decoderLayers, c.decoderHeads, S}, f.headOutputs);
    check_fits(4.0 * (out.floats() + m.scratch_floats(S) + m.encode_floats(S)) +
               engine_.attention().scratch_bytes_for({1, S, S, D, H, D / H, D / H}, f.attention, false));
    out.place(out_);
    model::Outputs o{out[last], out[attention], out[hidden]};
    o.valueNorms = out[valueNorms];
    o.headOutputNorms = out[headOutputNorms];
    o.crossValueNorms = out[crossValueNorms];
    m.encode(engine_.attention(), ids_.data(), S, o, mask);
    val result = out.result();
    release_scratch(m);
    return result;
  }

  // L new tokens of each of `beams` sequences (ids beam after beam): attention [decoderLayers, beams,
  // decoderHeads, L, past + L], crossAttention [decoderLayers, decoderHeads, beams·L, S], logits
  // [beams·L, vocabSize], valueNorms, headOutputNorms and crossHeadOutputNorms [decoderLayers, decoderHeads,
  // beams·L] (model::Model::decode).
  val decode(model::Model& m, const val& ids, double beams, const Flags& f, const val& masks) {
    m.check_encoder_decoder();
    const model::Config& c = m.config();
    const std::size_t B = whole(beams, "beams"), N = ids["length"].as<std::size_t>();
    if (B != m.beams()) (Message() << "beams: the decoder was readied for " << m.beams() << ", got " << B).raise();
    if (N % B != 0 || N == 0)
      (Message() << "decoderInputIds: expected a multiple of " << B << " ids (the same count for each beam), got " << N)
          .raise();
    const std::size_t L = N / B, past = m.past(), S = m.encoded(), D = c.hiddenSize, H = c.decoderHeads;
    const std::size_t Ld = c.decoderLayers, Lk = past + L;
    if (S == 0) throw ArgumentError("model: nothing encoded yet (encode the input first)");
    if (L > m.capacity() - past)
      (Message() << "decoderInputIds: expected 1 to " << m.capacity() - past << " tokens after the " << past
                 << " decoded, got " << L)
          .raise();
    copy_ids(ids, ids_, N, "decoderInputIds");
    const std::uint8_t* selfMask = copy_mask(masks["decoder"], masks_[1], Ld, H, "headMask.decoder", B);
    const std::uint8_t* crossMask = copy_mask(masks["cross"], masks_[2], Ld, H, "headMask.cross", B);
    const std::size_t maskStride = per_beam(masks_[1], selfMask, masks_[2], crossMask, Ld * H, B);
    OutputLayout out;
    const auto last = out.add("lastHiddenState", {N, D});
    const auto attention = out.add("attention", {Ld, B, H, L, Lk}, f.attention);
    const auto cross = out.add("crossAttention", {Ld, H, N, S}, f.attention);
    const auto hidden = out.add("hiddenStates", {Ld + 1, N, D}, f.hidden);
    const auto logits = out.add("logits", {N, c.vocabSize}, f.logits != 0);
    const auto valueNorms = out.add("valueNorms", {Ld, H, N}, f.headOutputs);
    const auto headOutputNorms = out.add("headOutputNorms", {Ld, H, N}, f.headOutputs);
    const auto crossHeadOutputNorms = out.add("crossHeadOutputNorms", {Ld, H, N}, f.headOutputs);
    const auto lens = out.add("layerLogits", {Ld + 1, lensRows_.size(), c.vocabSize}, !lensRows_.empty());
    const double attend =
        std::max(engine_.attention().scratch_bytes_for({B, L, Lk, D, H, D / H, D / H}, f.attention, false),
                 engine_.attention().scratch_bytes_for({1, N, S, D, H, D / H, D / H}, f.attention, false));
    check_fits(4.0 * (out.floats() + m.scratch_floats(N)) + attend);
    out.place(out_);
    model::Outputs o{out[last], out[attention], out[hidden]};
    o.crossAttention = out[cross];
    o.logits = out[logits];
    o.valueNorms = out[valueNorms];
    o.headOutputNorms = out[headOutputNorms];
    o.crossHeadOutputNorms = out[crossHeadOutputNorms];
    lens_outputs(o, out[lens]);
    m.decode(engine_.attention(), ids_.data(), B, L, o, selfMask, crossMask, maskStride);
    val result = out.result();
    result.set("past", static_cast<double>(past));
    release_scratch(m);
    return result;
  }

  // The logit lens' rows of a call (null: none), kept in lensRows_; refused by a call that has no lens.
  void lens_rows(const val& positions, bool allowed) {
    lensRows_.clear();
    if (positions.isNull() || positions.isUndefined()) return;
    if (!allowed) throw ArgumentError("returnLayerLogits: run() and an encoder-decoder's decode only");
    copy_ids(positions, ids_, positions["length"].as<std::size_t>(), "returnLayerLogits.positions");
    for (const std::int32_t p : ids_) {
      if (p < 0) throw ArgumentError("returnLayerLogits.positions: expected positions from 0, got a negative one");
      lensRows_.push_back(static_cast<std::size_t>(p));
    }
  }
  void lens_outputs(model::Outputs& o, float* layerLogits) const {
    o.layerLogits = layerLogits;
    o.lensRows = lensRows_.data();
    o.lensCount = lensRows_.size();
  }

  // What a call leaves behind above kKeepBytes, given back.
  void release_scratch(model::Model& m) {
    trim(out_);
    if (m.scratch_bytes() > kKeepBytes) m.release();
    if (engine_.attention().scratch_bytes() > kKeepBytes) engine_.attention().release();
  }

  // A count from JS (a positive integer below 2^31).
  static std::size_t whole(double v, const char* name) {
    if (!(v >= 1 && v <= double(kMaxElements)) || v != static_cast<double>(static_cast<std::size_t>(v)))
      (Message() << name << ": expected a positive integer").raise();
    return static_cast<std::size_t>(v);
  }

  model::Model& live() {
    if (!model_) throw ArgumentError("model: not configured");
    return *model_;
  }

  static void copy_ids(const val& src, std::vector<std::int32_t>& buffer, std::size_t count, const char* name) {
    if (src["length"].as<std::size_t>() != count)
      (Message() << name << ": expected " << count << " elements, got " << src["length"].as<std::size_t>()).raise();
    buffer.resize(count);
    val(emscripten::typed_memory_view(count, buffer.data())).call<void>("set", src);
  }

  // check_memory (convert.hpp) with what this model holds and will free.
  void check_fits(double bytes) const {
    check_memory(
        bytes, [this] { return model_ ? model_->bytes() : 0; },
        "model:", "dispose other models or use a smaller one, or a shorter input");
  }

  Engine& engine_;
  std::unique_ptr<model::Model> model_;
  Buffer<unsigned char> chunk_;  // write()'s chunk on its way in: grown, never zeroed, freed by missing()
  std::vector<std::int32_t> ids_, types_;
  std::vector<std::size_t> lensRows_;   // the logit lens' rows of the call under way (lens_rows)
  std::vector<std::uint8_t> masks_[3];  // the encoder's, the decoder's, the cross-attention's
  FloatBuffer out_, packed_;            // a call's results; a batch's packed rows (model_batch.hpp)
};

// The limits src/js checks config.json against first (ModelLimits is where they are defined).
val modelLimits() {
  using L = model::ModelLimits;
  val table = val::object();
  table.set("numLayers", static_cast<double>(L::numLayers));
  table.set("numHeads", static_cast<double>(L::numHeads));
  table.set("hiddenSize", static_cast<double>(L::hiddenSize));
  table.set("intermediateSize", static_cast<double>(L::intermediateSize));
  table.set("vocabSize", static_cast<double>(L::vocabSize));
  table.set("maxPositions", static_cast<double>(L::maxPositions));
  table.set("typeVocabSize", static_cast<double>(L::typeVocabSize));
  return table;
}

#if MHA_PROFILE
// The benchmark's model builds only (bench/model-profile.mjs): the blocks'
// milliseconds since the last read (model/blocks/profile.hpp); the first read
// starts the measuring. Those builds have one thread (no pool to race on it).
val readBlockProfile() {
  static model::BlockProfile profile;
  model::g_blockProfile = &profile;
  val table = val::object();
  table.set("embeddings", profile.embeddings);
  table.set("linear", profile.linear);
  table.set("activation", profile.activation);
  table.set("attention", profile.attention);
  table.set("norms", profile.norms);
  table.set("copies", profile.copies);
  table.set("total", profile.total);
  profile = model::BlockProfile();
  return table;
}
#endif

}  // namespace
}  // namespace mha::bindings

EMSCRIPTEN_BINDINGS(mha_model) {
  using namespace mha::bindings;
  emscripten::function("modelLimits", &modelLimits);
  emscripten::function("describeModel", &describeModel);
  emscripten::function("modelBytes", &modelBytes);
  emscripten::function("dtypeNames", &dtypeNames);
#if MHA_PROFILE
  emscripten::function("readBlockProfile", &readBlockProfile);
#endif
  emscripten::class_<Model>("Model")
      .constructor<Engine&>()
      .function("configure", &Model::configure)
      .function("chunk", &Model::chunk)
      .function("write", &Model::write)
      .function("missing", &Model::missing)
      .function("call", &Model::call)
      .function("reset", &Model::reset)
      .function("rewind", &Model::rewind)
      .function("past", &Model::past)
      .function("begin", &Model::begin)
      .function("reorder", &Model::reorder)
      .function("bytes", &Model::bytes)
      .function("hasLogits", &Model::hasLogits)
      .function("taskHead", &Model::taskHead);
}
