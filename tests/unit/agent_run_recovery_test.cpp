// When an app agent run counts as lost by its worker (platform/agent_run_recovery.hpp).
#include <doctest/doctest.h>

#include "platform/agent_run_recovery.hpp"

namespace agent_run_recovery_test {

using namespace platform;

TEST_CASE("a run is lost when its worker no longer holds it, or stayed unreachable past the limit") {
  run_recovery_policy p{1000};
  CHECK_FALSE(lost_run_reason(worker_run_view::running, 0, 50000, p));
  // Finished on the worker, callback on its way: the callback completes the run.
  CHECK_FALSE(lost_run_reason(worker_run_view::finished, 0, 50000, p));
  auto missing = lost_run_reason(worker_run_view::missing, 0, 50000, p);
  REQUIRE(missing);
  CHECK(missing->find("no longer holds") != std::string::npos);
  CHECK_FALSE(lost_run_reason(worker_run_view::unreachable, 49500, 50000, p));  // not long enough yet
  CHECK_FALSE(lost_run_reason(worker_run_view::unreachable, 0, 50000, p));      // first failed probe
  auto gone = lost_run_reason(worker_run_view::unreachable, 40000, 50000, p);
  REQUIRE(gone);
  CHECK(gone->find("unreachable for 10 s") != std::string::npos);
}

}  // namespace agent_run_recovery_test
