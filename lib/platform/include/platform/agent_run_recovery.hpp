#pragma once
// Recovery of app agent runs whose worker lost them (like stale stream recovery of builder
// runs): a run the web server still shows running while its worker no longer holds it (the
// worker restarted, or evicted it) or has been unreachable too long can never complete through
// the worker's callback, so it fails with a clear reason and its compact event.
#include <cstdint>
#include <optional>
#include <string>

namespace platform {

// What the worker answered about a run.
enum class worker_run_view { running, finished, missing, unreachable };

struct run_recovery_policy {
  std::int64_t unreachable_limit_ms = 5 * 60 * 1000;  // an unreachable worker gets this long
};

// The failure reason when the run is lost, nothing while it may still complete.
// `unreachable_since_ms` is when the worker was first found unreachable for this run (0: not).
// A worker that finished the run but whose callback has not arrived yet is not lost: the
// callback completes it.
std::optional<std::string> lost_run_reason(worker_run_view view, std::int64_t unreachable_since_ms, std::int64_t now_ms,
                                           const run_recovery_policy& policy);

}  // namespace platform
