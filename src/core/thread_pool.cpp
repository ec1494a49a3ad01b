#include "thread_pool.hpp"

namespace mha {
namespace {

// Spin iterations before blocking (a few tens of microseconds).
constexpr int kSpins = 20000;

}  // namespace

ThreadPool::ThreadPool(std::size_t threads) {
  for (std::size_t w = 1; w < threads; ++w) workers_.emplace_back([this, w] { work(w); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::drain(std::size_t worker) {
  for (std::size_t i; (i = next_.fetch_add(1, std::memory_order_relaxed)) < count_;) (*task_)(i, worker);
}

void ThreadPool::run(std::size_t count, const Task& task) {
  if (workers_.empty() || count <= 1) {
    for (std::size_t i = 0; i < count; ++i) task(i, 0);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    task_ = &task;
    count_ = count;
    next_.store(0, std::memory_order_relaxed);
    busy_.store(workers_.size(), std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  drain(0);
  for (int spin = 0; spin < kSpins && busy_.load(std::memory_order_acquire) != 0; ++spin) {
  }
  if (busy_.load(std::memory_order_acquire) != 0) {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return busy_.load(std::memory_order_acquire) == 0; });
  }
  task_ = nullptr;
}

void ThreadPool::work(std::size_t worker) {
  std::size_t seen = 0;
  for (;;) {
    for (int spin = 0; spin < kSpins && generation_.load(std::memory_order_acquire) == seen && !stop_; ++spin) {
    }
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || generation_.load(std::memory_order_relaxed) != seen; });
      if (stop_) return;
      seen = generation_.load(std::memory_order_relaxed);
    }
    drain(worker);
    if (busy_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard<std::mutex> lock(mutex_);
      done_.notify_one();
    }
  }
}

}  // namespace mha
