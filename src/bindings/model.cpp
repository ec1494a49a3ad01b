// Embind registration of the Transformer models (src/model), only in the
// model builds (mha-model-*): Model, which src/js/model.mjs fills tensor by
// tensor from a checkpoint (loadModel) and runs (TransformerModel).
#include "../model/model.hpp"

#include <memory>

#include "engine.hpp"

namespace mha::bindings {
namespace {

// Like a Layer, a Model runs on the engine it was made with and must not
// outlive it (src/js disposes an engine's models first).
class Model {
 public:
  explicit Model(Engine& engine) : engine_(engine) {}

  // Separate from the constructor, as Layer::assign. Returns { tensors,
  // maxLength }: the tensors the checkpoint must hold, [{ name, shape }] in
  // the model's order, and the longest input in tokens (Model::max_length).
  val configure(const val& args) {
    return guarded([&] {
      model::Config c;
      const std::string family = args["family"].as<std::string>();
      if (family != "bert" && family != "gpt2") throw ArgumentError("family: expected \"bert\" or \"gpt2\"");
      c.family = family == "bert" ? model::Family::Bert : model::Family::Gpt2;
      c.numLayers = dim(args, "numLayers");
      c.numHeads = dim(args, "numHeads");
      c.hiddenSize = dim(args, "hiddenSize");
      c.intermediateSize = dim(args, "intermediateSize");
      c.vocabSize = dim(args, "vocabSize");
      c.maxPositions = dim(args, "maxPositions");
      c.typeVocabSize = c.family == model::Family::Bert ? dim(args, "typeVocabSize") : 0;
      c.positionOffset = args["positionOffset"].as<unsigned>();
      c.layerNormEps = args["layerNormEps"].as<float>();
      c.activation =
          args["activation"].as<std::string>() == "gelu_new" ? model::Activation::GeluTanh : model::Activation::GeluErf;
      check_fits(model::Model::bytes_for(c));
      model_.reset();
      model_ = std::make_unique<model::Model>(c);
      val tensors = val::array();
      for (const model::Tensor& t : model_->tensors()) {
        val entry = val::object();
        entry.set("name", t.name);
        val shape = val::array();
        for (std::size_t n : t.shape) shape.call<void>("push", static_cast<double>(n));
        entry.set("shape", shape);
        tensors.call<void>("push", entry);
      }
      val result = val::object();
      result.set("tensors", tensors);
      result.set("maxLength", static_cast<double>(model_->max_length()));
      return result;
    });
  }

  // Elements [first, first + bytes.length / element size) of tensor `index`
  // from `bytes` (a Uint8Array in `dtype`: "F32", "F16" or "BF16").
  val write(unsigned index, const std::string& dtype, double first, const val& bytes) {
    return guarded([&] {
      model::Model& m = live();
      const model::DType type = dtype == "F32"    ? model::DType::F32
                                : dtype == "F16"  ? model::DType::F16
                                : dtype == "BF16" ? model::DType::BF16
                                                  : throw ArgumentError("dtype: expected F32, F16 or BF16");
      const std::size_t size = model::bytes_of(type);
      const std::size_t length = bytes["length"].as<std::size_t>();
      if (length % size != 0) throw ArgumentError("bytes: not a whole number of elements");
      chunk_.resize(length);
      val(emscripten::typed_memory_view(length, chunk_.data())).call<void>("set", bytes);
      m.write(index, type, static_cast<std::size_t>(first), length / size, chunk_.data());
      return val::undefined();
    });
  }

  // The names of the tensors not written in full.
  val missing() {
    return guarded([&] {
      val names = val::array();
      for (const std::string& name : live().missing()) names.call<void>("push", name);
      std::vector<unsigned char>().swap(chunk_);
      return names;
    });
  }

  // { lastHiddenState, attention?, hiddenStates? } for one sequence.
  val run(const val& ids, const val& types, bool wantAttention, bool wantHidden) {
    return guarded([&] {
      model::Model& m = live();
      const model::Config& c = m.config();
      const std::size_t L = ids["length"].as<std::size_t>();
      m.check_length(L);
      copy_ids(ids, ids_, L, "inputIds");
      const bool typed = !types.isNull() && !types.isUndefined();
      if (typed) copy_ids(types, types_, L, "tokenTypeIds");
      const std::size_t D = c.hiddenSize;
      const std::size_t nh = L * D,
                        na = wantAttention ? checked_product({c.numLayers, c.numHeads, L, L}, "attention") : 0;
      const std::size_t ns = wantHidden ? checked_product({c.numLayers + 1, L, D}, "hiddenStates") : 0;
      check_fits(4.0 * (double(nh) + double(na) + double(ns) + double(L) * double(6 * D + c.intermediateSize)) +
                 engine_.attention().scratch_bytes_for({1, L, L, D, c.numHeads, D / c.numHeads, D / c.numHeads},
                                                       wantAttention, false));
      out_.resize(nh + na + ns);
      model::Outputs o{out_.data(), wantAttention ? out_.data() + nh : nullptr,
                       wantHidden ? out_.data() + nh + na : nullptr};
      m.forward(engine_.attention(), ids_.data(), typed ? types_.data() : nullptr, L, o);
      val result = val::object();
      result.set("lastHiddenState", copy_out(o.lastHiddenState, nh));
      if (wantAttention) result.set("attention", copy_out(o.attention, na));
      if (wantHidden) result.set("hiddenStates", copy_out(o.hiddenStates, ns));
      trim(out_);
      if (m.scratch_bytes() > kKeepBytes) m.release();
      if (engine_.attention().scratch_bytes() > kKeepBytes) engine_.attention().release();
      return result;
    });
  }

  double bytes() const { return model_ ? static_cast<double>(model_->bytes()) : 0.0; }

 private:
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
  std::vector<unsigned char> chunk_;
  std::vector<std::int32_t> ids_, types_;
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

}  // namespace
}  // namespace mha::bindings

EMSCRIPTEN_BINDINGS(mha_model) {
  using namespace mha::bindings;
  emscripten::function("modelLimits", &modelLimits);
  emscripten::class_<Model>("Model")
      .constructor<Engine&>()
      .function("configure", &Model::configure)
      .function("write", &Model::write)
      .function("missing", &Model::missing)
      .function("run", &Model::run)
      .function("bytes", &Model::bytes);
}
