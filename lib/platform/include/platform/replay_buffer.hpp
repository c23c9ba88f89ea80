#pragma once
// The replay buffer of a chat stream (spec "Chat POST rules" 4 and "Chat stream resume
// rules"): the SSE events of one stream under sequence numbers 0, 1, 2, ... plus a terminal
// marker, so a viewer can attach late, replay what it missed after `cursor` and then follow.
//
// Bounded memory, policy "drop oldest": when a limit is hit the oldest events are dropped
// and the buffer no longer starts at the beginning. Appends are never refused for size, so
// live data always reaches followers that keep up; only a follower that lags more than the
// retained window (or a late viewer wanting the whole stream) is told its cursor expired.
// The spec uses a replay only when it starts at the beginning of the run.
//
// Sans-I/O: no threads, no clocks. The owner serializes access (one mutex per store) and
// wakes its followers itself (e.g. a condition variable notified after append/complete).
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/error.hpp"

namespace platform {

struct replay_limits {
  std::size_t max_bytes = 8u << 20;  // sum of retained event sizes
  std::size_t max_chunks = 65536;    // retained events
  std::size_t max_head_bytes = 32u << 20;  // a stream's replay head (replay_head.hpp)
};

struct replay_head;

struct replay_chunk {
  std::uint64_t seq = 0;
  std::string bytes;  // one whole SSE event, e.g. "data: {...}\n\n"
};

enum class replay_status : unsigned char {
  ok,
  cursor_expired,  // events at or after `cursor` were dropped: the replay would have a gap
  cursor_ahead,    // `cursor` is beyond the next sequence number: not from this stream
};

struct replay_read {
  replay_status status = replay_status::ok;
  std::vector<replay_chunk> chunks;  // seq >= cursor, ascending, without gaps
  std::uint64_t next_cursor = 0;     // the cursor for the next read
  bool at_end = false;    // nothing retained after these chunks: wait for an append
  bool terminal = false;  // at_end and the stream is complete: the follower is done
};

// Where a stream stands, without copying its events.
struct replay_info {
  std::uint64_t first_seq = 0;  // oldest retained event
  std::uint64_t next_seq = 0;   // sequence number the next append gets
  bool complete = false;
  bool starts_at_beginning = true;
  std::size_t retained_chunks = 0;
  std::size_t retained_bytes = 0;
};

class replay_buffer {
 public:
  // `first_seq`: the sequence number of the first event appended (a stream put back by its
  // producer after its store lost it starts where its copy starts; see replay_store::restore).
  explicit replay_buffer(replay_limits limits = {}, std::uint64_t first_seq = 0);

  // Stores one SSE event and returns its sequence number. Fails with `replay_complete`
  // after complete(). May drop the oldest events (never the one just appended).
  result<std::uint64_t> append(std::string_view chunk);
  // Sets the terminal marker: no more events. Idempotent.
  void complete();

  // Events with seq >= cursor, at most `max_chunks` of them (followers read in batches).
  [[nodiscard]] replay_read read_from(std::uint64_t cursor, std::size_t max_chunks = SIZE_MAX) const;

  [[nodiscard]] bool is_complete() const { return complete_; }
  [[nodiscard]] bool starts_at_beginning() const { return first_seq_ == 0; }
  [[nodiscard]] std::uint64_t first_seq() const { return first_seq_; }
  [[nodiscard]] std::uint64_t next_seq() const { return first_seq_ + chunks_.size(); }
  [[nodiscard]] replay_info info() const;

 private:
  void enforce_limits();

  replay_limits limits_;
  std::deque<std::string> chunks_;
  std::uint64_t first_seq_ = 0;
  std::size_t bytes_ = 0;
  bool complete_ = false;
};

// Replay buffers of many streams, keyed by stream id (the run's activeStreamId). The web
// server talks to this interface; the in-memory store below serves one process, a Redis
// store (later, an adapter library) serves several web replicas. Failures are values:
// `replay_not_found`, `replay_exists`, `replay_complete`, `replay_store_full`, and for
// stores with I/O their own transport codes.
class replay_store {
 public:
  virtual ~replay_store() = default;

  // Registers an empty stream. Fails with `replay_exists` when the id is taken.
  virtual result<void> create(std::string_view stream_id) = 0;
  virtual result<std::uint64_t> append(std::string_view stream_id, std::string_view chunk) = 0;
  virtual result<void> complete(std::string_view stream_id) = 0;
  virtual result<replay_read> read_from(std::string_view stream_id, std::uint64_t cursor,
                                        std::size_t max_chunks = SIZE_MAX) = 0;
  virtual result<replay_info> info(std::string_view stream_id) = 0;
  // Forgets the stream (after the run is persisted, or on expiry). Removing a missing id is
  // not an error.
  virtual result<void> remove(std::string_view stream_id) = 0;
  // Puts back a stream the store lost (a cache server that restarted empty): a live stream
  // whose events are `events` (a read of the producer's own copy of the window) under their
  // sequence numbers, so followers go on at their cursors. Errors: `replay_exists`.
  virtual result<void> restore(std::string_view stream_id, const replay_read& events) = 0;
  // The stream's replay head (replay_head.hpp), replacing the one before. Errors:
  // `replay_not_found`, `replay_head_too_large` (over limits.max_head_bytes: the stream then
  // keeps no head, and a viewer arriving after its start was dropped gets nothing, as before).
  virtual result<void> put_head(std::string_view stream_id, const replay_head& head) = 0;
  // The last head put for the stream, or nothing. Errors: `replay_not_found`.
  virtual result<std::optional<replay_head>> get_head(std::string_view stream_id) = 0;
};

struct memory_replay_store_options {
  replay_limits limits;          // per stream
  std::size_t max_streams = 1024;
  // How long a completed stream stays readable, in the owner's time unit (see tick()).
  std::int64_t completed_ttl = 5 * 60 * 1000;
};

// One process's replay buffers. Not thread-safe: the owner locks around every call.
// Expiry without a clock: the owner calls tick(now) with its own monotonic time; a stream
// completed before tick(t) is removed by the first tick at or after t + completed_ttl.
class memory_replay_store final : public replay_store {
 public:
  explicit memory_replay_store(memory_replay_store_options options = {});

  // When the store is full, creating evicts the stream completed longest ago; with none
  // completed it fails with `replay_store_full` (live streams are never evicted).
  result<void> create(std::string_view stream_id) override;
  result<std::uint64_t> append(std::string_view stream_id, std::string_view chunk) override;
  result<void> complete(std::string_view stream_id) override;
  result<replay_read> read_from(std::string_view stream_id, std::uint64_t cursor,
                                std::size_t max_chunks = SIZE_MAX) override;
  result<replay_info> info(std::string_view stream_id) override;
  result<void> remove(std::string_view stream_id) override;
  result<void> restore(std::string_view stream_id, const replay_read& events) override;
  result<void> put_head(std::string_view stream_id, const replay_head& head) override;
  result<std::optional<replay_head>> get_head(std::string_view stream_id) override;

  // Advances the owner's time; removes completed streams whose TTL ran out. Returns how many.
  std::size_t tick(std::int64_t now);
  [[nodiscard]] std::size_t size() const { return streams_.size(); }

 private:
  struct entry {
    replay_buffer buffer;
    std::shared_ptr<const replay_head> head;
    std::uint64_t completed_order = 0;  // 0 while live; else order of completion
    std::int64_t completed_at = 0;      // owner time of the first tick after completion
    bool stamped = false;
  };

  entry* find(std::string_view stream_id);
  bool evict_oldest_completed();

  memory_replay_store_options options_;
  std::map<std::string, entry, std::less<>> streams_;
  std::uint64_t completions_ = 0;
};

}  // namespace platform
