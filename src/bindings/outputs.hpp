// The arrays a model call returns, laid out once: each named, with its shape,
// counted with checked_product before anything is allocated, placed in one
// buffer, and handed to JS as { name: { data, shape } }. src/bindings/model.cpp
// lists a call's arrays here, and the memory check and the result read the
// same list: no size or shape is computed twice (nor again in JS).
#pragma once

#include <cstddef>
#include <initializer_list>
#include <vector>

#include "convert.hpp"

namespace mha::bindings {

class OutputLayout {
 public:
  // A part's handle; kNone for an array the call does not return.
  using Part = std::size_t;
  static constexpr Part kNone = static_cast<Part>(-1);

  // Array `name` of `shape` (its dimensions, row-major), when `wanted`. `name` is a literal.
  Part add(const char* name, std::initializer_list<std::size_t> shape, bool wanted = true) {
    if (!wanted) return kNone;
    parts_.push_back({name, std::vector<std::size_t>(shape), checked_product(shape, name), nullptr});
    return parts_.size() - 1;
  }

  // Every part's floats, for the memory check (summed in double, where a sum of sizes cannot wrap).
  double floats() const {
    double n = 0;
    for (const Entry& p : parts_) n += double(p.count);
    return n;
  }

  // The parts placed one after another in `buffer` (grown to hold them; what it held is forgotten).
  void place(FloatBuffer& buffer) {
    buffer.resize(checked_scratch(floats()));
    float* at = buffer.data();
    for (Entry& p : parts_) {
      p.data = at;
      at += p.count;
    }
  }

  // Where part `p` was placed (after place()); null for kNone.
  float* operator[](Part p) const { return p == kNone ? nullptr : parts_[p].data; }

  // { name: { data: Float32Array (a copy), shape: [dims] } } of every part.
  val result() const {
    val out = val::object();
    for (const Entry& p : parts_) {
      val shape = val::array();
      for (std::size_t n : p.shape) shape.call<void>("push", static_cast<double>(n));
      val array = val::object();
      array.set("data", copy_out(p.data, p.count));
      array.set("shape", shape);
      out.set(p.name, array);
    }
    return out;
  }

 private:
  struct Entry {
    const char* name;
    std::vector<std::size_t> shape;
    std::size_t count;
    float* data;
  };
  std::vector<Entry> parts_;
};

}  // namespace mha::bindings
