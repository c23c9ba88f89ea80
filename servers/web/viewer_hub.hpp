#pragma once
// Chat viewers on one event loop instead of a thread each (docs/operations.md, "Capacity").
// A viewer of a builder turn's stream (a resume) is handed over by its connection thread once
// its response headers are out. Each stream then has one follower that reads the replay buffer
// once per change, for all of its viewers, and applies the rules of a follow (keep-alives, the
// cache store's outages, a run that stopped before its stream finished); the loop writes what
// it read to every viewer of that stream. One event reaches 2,000 viewers with one read and
// 2,000 non-blocking writes, instead of waking 2,000 threads.
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "adapters/cache_store.hpp"

namespace platform::web {

struct viewer_plan {
  std::string stream_id;
  replay_read first;                 // sent first; the viewer goes on from first.next_cursor
  std::function<bool()> still_live;  // the run still streams this stream (asked when idle or in an outage)
  std::chrono::milliseconds heartbeat{15000};
  std::chrono::milliseconds outage_limit{30000};
};

class viewer_hub {
 public:
  explicit viewer_hub(cache_store& cache);
  ~viewer_hub();
  viewer_hub(const viewer_hub&) = delete;
  viewer_hub& operator=(const viewer_hub&) = delete;

  // Takes `fd`, a connection whose chunked SSE response headers are written: sends the plan's
  // first read, then the stream to its end, and closes the connection then or when the
  // viewer leaves.
  void adopt(int fd, viewer_plan plan);
  [[nodiscard]] std::size_t viewers() const;
  // Streams the hub follows now (one follower thread each), for GET /metrics.
  [[nodiscard]] std::size_t followed_streams() const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace platform::web
