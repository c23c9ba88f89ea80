#pragma once
// The producer's side of a chat stream in the cache store, through the store's outages (issue
// 14: a Redis restart mid-turn must not lose the turn). Events that cannot be written wait here,
// in order, and go out when the store answers again; when the store comes back without the
// stream (a restart loses its data), the stream is put back from the producer's own copy of
// the window, under the same sequence numbers, with its replay head, so followers go on at
// their cursors. Past `outage_limit` without the store the writer gives up: the turn cannot
// reach anyone, and the caller fails it. Thread-safe: the turn's thread appends, housekeeping
// flushes while the turn is quiet.
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "adapters/cache_store.hpp"
#include "local_streams.hpp"
#include "platform/replay_head.hpp"

namespace platform::web {

class stream_writer {
 public:
  // `local`: where this process's followers read the stream (local_streams.hpp); each append
  // reaches them before it goes to the store.
  stream_writer(cache_store& cache, local_streams& local, std::string stream_id, replay_limits limits,
                std::chrono::milliseconds outage_limit);
  ~stream_writer();
  stream_writer(const stream_writer&) = delete;
  stream_writer& operator=(const stream_writer&) = delete;

  // One SSE event, after every event before it. False once the writer gave up.
  bool append(std::string_view event);
  // The stream's replay head (best effort; kept to put back with the stream).
  void put_head(replay_head head);
  // Writes what waits. False once the writer gave up.
  bool flush();
  // Writes what waits, retrying until it is written or the outage limit passes, then marks the
  // stream complete. False when the store could not be reached in time.
  bool finish();

  [[nodiscard]] bool gave_up() const;
  [[nodiscard]] std::size_t waiting() const;

 private:
  bool flush_locked(std::chrono::steady_clock::time_point now);
  bool outage(std::chrono::steady_clock::time_point now);
  bool put_back();

  mutable std::mutex mu_;
  cache_store& cache_;
  local_streams& local_;
  std::string id_;
  std::shared_ptr<local_window> copy_;  // the window as the store should hold it, read by local followers
  std::deque<std::pair<std::uint64_t, std::string>> waiting_;  // (sequence number, event)
  std::optional<replay_head> head_;
  std::chrono::milliseconds outage_limit_;
  std::optional<std::chrono::steady_clock::time_point> outage_since_;
  bool gave_up_ = false;
};

}  // namespace platform::web
