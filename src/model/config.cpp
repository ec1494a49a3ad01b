#include "config.hpp"

#include <cmath>

#include "arch/architecture.hpp"

namespace mha::model {
namespace {

using Type = ConfigSource::Type;

bool present(const ConfigSource& s, const char* field) {
  const Type t = s.type(field);
  return t != Type::Absent && t != Type::Null;
}

// Number.isInteger(v) && v >= least.
bool whole(double v, double least) { return std::isfinite(v) && std::floor(v) == v && v >= least; }

// `"a", "b", "c"`.
std::string quoted(const std::vector<const char*>& names) {
  std::string list;
  for (const char* n : names) list += (list.empty() ? "\"" : ", \"") + std::string(n) + "\"";
  return list;
}

// A whole number below 2^53 as JavaScript's String() writes it (digits; not
// std::to_string, which would pull printf's formatting into the .wasm).
std::string integer_text(double v) {
  if (!(v < 9007199254740992.0)) return "9007199254740992 or more";
  std::string digits;
  unsigned long long n = static_cast<unsigned long long>(v);
  do digits.insert(digits.begin(), char('0' + n % 10));
  while ((n /= 10) != 0);
  return digits;
}

// An absent section: every field absent.
struct EmptySource final : ConfigSource {
  Type type(const char*) const override { return Type::Absent; }
  double number(const char*) const override { return 0; }
  bool boolean(const char*) const override { return false; }
  std::string string(const char*) const override { return {}; }
  std::string json(const char*) const override { return "undefined"; }
  std::unique_ptr<ConfigSource> object(const char*) const override { return std::make_unique<EmptySource>(); }
};

}  // namespace

void ConfigReader::fail(const std::string& message) const { throw ConfigError("config.json: " + message); }

std::size_t ConfigReader::size(const char* field, std::size_t limit, std::size_t fallback, const char* fallbackField) {
  const char* from = present(*source_, field)                              ? field
                     : (fallbackField && present(*source_, fallbackField)) ? fallbackField
                                                                           : nullptr;
  double value = double(fallback);
  std::string shown = integer_text(value);
  if (from) {
    value = source_->type(from) == Type::Number ? source_->number(from) : std::nan("");
    shown = source_->json(from);
  }
  if (!whole(value, 1)) fail(name(field) + " must be a positive integer, got " + source_->json(field));
  limits_.push_back({field, value, limit, shown});
  return value > double(limit) ? limit + 1 : static_cast<std::size_t>(value);
}

std::size_t ConfigReader::id(const char* field, std::size_t fallback) {
  if (!present(*source_, field)) return fallback;
  const double value = source_->type(field) == Type::Number ? source_->number(field) : std::nan("");
  if (!whole(value, 0) || value > 9007199254740991.0)
    fail(name(field) + " must be a non-negative integer, got " + source_->json(field));
  return static_cast<std::size_t>(value);
}

std::size_t ConfigReader::choice(const char* field, const char* fallback, const std::vector<const char*>& supported) {
  const bool given = present(*source_, field);
  const std::string value = !given ? fallback : source_->type(field) == Type::String ? source_->string(field) : "";
  if (!given || source_->type(field) == Type::String)
    for (std::size_t i = 0; i < supported.size(); ++i)
      if (value == supported[i]) return i;
  fail(name(field) + " " + (given ? source_->json(field) : "\"" + value + "\"") + " is not supported; mha-wasm runs " +
       quoted(supported));
}

float ConfigReader::epsilon(const char* field, double fallback, const char* what) {
  const bool given = present(*source_, field);
  const double value = !given ? fallback : source_->type(field) == Type::Number ? source_->number(field) : std::nan("");
  // The blocks hold it as a float32, where 1e-46 is 0 and 1e39 is Infinity
  // (Math.fround's rounding; a double past float's range is not converted).
  const double halfway = 3.4028235677973366e38, largest = 3.4028234663852886e38;
  const float single = !(std::fabs(value) < halfway) ? (value > 0 ? HUGE_VALF : -HUGE_VALF)
                       : std::fabs(value) > largest  ? float(value > 0 ? largest : -largest)
                                                     : float(value);
  if (!(single > 0.0f) || !std::isfinite(single))
    fail(std::string("the ") + what + " must be a number > 0 and finite as a float32, got " + source_->json(field));
  return single;
}

void ConfigReader::refuse_boolean(const char* field, bool refused) {
  if (source_->type(field) == Type::Boolean && source_->boolean(field) == refused)
    fail(name(field) + " " + (refused ? "true" : "false") + " is not supported; mha-wasm runs \"" +
         (refused ? "false" : "true") + "\"");
}

ConfigReader ConfigReader::section(const char* field) const {
  ConfigReader child(*source_);
  const Type t = source_->type(field);
  if (t == Type::Object) {
    child.owned_ = source_->object(field);
    child.source_ = child.owned_.get();
  } else if (t != Type::Absent && t != Type::Null) {
    fail(name(field) + " must be an object, got " + source_->json(field));
  } else {
    child.owned_ = std::make_shared<EmptySource>();
    child.source_ = child.owned_.get();
  }
  child.prefix_ = name(field) + ".";
  return child;
}

bool ConfigReader::has(const char* field) const { return present(*source_, field); }

bool ConfigReader::lists(const char* field, const char* value) const {
  // JSON.stringify's text of the list: a string of it is the value, quoted, after "[" or ",".
  const std::string text = source_->json(field), quoted = "\"" + std::string(value) + "\"";
  if (text.empty() || text[0] != '[') return false;
  for (std::size_t at = text.find(quoted); at != std::string::npos; at = text.find(quoted, at + 1)) {
    const char before = at ? text[at - 1] : '[',
               after = at + quoted.size() < text.size() ? text[at + quoted.size()] : ']';
    if ((before == '[' || before == ',') && (after == ']' || after == ',')) return true;
  }
  return false;
}

double ConfigReader::positive(const char* field, double fallback) {
  if (!present(*source_, field)) return fallback;
  const double value = source_->type(field) == Type::Number ? source_->number(field) : std::nan("");
  if (!(value > 0) || !std::isfinite(value))
    fail(name(field) + " must be a finite number > 0, got " + source_->json(field));
  return value;
}

bool ConfigReader::flag(const char* field, bool fallback) {
  if (!present(*source_, field)) return fallback;
  if (source_->type(field) != Type::Boolean) fail(name(field) + " must be true or false, got " + source_->json(field));
  return source_->boolean(field);
}

void ConfigReader::finish() {
  for (const Limit& l : limits_)
    if (l.value > double(l.limit))
      fail(std::string(l.field) + " must be at most " + integer_text(double(l.limit)) + ", got " + l.shown);
  limits_.clear();  // checked: a second finish() (read_config's, after bert's own) has none left
}

Config read_config(const ConfigSource& source) {
  ConfigReader reader(source);
  const bool typed = source.type("model_type") == Type::String;
  const std::string modelType = typed ? source.string("model_type") : "";
  const Architecture* architecture = typed ? find_architecture(modelType) : nullptr;
  if (!architecture)
    throw ConfigError("config.json: model_type " + source.json("model_type") + " is not supported; mha-wasm runs " +
                          quoted(model_types()),
                      "UnsupportedModel", "model_type", source.json("model_type"));
  Config c;
  c.architecture = architecture;
  c.modelType = modelType;
  architecture->read_config(reader, c);
  reader.finish();  // (an architecture with rules between sizes calls it first itself)
  // The rules every architecture's sizes obey, in the words of config.json
  // (Model's constructor checks them again, in its own, for callers in C++).
  if (c.headDim == 0 && c.hiddenSize % c.numHeads != 0)
    reader.fail("the hidden size (" + integer_text(double(c.hiddenSize)) +
                ") must be a multiple of the number of heads (" + integer_text(double(c.numHeads)) + ")");
  return c;
}

}  // namespace mha::model
