// The in-process cache store: one web process's replay buffers and pub/sub. Replays wrap the
// core's memory_replay_store under one mutex; followers sleep on a condition variable that
// every append or completion wakes. Messages are delivered on the publisher's thread, after
// the lock is released, so a handler may publish or subscribe itself.
#include <chrono>
#include <condition_variable>
#include <mutex>

#include "platform/cache_store.hpp"
#include "subscribers.hpp"

namespace platform {
namespace {

std::int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

class memory_cache_store final : public cache_store {
 public:
  explicit memory_cache_store(memory_cache_options o) : replays_(o.replay) {}

  // Every replay operation runs under the one lock, after expiring what outlived its TTL.
  template <class F>
  auto locked(F&& f) -> decltype(f()) {
    std::lock_guard lock(mu_);
    replays_.tick(steady_ms());
    return f();
  }

  result<void> create(std::string_view id) override { return locked([&] { return replays_.create(id); }); }

  result<std::uint64_t> append(std::string_view id, std::string_view chunk) override {
    auto r = locked([&] { return replays_.append(id, chunk); });
    grew_.notify_all();
    return r;
  }

  result<void> complete(std::string_view id) override {
    auto r = locked([&] { return replays_.complete(id); });
    grew_.notify_all();
    return r;
  }

  result<replay_read> read_from(std::string_view id, std::uint64_t cursor, std::size_t max_chunks) override {
    return locked([&] { return replays_.read_from(id, cursor, max_chunks); });
  }

  result<replay_info> info(std::string_view id) override { return locked([&] { return replays_.info(id); }); }

  result<void> remove(std::string_view id) override {
    auto r = locked([&] { return replays_.remove(id); });
    grew_.notify_all();
    return r;
  }

  result<replay_read> wait_read(std::string_view id, std::uint64_t cursor, std::size_t max_chunks,
                                std::chrono::milliseconds timeout) override {
    std::unique_lock lock(mu_);
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      replays_.tick(steady_ms());
      auto r = replays_.read_from(id, cursor, max_chunks);
      if (!r || r->status != replay_status::ok || !r->chunks.empty() || r->terminal) return r;
      if (grew_.wait_until(lock, deadline) == std::cv_status::timeout) return replays_.read_from(id, cursor, max_chunks);
    }
  }

  result<void> publish(std::string_view channel, std::string_view message) override {
    subscribers_.deliver(channel, message);
    return {};
  }

  result<std::unique_ptr<subscription>> subscribe(std::string_view channel, message_handler on_message) override {
    return subscribers_.add(channel, std::move(on_message));
  }

 private:
  std::mutex mu_;
  std::condition_variable grew_;
  memory_replay_store replays_;
  detail::subscriber_table subscribers_;
};

}  // namespace

std::unique_ptr<cache_store> make_memory_cache_store(memory_cache_options options) {
  return std::make_unique<memory_cache_store>(std::move(options));
}

}  // namespace platform
