// Worker session and run retention, on the owner's time (milliseconds here).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "platform/api_error.hpp"
#include "platform/worker_retention.hpp"

namespace worker_retention_test {

using platform::app_agent_run_table;
using platform::builder_session_table;

TEST_CASE("a builder session is the app's latest, for its run only, until the TTL after it was put") {
  builder_session_table<std::string> s(15 * 60'000);
  s.put("app-1", "run-1", "session A", 0);
  REQUIRE(s.get("app-1", "run-1", 1000));
  CHECK(*s.get("app-1", "run-1", 1000) == "session A");
  CHECK(s.get("app-1", "run-2", 1000) == nullptr);  // another run of the app starts afresh
  CHECK(s.get("app-2", "run-1", 1000) == nullptr);
  s.put("app-1", "run-1", "session B", 10 * 60'000);  // a newer turn replaces it and restarts the TTL
  CHECK(*s.get("app-1", "run-1", 24 * 60'000) == "session B");
  CHECK(s.get("app-1", "run-1", 25 * 60'000 + 1) == nullptr);
  CHECK(s.size() == 0);  // expired ones are gone, not only hidden
}

TEST_CASE("every call drops the sessions past their TTL") {
  builder_session_table<int> s(100);
  s.put("a", "r", 1, 0);
  s.put("b", "r", 2, 50);
  s.tick(100);
  CHECK(s.size() == 2);  // exactly the TTL old is still kept
  s.tick(101);
  CHECK(s.size() == 1);
  CHECK(s.get("b", "r", 150) != nullptr);
  CHECK(s.get("b", "r", 151) == nullptr);
}

TEST_CASE("app-agent runs: one per key; a finished run kept for its retention, then forgotten") {
  app_agent_run_table<int> t(4, 1000);
  REQUIRE(t.admit("app__agent__r1", 1, 0));
  CHECK(t.admit("app__agent__r1", 2, 0).error().code == platform::api_error::run_exists);
  CHECK(t.running() == 1);
  t.finished("app__agent__r1", 500);
  CHECK(t.running() == 0);
  REQUIRE(t.find("app__agent__r1", 1499));
  CHECK(*t.find("app__agent__r1", 1499) == 1);
  CHECK(t.find("app__agent__r1", 1500) == nullptr);
  CHECK(t.size() == 0);
  REQUIRE(t.admit("app__agent__r1", 3, 1500));  // the id is free again
}

TEST_CASE("at capacity a new run evicts the least recently used finished run, never a running one") {
  app_agent_run_table<int> t(3, 1'000'000);
  REQUIRE(t.admit("a", 1, 0));
  REQUIRE(t.admit("b", 2, 1));
  REQUIRE(t.admit("c", 3, 2));
  CHECK(t.admit("d", 4, 3).error().code == platform::api_error::worker_busy);  // all three still run
  t.finished("a", 4);
  t.finished("b", 5);
  REQUIRE(t.find("a", 6));  // a is used again: b is now the least recently used finished run
  REQUIRE(t.admit("d", 4, 7));
  CHECK(t.find("b", 8) == nullptr);
  CHECK(t.find("a", 8) != nullptr);
  CHECK(t.find("c", 8) != nullptr);
  CHECK(t.size() == 3);
  CHECK(t.running() == 2);
}

TEST_CASE("a deleted app's session and runs go at once, running ones too; other apps keep theirs") {
  builder_session_table<std::string> s(15 * 60'000);
  s.put("app-1", "run-1", "A", 0);
  s.put("app-12", "run-1", "B", 0);
  s.forget_app("app-1");
  CHECK(s.get("app-1", "run-1", 1) == nullptr);
  CHECK(s.get("app-12", "run-1", 1) != nullptr);  // a longer id with the same start is another app
  s.forget_app("app-9");                            // none held: nothing happens
  CHECK(s.size() == 1);

  app_agent_run_table<int> t(3, 1'000'000);
  REQUIRE(t.admit("app-1__agent__r1", 1, 0));
  REQUIRE(t.admit("app-1__agent__r2", 2, 1));
  REQUIRE(t.admit("app-12__agent__r1", 3, 2));
  t.finished("app-1__agent__r1", 3);
  auto taken = t.take_prefixed("app-1__agent__");
  CHECK(taken == std::vector<int>{1, 2});
  CHECK(t.find("app-1__agent__r2", 4) == nullptr);
  CHECK(t.find("app-12__agent__r1", 4) != nullptr);
  CHECK(t.size() == 1);
  CHECK(t.running() == 1);
  // Their places are free: the least-recently-used order lost them too.
  REQUIRE(t.admit("x", 4, 5));
  REQUIRE(t.admit("y", 5, 6));
  CHECK(t.admit("z", 6, 7).error().code == platform::api_error::worker_busy);
}

}  // namespace worker_retention_test
