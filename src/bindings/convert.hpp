// What every binding shares: reading JS arguments (already checked by
// src/js/validate.mjs), copying typed arrays into and out of wasm memory, and
// turning C++ errors into JS RangeErrors. Nothing outside src/bindings knows
// Emscripten.
#pragma once

#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>

#include <cstddef>
#include <new>
#include <string>
#include <vector>

#include "../core/common.hpp"

namespace mha::bindings {

using emscripten::val;

// Buffers above this size are given back after the call that needed them, so
// one huge call does not keep its memory; smaller ones are reused.
constexpr std::size_t kKeepBytes = std::size_t{4} << 20;

// args[name] as a dimension in [1, kMaxElements].
std::size_t dim(const val& args, const char* name);

// check_memory's refusal, out of line: "<who> needs N bytes of WebAssembly
// memory, more than the M bytes available (limit L); <advice>", unless the
// memory's limit less what is in use (and not `held` by the caller) leaves `bytes`.
void check_available(double bytes, double held, const char* who, const char* advice);

// Refuses, before anything is allocated, a call that needs `bytes` of wasm
// memory when the memory cannot give them (its limit, less what is in use
// that the caller will not free or reuse: held() bytes), so that it fails
// cleanly instead of half-way. held() and mallinfo (which walks the heap) are
// asked only when the heap cannot simply grow by `bytes`.
template <typename Held>
void check_memory(double bytes, const Held& held, const char* who, const char* advice) {
  if (bytes > double(emscripten_get_heap_max()) - double(emscripten_get_heap_size()))
    check_available(bytes, double(held()), who, advice);
}

// Copies src (a typed array of exactly `count` elements) into `buffer`;
// returns null when src is absent and optional.
template <typename Vector>
const typename Vector::value_type* copy_in(const val& src, const char* name, std::size_t count, Vector& buffer,
                                           bool optional) {
  if (src.isUndefined() || src.isNull()) {
    if (optional) return nullptr;
    throw ArgumentError(std::string(name) + ": required");
  }
  const std::size_t length = src["length"].as<std::size_t>();
  if (length != count)
    throw ArgumentError(std::string(name) + ": expected " + decimal(count) + " elements, got " + decimal(length));
  buffer.resize(count);
  // The view is made after resize: memory growth would detach an older one.
  val(emscripten::typed_memory_view(count, buffer.data())).call<void>("set", src);
  return buffer.data();
}

// A new JS typed array (Float32Array, Int32Array …) holding a copy of data[0, count).
template <typename T>
val copy_out(const T* data, std::size_t count, const char* type = "Float32Array") {
  val out = val::global(type).new_(count);
  out.call<void>("set", val(emscripten::typed_memory_view(count, data)));
  return out;
}

// A new JS RangeError with `message` and the code of the error kept last
// (error_code()), returned rather than thrown (see guarded()).
val range_error(const char* message);

template <typename T>
void trim(std::vector<T>& v) {
  if (v.capacity() * sizeof(T) > kKeepBytes) std::vector<T>().swap(v);
}
inline void trim(FloatBuffer& b) {
  if (b.capacity() * sizeof(float) > kKeepBytes) b.release();
}

// Where guarded() and guarded_status() keep the message of the error they
// caught: a fixed buffer, so that a failed allocation needs no other one.
inline char* error_message() {
  static thread_local char message[1024];
  return message;
}

// The code (src/js/errors.mjs) of the error kept last: 'TooLarge' for a size
// past what the engine holds (TooLargeError, a failed allocation), else
// 'InvalidArgument'.
inline const char*& error_code() {
  static thread_local const char* code = "InvalidArgument";
  return code;
}

// Keeps the message and code of the error being handled (in a catch block) in
// error_message() and error_code().
inline void keep_error() {
  const auto keep = [](const char* text) {
    // (Not snprintf: it would pull printf's formatting code into the .wasm.)
    char* message = error_message();
    std::size_t n = 0;
    for (; text[n] && n + 1 < 1024; ++n) message[n] = text[n];
    message[n] = '\0';
  };
  error_code() = "InvalidArgument";
  try {
    throw;
  } catch (const std::bad_alloc&) {
    keep("out of memory: the arrays of this call do not fit the WebAssembly memory");
    error_code() = "TooLarge";
  } catch (const TooLargeError& e) {
    keep(e.what());
    error_code() = "TooLarge";
  } catch (const std::exception& e) {
    keep(e.what());
  }
}

// Runs `body` and returns its result; a C++ error comes back as a JS
// RangeError *value* (EngineHost throws it on the JS side). Nothing is thrown
// through the Embind invoker: a JS exception unwinding wasm frames would skip
// the invoker's release of its argument handles, and every refused call would
// keep its arguments (and their buffers) alive for good.
template <typename Body>
[[nodiscard]] val guarded(const Body& body) {
  try {
    return body();
  } catch (const std::exception&) {
    keep_error();
  }
  return range_error(error_message());
}

// The same for a call with plain arguments and no result: 0 when `body`
// succeeded, else 1, with the error for last_error().
template <typename Body>
[[nodiscard]] int guarded_status(const Body& body) {
  try {
    body();
    return 0;
  } catch (const std::exception&) {
    keep_error();
  }
  return 1;
}

// The error a guarded_status() call returned 1 for, as a JS RangeError.
inline val last_error() { return range_error(error_message()); }

}  // namespace mha::bindings
