#pragma once
// The store's one Redis pub/sub connection and the thread that reads it.
//
// Channels are reference counted: the first retain sends SUBSCRIBE, the last release
// UNSUBSCRIBE. Commands are written to the socket directly by the calling thread while the
// reader thread sits in hiredis's blocking read: hiredis only writes when its own output
// buffer holds something, and nothing is ever queued there, so the two never share state.
// The connection has no read timeout (hiredis timeouts are sticky); stop() wakes the reader
// by shutting the socket down. When the connection drops, the reader reconnects with
// backoff and subscribes every retained channel again in one command.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "platform/error.hpp"
#include "redis_client.hpp"

namespace platform::detail {

class redis_subscriber {
 public:
  using message_fn = std::function<void(std::string_view channel, std::string_view message)>;
  // Redis confirmed a subscription (again, after every reconnect): messages published from
  // now on arrive, earlier ones may have been missed.
  using confirmed_fn = std::function<void(std::string_view channel)>;

  redis_subscriber(redis_address a, std::chrono::milliseconds connect_timeout, message_fn on_message,
                   confirmed_fn on_confirmed);
  ~redis_subscriber();
  redis_subscriber(const redis_subscriber&) = delete;
  redis_subscriber& operator=(const redis_subscriber&) = delete;

  void start();
  // Idempotent. After it, retain fails and the callbacks are not called again.
  void stop();

  // One more reference to `channel`; returns once Redis confirmed the subscription, so a
  // message published after that is delivered. Fails with `cache_unavailable` after
  // `timeout` (the reference stays: release it). On the reader thread itself (a handler
  // subscribing) it cannot wait and returns at once.
  result<void> retain(const std::string& channel, std::chrono::milliseconds timeout);
  void release(const std::string& channel);

 private:
  // `sent` SUBSCRIBEs went out on the current connection and `acked` came back: the
  // subscription is live when all did. A released entry stays until its confirmations are
  // in, so an unsubscribe/subscribe race cannot count an old confirmation as the new one.
  struct channel_state {
    int refs = 0;
    std::uint64_t sent = 0;
    std::uint64_t acked = 0;
    [[nodiscard]] bool live() const { return sent > 0 && acked >= sent; }
  };

  void run();
  bool attach(int fd);
  void detach();
  void pump(redisContext* c);
  void confirmed(std::string_view channel);
  void send_locked(std::string_view verb, const std::vector<std::string>& channels);

  redis_address addr_;
  std::chrono::milliseconds connect_timeout_;
  message_fn on_message_;
  confirmed_fn on_confirmed_;

  std::mutex mu_;
  std::condition_variable changed_;
  std::map<std::string, channel_state, std::less<>> channels_;
  int fd_ = -1;  // the live connection's socket, -1 between connections
  bool stopping_ = false;
  std::atomic<std::thread::id> reader_id_{};
  std::thread thread_;
};

}  // namespace platform::detail
