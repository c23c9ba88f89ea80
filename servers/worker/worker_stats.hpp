#pragma once
// platform-worker's numbers for GET /metrics (worker_metrics.cpp; docs/operations.md,
// "Metrics"): one process-wide set of atomics, written where turns, agent runs and sandboxes
// start and end, without a lock or an allocation. Gauges kept elsewhere already (turns and
// agent runs running, draining) are read from worker_app at scrape time.
#include "../common/server_metrics.hpp"

namespace platform::worker {

struct worker_metrics {
  servers::by_runtime builder_turns_started;
  servers::by_runtime_outcome builder_turns_ended;
  servers::by_runtime agent_runs_started;
  servers::by_runtime_outcome agent_runs_ended;
  servers::counter sandbox_starts{0};    // jails opened (a runtime CLI's, a build's, an npm install's)
  servers::counter sandbox_failures{0};  // a jail that could not be opened or applied to its process
  servers::fast_histogram sandbox_open{};  // one jail's opening: its dirs, ownership and doors
  // A turn request's arrival to the runtime's first line, per runtime.
  std::array<servers::slow_histogram, servers::runtime_slots> first_line{};
};

constinit inline worker_metrics worker_stats{};

}  // namespace platform::worker
