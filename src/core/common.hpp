// What every file of the core shares: its error type, its limits, number
// formatting for messages, and how a phase's tasks are cut and run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "thread_pool.hpp"

namespace mha {

// A buffer that grows without initializing, for buffers that every call
// writes in full before reading them (scratch, a call's copied-in arrays and
// its output, a checkpoint chunk on its way in): zeroing megabytes per call
// would cost as much as a small call itself. Growing does not keep the
// contents; shrinking keeps the memory.
template <typename T>
class Buffer {
 public:
  using value_type = T;
  T* data() noexcept { return data_.get(); }
  const T* data() const noexcept { return data_.get(); }
  std::size_t size() const noexcept { return size_; }
  std::size_t capacity() const noexcept { return capacity_; }
  void resize(std::size_t n) {
    if (n > capacity_) {
      data_.reset();
      capacity_ = 0;
      data_.reset(new T[n]);  // default-initialized: not zeroed
      capacity_ = n;
    }
    size_ = n;
  }
  void release() noexcept {
    data_.reset();
    size_ = capacity_ = 0;
  }
  void swap(Buffer& other) noexcept {
    data_.swap(other.data_);
    std::swap(size_, other.size_);
    std::swap(capacity_, other.capacity_);
  }

 private:
  std::unique_ptr<T[]> data_;
  std::size_t size_ = 0, capacity_ = 0;
};
using FloatBuffer = Buffer<float>;

// The largest element count of any array the engine takes, returns or keeps:
// every index then fits a signed 32-bit integer, and a wasm32 pointer.
// src/js reads this value through the bindings (limits()) and checks it first.
constexpr std::size_t kMaxElements = 2147483647;  // 2^31 - 1

// Thrown for arguments that break the contract; the message names the argument.
struct ArgumentError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// Thrown for a size past what the engine can hold (its memory, kMaxElements,
// the address space); the bindings give it code 'TooLarge' (src/js/errors.mjs).
struct TooLargeError : ArgumentError {
  using ArgumentError::ArgumentError;
};

// Decimal digits of n, for error messages (std::to_string would pull printf's
// float formatting into every .wasm).
inline std::string decimal(unsigned long long n) {
  char digits[24];
  int i = 24;
  do digits[--i] = static_cast<char>('0' + n % 10);
  while ((n /= 10) != 0);
  return std::string(digits + i, digits + 24);
}

// On the paths that refuse a call: built for size, not speed (clang's
// minsize; the .wasm is built with clang). An error message costs kilobytes of
// .wasm when inlined and unrolled at -O3.
#if defined(__clang__)
#define MHA_COLD __attribute__((cold, minsize, noinline))
#else
#define MHA_COLD __attribute__((cold, noinline))
#endif

// A message of numbers and words, built in a fixed buffer: a few hundred
// bytes of .wasm where std::string concatenations cost kilobytes.
class Message {
 public:
  MHA_COLD Message& operator<<(const char* text) {
    while (*text && size_ + 1 < sizeof text_) text_[size_++] = *text++;
    text_[size_] = '\0';
    return *this;
  }
  MHA_COLD Message& operator<<(unsigned long long n) {
    char digits[24];
    int i = 24;
    digits[--i] = '\0';
    do digits[--i] = static_cast<char>('0' + n % 10);
    while ((n /= 10) != 0);
    return *this << digits + i;
  }
  // x as JavaScript's String() writes it ("0.01", "1e-8", "3.4028235e+38",
  // "Infinity", "NaN"), with the fewest digits that give back the same float:
  // a message then quotes a float argument as its caller wrote it. (Not
  // std::to_string or printf, which pull their float formatting into the .wasm.)
  MHA_COLD Message& real(float x) {
    if (x != x) return *this << "NaN";
    if (x < 0) *this << "-";
    const double v = x < 0 ? -double(x) : double(x);
    if (v > 3.5e38) return *this << "Infinity";
    if (v == 0) return *this << "0";
    int e = 0;  // 10^e <= v < 10^(e+1)
    for (double p = 1; p * 10 <= v; p *= 10) ++e;
    for (double p = 1; p > v; p /= 10) --e;
    unsigned long long m = 0;  // v ≈ m·10^(e + 1 − digits)
    int digits = 1;
    for (;; ++digits) {  // the fewest digits that give back x (9 always do)
      const int k = e + 1 - digits;
      double power = 1;  // 10^|k|, exact up to 10^22
      for (int i = k < 0 ? -k : k; i > 0; --i) power *= 10;
      m = static_cast<unsigned long long>((k < 0 ? v * power : v / power) + 0.5);
      if (float(k < 0 ? double(m) / power : double(m) * power) == float(v) || digits == 9) break;
    }
    char d[24];  // m's digits, without trailing zeros
    int n = 0, i = 24;
    while (m >= 10 && m % 10 == 0) m /= 10, --digits;
    do d[--i] = static_cast<char>('0' + m % 10), ++n;
    while ((m /= 10) != 0);
    if (n > digits) ++e;  // rounded up to the next power of ten
    const char* first = d + i;
    char text[48];
    int t = 0;
    if (e >= 21 || e < -6) {  // d.ddde±x
      text[t++] = first[0];
      if (n > 1) text[t++] = '.';
      for (int j = 1; j < n; ++j) text[t++] = first[j];
      text[t++] = 'e';
      text[t++] = e < 0 ? '-' : '+';
      text[t] = '\0';
      return *this << text << static_cast<unsigned long long>(e < 0 ? -e : e);
    }
    if (e < 0) {  // 0.000ddd
      text[t++] = '0', text[t++] = '.';
      for (int j = -1; j > e; --j) text[t++] = '0';
    }
    for (int j = 0; j < n || j <= e; ++j) {  // ddd.ddd or ddd000
      if (j == e + 1 && e >= 0) text[t++] = '.';
      text[t++] = j < n ? first[j] : '0';
    }
    text[t] = '\0';
    return *this << text;
  }
  const char* text() const noexcept { return text_; }
  [[noreturn]] MHA_COLD void raise() const { throw ArgumentError(text_); }
  [[noreturn]] MHA_COLD void raise_too_large() const { throw TooLargeError(text_); }

 private:
  char text_[400] = "";
  std::size_t size_ = 0;
};

// checked_product's refusal, out of line: each check stays a few instructions.
[[noreturn]] MHA_COLD inline void throw_too_large(std::initializer_list<std::size_t> factors, const char* what,
                                                  std::size_t elementBytes) {
  Message message;
  message << what << " = ";
  const char* times = "";
  std::uint64_t n = 1;
  bool wrapped = false;  // past 2^64
  for (std::size_t f : factors) {
    message << times << f;
    times = "×";
    wrapped = wrapped || (f != 0 && n > UINT64_MAX / f);
    n *= f;
  }
  if (wrapped || n > UINT64_MAX / elementBytes) (message << " elements, more than 2^64 bytes").raise_too_large();
  message << " = " << n << " elements (" << n * elementBytes << " bytes), more than ";
  if (n > kMaxElements) (message << kMaxElements).raise_too_large();
  (message << "the " << SIZE_MAX << " bytes this platform can address").raise_too_large();
}

// The product of `factors`, an element count, computed in 64 bits: on wasm32
// size_t has 32, and a product formed in it wraps to a small, wrong size.
// ArgumentError, before anything is allocated, when it is above kMaxElements
// or when its bytes (`elementBytes` each) are more than size_t can count.
// `what` names the array and the arguments of the factors, in their order:
//   "attention: sentences×numHeads×maxLength×maxLength = 1025×4×1024×1024 =
//    4299161600 elements (17196646400 bytes), more than 2147483647"
[[gnu::noinline]] inline std::size_t checked_product(std::initializer_list<std::size_t> factors, const char* what,
                                                     std::size_t elementBytes = sizeof(float)) {
  std::uint64_t n = 1;
  bool over = false;
  for (std::size_t f : factors) {
    if (f == 0) return 0;
    over = over || n > kMaxElements / f;
    if (!over) n *= f;  // at most kMaxElements, so it cannot wrap
  }
  if (over || n > SIZE_MAX / elementBytes) throw_too_large(factors, what, elementBytes);
  return static_cast<std::size_t>(n);
}

// The floats of an engine's working memory, summed in double (where a sum of
// sizes cannot wrap), as a size: bounded like the arrays, whose indices fit
// 32 bits, and its bytes (`elementBytes` a float; 1 counts the floats alone)
// checked as checked_product checks an array's.
[[gnu::noinline]] inline std::size_t checked_scratch(double floats, std::size_t elementBytes = sizeof(float)) {
  if (floats > double(kMaxElements))
    (Message() << "scratch: a call of these sizes needs " << static_cast<unsigned long long>(floats)
               << " floats of working memory; one engine call can address " << kMaxElements)
        .raise();
  return checked_product({static_cast<std::size_t>(floats)}, "scratch: floats of working memory", elementBytes);
}

// `value` if it is in [least, most], else ArgumentError naming it.
inline std::size_t check_dim(std::size_t value, const char* name, std::size_t most, std::size_t least = 1) {
  if (value < least || value > most)
    (Message() << name << ": expected an integer from " << least << " to " << most << ", got " << value).raise();
  return value;
}

inline std::size_t blocks(std::size_t n, std::size_t block) { return (n + block - 1) / block; }

// Task sizes. They decide how work is shared, never a result: every output
// element is computed by one task, in an order that does not depend on them.
constexpr std::size_t kRowBlock = 32;  // rows of a product's task
// Below this many FLOPs a call runs on the calling thread alone: waking the
// pool costs more than it saves.
constexpr double kParallelFlops = 4e6;
// A product that streams at least this many floats of weights (1 MiB) splits
// across the pool too, however few its rows: a decoder's step (one row per
// beam) is bound by reading its weights from memory, which threads share.
constexpr double kParallelWeights = double(1 << 18);

// task(i, worker) for i in [0, count): on the pool's threads when `parallel`,
// else in order on the calling thread (worker 0).
template <typename Task>
void run_tasks(ThreadPool& pool, bool parallel, std::size_t count, const Task& task) {
  if (parallel)
    pool.run(count, task);
  else
    for (std::size_t i = 0; i < count; ++i) task(i, 0);
}

}  // namespace mha
