// The one list of architectures. Adding one: its file in this folder and
// one line here (ARCHITECTURE.md, "How to add an architecture").
#include "architecture.hpp"

namespace mha::model {

extern const Architecture kBert;
extern const Architecture kGpt2;
extern const Architecture kMarian;
extern const Architecture kLlama;

const std::vector<const Architecture*>& architectures() {
  static const std::vector<const Architecture*> list = {
      &kBert,
      &kGpt2,
      &kMarian,
      &kLlama,
  };
  return list;
}

const Architecture* find_architecture(const std::string& modelType) {
  for (const Architecture* a : architectures())
    for (const char* type : a->modelTypes)
      if (modelType == type) return a;
  return nullptr;
}

std::vector<const char*> model_types() {
  std::vector<const char*> types;
  for (const Architecture* a : architectures()) types.insert(types.end(), a->modelTypes.begin(), a->modelTypes.end());
  return types;
}

// Only an encoder-decoder has these (Model asks the kind before it calls them).
void Network::encode(Attention&, const Sequence&, const Outputs&, float*, LayerCaches&) const {
  throw ArgumentError("model: not an encoder-decoder");
}
void Network::decode(Attention&, const Sequence&, std::size_t, const Outputs&, float*, LayerCaches&,
                     const LayerCaches&) const {
  throw ArgumentError("model: not an encoder-decoder");
}
void Network::forward_pairs(Attention&, const Sequence&, const Sequence&, const Outputs&, const Outputs&,
                            float*) const {
  throw ArgumentError("model: not an encoder-decoder");
}

const char* kind_name(Kind kind) noexcept {
  switch (kind) {
    case Kind::Encoder: return "encoder";
    case Kind::Decoder: return "decoder";
    case Kind::EncoderDecoder: return "encoder-decoder";
  }
  return "";
}

std::vector<const char*> attention_groups(Kind kind) {
  switch (kind) {
    case Kind::Encoder: return {"encoder"};
    case Kind::Decoder: return {"decoder"};
    case Kind::EncoderDecoder: return {"encoder", "decoder", "cross"};
  }
  return {};
}

}  // namespace mha::model
