#pragma once
// Routines (issue 37; versions 1000-1099): one row per published agent with triggers, its
// schedule and webhook as their JSON, its state (switched on, failures in a row, the next
// tick, the last claim) and its webhook secret sealed with the secrets key; and the webhook
// signatures seen within the replay window.
#include <vector>

#include "schema.hpp"

namespace platform::sql {

inline const std::vector<migration>& routine_migrations() {
  static const std::vector<migration> all = {
      {1000,
       {
           "CREATE TABLE routines (id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, app_id TEXT NOT NULL, "
           "agent_id TEXT NOT NULL, schedule TEXT, webhook TEXT, enabled BIGINT NOT NULL DEFAULT 1, "
           "consecutive_failures BIGINT NOT NULL DEFAULT 0, next_fire_at BIGINT, problem TEXT NOT NULL DEFAULT '', "
           "approved_by TEXT NOT NULL DEFAULT '', webhook_secret TEXT NOT NULL DEFAULT '', last_run_id TEXT, "
           "last_fired_at BIGINT NOT NULL DEFAULT 0, last_outcome TEXT NOT NULL DEFAULT '', created_at BIGINT NOT NULL, "
           "updated_at BIGINT NOT NULL, UNIQUE (workspace_id, app_id, agent_id))",
           "CREATE INDEX routines_due ON routines (enabled, next_fire_at)",
           "CREATE TABLE routine_signatures (workspace_id TEXT NOT NULL, app_id TEXT NOT NULL, routine_id TEXT NOT NULL, "
           "signature TEXT NOT NULL, expires_at BIGINT NOT NULL, PRIMARY KEY (routine_id, signature))",
       }},
  };
  return all;
}

}  // namespace platform::sql
