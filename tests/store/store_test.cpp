// One test suite for every store backend: SQLite in memory and in a file always, PostgreSQL
// when PLATFORM_TEST_PG_URL names a server (required when PLATFORM_TEST_REQUIRE_SERVICES=1).
// Ids carry a per-process random prefix so runs against a shared server never collide.
#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <libpq-fe.h>

#include "adapters/sql_store.hpp"
#include "platform/api_error.hpp"
#include "platform/builder_run.hpp"
#include "platform/secret_box.hpp"

using namespace platform;
namespace fs = std::filesystem;

namespace store_rules_test {  // named: the suite is one unity build, and each file has its own helpers

std::string prefix() {
  static const std::string p = [] {
    std::random_device rd;
    return "t" + std::to_string(rd()) + "-";
  }();
  return p;
}

std::string uid(std::string_view what) {
  static std::atomic<int> n{0};
  return prefix() + std::string(what) + std::to_string(++n);
}

struct backend_case {
  std::string name;
  std::function<std::unique_ptr<store>()> open;
};

std::vector<backend_case> backends() {
  std::vector<backend_case> out;
  out.push_back({"sqlite-memory", [] { return open_sqlite_store(":memory:").value(); }});
  out.push_back({"sqlite-file", [] {
                   static fs::path dir = fs::temp_directory_path() / ("platform-store-" + prefix());
                   fs::create_directories(dir);
                   return open_sqlite_store((dir / "platform.db").string()).value();
                 }});
  const char* pg = std::getenv("PLATFORM_TEST_PG_URL");
  if (pg && *pg) {
    std::string url = pg;
    out.push_back({"postgres", [url] { return open_postgres_store(url, 8).value(); }});
  }
  return out;
}

// A workspace with an app, ready for runs.
struct fixture {
  std::unique_ptr<store> db;
  std::string ws = uid("ws");
  std::string app = uid("app");
  explicit fixture(std::unique_ptr<store> s) : db(std::move(s)) {
    REQUIRE(db->put_workspace(ws, "Workspace", 1000));
    REQUIRE(db->create_app({app, ws, "App", "u1", "", "", "{}", 1000}));
  }
  run_key new_run(std::string reason = "") {
    run_key k{ws, app, uid("run")};
    builder_run_record r;
    r.key = k;
    r.run_reason = std::move(reason);
    r.created_at = 2000;
    REQUIRE(db->create_builder_run(r));
    return k;
  }
};

claim_request claim(std::int64_t incoming, std::string token, std::int64_t now = 3000, std::int64_t lease_until = 0) {
  return {incoming, std::move(token), now, lease_until ? lease_until : now + 30000, std::nullopt};
}


TEST_CASE("the PostgreSQL suite runs when services are required") {
  const char* required = std::getenv("PLATFORM_TEST_REQUIRE_SERVICES");
  if (required && std::string(required) == "1") {
    const char* pg = std::getenv("PLATFORM_TEST_PG_URL");
    CHECK_MESSAGE((pg && *pg), "PLATFORM_TEST_PG_URL must name the test PostgreSQL server");
  }
}

TEST_CASE("claim rule: classify_claim follows the builder run state table") {
  CHECK(classify_claim(run_status::pending, 0, 1) == claim_outcome::claimed);
  CHECK(classify_claim(run_status::streaming, 1, 3) == claim_outcome::duplicate);
  CHECK(classify_claim(run_status::completed, 2, 3) == claim_outcome::claimed);
  CHECK(classify_claim(run_status::failed, 2, 3) == claim_outcome::claimed);
  CHECK(classify_claim(run_status::completed, 2, 2) == claim_outcome::stale);
  CHECK(classify_claim(run_status::failed, 4, 1) == claim_outcome::stale);
  CHECK(turn_end_status({true, false, false, false, true}) == run_status::completed);
  CHECK(turn_end_status({false, true, false, false, true}) == run_status::completed);
  CHECK(turn_end_status({false, false, false, false, true}) == run_status::failed);
  CHECK(turn_end_status({false, false, false, false, false}) == run_status::completed);
  CHECK(turn_end_status({true, false, true, false, true}) == run_status::failed);
  CHECK(turn_end_status({true, false, false, true, true}) == run_status::failed);
}

TEST_CASE("store backends") {
  for (const auto& b : backends()) {
    CAPTURE(b.name);
    SUBCASE("users, workspaces and memberships") {
      auto db = b.open();
      std::string u = uid("user"), ws = uid("ws");
      REQUIRE(db->put_user({u, "a@example.test", "A"}));
      REQUIRE(db->put_user({u, "b@example.test", "B"}));  // update in place
      auto got = db->get_user(u).value();
      REQUIRE(got);
      CHECK(got->email == "b@example.test");
      CHECK_FALSE(db->get_user(uid("nobody")).value());
      CHECK_FALSE(db->workspace_exists(ws).value());
      REQUIRE(db->put_workspace(ws, "W", 1));
      CHECK(db->workspace_exists(ws).value());
      CHECK_FALSE(db->membership(ws, u).value());
      REQUIRE(db->set_membership(ws, u, workspace_role::collaborator));
      CHECK(db->membership(ws, u).value() == workspace_role::collaborator);
      REQUIRE(db->set_membership(ws, u, workspace_role::admin));
      CHECK(db->membership(ws, u).value() == workspace_role::admin);
      auto missing_ws = db->set_membership(uid("ws"), u, workspace_role::viewer);
      CHECK_FALSE(missing_ws);
    }

    SUBCASE("removing a member takes their OAuth accounts of that workspace with them, nothing else") {
      auto db = b.open();
      secrets_key key;
      key.bytes.fill(static_cast<std::uint8_t>('m'));
      db->integrations().install_secrets_key(key);
      std::string u = uid("user"), stays = uid("stays"), ws = uid("ws"), other_ws = uid("ws");
      REQUIRE(db->put_workspace(ws, "W", 1));
      REQUIRE(db->put_workspace(other_ws, "V", 1));
      for (const auto& [w, who] : {std::pair{ws, u}, std::pair{ws, stays}, std::pair{other_ws, u}}) {
        REQUIRE(db->set_membership(w, who, workspace_role::collaborator));
        REQUIRE(db->integrations().put_account({w, "app1", "acme", who}, {"at", std::string("rt"), 0, {"read"}}, 2));
      }
      CHECK(db->remove_membership(ws, u).value());
      CHECK_FALSE(db->membership(ws, u).value());
      CHECK_FALSE(db->integrations().get_account({ws, "app1", "acme", u}).value());
      // Another member, and the same person in another workspace, keep theirs.
      CHECK(db->membership(ws, stays).value() == workspace_role::collaborator);
      CHECK(db->integrations().get_account({ws, "app1", "acme", stays}).value());
      CHECK(db->membership(other_ws, u).value() == workspace_role::collaborator);
      CHECK(db->integrations().get_account({other_ws, "app1", "acme", u}).value());
      CHECK_FALSE(db->remove_membership(ws, u).value());  // not a member any more
    }

    SUBCASE("a new workspace comes with its owner; lists of workspaces and members") {
      auto db = b.open();
      std::string owner = uid("owner"), other = uid("other"), ws = uid("ws");
      REQUIRE(db->put_user({owner, "o@example.test", "O"}));
      REQUIRE(db->create_workspace(ws, "Team", owner, 5));
      CHECK(db->membership(ws, owner).value() == workspace_role::owner);
      auto again = db->create_workspace(ws, "Team 2", other, 6);
      REQUIRE_FALSE(again);
      CHECK(again.error().code == platform::api_error::store_conflict);
      // The failed create left nothing behind: no membership for the second caller.
      CHECK_FALSE(db->membership(ws, other).value());
      REQUIRE(db->set_membership(ws, other, workspace_role::viewer));
      auto mine = db->workspaces_of(owner).value();
      REQUIRE(mine.size() == 1);
      CHECK(mine[0].id == ws);
      CHECK(mine[0].name == "Team");
      CHECK(mine[0].role == workspace_role::owner);
      CHECK(db->workspaces_of(uid("nobody")).value().empty());
      auto people = db->members(ws).value();
      REQUIRE(people.size() == 2);
      for (const auto& m : people) {
        if (m.user.id == owner) {
          CHECK(m.user.email == "o@example.test");
          CHECK(m.role == workspace_role::owner);
        } else {
          CHECK(m.user.id == other);
          CHECK(m.user.email.empty());  // never signed in yet
          CHECK(m.role == workspace_role::viewer);
        }
      }
    }

    SUBCASE("apps belong to one workspace; ids are unique") {
      fixture f(b.open());
      auto a = f.db->get_app(f.ws, f.app).value();
      REQUIRE(a);
      CHECK(a->created_by == "u1");
      CHECK_FALSE(f.db->get_app(uid("other-ws"), f.app).value());
      auto again = f.db->create_app({f.app, f.ws, "Again", "u2", "", "", "{}", 1});
      REQUIRE_FALSE(again);
      CHECK(again.error().code == platform::api_error::store_conflict);
    }

    SUBCASE("apps list newest first, a page at a time, each with its latest builder run") {
      fixture f(b.open());
      // Two apps created in the same millisecond: the id breaks the tie, and no page repeats
      // or skips one.
      std::string second = uid("app"), third = uid("app");
      REQUIRE(f.db->create_app({second, f.ws, "Second", "u1", "runtime-b", "gpt-x", "{}", 3000}));
      REQUIRE(f.db->create_app({third, f.ws, "Third", "u1", "", "", "{}", 3000}));
      REQUIRE(f.db->create_app({uid("app"), f.ws, "Fourth", "u2", "", "", "{}", 4000}));
      std::vector<std::string> names;
      list_page page;
      page.limit = 2;
      for (int i = 0; i < 5; ++i) {
        auto got = f.db->list_apps(f.ws, page).value();
        for (const auto& l : got) names.push_back(l.app.name);
        if (got.size() < page.limit) break;
        page.after = list_cursor{got.back().app.created_at, got.back().app.id};
      }
      std::vector<std::string> want{"Fourth", third > second ? "Third" : "Second", third > second ? "Second" : "Third", "App"};
      CHECK(names == want);
      CHECK(f.db->list_apps(uid("ws"), {}).value().empty());

      auto none = f.db->list_apps(f.ws, {}).value();
      for (const auto& l : none) CHECK_FALSE(l.latest_run);
      auto older = f.new_run();
      builder_run_record repair;
      repair.key = {f.ws, f.app, uid("run")};
      repair.run_reason = "app_tool_failure";
      repair.created_at = 9000;
      REQUIRE(f.db->create_builder_run(repair));
      REQUIRE(f.db->claim_builder_run(older, claim(1, "t1")).value() == claim_outcome::claimed);
      REQUIRE(f.db->end_turn(older, "t1", {run_status::completed, std::string(R"([{"id":"m1","role":"user","parts":[]}])"), 1, 3100}).value());
      auto listed = f.db->list_apps(f.ws, {}).value();
      const app_listing* mine = nullptr;
      for (const auto& l : listed) {
        if (l.app.id == f.app) mine = &l;
      }
      REQUIRE(mine);
      REQUIRE(mine->latest_run);
      CHECK(mine->latest_run->key.run_id == repair.key.run_id);
      CHECK(mine->latest_run->run_reason == "app_tool_failure");
      CHECK(mine->latest_run->status == run_status::pending);

      // The app's builder runs, newest first, projected: no messages.
      auto runs = f.db->list_builder_runs(f.ws, f.app, {}).value();
      REQUIRE(runs.size() == 2);
      CHECK(runs[0].key.run_id == repair.key.run_id);
      CHECK(runs[1].key.run_id == older.run_id);
      CHECK(runs[1].status == run_status::completed);
      CHECK(runs[1].message_count == 1);
      CHECK(runs[1].messages_json == "[]");
      list_page one;
      one.limit = 1;
      one.after = list_cursor{runs[0].created_at, runs[0].key.run_id};
      auto next = f.db->list_builder_runs(f.ws, f.app, one).value();
      REQUIRE(next.size() == 1);
      CHECK(next[0].key.run_id == older.run_id);
      CHECK(f.db->list_builder_runs(f.ws, uid("app"), {}).value().empty());
      CHECK(f.db->list_builder_runs(uid("ws"), f.app, {}).value().empty());
    }

    SUBCASE("an app's name and runtime settings change in place") {
      fixture f(b.open());
      auto a = f.db->get_app(f.ws, f.app).value().value();
      a.name = "Renamed";
      a.runtime_id = "runtime-b";
      a.runtime_model = "gpt-5.5";
      a.runtime_params_json = R"({"reasoningEffort":"high"})";
      CHECK(f.db->update_app(a).value());
      auto got = f.db->get_app(f.ws, f.app).value().value();
      CHECK(got.name == "Renamed");
      CHECK(got.runtime_id == "runtime-b");
      CHECK(got.runtime_model == "gpt-5.5");
      CHECK(got.runtime_params_json == R"({"reasoningEffort":"high"})");
      CHECK(got.created_by == "u1");
      a.workspace_id = uid("ws");
      CHECK_FALSE(f.db->update_app(a).value());  // another workspace's app of that id: none
    }

    SUBCASE("runs are loaded only through their own workspace and app") {
      fixture f(b.open());
      auto k = f.new_run();
      auto run = f.db->get_builder_run(k).value();
      REQUIRE(run);
      CHECK(run->status == run_status::pending);
      CHECK(run->messages_json == "[]");
      CHECK(run->message_count == 0);
      CHECK_FALSE(run->active_stream_id);
      CHECK_FALSE(run->usage);
      CHECK_FALSE(f.db->get_builder_run({f.ws, uid("other-app"), k.run_id}).value());
      CHECK_FALSE(f.db->get_builder_run({uid("other-ws"), f.app, k.run_id}).value());
      // A run cannot be created under an app of another workspace.
      builder_run_record r;
      r.key = {uid("other-ws"), f.app, uid("run")};
      auto bad = f.db->create_builder_run(r);
      REQUIRE_FALSE(bad);
      CHECK(bad.error().code == platform::api_error::store_invalid);
      // Nor claimed through another app's route.
      CHECK(f.db->claim_builder_run({f.ws, uid("other-app"), k.run_id}, claim(1, "x")).value() ==
            claim_outcome::not_found);
    }

    SUBCASE("claim, stream, end: the state table") {
      fixture f(b.open());
      auto k = f.new_run();
      CHECK(f.db->claim_builder_run(k, claim(1, "A")).value() == claim_outcome::claimed);
      CHECK(f.db->claim_builder_run(k, claim(1, "B")).value() == claim_outcome::duplicate);
      CHECK(f.db->builder_run_stream(k).value()->active_stream_id == std::nullopt);
      CHECK(f.db->set_active_stream(k, "A", "stream-1", 3100).value());
      CHECK_FALSE(f.db->set_active_stream(k, "B", "stream-2", 3100).value());
      auto state = f.db->builder_run_stream(k).value();
      REQUIRE(state);
      CHECK(state->status == run_status::streaming);
      CHECK(state->active_stream_id == std::optional<std::string>("stream-1"));
      CHECK_FALSE(f.db->builder_run_stream({f.ws, uid("app"), k.run_id}).value());
      auto run = f.db->get_builder_run(k).value();
      CHECK(run->status == run_status::streaming);
      CHECK(run->active_stream_id == std::optional<std::string>("stream-1"));
      CHECK(f.db->renew_lease(k, "A", 99999).value());
      CHECK_FALSE(f.db->renew_lease(k, "B", 99999).value());
      CHECK_FALSE(f.db->end_turn(k, "B", {run_status::completed, "[1]", 1, 4000}).value());
      CHECK(f.db->end_turn(k, "A", {run_status::completed, R"([{"id":"u1"},{"id":"a1"}])", 2, 4000}).value());
      CHECK_FALSE(f.db->end_turn(k, "A", {run_status::failed, "[]", 0, 4001}).value());  // once only
      run = f.db->get_builder_run(k).value();
      CHECK(run->status == run_status::completed);
      CHECK(run->message_count == 2);
      CHECK(run->messages_json == R"([{"id":"u1"},{"id":"a1"}])");
      CHECK_FALSE(run->active_stream_id);
      CHECK(run->claim_token.empty());
      CHECK(run->updated_at == 4000);

      // Stale: a shorter or equal list never claims, history untouched.
      CHECK(f.db->claim_builder_run(k, claim(2, "C")).value() == claim_outcome::stale);
      CHECK(f.db->claim_builder_run(k, claim(1, "C")).value() == claim_outcome::stale);
      CHECK(f.db->get_builder_run(k).value()->messages_json == R"([{"id":"u1"},{"id":"a1"}])");
      // A longer list continues the conversation; a failed turn keeps the history when no
      // messages are given.
      CHECK(f.db->claim_builder_run(k, claim(3, "D")).value() == claim_outcome::claimed);
      CHECK(run->stop_reason.empty());
      CHECK(f.db->end_turn(k, "D", {run_status::failed, std::nullopt, 0, 5000, "user"}).value());
      run = f.db->get_builder_run(k).value();
      CHECK(run->status == run_status::failed);
      CHECK(run->stop_reason == "user");
      CHECK(run->message_count == 2);
      CHECK(f.db->list_builder_runs(k.workspace_id, k.app_id, {}).value().front().stop_reason == "user");
      // A refused runtime's reason keeps its sentence, in the record and the list alike.
      CHECK(f.db->claim_builder_run(k, claim(3, "D2")).value() == claim_outcome::claimed);
      CHECK(f.db->end_turn(k, "D2", {run_status::failed, std::nullopt, 0, 5050, "runtime_not_ready", "Codex has no key."}).value());
      CHECK(f.db->get_builder_run(k).value()->stop_message == "Codex has no key.");
      CHECK(f.db->list_builder_runs(k.workspace_id, k.app_id, {}).value().front().stop_message == "Codex has no key.");
      // The next turn's end says its own: a completed turn has none.
      CHECK(f.db->claim_builder_run(k, claim(3, "E")).value() == claim_outcome::claimed);
      CHECK(f.db->end_turn(k, "E", {run_status::completed, std::nullopt, 0, 5100}).value());
      CHECK(f.db->get_builder_run(k).value()->stop_reason.empty());
      CHECK(f.db->get_builder_run(k).value()->stop_message.empty());
    }

    SUBCASE("a claim that carries the client's messages persists them: shown while streaming, kept by a dead turn") {
      fixture f(b.open());
      auto k = f.new_run();
      auto with_messages = claim(1, "A");
      with_messages.messages_json = R"([{"id":"u1"}])";
      CHECK(f.db->claim_builder_run(k, with_messages).value() == claim_outcome::claimed);
      auto run = f.db->get_builder_run(k).value();
      CHECK(run->status == run_status::streaming);
      CHECK(run->message_count == 1);
      CHECK(run->messages_json == R"([{"id":"u1"}])");
      // A duplicate's messages change nothing.
      auto dup = claim(1, "B");
      dup.messages_json = R"([{"id":"other"}])";
      CHECK(f.db->claim_builder_run(k, dup).value() == claim_outcome::duplicate);
      CHECK(f.db->get_builder_run(k).value()->messages_json == R"([{"id":"u1"}])");
      // The turn dies without an answer: the user's message stays, so the same list is stale
      // and only a longer one continues.
      CHECK(f.db->end_turn(k, "A", {run_status::failed, std::nullopt, 0, 5000}).value());
      run = f.db->get_builder_run(k).value();
      CHECK(run->messages_json == R"([{"id":"u1"}])");
      CHECK(f.db->claim_builder_run(k, claim(1, "C")).value() == claim_outcome::stale);
      CHECK(f.db->claim_builder_run(k, claim(2, "D")).value() == claim_outcome::claimed);
    }

    SUBCASE("preview builds: stored once by digest (any bytes), served by path; an app's preview moves on") {
      fixture f(b.open());
      std::string digest = "sha256:" + uid("d");
      std::string binary("\x00\xff\x89PNG\r\n\x1a\n", 10);
      CHECK_FALSE(f.db->previews().has_build(digest).value());
      REQUIRE(f.db->previews().put_build(digest, {{"index.html", "<!doctype html>"}, {"assets/logo.png", binary}}, 5000));
      CHECK(f.db->previews().has_build(digest).value());
      CHECK(f.db->previews().file(digest, "assets/logo.png").value() == std::optional<std::string>(binary));
      CHECK_FALSE(f.db->previews().file(digest, "assets/other.png").value());
      CHECK_FALSE(f.db->previews().file("sha256:unknown", "index.html").value());
      // The same digest again (another replica, a retry): nothing changes, no conflict.
      REQUIRE(f.db->previews().put_build(digest, {{"index.html", "changed?"}}, 6000));
      CHECK(f.db->previews().file(digest, "index.html").value() == std::optional<std::string>("<!doctype html>"));
      CHECK_FALSE(f.db->previews().put_build("sha256:x", {}, 6000));

      const auto draft = source_scope::draft;
      const auto published = source_scope::published;
      CHECK_FALSE(f.db->previews().app_preview_of(f.ws, f.app, draft).value());
      CHECK_FALSE(f.db->previews().publish_preview(f.ws, f.app, 7000).value());  // nothing built yet
      REQUIRE(f.db->previews().set_app_preview(f.ws, f.app, draft, digest, 7000));
      CHECK(f.db->previews().app_preview_of(f.ws, f.app, draft).value()->made_by.run_id.empty());
      REQUIRE(f.db->previews().set_app_preview(f.ws, f.app, draft, "sha256:newer", 8000, {"run-7", "Add a due date to each task"}));
      auto p = f.db->previews().app_preview_of(f.ws, f.app, draft).value();
      REQUIRE(p);
      CHECK(p->digest == "sha256:newer");
      CHECK(p->updated_at == 8000);
      CHECK(p->made_by.run_id == "run-7");
      CHECK(p->made_by.request == "Add a due date to each task");
      CHECK_FALSE(f.db->previews().app_preview_of(f.ws, uid("other"), draft).value());
      // Publishing takes the draft's build; later builds change only the draft.
      CHECK_FALSE(f.db->previews().app_preview_of(f.ws, f.app, published).value());
      CHECK(f.db->previews().publish_preview(f.ws, f.app, 9000).value());
      REQUIRE(f.db->previews().set_app_preview(f.ws, f.app, draft, "sha256:later", 9500));
      CHECK(f.db->previews().app_preview_of(f.ws, f.app, published).value()->digest == "sha256:newer");
      // The published build keeps the turn that made it.
      CHECK(f.db->previews().app_preview_of(f.ws, f.app, published).value()->made_by.request == "Add a due date to each task");
      CHECK(f.db->previews().app_preview_of(f.ws, f.app, draft).value()->made_by.run_id.empty());
      CHECK(f.db->previews().app_preview_of(f.ws, f.app, draft).value()->digest == "sha256:later");
    }

    SUBCASE("end_turn refuses a status that is not an end") {
      fixture f(b.open());
      auto k = f.new_run();
      REQUIRE(f.db->claim_builder_run(k, claim(1, "A")).value() == claim_outcome::claimed);
      auto bad = f.db->end_turn(k, "A", {run_status::pending, "[]", 0, 1});
      REQUIRE_FALSE(bad);
      CHECK(bad.error().code == platform::api_error::store_invalid);
      CHECK(f.db->get_builder_run(k).value()->status == run_status::streaming);
    }

    SUBCASE("parallel duplicate claims: exactly one wins") {
      fixture f(b.open());
      auto k = f.new_run();
      constexpr int n = 16;
      std::atomic<int> claimed{0}, duplicate{0}, other{0};
      std::vector<std::thread> threads;
      for (int i = 0; i < n; ++i) {
        threads.emplace_back([&, i] {
          auto r = f.db->claim_builder_run(k, claim(1, "T" + std::to_string(i)));
          if (r && *r == claim_outcome::claimed) ++claimed;
          else if (r && *r == claim_outcome::duplicate) ++duplicate;
          else ++other;
        });
      }
      for (auto& t : threads) t.join();
      CHECK(claimed == 1);
      CHECK(duplicate == n - 1);
      CHECK(other == 0);
    }

    SUBCASE("usage accumulates by increment, per model, atomically") {
      fixture f(b.open());
      auto k = f.new_run();
      run_usage turn;
      turn.add("model-a", {100, 20, 5, 1, 0.25});
      turn.add("model-b", {10, 2, 0, 0, 0.0});
      turn.mark_cost_unknown("model-b");
      REQUIRE(f.db->add_usage(k, turn));
      REQUIRE(f.db->add_usage(k, turn));
      auto u = f.db->get_builder_run(k).value()->usage;
      REQUIRE(u);
      CHECK(u->total_input_tokens == 220);
      CHECK(u->total_output_tokens == 44);
      CHECK(u->total_cache_read_tokens == 10);
      CHECK(u->total_cache_creation_tokens == 2);
      CHECK(u->total_cost_usd == doctest::Approx(0.5));
      CHECK(u->by_model.at("model-a").input_tokens == 200);
      CHECK(u->by_model.at("model-a").cost_usd == doctest::Approx(0.5));
      CHECK(u->by_model.at("model-b").output_tokens == 4);
      CHECK(u->cost_unknown_models == std::vector<std::string>{"model-b"});
      auto nowhere = f.db->add_usage({f.ws, uid("app"), k.run_id}, turn);
      REQUIRE_FALSE(nowhere);
      CHECK(nowhere.error().code == platform::api_error::store_invalid);
    }

    SUBCASE("concurrent usage increments are not lost") {
      fixture f(b.open());
      auto k = f.new_run();
      run_usage turn;
      turn.add("m", {1, 1, 0, 0, 0.001});
      std::vector<std::thread> threads;
      for (int i = 0; i < 8; ++i) {
        threads.emplace_back([&] {
          for (int j = 0; j < 10; ++j) CHECK(f.db->add_usage(k, turn));
        });
      }
      for (auto& t : threads) t.join();
      auto u = f.db->get_builder_run(k).value()->usage;
      REQUIRE(u);
      CHECK(u->total_input_tokens == 80);
      CHECK(u->by_model.at("m").output_tokens == 80);
      CHECK(u->total_cost_usd == doctest::Approx(0.08));
    }

    SUBCASE("session state per runtime, with the messages it covers") {
      fixture f(b.open());
      auto k = f.new_run();
      REQUIRE(f.db->save_provider_session_state(k, "runtime-a", {R"({"runtimeId":"runtime-a","sessionId":"s1"})", 2}));
      REQUIRE(f.db->save_provider_session_state(k, "runtime-b", {R"({"runtimeId":"runtime-b","sessionId":"t1"})", 4}));
      REQUIRE(f.db->save_provider_session_state(k, "runtime-a", {R"({"runtimeId":"runtime-a","sessionId":"s2"})", 6}));
      auto run = f.db->get_builder_run(k).value();
      REQUIRE(run->runtime_session_states.size() == 2);
      CHECK(run->runtime_session_states.at("runtime-a").covered_messages == 6);
      CHECK(run->runtime_session_states.at("runtime-a").state_json == R"({"runtimeId":"runtime-a","sessionId":"s2"})");
      CHECK(run->runtime_session_states.at("runtime-b").covered_messages == 4);
      CHECK(run->provider_session_state_json ==
            std::optional<std::string>(R"({"runtimeId":"runtime-a","sessionId":"s2"})"));
    }

    SUBCASE("stale stream recovery fails runs whose lease ended, and only those") {
      fixture f(b.open());
      auto dead = f.new_run();
      auto alive = f.new_run();
      auto idle = f.new_run();
      REQUIRE(f.db->claim_builder_run(dead, claim(1, "A", 1000, 5000)).value() == claim_outcome::claimed);
      REQUIRE(f.db->set_active_stream(dead, "A", "s-dead", 1000).value());
      REQUIRE(f.db->claim_builder_run(alive, claim(1, "B", 1000, 5000)).value() == claim_outcome::claimed);
      REQUIRE(f.db->renew_lease(alive, "B", 20000).value());
      auto failed = f.db->fail_expired_claims(10000).value();
      bool saw_dead = false;
      for (const auto& key : failed) {
        CHECK(key.run_id != alive.run_id);
        CHECK(key.run_id != idle.run_id);
        saw_dead = saw_dead || (key.run_id == dead.run_id && key.app_id == f.app && key.workspace_id == f.ws);
      }
      CHECK(saw_dead);
      auto d = f.db->get_builder_run(dead).value();
      CHECK(d->status == run_status::failed);
      CHECK_FALSE(d->active_stream_id);
      CHECK_FALSE(f.db->end_turn(dead, "A", {run_status::completed, "[]", 0, 11000}).value());  // claim lost
      CHECK(f.db->get_builder_run(alive).value()->status == run_status::streaming);
      CHECK(f.db->get_builder_run(idle).value()->status == run_status::pending);
      auto streaming = f.db->streaming_builder_runs(f.ws).value();
      REQUIRE(streaming.size() == 1);
      CHECK(streaming[0].key.run_id == alive.run_id);
    }

    SUBCASE("repair runs keep their run reason") {
      fixture f(b.open());
      auto k = f.new_run("app_tool_failure");
      CHECK(f.db->get_builder_run(k).value()->run_reason == "app_tool_failure");
    }

    SUBCASE("text round-trips byte for byte, including quotes, NUL-free unicode and large bodies") {
      fixture f(b.open());
      auto k = f.new_run();
      std::string messages = R"([{"id":"m","parts":[{"type":"text","text":"it's \"quoted\" ✓ 😀 '; DROP TABLE apps; --"}]}])";
      messages += std::string(200000, ' ');
      REQUIRE(f.db->claim_builder_run(k, claim(1, "A")).value() == claim_outcome::claimed);
      REQUIRE(f.db->end_turn(k, "A", {run_status::completed, messages, 1, 4000}).value());
      CHECK(f.db->get_builder_run(k).value()->messages_json == messages);
      CHECK(f.db->get_app(f.ws, f.app).value());  // still there
    }
  }
}

TEST_CASE("the SQLite file keeps its data and migrations across reopen") {
  fs::path dir = fs::temp_directory_path() / ("platform-reopen-" + prefix());
  fs::create_directories(dir);
  std::string path = (dir / "platform.db").string();
  std::string ws = uid("ws");
  {
    auto db = open_sqlite_store(path).value();
    REQUIRE(db->put_workspace(ws, "W", 1));
  }
  auto db = open_sqlite_store(path).value();
  CHECK(db->workspace_exists(ws).value());
  auto via_env = open_store("", dir.string()).value();
  CHECK(via_env->workspace_exists(ws).value());
  fs::remove_all(dir);
}

TEST_CASE("unreachable databases are clear errors, not crashes") {
  auto pg = open_postgres_store("postgresql://nobody@127.0.0.1:1/none?connect_timeout=2", 1);
  REQUIRE_FALSE(pg);
  CHECK(pg.error().code == platform::api_error::store_unavailable);
  auto lite = open_sqlite_store("/proc/no-such-dir/platform.db");
  REQUIRE_FALSE(lite);
  CHECK(lite.error().code == platform::api_error::store_unavailable);
}

TEST_CASE("PostgreSQL: two replicas' stores race for one claim; a killed connection is replaced") {
  const char* pg = std::getenv("PLATFORM_TEST_PG_URL");
  if (!(pg && *pg)) return;
  auto a = open_postgres_store(pg, 4).value();
  auto b = open_postgres_store(pg, 4).value();
  fixture f(open_postgres_store(pg, 1).value());
  auto k = f.new_run();
  std::atomic<int> claimed{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      store& s = i % 2 ? *a : *b;
      auto r = s.claim_builder_run(k, claim(1, "R" + std::to_string(i)));
      if (r && *r == claim_outcome::claimed) ++claimed;
    });
  }
  for (auto& t : threads) t.join();
  CHECK(claimed == 1);

  // The server drops every other session (as on a restart): the next calls still succeed.
  auto killer = open_postgres_store(pg, 1).value();
  PGconn* raw = PQconnectdb(pg);
  REQUIRE(PQstatus(raw) == CONNECTION_OK);
  PGresult* res = PQexec(raw, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                              "WHERE pid <> pg_backend_pid() AND datname = current_database() "
                              "AND backend_type = 'client backend'");
  CHECK(PQresultStatus(res) == PGRES_TUPLES_OK);
  PQclear(res);
  PQfinish(raw);
  for (int i = 0; i < 6; ++i) {
    auto run = a->get_builder_run(k);
    REQUIRE_MESSAGE(run, run.error().message);
    CHECK((*run)->status == run_status::streaming);
  }
}

}  // namespace store_rules_test
