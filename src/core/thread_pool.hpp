// A persistent pool of threads (Web Workers under Emscripten pthreads), made
// once per engine. A call's phases follow each other within microseconds, so
// threads spin briefly before sleeping: waking a sleeping Web Worker costs
// tens of microseconds, more than a small phase takes.
//
// It only schedules: run() hands out task indices; what a task computes, and
// where it writes, is the caller's business. Results do not depend on which
// thread runs a task, so they are the same for any pool size.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace mha {

class ThreadPool {
 public:
  // `threads` counts the calling thread too: ThreadPool(1) starts no thread.
  explicit ThreadPool(std::size_t threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  std::size_t size() const noexcept { return workers_.size() + 1; }

  // Calls task(i, worker) for every i in [0, count), worker in [0, size()),
  // with the calling thread taking part; returns when all calls have returned.
  using Task = std::function<void(std::size_t index, std::size_t worker)>;
  void run(std::size_t count, const Task& task);

 private:
  void work(std::size_t worker);
  void drain(std::size_t worker);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const Task* task_ = nullptr;
  std::size_t count_ = 0;
  std::atomic<std::size_t> next_{0};
  // Read without the lock while spinning; written under it.
  std::atomic<std::size_t> generation_{0};
  std::atomic<std::size_t> busy_{0};
  std::atomic<bool> stop_{false};
};

}  // namespace mha
