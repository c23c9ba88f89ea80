// platform::audit_store over sql_util's executor. The loop guard's admission is one upsert
// whose WHERE clause is the rule, so racing replicas need no locks.
#include "sql_audit_store.hpp"

#include <algorithm>

#include "sql_util.hpp"
#include "platform/api_error.hpp"

namespace platform::sql {
namespace {

// Starts a window on the first repair of a fingerprint (or when the last window is over);
// otherwise counts one more repair only while the window's bound is not reached. Every SET
// expression reads the old row, so the window reset and the count agree.
constexpr std::string_view admit_sql =
    "INSERT INTO tool_repair_guards (workspace_id, app_id, fingerprint, window_start, runs) "
    "VALUES (?, ?, ?, ?, 1) "
    "ON CONFLICT (workspace_id, app_id, fingerprint) DO UPDATE SET "
    "window_start = CASE WHEN tool_repair_guards.window_start <= ? THEN excluded.window_start "
    "ELSE tool_repair_guards.window_start END, "
    "runs = CASE WHEN tool_repair_guards.window_start <= ? THEN 1 ELSE tool_repair_guards.runs + 1 END "
    "WHERE tool_repair_guards.window_start <= ? OR tool_repair_guards.runs < ?";

class sql_audit_store final : public audit_store {
 public:
  explicit sql_audit_store(std::shared_ptr<backend> db) : ex_(std::move(db)) {}

  result<void> record(const audit_event& e) override {
    return ex_.write(
        "INSERT INTO tool_audit_events (id, workspace_id, app_id, kind, actor, tool_name, fingerprint, outcome, "
        "builder_run_id, metadata, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        {v(e.id), v(e.workspace_id), v(e.app_id), v(e.kind), v(e.actor), v(e.tool_name), v(e.fingerprint),
         v(e.outcome), v(e.builder_run_id), v(e.metadata_json), v(e.created_at)});
  }

  result<std::vector<audit_event>> recent(std::string_view ws, std::string_view app_id, int limit) override {
    if (limit < 1 || limit > 200) return fail(api_error::store_invalid, "limit must be 1 to 200");
    auto rows = ex_.query(
        "SELECT id, workspace_id, app_id, kind, actor, tool_name, fingerprint, outcome, builder_run_id, metadata, "
        "created_at FROM tool_audit_events WHERE workspace_id = ? AND app_id = ? "
        "ORDER BY created_at DESC, id DESC LIMIT ?",
        {v(ws), v(app_id), v(std::int64_t{limit})});
    if (!rows) return tl::unexpected(rows.error());
    std::vector<audit_event> out;
    out.reserve(rows->size());
    for (const auto& r : *rows) {
      out.push_back({to_text(r[0]), to_text(r[1]), to_text(r[2]), to_text(r[3]), to_text(r[4]), to_text(r[5]),
                     to_text(r[6]), to_text(r[7]), to_text(r[8]), to_text(r[9]), to_int(r[10])});
    }
    return out;
  }

  result<bool> admit_repair(const repair_admission& a) override {
    if (a.max_runs <= 0) return false;
    std::int64_t expired_before = a.now - std::max<std::int64_t>(a.window_ms, 0);
    auto changed = ex_.exec_changes(admit_sql, {v(a.workspace_id), v(a.app_id), v(a.fingerprint), v(a.now),
                                                v(expired_before), v(expired_before), v(expired_before),
                                                v(a.max_runs)});
    if (!changed) return tl::unexpected(changed.error());
    return *changed > 0;
  }

 private:
  executor ex_;
};

}  // namespace

std::unique_ptr<audit_store> make_audit_store(std::shared_ptr<backend> db) {
  return std::make_unique<sql_audit_store>(std::move(db));
}

}  // namespace platform::sql
