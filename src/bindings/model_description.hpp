// What JS learns of a model before and after it is made (src/bindings/model.cpp
// registers it): config.json read field by field from the JS object, checked
// by the model's reader (a bad field is an Error naming config.json and the
// field), and the model's description — the tensors a checkpoint must hold,
// the config's fields, the architecture's — that src/js/models/load.mjs loads
// by. Included by model.cpp alone.
#pragma once

#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "../model/model.hpp"
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

// The element types by name, in the order of DType: a type crosses from JS as
// its place in this list (EngineHost reads it once), and goes back by name.
constexpr DType kDTypes[] = {DType::F32,  DType::F16,  DType::BF16, DType::Q8_0, DType::Q4_0,
                             DType::Q5_0, DType::Q4_K, DType::Q5_K, DType::Q6_K};
// The types a model's matrices can all be held in (its `storage`); block types are held matrix by matrix.
constexpr DType kFloatTypes[] = {DType::F32, DType::F16, DType::BF16};
val dtypeNames() {
  val names = val::array();
  for (DType t : kDTypes) names.call<void>("push", std::string(dtype_name(t)));
  return names;
}
DType dtype_of(unsigned code, const char* what) {
  if (code >= std::size(kDTypes)) (Message() << what << ": expected the code of an element type, got " << code).raise();
  return kDTypes[code];
}

// What JS needs to load and run a model, from its layout: { tensors
// ([{ name, shape, slot, matrix, outputHead }] in the model's order: tensors of one
// slot are gathered into one packed matrix; `matrix`, held in `storage`; `outputHead`, the logits' matrix),
// storage (the DType the matrices are held in: "F32", "F16", "BF16"; a matrix held in a block type
// has its own `storage`, e.g. "Q4_K"), storageBytes ({ F32, F16, BF16 }: the parameters' bytes held in
// each; modelBytes() counts them with matrices held in blocks), bytes (the parameters' bytes as this model holds
// them), prefixes (of a checkpoint's names that tensors leave out), maxLength, config (model.config's fields),
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
    if (t.matrix && model.storage_of(&t - model.tensors().data()) != model.matrices())
      entry.set("storage", std::string(dtype_name(model.storage_of(&t - model.tensors().data()))));
    if (t.optional) entry.set("optional", true);
    if (t.outputHead) entry.set("outputHead", true);
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
  // The task head config.json names (null: none) and its outputs, which the checkpoint may still lack.
  if (c.taskHead != model::TaskHead::None) {
    config.set("taskHead", std::string(model::task_head_name(c.taskHead)));
    config.set("numLabels", static_cast<double>(c.numLabels));
  }
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
  result.set("storage", std::string(dtype_name(model.matrices())));
  val bytes = val::object();  // by element type: F16 takes BF16's bytes
  for (DType t : kFloatTypes) bytes.set(dtype_name(t), model::Model::bytes_for(c, t));
  result.set("storageBytes", bytes);
  result.set("bytes", static_cast<double>(model.bytes()));  // the matrices held in blocks included
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

// [[tensor index, type code], …] (Model::Holds), null or undefined for none.
model::Model::Holds holds_of(const val& holds) {
  model::Model::Holds held;
  if (holds.isNull() || holds.isUndefined()) return held;
  const unsigned n = holds["length"].as<unsigned>();
  for (unsigned i = 0; i < n; ++i)
    held.emplace_back(holds[i][0].as<unsigned>(), dtype_of(holds[i][1].as<unsigned>(), "holds"));
  return held;
}

// The bytes the parameters of the model of `json` take with its matrices in the DType of code `storage` and
// `holds` held in blocks (Model::bytes_for: as configure() would allocate them; nothing is allocated).
val modelBytes(const val& json, unsigned storage, const val& holds) {
  return with_config(json, [&](const model::Config& config) {
    return val(model::Model::bytes_for(config, dtype_of(storage, "storage"), holds_of(holds)));
  });
}

}  // namespace
}  // namespace mha::bindings
