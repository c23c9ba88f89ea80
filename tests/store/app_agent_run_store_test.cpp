// The app agent run store on every backend (SQLite always, PostgreSQL with
// PLATFORM_TEST_PG_URL): creation with the server-resolved user, the projected summary, the
// one-time start claim, viewer stream ownership, the first-completion-wins finish, and
// {workspaceId, appId, runId} addressing.
#include <doctest/doctest.h>

#include <algorithm>
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

namespace app_agent_run_store_test {  // named: the suite is one unity build, and each file has its own helpers

std::string ar_uid(std::string_view what) { return store_test::uid("ar", what); }

using ar_backend = store_test::backend_case;

std::vector<ar_backend> ar_backends() { return store_test::backends("platform-app-agent-runs-"); }

struct ar_fixture {
  std::unique_ptr<store> db;
  std::string ws = ar_uid("ws");
  std::string app = ar_uid("app");
  std::string other_app = ar_uid("app");
  explicit ar_fixture(std::unique_ptr<store> s) : db(std::move(s)) {
    REQUIRE(db->put_workspace(ws, "Workspace", 1000));
    REQUIRE(db->create_app({app, ws, "App", "u1", "", "", "{}", 1000}));
    REQUIRE(db->create_app({other_app, ws, "Other", "u1", "", "", "{}", 1000}));
  }
  run_key new_run(bool draft = false) {
    agent_run_record r;
    r.workspace_id = ws;
    r.app_id = app;
    r.run_id = ar_uid("arun");
    r.agent_id = "helper";
    r.agent_name = "Helper";
    r.draft = draft;
    r.triggered_by_user_id = "user-7";
    r.triggered_by_user_email = "u7@example.test";
    r.prompt = "Summarize the notes";
    r.system_prompt = "You summarize.";
    r.agent_config_json = R"({"id":"helper","tools":[],"dataCollections":["notes"]})";
    r.created_at = 2000;
    // Fields a caller cannot set at creation: the store ignores them.
    r.status = agent_run_status::completed;
    r.active_stream_id = "not-yet";
    REQUIRE(db->app_agent_runs().create(r));
    return {ws, app, r.run_id};
  }
};


TEST_CASE("agent run store backends") {
  for (const auto& b : ar_backends()) {
    CAPTURE(b.name);
    SUBCASE("create: pending, triggering user and config kept; summary projects them") {
      ar_fixture f(b.open());
      auto key = f.new_run(true);
      auto run = f.db->app_agent_runs().get(key).value();
      REQUIRE(run);
      CHECK(run->status == agent_run_status::pending);
      CHECK(run->draft);
      CHECK(run->triggered_by_user_id == "user-7");
      CHECK(run->triggered_by_user_email == "u7@example.test");
      CHECK(run->prompt == "Summarize the notes");
      CHECK(run->system_prompt == "You summarize.");
      CHECK(run->agent_config_json == R"({"id":"helper","tools":[],"dataCollections":["notes"]})");
      CHECK(run->transcript_json == "[]");
      CHECK(run->messages_json == "[]");
      CHECK_FALSE(run->active_stream_id);
      CHECK_FALSE(run->result_json);
      CHECK(run->created_at == 2000);
      auto s = f.db->app_agent_runs().summary(key).value();
      REQUIRE(s);
      CHECK(s->agent_id == "helper");
      CHECK(s->agent_name == "Helper");
      CHECK(s->status == agent_run_status::pending);
      CHECK(s->started_at == 0);
    }

    SUBCASE("an app's runs list newest first as summaries, a page at a time, never another app's") {
      ar_fixture f(b.open());
      std::vector<std::string> made;
      for (int i = 0; i < 5; ++i) made.push_back(f.new_run().run_id);  // one created_at: ids order them
      std::sort(made.rbegin(), made.rend());
      std::vector<std::string> listed;
      list_page page;
      page.limit = 2;
      for (int i = 0; i < 5; ++i) {
        auto got = f.db->app_agent_runs().list(f.ws, f.app, true, page).value();
        for (const auto& s : got) {
          listed.push_back(s.run_id);
          CHECK(s.agent_name == "Helper");
          CHECK(s.triggered_by_user_id == "user-7");
        }
        if (got.size() < page.limit) break;
        page.after = list_cursor{got.back().created_at, got.back().run_id};
      }
      CHECK(listed == made);
      auto draft = f.new_run(true);
      auto all = f.db->app_agent_runs().list(f.ws, f.app, true, {}).value();
      CHECK(std::any_of(all.begin(), all.end(), [&](const agent_run_summary& s) { return s.run_id == draft.run_id; }));
      auto published = f.db->app_agent_runs().list(f.ws, f.app, false, {}).value();
      CHECK(published.size() == made.size());
      CHECK(std::none_of(published.begin(), published.end(), [](const agent_run_summary& s) { return s.draft; }));
      CHECK(f.db->app_agent_runs().list(f.ws, f.other_app, true, {}).value().empty());
      CHECK(f.db->app_agent_runs().list(ar_uid("ws"), f.app, true, {}).value().empty());
    }

    SUBCASE("runs are addressed by {workspaceId, appId, runId} only") {
      ar_fixture f(b.open());
      auto key = f.new_run();
      run_key other{f.ws, f.other_app, key.run_id};
      CHECK_FALSE(f.db->app_agent_runs().get(other).value());
      CHECK_FALSE(f.db->app_agent_runs().summary(other).value());
      CHECK_FALSE(f.db->app_agent_runs().claim_start(other, 3000).value());
      CHECK_FALSE(f.db->app_agent_runs().finish(other, {agent_run_status::completed, {}, {}, {}, "[]", "[]", 3000}).value());
      CHECK(f.db->app_agent_runs().summary(key).value()->status == agent_run_status::pending);
      agent_run_record bad;
      bad.workspace_id = ar_uid("ws");
      bad.app_id = f.app;
      bad.run_id = ar_uid("arun");
      auto e = f.db->app_agent_runs().create(bad);
      REQUIRE_FALSE(e);
      CHECK(e.error().code == platform::api_error::store_invalid);
      agent_run_record dup;
      dup.workspace_id = f.ws;
      dup.app_id = f.app;
      dup.run_id = key.run_id;
      auto d = f.db->app_agent_runs().create(dup);
      REQUIRE_FALSE(d);
      CHECK(d.error().code == platform::api_error::store_conflict);
    }

    SUBCASE("the first start claims pending → running; later starts start nothing") {
      ar_fixture f(b.open());
      auto key = f.new_run();
      CHECK(f.db->app_agent_runs().claim_start(key, 3000).value());
      CHECK_FALSE(f.db->app_agent_runs().claim_start(key, 3001).value());
      auto s = f.db->app_agent_runs().summary(key).value();
      CHECK(s->status == agent_run_status::running);
      CHECK(s->started_at == 3000);
    }

    SUBCASE("parallel starts: exactly one wins") {
      ar_fixture f(b.open());
      auto key = f.new_run();
      std::atomic<int> won{0};
      std::vector<std::thread> ts;
      for (int i = 0; i < 8; ++i) {
        ts.emplace_back([&] {
          auto r = f.db->app_agent_runs().claim_start(key, 3000);
          if (r && *r) ++won;
        });
      }
      for (auto& t : ts) t.join();
      CHECK(won == 1);
    }

    SUBCASE("a viewer stream: one owner; releasing it keeps the run going") {
      ar_fixture f(b.open());
      auto key = f.new_run();
      CHECK_FALSE(f.db->app_agent_runs().set_active_stream(key, "s1", 3000).value());  // pending: nothing to view
      REQUIRE(f.db->app_agent_runs().claim_start(key, 3000).value());
      CHECK(f.db->app_agent_runs().set_active_stream(key, "s1", 3100).value());
      CHECK_FALSE(f.db->app_agent_runs().set_active_stream(key, "s2", 3100).value());
      auto s = f.db->app_agent_runs().summary(key).value();
      CHECK(s->status == agent_run_status::streaming);
      CHECK(s->active_stream_id == "s1");
      CHECK_FALSE(f.db->app_agent_runs().clear_active_stream(key, "s2", 3200).value());
      CHECK(f.db->app_agent_runs().clear_active_stream(key, "s1", 3200).value());
      s = f.db->app_agent_runs().summary(key).value();
      CHECK(s->status == agent_run_status::running);
      CHECK_FALSE(s->active_stream_id);
      CHECK(f.db->app_agent_runs().set_active_stream(key, "s2", 3300).value());
    }

    SUBCASE("finish: first completion wins; a retry changes nothing; streams release cleanly") {
      ar_fixture f(b.open());
      auto key = f.new_run();
      REQUIRE(f.db->app_agent_runs().claim_start(key, 3000).value());
      REQUIRE(f.db->app_agent_runs().set_active_stream(key, "s1", 3100).value());
      agent_run_completion done{agent_run_status::completed, R"({"answer":42})", std::nullopt,
                                R"({"totalCostUsd":0.5,"totalInputTokens":10})", R"([{"type":"result"}])",
                                R"([{"id":"m","role":"assistant","parts":[]}])", 4000, "sess-0123"};
      CHECK(f.db->app_agent_runs().summary(key).value()->session_id == std::nullopt);
      CHECK(f.db->app_agent_runs().finish(key, done).value());
      agent_run_completion retry = done;
      retry.status = agent_run_status::failed;
      retry.error = "late";
      CHECK_FALSE(f.db->app_agent_runs().finish(key, retry).value());
      auto run = f.db->app_agent_runs().get(key).value();
      REQUIRE(run);
      CHECK(run->status == agent_run_status::completed);
      CHECK(run->result_json == R"({"answer":42})");
      CHECK_FALSE(run->error);
      CHECK(run->usage_json == R"({"totalCostUsd":0.5,"totalInputTokens":10})");
      CHECK(run->transcript_json == R"([{"type":"result"}])");
      CHECK(run->messages_json == R"([{"id":"m","role":"assistant","parts":[]}])");
      CHECK(run->finished_at == 4000);
      CHECK(run->session_id == "sess-0123");
      CHECK(f.db->app_agent_runs().summary(key).value()->session_id == "sess-0123");
      // The viewer that still held its stream lets go; the run stays completed.
      CHECK(f.db->app_agent_runs().clear_active_stream(key, "s1", 4100).value());
      CHECK(f.db->app_agent_runs().summary(key).value()->status == agent_run_status::completed);
      CHECK_FALSE(f.db->app_agent_runs().set_active_stream(key, "s3", 4200).value());
      CHECK_FALSE(f.db->app_agent_runs().claim_start(key, 4200).value());
      auto bad = f.db->app_agent_runs().finish(key, {agent_run_status::running, {}, {}, {}, "[]", "[]", 1});
      REQUIRE_FALSE(bad);
      CHECK(bad.error().code == platform::api_error::store_invalid);
    }

    SUBCASE("unfinished: started runs that have not ended, oldest start first, across workspaces") {
      ar_fixture f(b.open());
      auto pending = f.new_run();
      auto early = f.new_run();
      // A run of another workspace of the same store.
      std::string other_ws = ar_uid("ws"), other_app = ar_uid("app");
      REQUIRE(f.db->put_workspace(other_ws, "Other", 1000));
      REQUIRE(f.db->create_app({other_app, other_ws, "App", "u1", "", "", "{}", 1000}));
      agent_run_record elsewhere;
      elsewhere.workspace_id = other_ws;
      elsewhere.app_id = other_app;
      elsewhere.run_id = ar_uid("arun");
      elsewhere.created_at = 2000;
      REQUIRE(f.db->app_agent_runs().create(elsewhere));
      run_key late{other_ws, other_app, elsewhere.run_id};
      auto done = f.new_run();
      auto streaming = f.new_run();
      REQUIRE(f.db->app_agent_runs().claim_start(early, 5000).value());
      REQUIRE(f.db->app_agent_runs().claim_start(late, 7000).value());
      REQUIRE(f.db->app_agent_runs().claim_start(done, 5000).value());
      REQUIRE(f.db->app_agent_runs().claim_start(streaming, 6000).value());
      REQUIRE(f.db->app_agent_runs().set_active_stream(streaming, "s1", 6100).value());
      REQUIRE(f.db->app_agent_runs().finish(done, {agent_run_status::completed, {}, {}, {}, "[]", "[]", 6500}).value());
      auto ids = [](const std::vector<agent_run_summary>& v) {
        std::vector<std::string> out;
        for (const auto& s : v) out.push_back(s.run_id);
        return out;
      };
      auto mine = [&](std::vector<std::string> all) {  // other tests' runs share the PostgreSQL store
        std::vector<std::string> out;
        for (auto& id : all) {
          if (id == early.run_id || id == late.run_id || id == streaming.run_id || id == done.run_id || id == pending.run_id) {
            out.push_back(id);
          }
        }
        return out;
      };
      CHECK(mine(ids(f.db->app_agent_runs().unfinished(8000, 1000).value())) ==
            std::vector<std::string>{early.run_id, streaming.run_id, late.run_id});
      CHECK(mine(ids(f.db->app_agent_runs().unfinished(6500, 1000).value())) ==
            std::vector<std::string>{early.run_id, streaming.run_id});
      CHECK(mine(ids(f.db->app_agent_runs().unfinished(5000, 1000).value())).empty());
    }

    SUBCASE("a pending run can fail (its worker start failed)") {
      ar_fixture f(b.open());
      auto key = f.new_run();
      CHECK(f.db->app_agent_runs().finish(key, {agent_run_status::failed, {}, "worker unreachable", {}, "[]", "[]", 3000}).value());
      auto s = f.db->app_agent_runs().summary(key).value();
      CHECK(s->status == agent_run_status::failed);
      CHECK(s->error == "worker unreachable");
      CHECK_FALSE(f.db->app_agent_runs().claim_start(key, 3100).value());
    }
  }
}

}  // namespace app_agent_run_store_test
