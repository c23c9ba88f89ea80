#pragma once
// The cache store (spec "Three processes" 6): publish/subscribe for workspace events and the
// replay buffers of chat streams. Two implementations behind this one interface:
//   - memory_cache_store: one web process (the embedded default);
//   - redis_cache_store (PLATFORM_REDIS_URL): several web replicas share events and replays.
// Unlike the sans-I/O core, adapters own threads and block: `wait_read` sleeps until the
// stream grows, completes, or the timeout passes.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "platform/api_error.hpp"
#include "platform/error.hpp"
#include "platform/replay_buffer.hpp"

namespace platform {

// A live subscription; destroying it unsubscribes (no callback runs after the destructor
// returns).
class subscription {
 public:
  virtual ~subscription() = default;
};

// One stream's next events, in order, for append_batch().
struct stream_append {
  std::string_view stream_id;
  std::span<const std::string_view> events;  // at least one
};

// Called on an adapter thread, one message at a time per subscription, in publish order.
using message_handler = std::function<void(std::string_view channel, std::string_view message)>;

class cache_store : public replay_store {
 public:
  // Fire and forget to every current subscriber of `channel` (in every replica sharing the
  // store). Messages published while no one listens are gone.
  virtual result<void> publish(std::string_view channel, std::string_view message) = 0;
  virtual result<std::unique_ptr<subscription>> subscribe(std::string_view channel, message_handler on_message) = 0;

  // read_from(), but when nothing is retained at or after `cursor` and the stream is not
  // complete, waits up to `timeout` for an append or complete(). Returns what there is then
  // (possibly nothing, with at_end true and terminal false).
  virtual result<replay_read> wait_read(std::string_view stream_id, std::uint64_t cursor, std::size_t max_chunks,
                                        std::chrono::milliseconds timeout) = 0;

  // Several streams' events in one go: result i is the sequence number of appends[i]'s first
  // event. A stream's events are stored together or, on its error, none of them. Redis takes
  // the whole batch in one round trip (a script per stream, one notification per stream), so
  // a producer of many streams pays for a round trip per batch, not per event; this default
  // appends one event at a time.
  virtual std::vector<result<std::uint64_t>> append_batch(std::span<const stream_append> appends);
};


struct memory_cache_options {
  memory_replay_store_options replay;
};
std::unique_ptr<cache_store> make_memory_cache_store(memory_cache_options options = {});

struct redis_cache_options {
  std::string url;  // redis://[:password@]host[:port][/db]
  replay_limits limits;
  std::chrono::seconds completed_ttl{300};  // a completed stream stays readable this long
  std::chrono::seconds live_ttl{3600};      // a stream nobody completes expires after this
  std::string key_prefix = "platform:";
};
// Connects eagerly; a bad URL or an unreachable server is an error here. After that, lost
// connections are re-established on the next call (and subscriptions re-subscribed).
result<std::unique_ptr<cache_store>> make_redis_cache_store(redis_cache_options options);

}  // namespace platform
