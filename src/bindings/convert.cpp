#include "convert.hpp"

#include <malloc.h>

namespace mha::bindings {

std::size_t dim(const val& args, const char* name) {
  const val v = args[name];
  if (!v.isNumber()) throw ArgumentError(std::string(name) + ": expected a number");
  const double x = v.as<double>();
  if (!(x >= 1 && x <= double(kMaxElements)) || x != static_cast<double>(static_cast<std::size_t>(x)))
    throw ArgumentError(std::string(name) + ": expected an integer from 1 to " + decimal(kMaxElements));
  return static_cast<std::size_t>(x);
}

void check_available(double bytes, double held, const char* who, const char* advice) {
  const double limit = double(emscripten_get_heap_max());
  const double available = limit - (double(mallinfo().uordblks) - held);
  if (bytes > available)
    (Message() << who << " needs " << static_cast<unsigned long long>(bytes)
               << " bytes of WebAssembly memory, more than the " << static_cast<unsigned long long>(available)
               << " bytes available (limit " << static_cast<unsigned long long>(limit) << "); " << advice)
        .raise_too_large();
}

// (From a std::string: Embind reads that as UTF-8; a const char* as Latin-1.)
val range_error(const char* message) {
  val error = val::global("RangeError").new_(val(std::string(message)));
  error.set("code", val(error_code()));
  return error;
}

}  // namespace mha::bindings
