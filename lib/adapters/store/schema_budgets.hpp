#pragma once
// Budgets (issue 37; versions 900-999): each workspace's limits and each app's overrides as
// their wire JSON, the spend ledger (one entry per run: its estimate while it runs, its
// recorded spend once settled), its running totals per month (the workspace's under app_id '',
// each app's under its id: a step reads two rows, whatever the month holds) and which monthly
// warnings went out. Ledger entries are not removed with their app: what an app spent stays
// spent in its workspace's month.
#include <vector>

#include "schema.hpp"

namespace platform::sql {

inline const std::vector<migration>& budget_migrations() {
  static const std::vector<migration> all = {
      {900,
       {
           "CREATE TABLE budget_settings (workspace_id TEXT PRIMARY KEY, settings TEXT NOT NULL, updated_at BIGINT NOT NULL)",
           "CREATE TABLE app_budget_settings (workspace_id TEXT NOT NULL, app_id TEXT NOT NULL, settings TEXT NOT NULL, "
           "updated_at BIGINT NOT NULL, PRIMARY KEY (workspace_id, app_id))",
           "CREATE TABLE spend_entries (workspace_id TEXT NOT NULL, entry_id TEXT NOT NULL, app_id TEXT NOT NULL, "
           "run_id TEXT NOT NULL, kind TEXT NOT NULL, usd DOUBLE PRECISION NOT NULL DEFAULT 0, tokens BIGINT NOT NULL DEFAULT 0, "
           "settled BIGINT NOT NULL DEFAULT 0, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, "
           "PRIMARY KEY (workspace_id, entry_id))",
           "CREATE INDEX spend_entries_by_month ON spend_entries (workspace_id, created_at)",
           "CREATE INDEX spend_entries_by_app ON spend_entries (workspace_id, app_id, created_at)",
           "CREATE TABLE spend_months (workspace_id TEXT NOT NULL, app_id TEXT NOT NULL, month_start BIGINT NOT NULL, "
           "usd DOUBLE PRECISION NOT NULL DEFAULT 0, tokens BIGINT NOT NULL DEFAULT 0, "
           "PRIMARY KEY (workspace_id, app_id, month_start))",
           "CREATE TABLE budget_warnings (workspace_id TEXT NOT NULL, budget TEXT NOT NULL, month_start BIGINT NOT NULL, "
           "PRIMARY KEY (workspace_id, budget, month_start))",
       }},
  };
  return all;
}

}  // namespace platform::sql
