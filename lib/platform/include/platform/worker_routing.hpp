#pragma once
// Workers scale out (docs/operations.md, "Several workers"): which worker an app's requests go
// to. A builder session lives in its worker's memory and its workspace on that worker's disk,
// so an app stays on one worker while that worker takes new work. Every web replica ranks the
// workers of an app the same way without sharing any state (rendezvous hashing): when a worker
// is down or draining, only its apps move, each to the next worker in its own order, and they
// come back when it returns (the workspace check, source_digest.hpp, then catches a stale copy).
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace platform {

enum class worker_availability : unsigned char {
  up,        // takes new turns and agent runs
  draining,  // finishes what it runs, takes nothing new (the operator is taking it away)
  down,      // did not answer
};

// The app's order over the workers (indices into `worker_ids`): the ones that are up first,
// then draining, then down; within each, by the app's rendezvous score. `availability` has one
// entry per worker id. Ids are the workers' configured URLs.
std::vector<std::size_t> rank_workers(std::string_view app_id, std::span<const std::string> worker_ids,
                                      std::span<const worker_availability> availability);

// What a worker's GET /health answer says of it: up, draining, or down when it is not the
// worker's health JSON.
worker_availability availability_from_health(std::string_view body);

}  // namespace platform
