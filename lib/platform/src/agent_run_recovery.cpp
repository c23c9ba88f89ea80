#include "platform/agent_run_recovery.hpp"

namespace platform {

std::optional<std::string> lost_run_reason(worker_run_view view, std::int64_t unreachable_since_ms, std::int64_t now_ms,
                                           const run_recovery_policy& policy) {
  switch (view) {
    case worker_run_view::running:
    case worker_run_view::finished:
      return std::nullopt;
    case worker_run_view::missing:
      return "The worker no longer holds this run (it restarted or stopped), so the run cannot finish.";
    case worker_run_view::unreachable:
      if (unreachable_since_ms > 0 && now_ms - unreachable_since_ms >= policy.unreachable_limit_ms) {
        return "The worker running this run has been unreachable for " +
               std::to_string((now_ms - unreachable_since_ms) / 1000) + " s, so the run cannot finish.";
      }
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace platform
