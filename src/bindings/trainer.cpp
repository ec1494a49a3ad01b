// Embind registration of the tagger trainer (src/train), only in the
// training builds (mha-train-*): Trainer, and its limits (trainerLimits()).
#include "../train/trainer.hpp"

#include <memory>

#include "engine.hpp"

namespace mha::bindings {
namespace {

// The tagger of src/train/trainer.hpp on the engine's threads. Like a Layer it
// must not outlive its engine (src/js disposes an engine's trainers first).
class Trainer {
 public:
  explicit Trainer(Engine& engine) : engine_(engine) {}

  // Separate from the constructor, as Layer::assign.
  val configure(const val& args) {
    return guarded([&] {
      mha::TrainerConfig c;
      c.vocabSize = dim(args, "vocabSize");
      c.numTags = dim(args, "numTags");
      c.maxLength = dim(args, "maxLength");
      c.dModel = dim(args, "dModel");
      c.numHeads = dim(args, "numHeads");
      c.mlpHidden = args["mlpHidden"].as<unsigned>();
      c.learningRate = args["learningRate"].as<float>();
      c.beta1 = args["beta1"].as<float>();
      c.beta2 = args["beta2"].as<float>();
      c.epsilon = args["epsilon"].as<float>();
      c.seed = args["seed"].as<unsigned>();
      check_fits(mha::Trainer::bytes_to_create(c, engine_.attention().threads()), "createTrainer: this call",
                 "use a smaller vocabSize, dModel, mlpHidden or numTags");
      trainer_.reset();
      trainer_ = std::make_unique<mha::Trainer>(c, engine_.attention());
      return val::undefined();
    });
  }

  val setData(const val& args) {
    return guarded([&] {
      mha::Trainer& t = live();
      const std::size_t count = dim(args, "count");
      check_fits(input_bytes(count) + t.bytes_for(mha::Trainer::Call::setData, count), "setData: this call",
                 "use fewer sentences or a smaller maxLength");
      Buffers b;
      t.set_data(sentences(args, b, true));
      return val::undefined();
    });
  }

  // `steps` Adam steps; a Float32Array of each batch's loss.
  val train(unsigned steps, unsigned batchSize) {
    return guarded([&] {
      mha::Trainer& t = live();
      t.check_train(steps, batchSize);
      check_fits(4.0 * steps + t.bytes_for(mha::Trainer::Call::train, batchSize), "train: this call",
                 "use a smaller batchSize");
      std::vector<float> losses(steps);
      for (auto& loss : losses) loss = t.step(batchSize);
      return copy_out(losses.data(), losses.size());
    });
  }

  val evaluate(const val& args, bool wantAttention) {
    return guarded([&] {
      mha::Trainer& t = live();
      const mha::TrainerConfig& c = t.config();
      const std::size_t count = dim(args, "count");
      // Every size before anything is allocated: in 64 bits, then against the memory.
      const std::size_t slots = checked_product({count, c.maxLength}, "predictions: sentences×maxLength");
      const std::size_t probabilityCount =
          checked_product({count, c.maxLength, c.numTags}, "probabilities: sentences×maxLength×numTags");
      const std::size_t attentionCount = wantAttention
                                             ? checked_product({count, c.numHeads, c.maxLength, c.maxLength},
                                                               "attention: sentences×numHeads×maxLength×maxLength")
                                             : 0;
      check_fits(input_bytes(count) + 4.0 * (double(slots) + double(probabilityCount) + double(attentionCount)) +
                     t.bytes_for(mha::Trainer::Call::evaluate, count, wantAttention),
                 "evaluate: this call", "evaluate fewer sentences at a time");
      Buffers b;
      const Sentences s = sentences(args, b, false);
      std::vector<float> probabilities(probabilityCount), attention(attentionCount);
      std::vector<std::int32_t> predictions(slots);
      const float loss =
          t.evaluate(s, {probabilities.data(), predictions.data(), wantAttention ? attention.data() : nullptr});
      val result = val::object();
      result.set("loss", loss);
      result.set("probabilities", copy_out(probabilities.data(), probabilities.size()));
      result.set("predictions", copy_out(predictions.data(), predictions.size(), "Int32Array"));
      if (wantAttention) result.set("attention", copy_out(attention.data(), attention.size()));
      return result;
    });
  }

  // Every parameter by name, copied out: { embedding, wQ, bQ, …, wC, bC }.
  val parameters() {
    return guarded([&] {
      mha::Trainer& t = live();
      val result = val::object();
      for (const Tensor& tensor : t.tensors())
        result.set(tensor.name, copy_out(t.parameters().data() + tensor.offset, tensor.rows * tensor.cols));
      return result;
    });
  }

  // { name: Float32Array } for some of the parameters (src/js checks the names and lengths).
  val setParameters(const val& values) {
    return guarded([&] {
      mha::Trainer& t = live();
      std::vector<float> buffer;
      for (const Tensor& tensor : t.tensors()) {
        const val v = values[tensor.name];
        if (v.isUndefined()) continue;
        copy_in(v, tensor.name, tensor.rows * tensor.cols, buffer, false);
        t.set_parameter(tensor.name, buffer.data(), buffer.size());
      }
      return val::undefined();
    });
  }

  // { name: [rows, cols] } in the model's order: the layout src/js checks
  // setParameters' arrays against (parameter_layout() defines it).
  val parameterShapes() {
    return guarded([&] {
      val shapes = val::object();
      for (const mha::Tensor& t : live().tensors()) {
        val shape = val::array();
        shape.call<void>("push", static_cast<double>(t.rows));
        shape.call<void>("push", static_cast<double>(t.cols));
        shapes.set(t.name, shape);
      }
      return shapes;
    });
  }

  double steps() { return trainer_ ? double(trainer_->steps()) : 0.0; }

 private:
  struct Buffers {
    std::vector<std::int32_t> tokens, lengths, tags;
  };

  mha::Trainer& live() {
    if (!trainer_) throw ArgumentError("trainer: not configured");
    return *trainer_;
  }

  Sentences sentences(const val& args, Buffers& b, bool needTags) {
    const std::size_t count = dim(args, "count"), L = live().config().maxLength;
    const std::size_t slots = checked_product({count, L}, "tokens: sentences×maxLength");
    Sentences s;
    s.count = count;
    s.tokens = copy_in(args["tokens"], "tokens", slots, b.tokens, false);
    s.lengths = copy_in(args["lengths"], "lengths", count, b.lengths, false);
    s.tags = copy_in(args["tags"], "tags", slots, b.tags, !needTags);
    return s;
  }

  // Bytes of sentences()'s copies of `count` sentences (tags included).
  double input_bytes(std::size_t count) const {
    return 4 * double(count) * (2 * double(trainer_->config().maxLength) + 1);
  }

  // check_memory (convert.hpp) with what the trainer holds and will reuse.
  void check_fits(double bytes, const char* who, const char* advice) const {
    check_memory(
        bytes, [this] { return trainer_ ? trainer_->held_bytes() : 0; }, who, advice);
  }

  Engine& engine_;
  std::unique_ptr<mha::Trainer> trainer_;
};

// The limits src/js checks first (TrainerLimits is where they are defined).
val trainerLimits() {
  using L = mha::TrainerLimits;
  val table = val::object();
  table.set("vocabSize", static_cast<double>(L::vocabSize));
  table.set("numTags", static_cast<double>(L::numTags));
  table.set("maxLength", static_cast<double>(L::maxLength));
  table.set("dModel", static_cast<double>(L::dModel));
  table.set("mlpHidden", static_cast<double>(L::mlpHidden));
  table.set("batchSize", static_cast<double>(L::batchSize));
  table.set("steps", static_cast<double>(L::steps));
  table.set("slotsPerTrain", static_cast<double>(L::slotsPerTrain));
  return table;
}

}  // namespace
}  // namespace mha::bindings

EMSCRIPTEN_BINDINGS(mha_trainer) {
  using namespace mha::bindings;
  emscripten::function("trainerLimits", &trainerLimits);
  emscripten::class_<Trainer>("Trainer")
      .constructor<Engine&>()
      .function("configure", &Trainer::configure)
      .function("setData", &Trainer::setData)
      .function("train", &Trainer::train)
      .function("evaluate", &Trainer::evaluate)
      .function("parameters", &Trainer::parameters)
      .function("parameterShapes", &Trainer::parameterShapes)
      .function("setParameters", &Trainer::setParameters)
      .function("steps", &Trainer::steps);
}
