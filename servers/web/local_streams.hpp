#pragma once
// The streams this process produces, for this process's followers: one push path from a
// turn's append to its viewers' sockets. A stream's viewers mostly sit on the replica that
// produces it (the chat POST itself, an app agent run's page), and they used to learn of each
// event from the cache store: after the event's round trip to Redis, through the store's
// wake-up. Now the writer's own window of the stream (the copy it keeps to put the stream back
// after an outage) is the one its local followers read, and an append wakes them before the
// event goes to the store. The store stays the truth for every other replica and for resumes:
// a follower whose cursor is outside the window, or whose stream has no writer here (another
// replica's, an ended turn's), reads the store, and a stream ends locally only once the store
// has it complete.
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "../common/wake_word.hpp"
#include "adapters/cache_store.hpp"
#include "platform/replay_head.hpp"

namespace platform::web {

// One stream's window as its writer keeps it (stream_writer.hpp), and the followers waiting at
// its end. Thread-safe.
class local_window {
 public:
  explicit local_window(replay_limits limits) : events_(limits) {}

  // Numbers the event and wakes the waiters.
  result<std::uint64_t> append(std::string_view event);
  // The store has the stream complete: local followers end too.
  void complete();
  // The writer is gone: followers go back to the store.
  void close();

  // The window's read from `cursor`, or nothing when the window cannot answer it (closed, or
  // the cursor outside it). wait_read() waits up to `timeout` at the end of a live stream.
  std::optional<replay_read> read(std::uint64_t cursor, std::size_t max_chunks) const;
  std::optional<replay_read> wait_read(std::uint64_t cursor, std::size_t max_chunks, std::chrono::milliseconds timeout) const;

  // What stream_writer puts back into the store after it lost the stream.
  replay_read all() const;

 private:
  std::optional<replay_read> read_locked(std::uint64_t cursor, std::size_t max_chunks) const;

  mutable std::mutex mu_;
  servers::wake_word changed_;  // bumped by every append, the end and the close
  replay_buffer events_;
  bool closed_ = false;
};

// The windows of the streams this process writes, by stream id.
class local_streams {
 public:
  // The writer of `stream_id` starts: its window, registered until close().
  std::shared_ptr<local_window> open(const std::string& stream_id, replay_limits limits);
  // The writer ends (its window closes and leaves the registry unless another took its place).
  void close(const std::string& stream_id, const std::shared_ptr<local_window>& window);
  std::shared_ptr<local_window> find(std::string_view stream_id) const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<local_window>, std::less<>> windows_;
};

// The cache store as this process's followers read it: a stream written here is read from its
// window (and waited for there), everything else from the store.
class local_first_cache final : public cache_store {
 public:
  local_first_cache(cache_store& store, const local_streams& local) : store_(store), local_(local) {}

  result<replay_read> read_from(std::string_view id, std::uint64_t cursor, std::size_t max_chunks = SIZE_MAX) override;
  result<replay_read> wait_read(std::string_view id, std::uint64_t cursor, std::size_t max_chunks,
                                std::chrono::milliseconds timeout) override;

  result<void> create(std::string_view id) override { return store_.create(id); }
  result<std::uint64_t> append(std::string_view id, std::string_view chunk) override { return store_.append(id, chunk); }
  std::vector<result<std::uint64_t>> append_batch(std::span<const stream_append> appends) override {
    return store_.append_batch(appends);
  }
  result<void> complete(std::string_view id) override { return store_.complete(id); }
  result<replay_info> info(std::string_view id) override { return store_.info(id); }
  result<void> remove(std::string_view id) override { return store_.remove(id); }
  result<void> restore(std::string_view id, const replay_read& events) override { return store_.restore(id, events); }
  result<void> put_head(std::string_view id, const replay_head& head) override { return store_.put_head(id, head); }
  result<std::optional<replay_head>> get_head(std::string_view id) override { return store_.get_head(id); }
  result<void> publish(std::string_view channel, std::string_view message) override {
    return store_.publish(channel, message);
  }
  result<std::unique_ptr<subscription>> subscribe(std::string_view channel, message_handler on_message) override {
    return store_.subscribe(channel, std::move(on_message));
  }

 private:
  cache_store& store_;
  const local_streams& local_;
};

}  // namespace platform::web
