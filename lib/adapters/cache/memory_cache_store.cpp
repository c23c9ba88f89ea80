// The in-process cache store: one web process's replay buffers and pub/sub. Replays wrap the
// core's memory_replay_store under one mutex; the followers of a stream sleep on that stream's
// own condition variable, which its appends, completion or removal wake (one for all streams
// woke every follower of every turn on each event: 100 turns at once spent their time waking). Messages go through a queue to one dispatcher
// thread, so publish never runs a handler on the caller's stack: a handler that publishes
// (even to its own channel) cannot deadlock or recurse, and every subscriber sees messages
// in publish order.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "adapters/cache_store.hpp"
#include "platform/replay_head.hpp"
#include "subscribers.hpp"

namespace platform {
namespace {

std::int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

class dispatcher {
 public:
  dispatcher() : thread_([this] { run(); }) {}

  ~dispatcher() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    ready_.notify_all();
    thread_.join();
  }

  void post(detail::subscriber_table::targets to, std::string_view channel, std::string_view message) {
    {
      std::lock_guard lock(mu_);
      queue_.push_back({std::move(to), std::string(channel), std::string(message)});
    }
    ready_.notify_one();
  }

 private:
  struct item {
    detail::subscriber_table::targets to;
    std::string channel;
    std::string message;
  };

  // Messages still queued when the store goes away are dropped, like a Redis publish that
  // reaches no one.
  void run() {
    std::unique_lock lock(mu_);
    for (;;) {
      ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      item next = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      detail::subscriber_table::deliver(next.to, next.channel, next.message);
      lock.lock();
    }
  }

  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<item> queue_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts after the members it uses exist
};

class memory_cache_store final : public cache_store {
 public:
  explicit memory_cache_store(memory_cache_options o) : replays_(o.replay) {}

  result<void> create(std::string_view id) override { return locked([&] { return replays_.create(id); }); }

  result<std::uint64_t> append(std::string_view id, std::string_view chunk) override {
    auto r = locked([&] { return replays_.append(id, chunk); });
    wake(id);
    return r;
  }

  result<void> complete(std::string_view id) override {
    auto r = locked([&] { return replays_.complete(id); });
    wake(id);
    return r;
  }

  result<replay_read> read_from(std::string_view id, std::uint64_t cursor, std::size_t max_chunks) override {
    return locked([&] { return replays_.read_from(id, cursor, max_chunks); });
  }

  result<replay_info> info(std::string_view id) override { return locked([&] { return replays_.info(id); }); }

  result<void> remove(std::string_view id) override {
    auto r = locked([&] { return replays_.remove(id); });
    wake(id);  // a follower of a removed stream learns it at once
    return r;
  }

  result<void> restore(std::string_view id, const replay_read& events) override {
    auto r = locked([&] { return replays_.restore(id, events); });
    wake(id);
    return r;
  }

  result<void> put_head(std::string_view id, const replay_head& head) override {
    return locked([&] { return replays_.put_head(id, head); });
  }

  result<std::optional<replay_head>> get_head(std::string_view id) override {
    return locked([&] { return replays_.get_head(id); });
  }

  result<replay_read> wait_read(std::string_view id, std::uint64_t cursor, std::size_t max_chunks,
                                std::chrono::milliseconds timeout) override {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    std::unique_lock lock(mu_);
    std::shared_ptr<waiters> w;
    for (;;) {
      expire();
      auto r = replays_.read_from(id, cursor, max_chunks);
      if (!worth_waiting(r)) return leave(w, id), r;
      if (!w) {
        auto& slot = waiting_[std::string(id)];
        if (!slot) slot = std::make_shared<waiters>();
        w = slot;
        ++w->count;
      }
      if (w->changed.wait_until(lock, deadline) == std::cv_status::timeout) {
        expire();
        leave(w, id);
        return replays_.read_from(id, cursor, max_chunks);
      }
    }
  }

  result<void> publish(std::string_view channel, std::string_view message) override {
    auto to = subscribers_->find(channel);
    if (!to.empty()) dispatch_.post(std::move(to), channel, message);
    return {};
  }

  result<std::unique_ptr<subscription>> subscribe(std::string_view channel, message_handler on_message) override {
    return subscribers_->add(channel, std::move(on_message));
  }

 private:
  // The followers of one stream.
  struct waiters {
    std::condition_variable changed;
    std::size_t count = 0;
  };

  // Every replay operation runs under the one lock, after expiring what outlived its TTL.
  template <class F>
  auto locked(F&& f) -> decltype(f()) {
    std::lock_guard lock(mu_);
    expire();
    return f();
  }

  // Expiry walks every stream: a few times a second is enough for TTLs of minutes, where every
  // operation made each append cost as much as the streams held.
  void expire() {
    std::int64_t now = steady_ms();
    if (now - last_tick_ < 200) return;
    last_tick_ = now;
    replays_.tick(now);
  }

  void wake(std::string_view id) {
    std::lock_guard lock(mu_);
    if (auto it = waiting_.find(std::string(id)); it != waiting_.end()) it->second->changed.notify_all();
  }

  // With mu_ held: this follower stops waiting on `id`.
  void leave(std::shared_ptr<waiters>& w, std::string_view id) {
    if (!w) return;
    if (--w->count == 0) waiting_.erase(std::string(id));
    w.reset();
  }

  static bool worth_waiting(const result<replay_read>& r) {
    return r && r->status == replay_status::ok && r->chunks.empty() && r->at_end && !r->terminal;
  }

  std::mutex mu_;
  std::int64_t last_tick_ = 0;
  std::unordered_map<std::string, std::shared_ptr<waiters>> waiting_;
  memory_replay_store replays_;
  std::shared_ptr<detail::subscriber_table> subscribers_ = std::make_shared<detail::subscriber_table>();
  dispatcher dispatch_;  // last: its thread stops first, while the table still exists
};

}  // namespace

std::unique_ptr<cache_store> make_memory_cache_store(memory_cache_options options) {
  return std::make_unique<memory_cache_store>(std::move(options));
}

}  // namespace platform
