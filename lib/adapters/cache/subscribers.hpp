#pragma once
// The local side of pub/sub, shared by both cache stores: handlers by channel, delivery
// outside the table's lock (a handler may publish or subscribe), and unsubscription that
// waits for a delivery in progress, so no handler runs after its subscription is destroyed.
// A handler must not destroy its own subscription.
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "platform/cache_store.hpp"

namespace platform::detail {

class subscriber_table {
 public:
  std::unique_ptr<subscription> add(std::string_view channel, message_handler fn) {
    auto s = std::make_shared<slot>();
    s->channel = std::string(channel);
    s->fn = std::move(fn);
    {
      std::lock_guard lock(mu_);
      by_channel_.emplace(s->channel, s);
    }
    return std::make_unique<handle>(*this, std::move(s));
  }

  void deliver(std::string_view channel, std::string_view message) {
    std::vector<std::shared_ptr<slot>> targets;
    {
      std::lock_guard lock(mu_);
      auto range = by_channel_.equal_range(std::string(channel));
      for (auto it = range.first; it != range.second; ++it) targets.push_back(it->second);
    }
    for (auto& s : targets) {
      std::lock_guard run(s->running);
      if (s->active) s->fn(channel, message);
    }
  }

 private:
  struct slot {
    std::string channel;
    message_handler fn;
    std::mutex running;
    bool active = true;
  };

  class handle final : public subscription {
   public:
    handle(subscriber_table& t, std::shared_ptr<slot> s) : table_(t), slot_(std::move(s)) {}
    ~handle() override { table_.remove(slot_); }

   private:
    subscriber_table& table_;
    std::shared_ptr<slot> slot_;
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
    std::lock_guard run(s->running);
    s->active = false;
  }

  std::mutex mu_;
  std::multimap<std::string, std::shared_ptr<slot>> by_channel_;
};

}  // namespace platform::detail
