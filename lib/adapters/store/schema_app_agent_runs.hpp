#pragma once
// App agent runs (collection app_agent_runs): migrations 300-399. Never edited once released.
#include <vector>

#include "schema.hpp"

namespace platform::sql {

inline const std::vector<migration>& app_agent_run_migrations() {
  static const std::vector<migration> all = {
      {300,
       {
           "CREATE TABLE app_agent_runs (id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, "
           "app_id TEXT NOT NULL REFERENCES apps(id), agent_id TEXT NOT NULL, agent_name TEXT NOT NULL DEFAULT '', "
           "status TEXT NOT NULL, draft BIGINT NOT NULL DEFAULT 0, triggered_by_user_id TEXT NOT NULL, "
           "triggered_by_user_email TEXT NOT NULL DEFAULT '', triggered_by_user_name TEXT NOT NULL DEFAULT '', "
           "prompt TEXT NOT NULL, system_prompt TEXT NOT NULL DEFAULT '', agent_config TEXT NOT NULL, "
           "result TEXT, error TEXT, usage TEXT, transcript TEXT NOT NULL DEFAULT '[]', "
           "messages TEXT NOT NULL DEFAULT '[]', active_stream_id TEXT, created_at BIGINT NOT NULL, "
           "updated_at BIGINT NOT NULL, started_at BIGINT NOT NULL DEFAULT 0, finished_at BIGINT NOT NULL DEFAULT 0)",
           "CREATE INDEX app_agent_runs_by_app ON app_agent_runs (workspace_id, app_id, created_at)",
       }},
      // The runtime's session of the run (spec "App agent run": sessionId), from its transcript.
      {301, {"ALTER TABLE app_agent_runs ADD COLUMN session_id TEXT"}},
      // Why a failed run was stopped: "user", "budget" (issue 37), or "".
      {302, {"ALTER TABLE app_agent_runs ADD COLUMN stop_reason TEXT NOT NULL DEFAULT ''"}},
      // A routine's run (issue 37): the routine and what triggered it ("schedule", "webhook").
      {303, {"ALTER TABLE app_agent_runs ADD COLUMN routine_id TEXT NOT NULL DEFAULT ''",
             "ALTER TABLE app_agent_runs ADD COLUMN trigger_kind TEXT NOT NULL DEFAULT ''"}},
  };
  return all;
}

}  // namespace platform::sql
