// platform::budget_store over sql_util's executor. Reserving, settling and reading the month
// are one transaction under the workspace's budget lock (PostgreSQL's advisory lock; SQLite
// has one writer), so a step never reads a month that misses another replica's last step.
#include "sql_budget_store.hpp"

#include <algorithm>

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

// The month's running totals: the workspace's (app_id '') and `app`'s.
result<month_spend> month_in(connection& c, std::string_view ws, std::string_view app, std::int64_t month_start) {
  auto rows = c.exec("SELECT app_id, usd, tokens FROM spend_months WHERE workspace_id = ? AND month_start = ? AND app_id IN ('', ?)",
                     {v(ws), v(month_start), v(app)});
  if (!rows) return tl::unexpected(rows.error());
  month_spend m;
  for (const auto& r : rows->data) {
    spend s{to_double(r[1]), to_int(r[2])};
    if (to_text(r[0]).empty()) m.workspace = s;
    else m.app = s;
  }
  return m;
}

// Adds `delta` to the month's totals of the workspace and of the app.
result<void> add_to_month(connection& c, const spend_entry_key& k, std::int64_t month_start, const spend& delta) {
  if (delta == spend{}) return {};
  for (std::string_view app : {std::string_view(), std::string_view(k.app_id)}) {
    auto r = c.exec("INSERT INTO spend_months (workspace_id, app_id, month_start, usd, tokens) VALUES (?, ?, ?, ?, ?) "
                    "ON CONFLICT (workspace_id, app_id, month_start) DO UPDATE SET usd = spend_months.usd + excluded.usd, "
                    "tokens = spend_months.tokens + excluded.tokens",
                    {v(k.workspace_id), v(app), v(month_start), value::of(delta.usd), v(delta.tokens)});
    if (!r) return tl::unexpected(r.error());
  }
  return {};
}

struct entry_row {
  spend amount;
  bool settled = false;
  std::int64_t created_at = 0;
};

result<std::optional<entry_row>> entry_of(connection& c, const spend_entry_key& k) {
  auto rows = c.exec("SELECT usd, tokens, settled, created_at FROM spend_entries WHERE workspace_id = ? AND entry_id = ?",
                     {v(k.workspace_id), v(k.entry_id)});
  if (!rows) return tl::unexpected(rows.error());
  if (rows->data.empty()) return std::optional<entry_row>();
  const auto& r = rows->data.front();
  return std::optional<entry_row>(entry_row{spend_from(r), to_int(r[2]) != 0, to_int(r[3])});
}

spend minus(const spend& a, const spend& b) { return {a.usd - b.usd, a.tokens - b.tokens}; }

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
    auto rows = ex_.query("SELECT app_id, usd, tokens FROM spend_months WHERE workspace_id = ? AND month_start = ? AND app_id IN ('', ?)",
                          {v(ws), v(month_start), v(app)});
    if (!rows) return tl::unexpected(rows.error());
    month_spend m;
    for (const auto& r : *rows) (to_text(r[0]).empty() ? m.workspace : m.app) = spend{to_double(r[1]), to_int(r[2])};
    return m;
  }

  result<month_spend> reserve(const spend_entry_key& k, const spend& so_far, std::int64_t now) override {
    return write(k, now, [&](const std::optional<entry_row>& was) -> std::optional<entry_row> {
      if (!was) return entry_row{so_far, false, now};
      if (was->settled) return std::nullopt;  // the recorded spend stands
      return entry_row{{std::max(was->amount.usd, so_far.usd), std::max(was->amount.tokens, so_far.tokens)}, false, was->created_at};
    });
  }

  result<month_spend> settle(const spend_entry_key& k, const spend& recorded, std::int64_t now) override {
    return write(k, now, [&](const std::optional<entry_row>& was) -> std::optional<entry_row> {
      return entry_row{recorded, true, was ? was->created_at : now};
    });
  }

  result<bool> first_warning(std::string_view ws, std::string_view budget, std::int64_t month_start) override {
    auto n = ex_.exec_changes("INSERT INTO budget_warnings (workspace_id, budget, month_start) VALUES (?, ?, ?) "
                              "ON CONFLICT (workspace_id, budget, month_start) DO NOTHING",
                              {v(ws), v(budget), v(month_start)});
    if (!n) return tl::unexpected(n.error());
    return *n == 1;
  }

 private:
  // One transaction under the workspace's budget lock: the entry's next state from `next`
  // (nullopt: unchanged), the month's totals moved by the difference, and the month read back.
  template <typename Next>
  result<month_spend> write(const spend_entry_key& k, std::int64_t now, Next&& next) {
    if (k.workspace_id.empty() || k.entry_id.empty()) return fail(api_error::store_invalid, "a spend entry needs a workspace and an id");
    month_spend out;
    auto r = ex_.in_transaction([&](connection& c) -> result<void> {
      if (auto locked = lock_budget(c, k.workspace_id); !locked) return tl::unexpected(locked.error());
      auto was = entry_of(c, k);
      if (!was) return tl::unexpected(was.error());
      std::optional<entry_row> now_row = next(*was);
      const std::int64_t started = now_row ? now_row->created_at : (*was)->created_at;
      const std::int64_t month = budget_month_start(started);
      if (now_row) {
        auto w = c.exec("INSERT INTO spend_entries (workspace_id, entry_id, app_id, run_id, kind, usd, tokens, settled, "
                        "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (workspace_id, entry_id) "
                        "DO UPDATE SET usd = excluded.usd, tokens = excluded.tokens, settled = excluded.settled, "
                        "updated_at = excluded.updated_at",
                        {v(k.workspace_id), v(k.entry_id), v(k.app_id), v(k.run_id), v(kind_text(k.kind)),
                         value::of(now_row->amount.usd), v(now_row->amount.tokens), v(std::int64_t{now_row->settled ? 1 : 0}),
                         v(now_row->created_at), v(now)});
        if (!w) return tl::unexpected(w.error());
        auto moved = add_to_month(c, k, month, *was ? minus(now_row->amount, (*was)->amount) : now_row->amount);
        if (!moved) return tl::unexpected(moved.error());
      }
      auto m = month_in(c, k.workspace_id, k.app_id, month);
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
