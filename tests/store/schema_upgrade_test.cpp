// Databases made by an earlier release open with their data. The first case: builder runs
// used to live in a table named agent_runs (migration 2 renames it builder_runs). The old
// database is made with the released migration 1 exactly (migrations are never edited), on
// SQLite in a file always and on PostgreSQL (in a schema of its own) with PLATFORM_TEST_PG_URL.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "adapters/sql_store.hpp"
#include "schema.hpp"  // lib/adapters/store: the released migrations
#include "sql.hpp"     // lib/adapters/store: raw connections to lay the old database out

using namespace platform;
namespace fs = std::filesystem;

namespace schema_upgrade_test {  // named: the suite is one unity build, and each file has its own helpers

struct old_database {
  std::string name;
  std::function<result<std::unique_ptr<sql::connection>>()> connect;
  std::function<result<std::unique_ptr<store>>()> open;
  std::function<void()> drop;
};

std::string random_tag() {
  std::random_device rd;
  return std::to_string(rd());
}

// The PostgreSQL URL with every table of the session in `schema` (URI or keyword form).
std::string in_schema(const std::string& url, const std::string& schema) {
  if (url.find("://") != std::string::npos) {
    return url + (url.find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3D" + schema;
  }
  return url + " options='-csearch_path=" + schema + "'";
}

std::vector<old_database> old_databases() {
  std::vector<old_database> out;
  fs::path dir = fs::temp_directory_path() / ("platform-upgrade-" + random_tag());
  fs::create_directories(dir);
  std::string file = (dir / "platform.db").string();
  out.push_back({"sqlite-file", [file] { return sql::connect_sqlite(file); },
                 [file] { return open_sqlite_store(file); }, [dir] { fs::remove_all(dir); }});
  const char* pg = std::getenv("PLATFORM_TEST_PG_URL");
  if (pg && *pg) {
    std::string url = pg;
    std::string schema = "upgrade_" + random_tag();
    auto admin = sql::connect_postgres(url);
    REQUIRE_MESSAGE(admin, admin.error().message);
    REQUIRE((*admin)->exec("CREATE SCHEMA " + schema));
    std::string scoped = in_schema(url, schema);
    out.push_back({"postgres", [scoped] { return sql::connect_postgres(scoped); },
                   [scoped] { return open_postgres_store(scoped, 2); },
                   [url, schema] {
                     auto c = sql::connect_postgres(url);
                     if (c) (void)(*c)->exec("DROP SCHEMA " + schema + " CASCADE");
                   }});
  }
  return out;
}

bool has_table(sql::connection& c, const std::string& table) {
  return c.exec("SELECT count(*) FROM " + table).has_value();
}


TEST_CASE("a database whose builder runs are in the old agent_runs table keeps them") {
  for (const auto& db : old_databases()) {
    CAPTURE(db.name);
    {
      // What a release before migration 2 left: migration 1 applied and recorded, one app
      // with a builder run, its session state and usage.
      auto c = db.connect();
      REQUIRE_MESSAGE(c, c.error().message);
      sql::connection& raw = **c;
      REQUIRE(raw.exec("CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY)"));
      const auto& released = sql::core_migrations();
      REQUIRE(released.front().version == 1);
      for (auto statement : released.front().statements) REQUIRE_MESSAGE(raw.exec(statement), std::string(statement));
      REQUIRE(raw.exec("INSERT INTO schema_migrations (version) VALUES (1)"));
      REQUIRE(raw.exec("INSERT INTO workspaces (id, name, created_at) VALUES ('ws1', 'W', 1)"));
      REQUIRE(raw.exec("INSERT INTO apps (id, workspace_id, name, created_by, created_at) "
                       "VALUES ('app1', 'ws1', 'App', 'u1', 1)"));
      REQUIRE(raw.exec("INSERT INTO agent_runs (id, workspace_id, app_id, status, messages, message_count, "
                       "session_state, has_usage, total_cost_usd, total_input_tokens, created_at, updated_at) "
                       "VALUES ('run1', 'ws1', 'app1', 'completed', '[{\"id\":\"m1\"}]', 1, "
                       "'{\"runtimeId\":\"runtime-a\"}', 1, 0.5, 7, 10, 20)"));
      REQUIRE(raw.exec("INSERT INTO run_session_states (run_id, runtime_id, state, covered_messages) "
                       "VALUES ('run1', 'runtime-a', '{\"runtimeId\":\"runtime-a\"}', 1)"));
      CHECK_FALSE(has_table(raw, "builder_runs"));
    }

    auto opened = db.open();
    REQUIRE_MESSAGE(opened, opened.error().message);
    store& s = **opened;
    const run_key key{"ws1", "app1", "run1"};
    auto run = s.get_builder_run(key);
    REQUIRE_MESSAGE(run, run.error().message);
    REQUIRE(run->has_value());
    CHECK((*run)->status == run_status::completed);
    CHECK((*run)->messages_json == R"([{"id":"m1"}])");
    CHECK((*run)->message_count == 1);
    CHECK((*run)->provider_session_state_json == std::optional<std::string>(R"({"runtimeId":"runtime-a"})"));
    CHECK((*run)->runtime_session_states.at("runtime-a").covered_messages == 1);
    REQUIRE((*run)->usage);
    CHECK((*run)->usage->total_input_tokens == 7);
    CHECK((*run)->created_at == 10);
    auto listed = s.list_builder_runs("ws1", "app1", {});
    REQUIRE(listed);
    REQUIRE(listed->size() == 1);
    CHECK(listed->front().key.run_id == "run1");
    // The renamed table takes new runs and claims as before.
    builder_run_record next;
    next.key = {"ws1", "app1", "run2"};
    next.created_at = 30;
    REQUIRE(s.create_builder_run(next));
    CHECK(s.claim_builder_run(next.key, {1, "T", 40, 30040, std::nullopt}).value() == claim_outcome::claimed);
    CHECK(s.list_builder_runs("ws1", "app1", {}).value().size() == 2);

    {
      auto c = db.connect();
      REQUIRE(c);
      CHECK(has_table(**c, "builder_runs"));
      CHECK_FALSE(has_table(**c, "agent_runs"));
      auto v2 = (*c)->exec("SELECT version FROM schema_migrations WHERE version = 2");
      REQUIRE(v2);
      CHECK(v2->data.size() == 1);
    }
    // Opening again applies nothing twice.
    opened->reset();
    auto again = db.open();
    REQUIRE_MESSAGE(again, again.error().message);
    CHECK((*again)->get_builder_run(key).value().has_value());
    again->reset();
    db.drop();
  }
}

}  // namespace schema_upgrade_test
