#include <doctest/doctest.h>

#include <string>

#include "platform/api_error.hpp"
#include "platform/run_capability.hpp"

namespace run_capability_test {

using namespace platform;

namespace {
const std::string key(32, '\x07');
const run_tuple turn{run_kind::builder_turn, "ws1", "app-a", "run-1"};
}  // namespace

TEST_CASE("a run's capability verifies for exactly its own tuple and kind") {
  std::string cap = run_capability(key, turn);
  CHECK(cap.rfind("rc1.", 0) == 0);
  CHECK(cap.size() == 4 + 64);
  CHECK(verify_run_capability(key, cap, turn).has_value());
  // Another app, workspace, run or kind: each field is bound.
  for (const run_tuple& other : {run_tuple{run_kind::builder_turn, "ws1", "app-b", "run-1"},
                                 run_tuple{run_kind::builder_turn, "ws2", "app-a", "run-1"},
                                 run_tuple{run_kind::builder_turn, "ws1", "app-a", "run-2"},
                                 run_tuple{run_kind::agent_run, "ws1", "app-a", "run-1"}}) {
    auto r = verify_run_capability(key, cap, other);
    REQUIRE_FALSE(r.has_value());
    CHECK(is(r.error(), api_error::invalid_run_capability));
  }
}

TEST_CASE("the fields cannot be shifted into one another") {
  // ("ws", "a\nb", "c") and ("ws\na", "b", "c") sign the same text; neither is a run, and
  // neither verifies, so a capability of one can never stand for the other.
  run_tuple a{run_kind::builder_turn, "ws", "a\nb", "c"};
  run_tuple b{run_kind::builder_turn, "ws\na", "b", "c"};
  CHECK_FALSE(verify_run_capability(key, run_capability(key, a), a).has_value());
  CHECK_FALSE(verify_run_capability(key, run_capability(key, a), b).has_value());
  CHECK_FALSE(verify_run_capability(key, run_capability(key, turn), run_tuple{run_kind::builder_turn, "", "app-a", "run-1"}).has_value());
}

TEST_CASE("missing, truncated, forged or another key's capabilities are refused") {
  std::string cap = run_capability(key, turn);
  CHECK_FALSE(verify_run_capability(key, "", turn).has_value());
  CHECK_FALSE(verify_run_capability(key, cap.substr(0, cap.size() - 1), turn).has_value());
  std::string flipped = cap;
  flipped.back() = flipped.back() == '0' ? '1' : '0';
  CHECK_FALSE(verify_run_capability(key, flipped, turn).has_value());
  CHECK_FALSE(verify_run_capability(std::string(32, '\x08'), cap, turn).has_value());
  auto r = verify_run_capability(key, "", turn);
  CHECK(r.error().message.find("X-Run-Capability") != std::string::npos);
}

TEST_CASE("same_run_capability: equal, non-empty") {
  CHECK(same_run_capability("rc1.ab", "rc1.ab"));
  CHECK_FALSE(same_run_capability("rc1.ab", "rc1.ac"));
  CHECK_FALSE(same_run_capability("rc1.ab", "rc1.a"));
  CHECK_FALSE(same_run_capability("", ""));
}

}  // namespace run_capability_test
