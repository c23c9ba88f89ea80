#include "append_batcher.hpp"

#include <algorithm>

#include "stream_writer.hpp"
#include "web_metrics.hpp"

namespace platform::web {

append_batcher::append_batcher(cache_store& cache) : cache_(cache), thread_([this] { run(); }) {}

append_batcher::~append_batcher() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void append_batcher::ready(stream_writer& w) {
  {
    std::lock_guard lock(mu_);
    ready_.push_back(&w);
  }
  wake_.notify_one();
}

void append_batcher::leave(stream_writer& w) {
  std::unique_lock lock(mu_);
  batch_done_.wait(lock, [&] { return std::find(busy_.begin(), busy_.end(), &w) == busy_.end(); });
  std::erase(ready_, &w);  // after the wait: settling a batch may queue the writer again
}

// Writers never wait for this thread while holding this mutex, and it takes a writer's lock
// only without its own: ready() may be called under a writer's lock.
void append_batcher::run() {
  std::vector<stream_writer*> takers;
  std::vector<stream_append> appends;
  std::unique_lock lock(mu_);
  for (;;) {
    wake_.wait(lock, [&] { return stopping_ || !ready_.empty(); });
    if (stopping_) return;
    busy_.swap(ready_);
    lock.unlock();
    takers.clear();
    appends.clear();
    for (stream_writer* w : busy_) {
      if (auto a = w->take_batch()) {
        takers.push_back(w);
        appends.push_back(*a);
      }
    }
    if (!appends.empty()) {
      auto results = timed_cache(cache_op::append, [&] { return cache_.append_batch(appends); });
      for (std::size_t i = 0; i < takers.size(); ++i) takers[i]->settle_batch(std::move(results[i]));
    }
    lock.lock();
    busy_.clear();
    batch_done_.notify_all();
  }
}

}  // namespace platform::web
