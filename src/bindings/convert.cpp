#include "convert.hpp"

#include <emscripten/em_js.h>
#include <emscripten/emscripten.h>

// (At file scope: EM_JS declares an extern "C" import.)
EM_JS(void, js_throw_range_error, (const char* message), { throw new RangeError(UTF8ToString(message)); });

namespace mha::bindings {

std::size_t dim(const val& args, const char* name) {
  const val v = args[name];
  if (!v.isNumber()) throw ArgumentError(std::string(name) + ": expected a number");
  const double x = v.as<double>();
  if (!(x >= 1 && x <= double(kMaxElements)) || x != static_cast<double>(static_cast<std::size_t>(x)))
    throw ArgumentError(std::string(name) + ": expected an integer from 1 to " + decimal(kMaxElements));
  return static_cast<std::size_t>(x);
}

void throw_range_error(const char* message) {
  js_throw_range_error(message);
  __builtin_unreachable();
}

}  // namespace mha::bindings
