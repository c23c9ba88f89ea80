#include "runtime_turn.hpp"

#include "runtime_a.hpp"
#include "runtime_b.hpp"
#include "runtime_c.hpp"
#include "runtime_ready.hpp"
#include "platform/api_error.hpp"

namespace platform::worker {

result<std::unique_ptr<runtime_turn>> start_runtime_turn(const config& cfg, const turn_request& req) {
  // Without credentials a CLI would start and retry a provider for half a minute or more
  // before failing; refused here, the person reads why at once. A CLI that cannot run at all
  // keeps its runtime's own `runtime_not_available`.
  if (auto ready = runtime_ready(cfg, req.runtime_id, req.model); !ready.ready() && ready.gap != readiness_gap::not_usable) {
    return fail(api_error::runtime_not_ready, ready.reason);
  }
  if (req.runtime_id == "runtime-a") return runtime_a_turn::start(cfg, req);
  if (req.runtime_id == "runtime-b") return start_runtime_b_turn(cfg, req);
  if (req.runtime_id == "runtime-c") return runtime_c_turn::start(cfg, req);
  return fail(api_error::runtime_not_available, "this worker cannot run " + req.runtime_id + " yet");
}

}  // namespace platform::worker
