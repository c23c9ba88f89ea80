// platform::budget_store over sql_util's executor. Reserving, settling and reading the month
// are one transaction under the workspace's budget lock (PostgreSQL's advisory lock; SQLite
// has one writer), so a step never reads a month that misses another replica's last step.
#include "sql_budget_store.hpp"

#include "platform/api_error.hpp"
#include "sql_util.hpp"

namespace platform::sql {
namespace {

std::string_view kind_text(budget_run_kind k) { return k == budget_run_kind::builder_turn ? "builder_turn" : "agent_run"; }

result<void> lock_budget(connection& c, std::string_view ws) {
  if (c.kind() != dialect::postgres) return {};
  auto lock = c.exec("SELECT pg_advisory_xact_lock(hashtext(?))", {v("budget/" + std::string(ws))});
  if (!lock) return tl::unexpected(lock.error());
  return {};
}

spend spend_from(const row& r) { return {to_double(r[0]), to_int(r[1])}; }

result<month_spend> month_in(connection& c, std::string_view ws, std::string_view app, std::int64_t month_start) {
  const std::int64_t end = budget_month_end(month_start);
  auto all = c.exec("SELECT COALESCE(SUM(usd), 0), COALESCE(SUM(tokens), 0) FROM spend_entries "
                    "WHERE workspace_id = ? AND created_at >= ? AND created_at < ?",
                    {v(ws), v(month_start), v(end)});
  if (!all) return tl::unexpected(all.error());
  month_spend m;
  if (!all->data.empty()) m.workspace = spend_from(all->data.front());
  if (app.empty()) return m;
  auto mine = c.exec("SELECT COALESCE(SUM(usd), 0), COALESCE(SUM(tokens), 0) FROM spend_entries "
                     "WHERE workspace_id = ? AND app_id = ? AND created_at >= ? AND created_at < ?",
                     {v(ws), v(app), v(month_start), v(end)});
  if (!mine) return tl::unexpected(mine.error());
  if (!mine->data.empty()) m.app = spend_from(mine->data.front());
  return m;
}

// The entry's start, which sets its month.
result<std::int64_t> entry_start(connection& c, const spend_entry_key& k) {
  auto at = c.exec("SELECT created_at FROM spend_entries WHERE workspace_id = ? AND entry_id = ?", {v(k.workspace_id), v(k.entry_id)});
  if (!at) return tl::unexpected(at.error());
  if (at->data.empty()) return fail(api_error::store_corrupt, "the spend entry " + k.entry_id + " vanished in its transaction");
  return to_int(at->data.front()[0]);
}

class sql_budget_store final : public budget_store {
 public:
  explicit sql_budget_store(std::shared_ptr<backend> db) : ex_(std::move(db)) {}

  result<budget_settings> settings(std::string_view ws) override {
    auto rows = ex_.query("SELECT settings FROM budget_settings WHERE workspace_id = ?", {v(ws)});
    if (!rows) return tl::unexpected(rows.error());
    if (rows->empty()) return budget_settings{};
    auto s = budget_settings_from_json(to_text(rows->front()[0]));
    if (!s) return fail(api_error::store_corrupt, "the workspace's budget settings cannot be read: " + s.error().message);
    return *s;
  }

  result<void> put_settings(std::string_view ws, const budget_settings& s, std::int64_t now) override {
    auto r = ex_.query("INSERT INTO budget_settings (workspace_id, settings, updated_at) VALUES (?, ?, ?) "
                       "ON CONFLICT (workspace_id) DO UPDATE SET settings = excluded.settings, updated_at = excluded.updated_at",
                       {v(ws), v(budget_settings_to_json(s)), v(now)});
    if (!r) return tl::unexpected(r.error());
    return {};
  }

  result<app_budget_overrides> app_overrides(std::string_view ws, std::string_view app) override {
    auto rows = ex_.query("SELECT settings FROM app_budget_settings WHERE workspace_id = ? AND app_id = ?", {v(ws), v(app)});
    if (!rows) return tl::unexpected(rows.error());
    if (rows->empty()) return app_budget_overrides{};
    auto o = app_budget_overrides_from_json(to_text(rows->front()[0]));
    if (!o) return fail(api_error::store_corrupt, "the app's budget settings cannot be read: " + o.error().message);
    return *o;
  }

  result<void> put_app_overrides(std::string_view ws, std::string_view app, const app_budget_overrides& o,
                                 std::int64_t now) override {
    auto r = ex_.query("INSERT INTO app_budget_settings (workspace_id, app_id, settings, updated_at) VALUES (?, ?, ?, ?) "
                       "ON CONFLICT (workspace_id, app_id) DO UPDATE SET settings = excluded.settings, "
                       "updated_at = excluded.updated_at",
                       {v(ws), v(app), v(app_budget_overrides_to_json(o)), v(now)});
    if (!r) return tl::unexpected(r.error());
    return {};
  }

  result<month_spend> month(std::string_view ws, std::string_view app, std::int64_t month_start) override {
    month_spend out;
    auto r = ex_.in_transaction([&](connection& c) -> result<void> {
      auto m = month_in(c, ws, app, month_start);
      if (!m) return tl::unexpected(m.error());
      out = *m;
      return {};
    });
    if (!r) return tl::unexpected(r.error());
    return out;
  }

  result<month_spend> reserve(const spend_entry_key& k, const spend& so_far, std::int64_t now) override {
    return write(k, so_far, now,
                 "INSERT INTO spend_entries (workspace_id, entry_id, app_id, run_id, kind, usd, tokens, settled, created_at, "
                 "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?) ON CONFLICT (workspace_id, entry_id) DO UPDATE SET "
                 "usd = CASE WHEN spend_entries.settled = 0 AND excluded.usd > spend_entries.usd THEN excluded.usd "
                 "ELSE spend_entries.usd END, "
                 "tokens = CASE WHEN spend_entries.settled = 0 AND excluded.tokens > spend_entries.tokens THEN excluded.tokens "
                 "ELSE spend_entries.tokens END, updated_at = excluded.updated_at");
  }

  result<month_spend> settle(const spend_entry_key& k, const spend& recorded, std::int64_t now) override {
    return write(k, recorded, now,
                 "INSERT INTO spend_entries (workspace_id, entry_id, app_id, run_id, kind, usd, tokens, settled, created_at, "
                 "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?) ON CONFLICT (workspace_id, entry_id) DO UPDATE SET "
                 "usd = excluded.usd, tokens = excluded.tokens, settled = 1, updated_at = excluded.updated_at");
  }

  result<bool> first_warning(std::string_view ws, std::string_view budget, std::int64_t month_start) override {
    auto n = ex_.exec_changes("INSERT INTO budget_warnings (workspace_id, budget, month_start) VALUES (?, ?, ?) "
                              "ON CONFLICT (workspace_id, budget, month_start) DO NOTHING",
                              {v(ws), v(budget), v(month_start)});
    if (!n) return tl::unexpected(n.error());
    return *n == 1;
  }

 private:
  result<month_spend> write(const spend_entry_key& k, const spend& s, std::int64_t now, std::string_view upsert) {
    if (k.workspace_id.empty() || k.entry_id.empty()) return fail(api_error::store_invalid, "a spend entry needs a workspace and an id");
    month_spend out;
    auto r = ex_.in_transaction([&](connection& c) -> result<void> {
      if (auto locked = lock_budget(c, k.workspace_id); !locked) return tl::unexpected(locked.error());
      auto w = c.exec(upsert, {v(k.workspace_id), v(k.entry_id), v(k.app_id), v(k.run_id), v(kind_text(k.kind)),
                               value::of(s.usd), v(s.tokens), v(now), v(now)});
      if (!w) return tl::unexpected(w.error());
      auto started = entry_start(c, k);
      if (!started) return tl::unexpected(started.error());
      auto m = month_in(c, k.workspace_id, k.app_id, budget_month_start(*started));
      if (!m) return tl::unexpected(m.error());
      out = *m;
      return {};
    });
    if (!r) return tl::unexpected(r.error());
    return out;
  }

  executor ex_;
};

}  // namespace

std::unique_ptr<budget_store> make_budget_store(std::shared_ptr<backend> db) {
  return std::make_unique<sql_budget_store>(std::move(db));
}

}  // namespace platform::sql
