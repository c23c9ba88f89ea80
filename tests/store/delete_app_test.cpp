// store::delete_app on every backend: one app's rows go from every table, in one transaction,
// and nothing of another app: not of the other app in its workspace, not of rows that a second
// workspace keeps under the same app id. The backends that another connection can open (the
// SQLite file, PostgreSQL) are also read through the database's own catalog: every table with
// an app_id column must hold rows of the app before and none after, so a table added later
// without a place in the deletion fails here.
#include <doctest/doctest.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "adapters/sql_store.hpp"
#include "platform/approval_hash.hpp"
#include "sql.hpp"
#include "sql_util.hpp"
#include "store_backends.hpp"

using namespace platform;

namespace delete_app_test {  // named: the suite is one unity build, and each file has its own helpers

std::string da_uid(std::string_view what) { return store_test::uid("da", what); }

const std::string agents_text = R"({"agents":[{"id":"a","name":"A","description":"d","systemPrompt":"p","tools":[]}]})";

secrets_key da_key() {
  secrets_key k;
  k.bytes.fill(static_cast<std::uint8_t>('d'));
  return k;
}

// What fill() wrote of one app, to look it up again.
struct filled {
  std::string ws, app;
  std::string builder_run;  // "" when the workspace holds no app row (companion rows only)
  std::string agent_run;
  std::string draft_digest, published_digest;
};

// One or more rows of the app in every table that holds app rows. `digest_tag` names the app's
// draft build; `shared_digest` is a build another app shows too.
filled fill(store& db, const std::string& ws, const std::string& app, bool with_app_row, const std::string& draft_digest,
            const std::string& shared_digest) {
  filled f{ws, app, "", "", draft_digest, shared_digest};
  if (with_app_row) {
    builder_run_record r;
    r.key = {ws, app, da_uid("run")};
    r.created_at = 2000;
    REQUIRE(db.create_builder_run(r));
    run_usage u;
    u.total_input_tokens = 10;
    u.by_model["model-a"] = {10, 5, 0, 0, 0.01};
    u.cost_unknown_models = {"model-b"};
    REQUIRE(db.add_usage(r.key, u));
    REQUIRE(db.save_provider_session_state(r.key, "runtime-a", {R"({"runtimeId":"runtime-a"})", 2}));
    f.builder_run = r.key.run_id;

    agent_run_record a;
    a.workspace_id = ws;
    a.app_id = app;
    a.run_id = da_uid("arun");
    a.agent_id = "a";
    a.triggered_by_user_id = "u1";
    a.prompt = "Summarize";
    a.created_at = 2000;
    REQUIRE(db.app_agent_runs().create(a));
    f.agent_run = a.run_id;
  }
  for (auto scope : {data_scope::draft, data_scope::published}) {
    REQUIRE(db.app_data().insert({ws, app, scope, "notes"}, {"doc1", R"({"text":"kept?"})", std::nullopt, 3000, {}}));
  }
  auto& gov = db.governance();
  REQUIRE(gov.replace_draft(ws, app, {{"agents.json", agents_text}, {"src/App.tsx", "export {}"}}, 3000));
  auto hash = approval_hash_v1(agents_text).value();
  REQUIRE(gov.approve(ws, app, {hash.hash, hash.normalized_payload_json, "admin1", 3100}).value() == approve_outcome::approved);
  REQUIRE(gov.publish(ws, app, "admin1", 3200).value() == publish_outcome::published);
  publish_review review;
  review.id = da_uid("review");
  review.workspace_id = ws;
  review.app_id = app;
  review.requested_by = "u1";
  review.created_at = 3300;
  REQUIRE(gov.request_review(review).value() == review_request_outcome::created);

  auto& audit = db.audit();
  REQUIRE(audit.record({da_uid("ev"), ws, app, "tool_failure_report", "user:u1", "crm", "fp", "repair_started", "", "{}", 3400}));
  REQUIRE(audit.admit_repair({ws, app, "fp", 3400, 60000, 3}).value());

  auto& in = db.integrations();
  grant_key grant{ws, app, "api.example.com", "default"};
  REQUIRE(in.put_secret(grant, "API_KEY", "secret-value", 3500));
  REQUIRE(in.put_account({ws, app, "acme", "u1"}, {"access", std::string("refresh"), 0, {"read"}}, 3500));
  REQUIRE(in.put_connect_state({da_uid("state"), ws, app, "acme", "u1", "verifier", "http://x/cb", {"read"}, 999999999}));
  REQUIRE(in.replace_requirements(ws, app, {{"api.example.com", "default", "Example", "{}", f.builder_run, 3500}}));

  auto& previews = db.previews();
  for (const auto& d : {draft_digest, shared_digest}) REQUIRE(previews.put_build(d, {{"index.html", "<p>" + d + "</p>"}}, 3600));
  REQUIRE(previews.set_app_preview(ws, app, source_scope::draft, draft_digest, 3600));
  REQUIRE(previews.set_app_preview(ws, app, source_scope::published, shared_digest, 3600));

  // Two versions: the second changes one file (a delta row) and removes one.
  auto& versions = db.versions();
  REQUIRE(versions.record(ws, app, {{"src/App.tsx", "app of " + ws + "/" + app}, {"README.md", "read me"}}, {f.builder_run, "Make it", "runtime-a", "u1", std::nullopt},
                          draft_digest, 3700).value());
  REQUIRE(versions.record(ws, app, {{"src/App.tsx", "app of " + ws + "/" + app + " v2"}}, {f.builder_run, "Change it", "runtime-a", "u1", std::nullopt},
                          std::nullopt, 3800).value());
  // The publish above as a release (its source, with the PATCH-like agents.json, as version 3).
  REQUIRE(db.releases().record_publish(ws, app, {"admin1", 3900, release_via::publish, ""}).value());
  // Its budget overrides, and what it spent (a builder turn's ledger entry).
  REQUIRE(db.budgets().put_app_overrides(ws, app, {spend_limit{5.0, std::nullopt}, std::nullopt, std::nullopt}, 4000));
  REQUIRE(db.budgets().reserve({ws, app, "msg-" + app, "r", budget_run_kind::builder_turn}, {0.5, 10}, 4000));
  // A routine of its published agents, and a webhook signature it saw.
  auto routines = db.routines().sync(ws, app, {{"helper", schedule_trigger{"0 8 * * *", "UTC", "Go."}, webhook_trigger{""}}}, "admin1",
                                     [](const schedule_trigger&, std::int64_t now, std::string&) -> std::optional<std::int64_t> { return now + 60000; },
                                     4100);
  REQUIRE(routines);
  REQUIRE(routines->size() == 1);
  REQUIRE(db.routines().first_use_of_signature(routines->front().id, "sig-" + app, 999999999, 4100).value());
  return f;
}

// What the store's interface shows of the app (every backend, the in-memory one too).
void check_interface(store& db, const filled& f, bool present) {
  CAPTURE(f.app);
  CAPTURE(f.ws);
  if (!f.builder_run.empty()) {
    CHECK(db.get_app(f.ws, f.app).value().has_value() == present);
    CHECK(db.get_builder_run({f.ws, f.app, f.builder_run}).value().has_value() == present);
    CHECK(db.app_agent_runs().get({f.ws, f.app, f.agent_run}).value().has_value() == present);
  }
  for (auto scope : {data_scope::draft, data_scope::published}) {
    CHECK(db.app_data().get({f.ws, f.app, scope, "notes"}, "doc1").value().has_value() == present);
  }
  auto& gov = db.governance();
  CHECK(gov.head(f.ws, f.app, source_scope::draft).value().has_value() == present);
  CHECK(gov.head(f.ws, f.app, source_scope::published).value().has_value() == present);
  CHECK(gov.snapshot_files(f.ws, f.app, source_scope::draft).value().empty() == !present);
  CHECK(gov.approval(f.ws, f.app).value().has_value() == present);
  CHECK(gov.publication(f.ws, f.app).value().has_value() == present);
  CHECK(gov.reviews(f.ws, f.app, 10).value().empty() == !present);
  CHECK(db.releases().list(f.ws, f.app, {}).value().empty() == !present);
  CHECK(db.budgets().app_overrides(f.ws, f.app).value().app_monthly.has_value() == present);
  CHECK(db.audit().recent(f.ws, f.app, 10).value().empty() == !present);
  auto& in = db.integrations();
  CHECK(in.grant_secrets({f.ws, f.app, "api.example.com", "default"}).value().empty() == !present);
  CHECK(in.get_account({f.ws, f.app, "acme", "u1"}).value().has_value() == present);
  CHECK(in.requirements(f.ws, f.app).value().empty() == !present);
  CHECK(db.versions().list(f.ws, f.app, {}).value().empty() == !present);
  // The app's own file content goes with it (a content another app holds stays: see below).
  CHECK(db.versions().blob(version_blob_digest("app of " + f.ws + "/" + f.app + " v2")).value().has_value() == present);
  CHECK(db.previews().app_preview_of(f.ws, f.app, source_scope::draft).value().has_value() == present);
  CHECK(db.previews().app_preview_of(f.ws, f.app, source_scope::published).value().has_value() == present);
}

// The database as another connection sees it, for the catalog checks.
std::unique_ptr<sql::connection> raw_connection(const store_test::backend_case& b) {
  if (!b.sqlite_file.empty()) return sql::connect_sqlite(b.sqlite_file).value();
  if (b.name == "postgres") return sql::connect_postgres(std::getenv("PLATFORM_TEST_PG_URL")).value();
  return nullptr;
}

// Every table with an app_id column, from the database's own catalog.
std::vector<std::string> app_tables(sql::connection& c) {
  auto rows = c.kind() == sql::dialect::sqlite
                  ? c.exec("SELECT m.name FROM sqlite_master m JOIN pragma_table_info(m.name) p "
                           "WHERE m.type = 'table' AND p.name = 'app_id' ORDER BY m.name")
                  : c.exec("SELECT table_name FROM information_schema.columns WHERE column_name = 'app_id' "
                           "AND table_schema = current_schema() ORDER BY table_name");
  REQUIRE(rows);
  std::vector<std::string> out;
  for (const auto& r : rows->data) out.push_back(sql::to_text(r[0]));
  return out;
}

std::int64_t count(sql::connection& c, const std::string& text, const sql::params& p) {
  auto rows = c.exec(text, p);
  REQUIRE_MESSAGE(rows, text);
  return sql::to_int(rows->data.at(0)[0]);
}

// Rows of the app per table with an app_id column, and of its builder run in the tables keyed
// by run id. Every one of them must be `present` (> 0) or absent (0).
void check_catalog(sql::connection& c, const filled& f, bool present) {
  auto tables = app_tables(c);
  REQUIRE(tables.size() >= 15);
  for (const auto& t : tables) {
    CAPTURE(t);
    CAPTURE(f.app);
    CAPTURE(f.ws);
    // Builder and agent runs exist only where the workspace holds the app itself.
    if (f.builder_run.empty() && (t == "builder_runs" || t == "app_agent_runs")) continue;
    auto n = count(c, "SELECT COUNT(*) FROM " + t + " WHERE workspace_id = ? AND app_id = ?", {sql::v(f.ws), sql::v(f.app)});
    // What the app spent stays in its workspace's month.
    if (t == "spend_entries" || t == "spend_months") CHECK(n > 0);
    else CHECK((n > 0) == present);
  }
  if (!f.builder_run.empty()) {
    for (std::string t : {"run_model_usage", "run_cost_unknown", "run_session_states"}) {
      CAPTURE(t);
      CHECK((count(c, "SELECT COUNT(*) FROM " + t + " WHERE run_id = ?", {sql::v(f.builder_run)}) > 0) == present);
    }
  }
}


TEST_CASE("delete_app removes every row of the app and nothing of another") {
  for (const auto& b : store_test::backends("platform-delete-app-")) {
    CAPTURE(b.name);
    auto db = b.open();
    db->integrations().install_secrets_key(da_key());
    const std::string ws = da_uid("ws"), ws2 = da_uid("ws");
    const std::string app = da_uid("app"), other = da_uid("app");
    REQUIRE(db->put_workspace(ws, "Workspace", 1000));
    REQUIRE(db->put_workspace(ws2, "Second", 1000));
    REQUIRE(db->create_app({app, ws, "Doomed", "u1", "", "", "{}", 1000}));
    REQUIRE(db->create_app({other, ws, "Kept", "u1", "", "", "{}", 1000}));
    const std::string own_build = "sha256:" + da_uid("own"), shared_build = "sha256:" + da_uid("shared");
    const std::string other_build = "sha256:" + da_uid("other"), twin_build = "sha256:" + da_uid("twin");

    auto doomed = fill(*db, ws, app, true, own_build, shared_build);
    // The other app shows the doomed app's published build as its draft: that build stays.
    auto kept = fill(*db, ws, other, true, shared_build, other_build);
    // A second workspace's rows under the same app id (its companion tables have no app row
    // to check against, so only the workspace tells them apart).
    auto twin = fill(*db, ws2, app, false, twin_build, other_build);
    auto raw = raw_connection(b);
    if (raw) {
      check_catalog(*raw, doomed, true);
      check_catalog(*raw, kept, true);
      check_catalog(*raw, twin, true);
    }

    REQUIRE(db->delete_app(ws, app).value() == app_deletion::deleted);

    check_interface(*db, doomed, false);
    // "read me" is in every app's versions: the blob stays while the other apps hold it.
    CHECK(db->versions().blob(version_blob_digest("read me")).value().has_value());
    CHECK(db->list_builder_runs(ws, app, {}).value().empty());
    CHECK(db->app_agent_runs().list(ws, app, true, {}).value().empty());
    CHECK_FALSE(db->previews().has_build(own_build).value());
    CHECK(db->previews().has_build(shared_build).value());
    CHECK(db->previews().file(shared_build, "index.html").value().has_value());
    CHECK_FALSE(db->previews().file(own_build, "index.html").value().has_value());
    check_interface(*db, kept, true);
    check_interface(*db, twin, true);
    CHECK(db->previews().has_build(other_build).value());
    CHECK(db->previews().has_build(twin_build).value());
    auto listed = db->list_apps(ws, {}).value();
    REQUIRE(listed.size() == 1);
    CHECK(listed[0].app.id == other);
    if (raw) {
      check_catalog(*raw, doomed, false);
      check_catalog(*raw, kept, true);
      check_catalog(*raw, twin, true);
    }

    // A second delete, an unknown app, the app under another workspace: nothing to delete.
    CHECK(db->delete_app(ws, app).value() == app_deletion::not_found);
    CHECK(db->delete_app(ws, da_uid("app")).value() == app_deletion::not_found);
    CHECK(db->delete_app(ws2, other).value() == app_deletion::not_found);
    check_interface(*db, kept, true);
  }
}

TEST_CASE("delete_app refuses, changing nothing, while a builder turn streams or an agent run runs") {
  for (const auto& b : store_test::backends("platform-delete-busy-")) {
    CAPTURE(b.name);
    auto db = b.open();
    db->integrations().install_secrets_key(da_key());
    const std::string ws = da_uid("ws"), app = da_uid("app");
    REQUIRE(db->put_workspace(ws, "Workspace", 1000));
    REQUIRE(db->create_app({app, ws, "Busy", "u1", "", "", "{}", 1000}));
    auto f = fill(*db, ws, app, true, "sha256:" + da_uid("b"), "sha256:" + da_uid("c"));
    const run_key turn{ws, app, f.builder_run};
    const run_key agent{ws, app, f.agent_run};

    REQUIRE(db->claim_builder_run(turn, {1, "claim-1", 4000, 34000, std::nullopt}).value() == claim_outcome::claimed);
    CHECK(db->delete_app(ws, app).value() == app_deletion::builder_turn_streaming);
    check_interface(*db, f, true);
    turn_end ended;
    ended.now = 5000;
    REQUIRE(db->end_turn(turn, "claim-1", ended).value());

    REQUIRE(db->app_agent_runs().claim_start(agent, 5000).value());
    CHECK(db->delete_app(ws, app).value() == app_deletion::agent_run_active);
    REQUIRE(db->app_agent_runs().set_active_stream(agent, "stream-1", 5100).value());  // streaming is live too
    CHECK(db->delete_app(ws, app).value() == app_deletion::agent_run_active);
    check_interface(*db, f, true);
    agent_run_completion done;
    done.status = agent_run_status::completed;
    done.now = 6000;
    REQUIRE(db->app_agent_runs().finish(agent, done).value());

    // Pending and ended runs do not hold the app.
    builder_run_record pending;
    pending.key = {ws, app, da_uid("run")};
    pending.created_at = 6100;
    REQUIRE(db->create_builder_run(pending));
    CHECK(db->delete_app(ws, app).value() == app_deletion::deleted);
    check_interface(*db, f, false);
    CHECK_FALSE(db->get_builder_run(pending.key).value());
    // A claim after the delete finds no run.
    CHECK(db->claim_builder_run(pending.key, {1, "claim-2", 7000, 37000, std::nullopt}).value() == claim_outcome::not_found);
  }
}

// A claim that another replica holds uncommitted while the delete reads the app's runs: the
// delete waits for it (the runs are read FOR UPDATE) and then sees the run streaming, rather
// than reading the old status and deleting a run whose turn goes on. The test waits for the
// delete's statement to wait on the lock (PostgreSQL reports it), never for a time.
TEST_CASE("PostgreSQL: a delete racing an uncommitted claim waits for it and refuses") {
  const char* pg = std::getenv("PLATFORM_TEST_PG_URL");
  if (!(pg && *pg)) return;
  auto db = open_postgres_store(pg, 2).value();
  const std::string ws = da_uid("ws"), app = da_uid("app");
  REQUIRE(db->put_workspace(ws, "Workspace", 1000));
  REQUIRE(db->create_app({app, ws, "Raced", "u1", "", "", "{}", 1000}));
  builder_run_record r;
  r.key = {ws, app, da_uid("run")};
  r.created_at = 2000;
  REQUIRE(db->create_builder_run(r));

  auto other = sql::connect_postgres(pg).value();  // the other replica's claim, held open
  REQUIRE(other->exec("BEGIN"));
  REQUIRE(other->exec("UPDATE builder_runs SET status = 'streaming', claim_token = 'held' WHERE id = ?", {sql::v(r.key.run_id)}));

  std::optional<result<app_deletion>> outcome;
  std::thread deleting([&] { outcome = db->delete_app(ws, app); });
  auto watcher = sql::connect_postgres(pg).value();
  bool waits = false;
  for (int i = 0; i < 10000 && !waits; ++i) {
    auto n = watcher->exec("SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                           "AND query LIKE 'SELECT status FROM builder_runs%FOR UPDATE'");
    waits = n && sql::to_int(n->data.at(0)[0]) > 0;
    if (!waits) std::this_thread::yield();
  }
  CHECK(waits);
  REQUIRE(other->exec("COMMIT"));
  deleting.join();
  REQUIRE(outcome);
  REQUIRE(*outcome);
  CHECK(**outcome == app_deletion::builder_turn_streaming);
  CHECK(db->get_app(ws, app).value().has_value());
  CHECK(db->get_builder_run(r.key).value().has_value());
}

}  // namespace delete_app_test
