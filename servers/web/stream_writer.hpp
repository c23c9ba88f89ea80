#pragma once
// The producer's side of a chat stream in the cache store, through the store's outages (issue
// 14: a Redis restart mid-turn must not lose the turn). Each append reaches this process's
// followers at once through the writer's window (local_streams.hpp); its way to the store is
// the batcher's (append_batcher.hpp), several events and streams a round trip, or the
// caller's own without one. Events that cannot be written wait here, in order, and go out
// when the store answers again; when the store comes back without the stream (a restart loses
// its data), the stream is put back from the producer's own copy of the window, under the
// same sequence numbers, with its replay head, so followers go on at their cursors. Past
// `outage_limit` without the store the writer gives up: the turn cannot reach anyone, and the
// caller fails it. Thread-safe: the turn's thread appends, the batcher writes, housekeeping
// flushes while the turn is quiet.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/cache_store.hpp"
#include "local_streams.hpp"
#include "platform/replay_head.hpp"

namespace platform::web {

class append_batcher;

class stream_writer {
 public:
  // `local`: where this process's followers read the stream; each append reaches them before
  // it goes to the store. `batcher`: null to write each append on the caller's thread.
  stream_writer(cache_store& cache, local_streams& local, append_batcher* batcher, std::string stream_id,
                replay_limits limits, std::chrono::milliseconds outage_limit);
  ~stream_writer();
  stream_writer(const stream_writer&) = delete;
  stream_writer& operator=(const stream_writer&) = delete;

  // One SSE event, after every event before it. False once the writer gave up.
  bool append(std::string_view event);
  // The stream's replay head; it goes to the store once the events it stands for are there
  // (best effort; kept to put back with the stream).
  void put_head(replay_head head);
  // Writes what waits out an outage. False once the writer gave up.
  bool flush();
  // Writes what waits, retrying until it is written or the outage limit passes, then marks the
  // stream complete. False when the store could not be reached in time.
  bool finish();

  [[nodiscard]] bool gave_up() const;
  [[nodiscard]] std::size_t waiting() const;

  // For append_batcher: the waiting events, now in flight (nothing when none wait, a batch is
  // in flight already, or the writer is out of touch with the store and writes for itself);
  // then what the store answered. The events' bytes stay put until settle_batch().
  std::optional<stream_append> take_batch();
  void settle_batch(result<std::uint64_t> first);

 private:
  bool flush_locked(std::chrono::steady_clock::time_point now);
  bool outage(std::chrono::steady_clock::time_point now);
  bool put_back();
  std::span<const std::string_view> next_batch();
  void head_if_due();
  bool claim_queue_locked();
  void queue_locked();

  mutable std::mutex mu_;
  std::condition_variable settled_;
  cache_store& cache_;
  local_streams& local_;
  append_batcher* batcher_;
  std::string id_;
  std::shared_ptr<local_window> copy_;  // the window as the store should hold it, read by local followers
  std::deque<std::pair<std::uint64_t, std::string>> waiting_;  // (sequence number, event), not yet in the store
  std::vector<std::string_view> batch_;  // the first waiting events, as the next (or current) batch
  std::size_t in_flight_ = 0;            // how many of the first waiting events the batcher is writing
  bool queued_ = false;                  // with the batcher, to be taken
  std::optional<replay_head> head_;
  bool head_due_ = false;  // head_ is not in the store yet
  std::chrono::milliseconds outage_limit_;
  std::optional<std::chrono::steady_clock::time_point> outage_since_;
  bool gave_up_ = false;
};

}  // namespace platform::web
