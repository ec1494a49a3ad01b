// Embind registration of the Transformer models (src/model), only in the
// model builds (mha-model-*): Model, which src/js/models/load.mjs fills tensor
// by tensor from a checkpoint (loadModel) and runs (transformer-model.mjs).
#include "../model/model.hpp"

#include <algorithm>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

#include "../model/blocks/profile.hpp"
#include "engine.hpp"

namespace mha::bindings {
namespace {

// config.json as a JS object, field by field (model/config.hpp reads it).
class JsConfig final : public model::ConfigSource {
 public:
  explicit JsConfig(const val& object) : object_(object) {}
  Type type(const char* field) const override {
    const val v = object_[field];
    if (v.isUndefined()) return Type::Absent;
    if (v.isNull()) return Type::Null;
    const std::string t = v.typeOf().as<std::string>();
    if (t == "object") return val::global("Array").call<bool>("isArray", v) ? Type::Other : Type::Object;
    return t == "number" ? Type::Number : t == "string" ? Type::String : t == "boolean" ? Type::Boolean : Type::Other;
  }
  double number(const char* field) const override { return object_[field].as<double>(); }
  bool boolean(const char* field) const override { return object_[field].as<bool>(); }
  std::string string(const char* field) const override { return object_[field].as<std::string>(); }
  std::string json(const char* field) const override {
    const val text = val::global("JSON").call<val>("stringify", object_[field]);
    return text.isUndefined() ? "undefined" : text.as<std::string>();
  }
  std::unique_ptr<model::ConfigSource> object(const char* field) const override {
    return std::make_unique<JsConfig>(object_[field]);
  }

 private:
  val object_;
};

val strings(const std::vector<const char*>& list) {
  val array = val::array();
  for (const char* s : list) array.call<void>("push", std::string(s));
  return array;
}

// The names of Storage, as loadModel's `weights` option spells them.
const char* storage_name(Storage s) noexcept {
  return s == Storage::F32 ? "float32" : s == Storage::BF16 ? "bf16" : "f16";
}

// What JS needs to load and run a model, from its layout: { tensors
// ([{ name, shape, slot, matrix }] in the model's order: tensors of one
// slot are gathered into one packed matrix; `matrix`, held as `weights`
// says), weights (how the matrices are held: "float32", "bf16", "f16"),
// weightBytes ({ float32, bf16 }: the parameters' bytes held either way; f16
// as bf16), prefixes (of a checkpoint's names
// that tensors leave out), maxLength, config (model.config's fields),
// architecture ({ name, kind, causal, tokenTypes, tokenTypeEmbeddings, attentionGroups }) }.
val description(const model::Model& model) {
  const model::Config& c = model.config();
  const model::Architecture& a = model.architecture();
  val tensors = val::array();
  for (const model::Tensor& t : model.tensors()) {
    val entry = val::object();
    entry.set("name", t.name);
    val shape = val::array();
    for (std::size_t n : t.shape) shape.call<void>("push", static_cast<double>(n));
    entry.set("shape", shape);
    entry.set("slot", static_cast<double>(t.slot));
    if (t.matrix) entry.set("matrix", true);
    if (t.optional) entry.set("optional", true);
    tensors.call<void>("push", entry);
  }
  val config = val::object();
  config.set("modelType", c.modelType);
  config.set("numLayers", static_cast<double>(c.numLayers));
  config.set("numHeads", static_cast<double>(c.numHeads));
  config.set("hiddenSize", static_cast<double>(c.hiddenSize));
  config.set("vocabSize", static_cast<double>(c.vocabSize));
  config.set("maxPositions", static_cast<double>(c.maxPositions));
  // Every head's width (dK = dV) and the key/value heads (numHeads but with grouped-query attention): the
  // shapes of run()'s query and key.
  config.set("headDim", static_cast<double>(c.head_dim()));
  config.set("numKVHeads", static_cast<double>(c.kv_heads()));
  if (a.kind == model::Kind::EncoderDecoder) {
    // numLayers and numHeads are the encoder's.
    config.set("decoderLayers", static_cast<double>(c.decoderLayers));
    config.set("decoderHeads", static_cast<double>(c.decoderHeads));
  }
  val architecture = val::object();
  architecture.set("name", std::string(a.name));
  architecture.set("kind", std::string(model::kind_name(a.kind)));
  architecture.set("causal", a.causal);
  // Whether this model takes token types: its architecture has them, and more than one.
  architecture.set("tokenTypes", a.tokenTypes && c.typeVocabSize > 1);
  // Whether it has token type embeddings at all (caller-given type ids are refused without).
  architecture.set("tokenTypeEmbeddings", a.tokenTypes);
  architecture.set("attentionGroups", strings(model::attention_groups(a.kind)));
  val result = val::object();
  result.set("tensors", tensors);
  result.set("prefixes", strings(a.prefixes));
  result.set("derived", strings(a.derived));
  result.set("maxLength", static_cast<double>(model.max_length()));
  result.set("weights", std::string(storage_name(model.matrices())));
  val bytes = val::object();
  bytes.set("float32", model::Model::bytes_for(c, Storage::F32));
  bytes.set("bf16", model::Model::bytes_for(c, Storage::BF16));
  result.set("weightBytes", bytes);
  result.set("config", config);
  result.set("architecture", architecture);
  return result;
}

// config.json (as JSON.parse returns it) read and checked by the model's
// reader, then `use`d; a config.json that breaks a rule is a JS Error naming
// the file and the field (a bad file), any other refusal a RangeError.
template <typename Use>
val with_config(const val& json, const Use& use) {
  try {
    const model::Config config = model::read_config(JsConfig(json));
    return guarded([&] { return use(config); });
  } catch (const model::ConfigError& e) {
    val error = val::global("Error").new_(std::string(e.what()));
    error.set("code", val(e.code));
    error.set("file", val("config.json"));
    if (!e.field.empty()) error.set("field", val(e.field)), error.set("value", val(e.value));
    return error;
  } catch (const std::exception&) {
    keep_error();
    return range_error(error_message());
  }
}

// A model's description (above) from its config.json alone, allocating no
// parameter: the loader matches a checkpoint's tensors against it first.
val describeModel(const val& json) {
  return with_config(json, [](const model::Config& config) { return description(model::Model::laid_out(config)); });
}

// Like a Layer, a Model runs on the engine it was made with and must not
// outlive it (src/js disposes an engine's models first).
class Model {
 public:
  explicit Model(Engine& engine) : engine_(engine) {}

  // Separate from the constructor, as Layer::assign: the model of `json`
  // (config.json), its parameters allocated, its weight matrices held as
  // `storageCode` says (0 float32, 1 bf16, 2 f16); returns its description.
  val configure(const val& json, unsigned storageCode) {
    return with_config(json, [&](const model::Config& config) {
      if (storageCode > 2) throw ArgumentError("weights: expected float32, bf16 or f16");
      const Storage storage = storageCode == 0 ? Storage::F32 : storageCode == 1 ? Storage::BF16 : Storage::F16;
      check_fits(model::Model::bytes_for(config, storage));
      model_.reset();
      model_ = std::make_unique<model::Model>(config, storage);
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
  // the first `length` bytes of the chunk (chunk()), in the dtype of
  // `dtypeCode`: 0 F32, 1 F16, 2 BF16. No argument owns memory here.
  val write(unsigned index, unsigned dtypeCode, double first, double length) {
    return guarded([&] {
      model::Model& m = live();
      if (dtypeCode > 2) throw ArgumentError("dtype: expected F32, F16 or BF16");
      const model::DType type = dtypeCode == 0   ? model::DType::F32
                                : dtypeCode == 1 ? model::DType::F16
                                                 : model::DType::BF16;
      const std::size_t size = model::bytes_of(type);
      if (!(length >= 0 && length <= double(chunk_.size())) || length != double(std::size_t(length)))
        throw ArgumentError("length: expected at most the chunk's bytes");
      const std::size_t bytes = std::size_t(length);
      if (bytes % size != 0) throw ArgumentError("bytes: not a whole number of elements");
      m.write(index, type, static_cast<std::size_t>(first), bytes / size, chunk_.data());
      return val::undefined();
    });
  }

  // The names of the tensors not written in full.
  val missing() {
    return guarded([&] {
      val names = val::array();
      for (const std::string& name : live().missing()) names.call<void>("push", name);
      chunk_.release();
      return names;
    });
  }

  // { lastHiddenState, attention?, hiddenStates?, logits?, query?, key?,
  // queryKeyScale? } for one sequence. logits: 0 none, 1 every row's, 2 the
  // last row's (a generation's next token); headMask: a Uint8Array
  // [numLayers × numHeads] (0: that head off) or null; wantQueryKey: each
  // layer's queries [numLayers, numHeads, L, headDim] and keys [numLayers,
  // numKVHeads, L, headDim] as its attention takes them (model::Outputs),
  // and the factor of their dot products.
  val run(const val& ids, const val& types, bool wantAttention, bool wantHidden, int logits, const val& headMask,
          bool wantQueryKey) {
    return call(Mode::Run, ids, types, wantAttention, wantHidden, logits, headMask, wantQueryKey);
  }
  // A decoder's calls with state (model::Model::prefill, step, reset):
  // results as run's, attention [numLayers, numHeads, L, past + L].
  val prefill(const val& ids, bool wantAttention, bool wantHidden, int logits, const val& headMask) {
    return call(Mode::Prefill, ids, val::null(), wantAttention, wantHidden, logits, headMask, false);
  }
  val step(const val& ids, bool wantAttention, bool wantHidden, int logits, const val& headMask) {
    return call(Mode::Step, ids, val::null(), wantAttention, wantHidden, logits, headMask, false);
  }
  val reset() {
    return guarded([&] {
      live().reset();
      return val::undefined();
    });
  }
  // The positions a decoder has seen (0 for an encoder).
  double past() const { return model_ ? static_cast<double>(model_->past()) : 0.0; }

  // An encoder-decoder's calls (model::Model::encode, begin, decode,
  // reorder). encode: { lastHiddenState, attention?, attentionShape,
  // hiddenStates? } of the encoder; headMask a Uint8Array [numLayers ×
  // numHeads] or null.
  val encode(const val& ids, bool wantAttention, bool wantHidden, const val& headMask) {
    return guarded([&] {
      model::Model& m = live();
      m.check_encoder_decoder();
      const model::Config& c = m.config();
      const std::size_t S = ids["length"].as<std::size_t>(), D = c.hiddenSize, H = c.numHeads;
      m.check_length(S);
      copy_ids(ids, ids_, S, "inputIds");
      const std::uint8_t* mask = copy_mask(headMask, masks_[0], c.numLayers, H, "headMask.encoder");
      const std::size_t nh = S * D, na = wantAttention ? checked_product({c.numLayers, H, S, S}, "attention") : 0;
      const std::size_t ns = wantHidden ? checked_product({c.numLayers + 1, S, D}, "hiddenStates") : 0;
      check_fits(4.0 * (double(nh) + double(na) + double(ns) + m.scratch_floats(S) + m.encode_floats(S)) +
                 engine_.attention().scratch_bytes_for({1, S, S, D, H, D / H, D / H}, wantAttention, false));
      out_.resize(nh + na + ns);
      model::Outputs o{out_.data(), wantAttention ? out_.data() + nh : nullptr,
                       wantHidden ? out_.data() + nh + na : nullptr};
      m.encode(engine_.attention(), ids_.data(), S, o, mask);
      val result = val::object();
      result.set("lastHiddenState", copy_out(o.lastHiddenState, nh));
      if (wantAttention) {
        result.set("attention", copy_out(o.attention, na));
        result.set("attentionShape", shape_of({c.numLayers, H, S, S}));
      }
      if (wantHidden) result.set("hiddenStates", copy_out(o.hiddenStates, ns));
      release_scratch(m);
      return result;
    });
  }

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

  // L new tokens of each of `beams` sequences (ids beam after beam):
  // { lastHiddenState, attention? [decoderLayers, beams, decoderHeads, L,
  // past + L], attentionShape, crossAttention? [decoderLayers, decoderHeads,
  // beams·L, S], crossAttentionShape, hiddenStates?, logits? [beams·L,
  // vocabSize], past }.
  val decode(const val& ids, double beams, bool wantAttention, bool wantHidden, bool wantLogits, const val& headMask,
             const val& crossHeadMask) {
    return guarded([&] {
      model::Model& m = live();
      m.check_encoder_decoder();
      const model::Config& c = m.config();
      const std::size_t B = whole(beams, "beams"), N = ids["length"].as<std::size_t>();
      if (B != m.beams()) (Message() << "beams: the decoder was readied for " << m.beams() << ", got " << B).raise();
      if (N % B != 0 || N == 0)
        (Message() << "decoderInputIds: expected a multiple of " << B << " ids (the same count for each beam), got "
                   << N)
            .raise();
      const std::size_t L = N / B, past = m.past(), S = m.encoded(), D = c.hiddenSize, H = c.decoderHeads;
      const std::size_t Ld = c.decoderLayers, Lk = past + L;
      if (S == 0) throw ArgumentError("model: nothing encoded yet (encode the input first)");
      if (L > m.capacity() - past)
        (Message() << "decoderInputIds: expected 1 to " << m.capacity() - past << " tokens after the " << past
                   << " decoded, got " << L)
            .raise();
      copy_ids(ids, ids_, N, "decoderInputIds");
      const std::uint8_t* selfMask = copy_mask(headMask, masks_[1], Ld, H, "headMask.decoder");
      const std::uint8_t* crossMask = copy_mask(crossHeadMask, masks_[2], Ld, H, "headMask.cross");
      const std::size_t nh = N * D, na = wantAttention ? checked_product({Ld, B, H, L, Lk}, "attention") : 0;
      const std::size_t nc = wantAttention ? checked_product({Ld, H, N, S}, "crossAttention") : 0;
      const std::size_t ns = wantHidden ? checked_product({Ld + 1, N, D}, "hiddenStates") : 0;
      const std::size_t nl = wantLogits ? checked_product({N, c.vocabSize}, "logits") : 0;
      const double attend =
          std::max(engine_.attention().scratch_bytes_for({B, L, Lk, D, H, D / H, D / H}, wantAttention, false),
                   engine_.attention().scratch_bytes_for({1, N, S, D, H, D / H, D / H}, wantAttention, false));
      check_fits(4.0 * (double(nh) + double(na) + double(nc) + double(ns) + double(nl) + m.scratch_floats(N)) + attend);
      out_.resize(nh + na + nc + ns + nl);
      float* at = out_.data();
      const auto take = [&at](std::size_t n) { return n ? std::exchange(at, at + n) : nullptr; };
      model::Outputs o;
      o.lastHiddenState = take(nh);
      o.attention = take(na);
      o.crossAttention = take(nc);
      o.hiddenStates = take(ns);
      o.logits = take(nl);
      m.decode(engine_.attention(), ids_.data(), B, L, o, selfMask, crossMask);
      val result = val::object();
      result.set("lastHiddenState", copy_out(o.lastHiddenState, nh));
      if (wantAttention) {
        result.set("attention", copy_out(o.attention, na));
        result.set("attentionShape", shape_of({Ld, B, H, L, Lk}));
        result.set("crossAttention", copy_out(o.crossAttention, nc));
        result.set("crossAttentionShape", shape_of({Ld, H, N, S}));
      }
      if (wantHidden) result.set("hiddenStates", copy_out(o.hiddenStates, ns));
      if (wantLogits) result.set("logits", copy_out(o.logits, nl));
      result.set("past", static_cast<double>(past));
      release_scratch(m);
      return result;
    });
  }

  // Beam b becomes what beam parents[b] was (an Int32Array, one per beam).
  val reorder(const val& parents) {
    return guarded([&] {
      model::Model& m = live();
      m.check_encoder_decoder();
      const std::size_t B = parents["length"].as<std::size_t>();
      copy_ids(parents, ids_, B, "parents");
      std::vector<std::size_t> from(B);
      for (std::size_t b = 0; b < B; ++b) {
        if (ids_[b] < 0) (Message() << "parents[" << b << "]: expected a beam from 0, got a negative number").raise();
        from[b] = static_cast<std::size_t>(ids_[b]);
      }
      m.reorder(from.data(), B);
      return val::undefined();
    });
  }

  double bytes() const { return model_ ? static_cast<double>(model_->bytes()) : 0.0; }
  // Whether run() can return logits: an architecture's head, read (a BERT's masked-LM head only when the
  // checkpoint held all of it).
  bool hasLogits() const { return model_ && model_->has_logits(); }

 private:
  enum class Mode { Run, Prefill, Step };

  val call(Mode mode, const val& ids, const val& types, bool wantAttention, bool wantHidden, int logits,
           const val& headMask, bool wantQueryKey) {
    return guarded([&] {
      const bool wantLogits = logits != 0;
      model::Model& m = live();
      const model::Config& c = m.config();
      if (mode != Mode::Run) m.check_decoder();
      const std::size_t past = mode == Mode::Step ? m.past() : 0;
      const std::size_t L = ids["length"].as<std::size_t>();
      m.check_length(L, past);
      copy_ids(ids, ids_, L, "inputIds");
      const bool typed = !types.isNull() && !types.isUndefined();
      if (typed) copy_ids(types, types_, L, "tokenTypeIds");
      const std::size_t D = c.hiddenSize, H = c.numHeads, Lk = past + L;
      const std::size_t nh = L * D, na = wantAttention ? checked_product({c.numLayers, H, L, Lk}, "attention") : 0;
      const std::size_t ns = wantHidden ? checked_product({c.numLayers + 1, L, D}, "hiddenStates") : 0;
      const std::size_t rows = logits == 2 ? 1 : L;
      const std::size_t nl = wantLogits && m.has_logits() ? checked_product({rows, c.vocabSize}, "logits") : 0;
      const std::size_t hd = c.head_dim();
      const std::size_t nq = wantQueryKey ? checked_product({c.numLayers, H, L, hd}, "query") : 0;
      const std::size_t nk = wantQueryKey ? checked_product({c.numLayers, c.kv_heads(), L, hd}, "key") : 0;
      const std::uint8_t* mask = copy_mask(headMask, masks_[0], c.numLayers, H, "headMask");
      const double caches = mode == Mode::Run ? 0.0 : m.cache_floats(past + L);
      check_fits(4.0 * (double(nh) + double(na) + double(ns) + double(nl) + double(nq) + double(nk) +
                        m.scratch_floats(L) + caches) +
                 engine_.attention().scratch_bytes_for({1, L, Lk, D, H, hd, hd}, wantAttention, false));
      out_.resize(nh + na + ns + nl + nq + nk);
      model::Outputs o{out_.data(), wantAttention ? out_.data() + nh : nullptr,
                       wantHidden ? out_.data() + nh + na : nullptr};
      // (A model without a head gets a pointer anyway, so that Model refuses it by name.)
      o.logits = wantLogits ? out_.data() + nh + na + ns : nullptr;
      o.logitRows = logits == 2 ? 1 : 0;
      if (wantQueryKey) {
        o.query = out_.data() + nh + na + ns + nl;
        o.key = o.query + nq;
      }
      if (mode == Mode::Run)
        m.forward(engine_.attention(), ids_.data(), typed ? types_.data() : nullptr, L, o, mask);
      else if (mode == Mode::Prefill)
        m.prefill(engine_.attention(), ids_.data(), L, o, mask);
      else
        m.step(engine_.attention(), ids_.data(), L, o, mask);
      val result = val::object();
      result.set("lastHiddenState", copy_out(o.lastHiddenState, nh));
      if (wantAttention) {
        result.set("attention", copy_out(o.attention, na));
        result.set("attentionShape", shape_of({c.numLayers, H, L, Lk}));
      }
      if (wantHidden) result.set("hiddenStates", copy_out(o.hiddenStates, ns));
      if (nl) result.set("logits", copy_out(o.logits, nl));
      if (wantQueryKey) {
        result.set("query", copy_out(o.query, nq));
        result.set("key", copy_out(o.key, nk));
        result.set("queryKeyScale", m.query_key_scale());
      }
      release_scratch(m);
      return result;
    });
  }

  // What a call leaves behind above kKeepBytes, given back.
  void release_scratch(model::Model& m) {
    trim(out_);
    if (m.scratch_bytes() > kKeepBytes) m.release();
    if (engine_.attention().scratch_bytes() > kKeepBytes) engine_.attention().release();
  }

  static val shape_of(std::initializer_list<std::size_t> dims) {
    val shape = val::array();
    for (std::size_t n : dims) shape.call<void>("push", static_cast<double>(n));
    return shape;
  }

  // A count from JS (a positive integer below 2^31).
  static std::size_t whole(double v, const char* name) {
    if (!(v >= 1 && v <= double(kMaxElements)) || v != static_cast<double>(static_cast<std::size_t>(v)))
      (Message() << name << ": expected a positive integer").raise();
    return static_cast<std::size_t>(v);
  }

  // A head mask from JS: a Uint8Array of layers × heads (0: off), or null (every head on).
  static const std::uint8_t* copy_mask(const val& src, std::vector<std::uint8_t>& buffer, std::size_t layers,
                                       std::size_t heads, const char* name) {
    if (src.isNull() || src.isUndefined()) return nullptr;
    const std::size_t count = layers * heads;
    if (src["length"].as<std::size_t>() != count)
      (Message() << name << ": expected " << layers << " × " << heads << " = " << count << " values, got "
                 << src["length"].as<std::size_t>())
          .raise();
    buffer.resize(count);
    val(emscripten::typed_memory_view(count, buffer.data())).call<void>("set", src);
    return buffer.data();
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
  std::vector<std::uint8_t> masks_[3];  // the encoder's, the decoder's, the cross-attention's
  FloatBuffer out_;
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
#if MHA_PROFILE
  emscripten::function("readBlockProfile", &readBlockProfile);
#endif
  emscripten::class_<Model>("Model")
      .constructor<Engine&>()
      .function("configure", &Model::configure)
      .function("chunk", &Model::chunk)
      .function("write", &Model::write)
      .function("missing", &Model::missing)
      .function("run", &Model::run)
      .function("prefill", &Model::prefill)
      .function("step", &Model::step)
      .function("reset", &Model::reset)
      .function("past", &Model::past)
      .function("encode", &Model::encode)
      .function("begin", &Model::begin)
      .function("decode", &Model::decode)
      .function("reorder", &Model::reorder)
      .function("bytes", &Model::bytes)
      .function("hasLogits", &Model::hasLogits);
}
