// The tool audit store on every backend (SQLite always, PostgreSQL with PLATFORM_TEST_PG_URL):
// events newest first per app, and the repair loop guard's bound per fingerprint and window,
// also under racing admissions.
#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "adapters/sql_store.hpp"
#include "store_backends.hpp"

using namespace platform;
namespace fs = std::filesystem;

namespace audit_store_test {  // named: the suite is one unity build, and each file has its own helpers

std::string au_uid(std::string_view what) { return store_test::uid("au", what); }

std::vector<std::pair<std::string, std::function<std::unique_ptr<store>()>>> au_backends() {
  std::vector<std::pair<std::string, std::function<std::unique_ptr<store>()>>> out;
  for (auto& b : store_test::backends("platform-audit-", false)) out.emplace_back(b.name, b.open);
  return out;
}

audit_event event(const std::string& ws, const std::string& app, const std::string& id, std::int64_t at) {
  return {id, ws, app, "tool_failure_report", "user:u1", "crm_search", "fp", "repair_started", "run_1",
          R"({"errorCode":"MISSING_INPUT"})", at};
}


TEST_CASE("audit store") {
  for (auto& [name, open] : au_backends()) {
    CAPTURE(name);
    auto db = open();
    std::string ws = au_uid("ws"), app = au_uid("app"), other = au_uid("app");

    SUBCASE("events are listed newest first, per app") {
      REQUIRE(db->audit().record(event(ws, app, au_uid("e"), 100)));
      REQUIRE(db->audit().record(event(ws, app, au_uid("e"), 300)));
      REQUIRE(db->audit().record(event(ws, other, au_uid("e"), 200)));
      auto list = db->audit().recent(ws, app, 10);
      REQUIRE(list);
      REQUIRE(list->size() == 2);
      CHECK((*list)[0].created_at == 300);
      CHECK((*list)[1].created_at == 100);
      CHECK((*list)[0].metadata_json == R"({"errorCode":"MISSING_INPUT"})");
      CHECK((*list)[0].builder_run_id == "run_1");
      CHECK_FALSE(db->audit().recent(ws, app, 0));
    }

    SUBCASE("one fingerprint starts at most max_runs repairs per window") {
      repair_admission a{ws, app, "fp-a", 1000, 60000, 2};
      CHECK(db->audit().admit_repair(a).value());
      a.now = 2000;
      CHECK(db->audit().admit_repair(a).value());
      a.now = 3000;
      CHECK_FALSE(db->audit().admit_repair(a).value());
      // Another fingerprint, another app: counted on their own.
      CHECK(db->audit().admit_repair({ws, app, "fp-b", 3000, 60000, 2}).value());
      CHECK(db->audit().admit_repair({ws, other, "fp-a", 3000, 60000, 2}).value());
      // The window is over: a new one opens.
      a.now = 1000 + 60000;
      CHECK(db->audit().admit_repair(a).value());
      a.now += 1;
      CHECK(db->audit().admit_repair(a).value());
      a.now += 1;
      CHECK_FALSE(db->audit().admit_repair(a).value());
      CHECK_FALSE(db->audit().admit_repair({ws, app, "fp-zero", 1, 60000, 0}).value());
    }

    SUBCASE("racing admissions never pass the bound") {
      std::atomic<int> admitted{0};
      std::vector<std::thread> threads;
      for (int i = 0; i < 8; ++i) {
        threads.emplace_back([&, i] {
          auto r = db->audit().admit_repair({ws, app, "fp-race", 5000 + i, 60000, 3});
          if (r && *r) ++admitted;
        });
      }
      for (auto& t : threads) t.join();
      CHECK(admitted == 3);
    }
  }
}

}  // namespace audit_store_test
