#pragma once
// The store's schema as numbered migrations, in the common dialect of SQLite and PostgreSQL.
// A migration is never edited once released: later changes append a new one.
#include <algorithm>
#include <initializer_list>
#include <string_view>
#include <vector>

namespace platform::sql {

struct migration {
  int version;
  std::vector<std::string_view> statements;
};

// The core store's migrations: versions 1-99. Companion stores (app data, governance, ...)
// keep theirs in schema_<name>.hpp with a range of their own (100-199, 200-299, ...).
inline const std::vector<migration>& core_migrations() {
  static const std::vector<migration> all = {
      {1,
       {
           "CREATE TABLE users (id TEXT PRIMARY KEY, email TEXT NOT NULL DEFAULT '', "
           "name TEXT NOT NULL DEFAULT '')",
           "CREATE TABLE workspaces (id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at BIGINT NOT NULL)",
           "CREATE TABLE memberships (workspace_id TEXT NOT NULL REFERENCES workspaces(id), "
           "user_id TEXT NOT NULL, role TEXT NOT NULL, PRIMARY KEY (workspace_id, user_id))",
           "CREATE TABLE apps (id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL REFERENCES workspaces(id), "
           "name TEXT NOT NULL, created_by TEXT NOT NULL, runtime_id TEXT NOT NULL DEFAULT '', "
           "runtime_model TEXT NOT NULL DEFAULT '', runtime_params TEXT NOT NULL DEFAULT '{}', "
           "created_at BIGINT NOT NULL)",
           "CREATE INDEX apps_by_workspace ON apps (workspace_id)",
           "CREATE TABLE agent_runs (id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, "
           "app_id TEXT NOT NULL REFERENCES apps(id), status TEXT NOT NULL, "
           "messages TEXT NOT NULL DEFAULT '[]', message_count BIGINT NOT NULL DEFAULT 0, "
           "active_stream_id TEXT, run_reason TEXT NOT NULL DEFAULT '', session_state TEXT, "
           "claim_token TEXT NOT NULL DEFAULT '', lease_until BIGINT NOT NULL DEFAULT 0, "
           "has_usage BIGINT NOT NULL DEFAULT 0, total_cost_usd DOUBLE PRECISION NOT NULL DEFAULT 0, "
           "total_input_tokens BIGINT NOT NULL DEFAULT 0, total_output_tokens BIGINT NOT NULL DEFAULT 0, "
           "total_cache_read_tokens BIGINT NOT NULL DEFAULT 0, "
           "total_cache_creation_tokens BIGINT NOT NULL DEFAULT 0, "
           "created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL)",
           "CREATE INDEX agent_runs_by_app ON agent_runs (workspace_id, app_id)",
           "CREATE INDEX agent_runs_streaming ON agent_runs (status, lease_until)",
           "CREATE TABLE run_model_usage (run_id TEXT NOT NULL, model TEXT NOT NULL, "
           "input_tokens BIGINT NOT NULL DEFAULT 0, output_tokens BIGINT NOT NULL DEFAULT 0, "
           "cache_read_tokens BIGINT NOT NULL DEFAULT 0, cache_creation_tokens BIGINT NOT NULL DEFAULT 0, "
           "cost_usd DOUBLE PRECISION NOT NULL DEFAULT 0, PRIMARY KEY (run_id, model))",
           "CREATE TABLE run_cost_unknown (run_id TEXT NOT NULL, model TEXT NOT NULL, "
           "PRIMARY KEY (run_id, model))",
           "CREATE TABLE run_session_states (run_id TEXT NOT NULL, runtime_id TEXT NOT NULL, "
           "state TEXT NOT NULL, covered_messages BIGINT NOT NULL, PRIMARY KEY (run_id, runtime_id))",
       }},
      // Builder runs leave the table named after the spec's collection (agent_runs), a name that
      // reads as app agent runs (those are in app_agent_runs). Rows, columns and the primary key
      // move with the table on both backends; the indexes are made again under the new name
      // (SQLite has no ALTER INDEX). On PostgreSQL the primary key index keeps its generated
      // name, agent_runs_pkey, which no statement uses.
      {2,
       {
           "ALTER TABLE agent_runs RENAME TO builder_runs",
           "DROP INDEX agent_runs_by_app",
           "CREATE INDEX builder_runs_by_app ON builder_runs (workspace_id, app_id)",
           "DROP INDEX agent_runs_streaming",
           "CREATE INDEX builder_runs_streaming ON builder_runs (status, lease_until)",
       }},
      // Why a run's last turn was stopped ("user"; caps later), beside its failed status.
      {3, {"ALTER TABLE builder_runs ADD COLUMN stop_reason TEXT NOT NULL DEFAULT ''"}},
      // The sentence a person reads for that reason (a refused runtime says what it lacks).
      {4, {"ALTER TABLE builder_runs ADD COLUMN stop_message TEXT NOT NULL DEFAULT ''"}},
  };
  return all;
}

}  // namespace platform::sql

// Companion migrations (each header needs `migration` above).
#include "schema_app_data.hpp"
#include "schema_governance.hpp"
#include "schema_app_agent_runs.hpp"
#include "schema_audit.hpp"
#include "schema_integrations.hpp"
#include "schema_previews.hpp"
#include "schema_versions.hpp"
#include "schema_budgets.hpp"
#include "schema_routines.hpp"

namespace platform::sql {

// Every migration, ordered by version. A companion adds its list here.
inline std::vector<migration> migrations() {
  std::vector<migration> all = core_migrations();
  for (const auto* module : std::initializer_list<const std::vector<migration>*>{&app_data_migrations(), &governance_migrations(),
                                                                 &app_agent_run_migrations(), &audit_migrations(),
                                                                 &integrations_migrations(), &preview_migrations(), &version_migrations(),
                                                                 &budget_migrations(), &routine_migrations()}) {
    all.insert(all.end(), module->begin(), module->end());
  }
  std::sort(all.begin(), all.end(), [](const migration& a, const migration& b) { return a.version < b.version; });
  return all;
}

}  // namespace platform::sql
