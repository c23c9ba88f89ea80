// store::delete_app's statements. SQLite runs them under the write lock its transactions take
// up front (BEGIN IMMEDIATE), so nothing changes between the checks and the deletes. PostgreSQL
// gets the same guarantee from row locks: the app's row first (a run or agent run inserted
// meanwhile waits on it through its foreign key, then finds no app), then its builder and agent
// runs (a claim racing the check waits, then finds no run; one that came first is seen as live).
#include "sql_app_deletion.hpp"
#include "sql_version_rows.hpp"

#include <algorithm>
#include <initializer_list>
#include <string>

#include "sql_util.hpp"

namespace platform::sql {
namespace {

// Keyed by (workspace_id, app_id). app_id alone would reach another workspace's rows: only
// apps and runs have ids of their own that are unique across workspaces.
constexpr std::string_view app_keyed_tables[] = {
    "app_agent_runs",
    "app_data_documents", "app_data_collections",
    "gov_snapshot_files", "gov_snapshots", "gov_approvals", "gov_publications", "gov_reviews",
    "tool_audit_events", "tool_repair_guards",
    "integration_secrets", "integration_requirements", "oauth_accounts", "oauth_connect_states",
    "app_version_files", "app_versions", "app_releases",
    // Its limits go; its spend_entries stay: what the app spent stays in its workspace's month.
    "app_budget_settings",
    "routine_signatures", "routines",
};

// Keyed by the builder run's id only: they go with the app's runs.
constexpr std::string_view run_keyed_tables[] = {"run_model_usage", "run_cost_unknown", "run_session_states"};

constexpr std::string_view of_the_app = " WHERE workspace_id = ? AND app_id = ?";

std::string locking(connection& c, std::string text) {
  if (c.kind() == dialect::postgres) text += " FOR UPDATE";
  return text;
}

result<bool> any_row(connection& c, const std::string& text, const params& p) {
  auto rows = c.exec(text, p);
  if (!rows) return tl::unexpected(rows.error());
  return !rows->data.empty();
}

result<bool> any_live(connection& c, std::string_view table, std::initializer_list<std::string_view> live,
                      const params& app) {
  auto rows = c.exec(locking(c, "SELECT status FROM " + std::string(table) + std::string(of_the_app)), app);
  if (!rows) return tl::unexpected(rows.error());
  for (const auto& r : rows->data) {
    if (std::find(live.begin(), live.end(), to_text(r[0])) != live.end()) return true;
  }
  return false;
}

result<void> exec_delete(connection& c, const std::string& text, const params& p) {
  auto r = c.exec(text, p);
  if (!r) return tl::unexpected(r.error());
  return {};
}

}  // namespace

result<app_deletion> delete_app_rows(connection& c, std::string_view ws, std::string_view app) {
  const params key{v(ws), v(app)};
  auto exists = any_row(c, locking(c, "SELECT 1 FROM apps WHERE workspace_id = ? AND id = ?"), key);
  if (!exists) return tl::unexpected(exists.error());
  if (!*exists) return app_deletion::not_found;

  auto streaming = any_live(c, "builder_runs", {"streaming"}, key);
  if (!streaming) return tl::unexpected(streaming.error());
  if (*streaming) return app_deletion::builder_turn_streaming;
  auto running = any_live(c, "app_agent_runs", {"running", "streaming"}, key);
  if (!running) return tl::unexpected(running.error());
  if (*running) return app_deletion::agent_run_active;

  // The builds the app's previews show, read before their rows go: each is deleted below
  // unless another app's draft or published preview shows the same digest.
  auto shown = c.exec("SELECT DISTINCT digest FROM app_previews" + std::string(of_the_app) +
                          " UNION SELECT DISTINCT build_digest FROM app_versions" + std::string(of_the_app) +
                          " AND build_digest IS NOT NULL UNION SELECT DISTINCT build_digest FROM app_releases" +
                          std::string(of_the_app),
                      {v(ws), v(app), v(ws), v(app), v(ws), v(app)});
  if (!shown) return tl::unexpected(shown.error());

  // The file contents only this app's versions hold (a blob is shared by content).
  if (auto gc = lock_blob_collection(c, true); !gc) return tl::unexpected(gc.error());
  if (auto r = exec_delete(c,
                           "DELETE FROM version_blobs WHERE digest IN (SELECT digest FROM app_version_files" +
                               std::string(of_the_app) +
                               ") AND NOT EXISTS (SELECT 1 FROM app_version_files o WHERE o.digest = version_blobs.digest "
                               "AND NOT (o.workspace_id = ? AND o.app_id = ?))",
                           {v(ws), v(app), v(ws), v(app)});
      !r) {
    return tl::unexpected(r.error());
  }
  for (auto table : run_keyed_tables) {
    auto r = exec_delete(c, "DELETE FROM " + std::string(table) + " WHERE run_id IN (SELECT id FROM builder_runs" +
                        std::string(of_the_app) + ")", key);
    if (!r) return tl::unexpected(r.error());
  }
  for (auto table : {std::string_view("builder_runs"), std::string_view("app_previews")}) {
    if (auto r = exec_delete(c, "DELETE FROM " + std::string(table) + std::string(of_the_app), key); !r) return tl::unexpected(r.error());
  }
  for (auto table : app_keyed_tables) {
    if (auto r = exec_delete(c, "DELETE FROM " + std::string(table) + std::string(of_the_app), key); !r) return tl::unexpected(r.error());
  }
  for (const auto& row : shown->data) {
    const params digest{v(to_text(row[0])), v(to_text(row[0])), v(to_text(row[0])), v(to_text(row[0]))};
    // Kept while another app's preview shows it or one of its versions or releases was built as it.
    for (auto table : {std::string_view("preview_files"), std::string_view("preview_builds")}) {
      auto r = exec_delete(c, "DELETE FROM " + std::string(table) +
                          " WHERE digest = ? AND NOT EXISTS (SELECT 1 FROM app_previews WHERE digest = ?)"
                          " AND NOT EXISTS (SELECT 1 FROM app_versions WHERE build_digest = ?)"
                          " AND NOT EXISTS (SELECT 1 FROM app_releases WHERE build_digest = ?)", digest);
      if (!r) return tl::unexpected(r.error());
    }
  }
  auto gone = c.exec("DELETE FROM apps WHERE workspace_id = ? AND id = ?", key);
  if (!gone) return tl::unexpected(gone.error());
  return gone->changes == 1 ? app_deletion::deleted : app_deletion::not_found;
}

}  // namespace platform::sql
