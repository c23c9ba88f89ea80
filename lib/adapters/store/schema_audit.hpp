#pragma once
// Tool audit events and repair loop-guard counters (versions 500-599). Never edited once released.
#include <vector>

#include "schema.hpp"

namespace platform::sql {

inline const std::vector<migration>& audit_migrations() {
  static const std::vector<migration> all = {
      {500,
       {
           "CREATE TABLE tool_audit_events (id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, app_id TEXT NOT NULL, "
           "kind TEXT NOT NULL, actor TEXT NOT NULL, tool_name TEXT NOT NULL, fingerprint TEXT NOT NULL, "
           "outcome TEXT NOT NULL, builder_run_id TEXT NOT NULL DEFAULT '', metadata TEXT NOT NULL DEFAULT '{}', "
           "created_at BIGINT NOT NULL)",
           "CREATE INDEX tool_audit_events_by_app ON tool_audit_events (workspace_id, app_id, created_at)",
           // One row per fingerprint: the current window's start and the repairs admitted in it.
           "CREATE TABLE tool_repair_guards (workspace_id TEXT NOT NULL, app_id TEXT NOT NULL, "
           "fingerprint TEXT NOT NULL, window_start BIGINT NOT NULL, runs BIGINT NOT NULL, "
           "PRIMARY KEY (workspace_id, app_id, fingerprint))",
       }},
  };
  return all;
}

}  // namespace platform::sql
