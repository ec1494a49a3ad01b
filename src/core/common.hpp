// What every file of the core shares: its error type, its limits, number
// formatting for messages, and how a phase's tasks are cut and run.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include "thread_pool.hpp"

namespace mha {

// The largest element count of any array the engine takes, returns or keeps:
// every index then fits a signed 32-bit integer, and a wasm32 pointer.
// src/js reads this value through the bindings (limits()) and checks it first.
constexpr std::size_t kMaxElements = 2147483647;  // 2^31 - 1

// Thrown for arguments that break the contract; the message names the argument.
struct ArgumentError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
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

// `value` if it is in [least, most], else ArgumentError naming it.
inline std::size_t check_dim(std::size_t value, const char* name, std::size_t most, std::size_t least = 1) {
  if (value < least || value > most)
    throw ArgumentError(std::string(name) + ": expected an integer from " + decimal(least) + " to " + decimal(most) +
                        ", got " + decimal(value));
  return value;
}

inline std::size_t blocks(std::size_t n, std::size_t block) { return (n + block - 1) / block; }

// Task sizes. They decide how work is shared, never a result: every output
// element is computed by one task, in an order that does not depend on them.
constexpr std::size_t kRowBlock = 32;  // rows of a product's task
// Below this many FLOPs a call runs on the calling thread alone: waking the
// pool costs more than it saves.
constexpr double kParallelFlops = 4e6;

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
