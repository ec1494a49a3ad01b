// A model's configuration, read from its config.json once, here in C++: the
// architecture files (arch/) say which fields they read, with their defaults;
// ConfigReader holds the rules every field obeys and words each refusal in
// config.json's own terms ("config.json: n_layer must be a positive
// integer, got 2.5"), so the loader in JS checks nothing of it itself. The
// bindings read a JS object, the native tests a parsed JSON file, both
// through ConfigSource. No Emscripten, no JS.
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mha::model {

struct Architecture;

// Hugging Face's "gelu", "gelu_new", "swish"/"silu" and "relu".
enum class Activation { GeluErf, GeluTanh, Silu, Relu };

// The rope types transformers names in rope_parameters (config.json's
// "rope_type"), of those the blocks implement (blocks/rotary.hpp).
enum class RopeType { Default, Linear, Llama3 };

struct RopeSettings {
  RopeType type = RopeType::Default;
  double theta = 10000.0;
  double factor = 1.0;                               // linear, llama3
  double lowFreqFactor = 1.0, highFreqFactor = 4.0;  // llama3
  double originalMaxPositions = 8192.0;              // llama3
};

// The task heads of transformers' *For… classes an architecture reads (config.json's architectures name
// them): a label per sequence (the [CLS] row through the pooler), a label per token, or question
// answering's start and end per token.
enum class TaskHead { None, SequenceClassification, TokenClassification, QuestionAnswering };
// "sequence-classification", "token-classification", "question-answering" ("" for None): its name in JS.
inline const char* task_head_name(TaskHead head) noexcept {
  switch (head) {
    case TaskHead::SequenceClassification: return "sequence-classification";
    case TaskHead::TokenClassification: return "token-classification";
    case TaskHead::QuestionAnswering: return "question-answering";
    default: return "";
  }
}

// The largest value of each size of a Config. Exported as modelLimits().
struct ModelLimits {
  static constexpr std::size_t numLayers = std::size_t{1} << 10;
  static constexpr std::size_t numHeads = std::size_t{1} << 10;
  static constexpr std::size_t hiddenSize = std::size_t{1} << 16;
  static constexpr std::size_t intermediateSize = std::size_t{1} << 18;
  static constexpr std::size_t vocabSize = std::size_t{1} << 24;
  static constexpr std::size_t maxPositions = std::size_t{1} << 16;
  static constexpr std::size_t typeVocabSize = std::size_t{1} << 10;
};

struct Config {
  const Architecture* architecture = nullptr;  // from the registry (arch/registry.cpp)
  std::string modelType;                       // config.json's model_type
  std::size_t numLayers = 0, numHeads = 0, hiddenSize = 0, intermediateSize = 0;
  std::size_t vocabSize = 0, maxPositions = 0;
  std::size_t typeVocabSize = 1;   // token types the embeddings have (1: none to choose)
  std::size_t positionOffset = 0;  // the first position id: RoBERTa's pad_token_id + 1, else 0
  // RoBERTa's pad token, whose position is its id (kNoPad: none such).
  static constexpr std::size_t kNoPad = std::size_t(-1);
  std::size_t padTokenId = kNoPad;
  float layerNormEps = 1e-12f;
  Activation activation = Activation::GeluErf;
  // An encoder-decoder's (Kind::EncoderDecoder; 0 for the others): the
  // numLayers, numHeads and intermediateSize above are its encoder's.
  std::size_t decoderLayers = 0, decoderHeads = 0, decoderIntermediateSize = 0;
  // The token embeddings' factor (Marian's scale_embedding: √hiddenSize).
  float embedScale = 1.0f;
  // Grouped-query attention's key/value heads and every head's width (0: numHeads, and hiddenSize / numHeads).
  std::size_t numKVHeads = 0, headDim = 0;
  std::size_t kv_heads() const noexcept { return numKVHeads ? numKVHeads : numHeads; }
  std::size_t head_dim() const noexcept { return headDim ? headDim : hiddenSize / numHeads; }
  RopeSettings rope;  // the Llama family's rotary positions
  // Biases of the attention's and the MLP's products where an architecture makes them optional, and whether
  // the output head is the token embeddings (tie_word_embeddings).
  bool qkvBias = false, mlpBias = false, tiedHead = true;
  // A masked-LM head (BertForMaskedLM's cls.predictions), when config.json's architectures name it.
  bool maskedLM = false;
  // A task head (BertForSequenceClassification …, when config.json's architectures name one) and its
  // outputs: id2label's count (question answering: 2, its start and end).
  TaskHead taskHead = TaskHead::None;
  std::size_t numLabels = 0;
};

// A config.json file that breaks a rule: its message names the file and the
// field. The bindings turn it into a JS Error (a bad file), not a RangeError
// (a bad argument), with its code (src/js/errors.mjs): 'BadConfig', or
// 'UnsupportedModel' with the field and its value as JSON for a model_type
// the engine does not run.
struct ConfigError : std::runtime_error {
  explicit ConfigError(const std::string& message, const char* code_ = "BadConfig", std::string field_ = {},
                       std::string value_ = {})
      : std::runtime_error(message), code(code_), field(std::move(field_)), value(std::move(value_)) {}
  const char* code;
  std::string field, value;
};

// What a config.json holds, field by field.
class ConfigSource {
 public:
  enum class Type { Absent, Null, Boolean, Number, String, Object, Other };
  virtual ~ConfigSource() = default;
  virtual Type type(const char* field) const = 0;
  virtual double number(const char* field) const = 0;       // when type() is Number
  virtual bool boolean(const char* field) const = 0;        // when Boolean
  virtual std::string string(const char* field) const = 0;  // when String
  // The field as JSON.stringify writes it ("undefined" when absent), for messages.
  virtual std::string json(const char* field) const = 0;
  // The object a field holds (when type() is Object), as a source of its own.
  virtual std::unique_ptr<ConfigSource> object(const char* field) const = 0;
};

// The rules of config.json's fields, one place for all architectures.
class ConfigReader {
 public:
  explicit ConfigReader(const ConfigSource& source) : source_(&source) {}

  // The object in `field` as a reader of its own (an absent or null field: an
  // empty object; anything else is refused); its refusals name "field.key".
  ConfigReader section(const char* field) const;
  // Whether the field is there (not absent, not null).
  bool has(const char* field) const;

  // A positive integer from `field`, or when it is absent or null from
  // `fallbackField` (if given) or else `fallback` (0: required). Its limit is
  // checked by finish(), after every size is read, as one list.
  std::size_t size(const char* field, std::size_t limit, std::size_t fallback = 0, const char* fallbackField = nullptr);
  // A non-negative integer (an id), `fallback` when absent or null.
  std::size_t id(const char* field, std::size_t fallback);
  // A string among `supported` (as config.json spells them), `fallback` when
  // absent or null; else refused with the list. Returns its index.
  std::size_t choice(const char* field, const char* fallback, const std::vector<const char*>& supported);
  // A number, `fallback` when absent or null; positive and finite as a float32.
  float epsilon(const char* field, double fallback, const char* what);
  // A finite number > 0 (rope_theta, a scaling factor), `fallback` when absent or null.
  double positive(const char* field, double fallback);
  // Refuses `field` when it holds the boolean `refused` (a setting the
  // blocks do not implement); absent, null or the other value is fine.
  void refuse_boolean(const char* field, bool refused);
  // A boolean, `fallback` when absent or null; anything else is refused.
  bool flag(const char* field, bool fallback);
  // Whether the list of strings in `field` (such as "architectures") holds `value`.
  bool lists(const char* field, const char* value) const;
  // The limits of every size() read since the last finish(), in the order they were read.
  void finish();

  [[noreturn]] void fail(const std::string& message) const;
  const ConfigSource& source() const noexcept { return *source_; }

 private:
  struct Limit {
    const char* field;
    double value;
    std::size_t limit;
    std::string shown;  // the value as config.json wrote it
  };
  // A field's name in messages: "rope_parameters.rope_theta" in a section.
  std::string name(const char* field) const { return prefix_ + field; }
  const ConfigSource* source_;
  std::shared_ptr<const ConfigSource> owned_;  // a section's object
  std::string prefix_;
  std::vector<Limit> limits_;
};

// config.json → Config: its model_type found in the registry, then the
// architecture's fields and the rules between them. ConfigError otherwise.
Config read_config(const ConfigSource& source);

}  // namespace mha::model
