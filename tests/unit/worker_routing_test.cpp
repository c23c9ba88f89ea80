// Workers scale out: an app's worker order (rendezvous), failover to the next worker in the
// app's own order, only the failed worker's apps move, and the source digest that tells a
// stale workspace.
#include <doctest/doctest.h>

#include <algorithm>

#include <map>
#include <string>
#include <vector>

#include "platform/source_digest.hpp"
#include "platform/worker_routing.hpp"

namespace worker_routing_test {

using namespace platform;
using av = worker_availability;

namespace {
const std::vector<std::string> workers = {"http://127.0.0.1:9001", "http://127.0.0.1:9002", "http://127.0.0.1:9003"};
std::size_t first(std::string_view app, std::vector<av> states) { return rank_workers(app, workers, states).front(); }
}  // namespace

TEST_CASE("an app's order is the same for every caller and covers every worker once") {
  std::vector<av> up(3, av::up);
  auto a = rank_workers("app-1", workers, up);
  auto b = rank_workers("app-1", workers, up);
  CHECK(a == b);
  std::vector<std::size_t> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  CHECK(sorted == std::vector<std::size_t>{0, 1, 2});
}

TEST_CASE("apps spread over the workers") {
  std::vector<av> up(3, av::up);
  std::map<std::size_t, int> count;
  for (int i = 0; i < 3000; ++i) ++count[first("app-" + std::to_string(i), up)];
  REQUIRE(count.size() == 3);
  for (const auto& [w, n] : count) CHECK(n > 800);  // 1000 each on average
}

TEST_CASE("a worker that is down or draining gives up only its own apps, each to its next worker") {
  std::vector<av> up(3, av::up);
  for (av lost : {av::down, av::draining}) {
    std::vector<av> states = {av::up, lost, av::up};
    for (int i = 0; i < 500; ++i) {
      std::string app = "app-" + std::to_string(i);
      auto before = rank_workers(app, workers, up);
      auto after = rank_workers(app, workers, states);
      if (before.front() != 1) {
        CHECK(after.front() == before.front());  // unaffected apps stay
      } else {
        CHECK(after.front() == before[1]);       // the app's own second choice
        CHECK(after.back() == 1);
      }
    }
  }
}

TEST_CASE("up before draining before down, whatever the scores") {
  auto order = rank_workers("app-x", workers, std::vector<av>{av::down, av::draining, av::up});
  CHECK(order == std::vector<std::size_t>{2, 1, 0});
  // A missing availability counts as down.
  auto partial = rank_workers("app-x", workers, std::vector<av>{av::up});
  CHECK(partial.front() == 0);
}

TEST_CASE("a worker's health answer") {
  CHECK(availability_from_health(R"({"ok":true,"sessions":0})") == av::up);
  CHECK(availability_from_health(R"({"ok":true,"draining":false})") == av::up);
  CHECK(availability_from_health(R"({"ok":true,"draining":true})") == av::draining);
  CHECK(availability_from_health(R"({"ok":false})") == av::down);
  CHECK(availability_from_health("<html>") == av::down);
  CHECK(availability_from_health("") == av::down);
  CHECK(availability_from_health(R"({"draining":"yes","ok":true})") == av::up);
}

TEST_CASE("the source digest follows paths and contents and tells file sets apart") {
  std::map<std::string, std::string> a = {{"src/App.tsx", "x"}, {"package.json", "{}"}};
  auto d = source_digest(a);
  CHECK(d.rfind("sha256:", 0) == 0);
  CHECK(d.size() == 7 + 64);
  CHECK(source_digest(a) == d);
  auto b = a;
  b["src/App.tsx"] = "y";
  CHECK(source_digest(b) != d);
  auto c = a;
  c.erase("package.json");
  CHECK(source_digest(c) != d);
  // Moving bytes between a path and its content is another file set.
  CHECK(source_digest({{"ab", "c"}}) != source_digest({{"a", "bc"}}));
  CHECK(source_digest({}) != d);
}

TEST_CASE("a worker's workspace takes an app's turn unless the draft is missing there or newer") {
  const std::string draft = "sha256:aa";
  // A draft and no workspace: a turn on the template would replace the draft afterwards.
  CHECK(check_workspace(true, false, draft, std::nullopt) == workspace_verdict::missing);
  CHECK(check_workspace(true, false, "", std::nullopt) == workspace_verdict::missing);
  // A workspace whose digest differs from the draft's is a stale copy.
  CHECK(check_workspace(true, true, draft, std::string("sha256:bb")) == workspace_verdict::stale);
  // The same digest, no digest sent, or one that could not be read: the turn goes ahead.
  CHECK(check_workspace(true, true, draft, draft) == workspace_verdict::ready);
  CHECK(check_workspace(true, true, "", std::string("sha256:bb")) == workspace_verdict::ready);
  CHECK(check_workspace(true, true, draft, std::nullopt) == workspace_verdict::ready);
  // A new app (no draft yet) starts from the template wherever it is.
  CHECK(check_workspace(false, false, "", std::nullopt) == workspace_verdict::ready);
}

}  // namespace worker_routing_test
