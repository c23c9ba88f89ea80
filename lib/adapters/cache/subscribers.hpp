#pragma once
// The local side of pub/sub, shared by both cache stores: handlers by channel, delivered
// outside the table's lock so a handler may publish, subscribe, or drop a subscription.
// Destroying a subscription waits for a delivery to it that is in progress on another
// thread, so no handler runs after its subscription's destructor returns. A handler may
// destroy its own subscription; it is then not called again.
//
// Subscriptions hold the table by shared_ptr: one that outlives its store stays harmless.
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "adapters/cache_store.hpp"

namespace platform::detail {

class subscriber_table : public std::enable_shared_from_this<subscriber_table> {
  struct slot {
    std::string channel;
    message_handler fn;
    std::mutex running;  // held while fn runs
    std::atomic<std::thread::id> runner{};
    std::atomic<bool> active{true};
  };

 public:
  // The handlers a message published now goes to; taken at publish time so a later
  // subscriber never sees an earlier message.
  using targets = std::vector<std::shared_ptr<slot>>;

  // `on_removed` runs once the handler is gone for good (the Redis store unsubscribes there).
  std::unique_ptr<subscription> add(std::string_view channel, message_handler fn, std::function<void()> on_removed = {}) {
    auto s = std::make_shared<slot>();
    s->channel = std::string(channel);
    s->fn = std::move(fn);
    {
      std::lock_guard lock(mu_);
      by_channel_.emplace(s->channel, s);
    }
    return std::make_unique<handle>(shared_from_this(), std::move(s), std::move(on_removed));
  }

  targets find(std::string_view channel) {
    targets out;
    std::lock_guard lock(mu_);
    auto range = by_channel_.equal_range(channel);
    for (auto it = range.first; it != range.second; ++it) out.push_back(it->second);
    return out;
  }

  static void deliver(const targets& to, std::string_view channel, std::string_view message) {
    for (const auto& s : to) {
      std::lock_guard run(s->running);
      if (!s->active) continue;
      s->runner = std::this_thread::get_id();
      s->fn(channel, message);
      s->runner = std::thread::id();
    }
  }

  void deliver(std::string_view channel, std::string_view message) { deliver(find(channel), channel, message); }

 private:
  class handle final : public subscription {
   public:
    handle(std::shared_ptr<subscriber_table> t, std::shared_ptr<slot> s, std::function<void()> on_removed)
        : table_(std::move(t)), slot_(std::move(s)), on_removed_(std::move(on_removed)) {}
    ~handle() override {
      table_->remove(slot_);
      if (on_removed_) on_removed_();
    }

   private:
    std::shared_ptr<subscriber_table> table_;
    std::shared_ptr<slot> slot_;
    std::function<void()> on_removed_;
  };

  void remove(const std::shared_ptr<slot>& s) {
    {
      std::lock_guard lock(mu_);
      auto range = by_channel_.equal_range(s->channel);
      for (auto it = range.first; it != range.second; ++it) {
        if (it->second == s) {
          by_channel_.erase(it);
          break;
        }
      }
    }
    s->active = false;
    // Inside its own handler the slot's lock is ours already: returning is enough.
    if (s->runner.load() == std::this_thread::get_id()) return;
    std::lock_guard wait_for_delivery(s->running);
  }

  std::mutex mu_;
  std::multimap<std::string, std::shared_ptr<slot>, std::less<>> by_channel_;
};

}  // namespace platform::detail
