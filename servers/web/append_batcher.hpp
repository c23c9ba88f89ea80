#pragma once
// The producers' events on their way to the cache store, off the turns' threads. A turn's
// append reaches this process's followers through its window at once (local_streams.hpp); the
// store's copy is for other replicas and for resumes, and on Redis each write is a round trip.
// One a chunk had every turn thread wait on Redis once per event: 100 turns at once made
// 10,000 round trips a second, each with its wake-ups in web and in Redis. Here one thread
// takes whatever every writer has waiting and writes it with one append_batch (one pipeline):
// the busier the process, the larger the batch and the cheaper each event. A writer in an
// outage writes for itself (stream_writer.hpp); this thread takes only the healthy ones.
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "adapters/cache_store.hpp"

namespace platform::web {

class stream_writer;

class append_batcher {
 public:
  explicit append_batcher(cache_store& cache);
  ~append_batcher();  // after every writer that uses it
  append_batcher(const append_batcher&) = delete;
  append_batcher& operator=(const append_batcher&) = delete;

  // `w` has events waiting; the next batch takes them.
  void ready(stream_writer& w);
  // `w` goes away: returns once no batch holds it.
  void leave(stream_writer& w);

 private:
  void run();

  cache_store& cache_;
  std::mutex mu_;
  std::condition_variable wake_, batch_done_;
  std::vector<stream_writer*> ready_;  // each writer once (stream_writer marks itself queued)
  std::vector<stream_writer*> busy_;   // the batch being written
  bool stopping_ = false;
  std::thread thread_;  // last: starts after the members it uses exist
};

}  // namespace platform::web
