// platform::routine_store over sql_util's executor. A tick's claim is one conditional UPDATE
// (next_fire_at = the tick), so whichever replica's update lands first owns it.
#include "sql_routine_store.hpp"

#include <map>

#include <nlohmann/json.hpp>
#include <openssl/rand.h>

#include "platform/api_error.hpp"
#include "platform/compact_json.hpp"
#include "platform/routine.hpp"
#include "sql_util.hpp"

namespace platform::sql {
namespace {

using nlohmann::json;

constexpr std::string_view columns =
    "id, workspace_id, app_id, agent_id, schedule, webhook, enabled, consecutive_failures, next_fire_at, problem, approved_by, "
    "webhook_secret, last_run_id, last_fired_at, last_outcome, created_at, updated_at";

std::string new_routine_id() {
  unsigned char b[12];
  if (RAND_bytes(b, sizeof b) != 1) return {};
  static constexpr char hex[] = "0123456789abcdef";
  std::string out = "rtn_";
  for (unsigned char c : b) {
    out += hex[c >> 4];
    out += hex[c & 15];
  }
  return out;
}

std::optional<std::string> schedule_json(const std::optional<schedule_trigger>& s) {
  if (!s) return std::nullopt;
  return compact_json(json{{"cron", s->cron}, {"timezone", s->timezone}, {"prompt", s->prompt}});
}

std::optional<std::string> webhook_json(const std::optional<webhook_trigger>& w) {
  if (!w) return std::nullopt;
  return compact_json(json{{"prompt", w->prompt}});
}

routine_record record_of(const row& r) {
  routine_record out;
  out.id = to_text(r[0]);
  out.workspace_id = to_text(r[1]);
  out.app_id = to_text(r[2]);
  out.agent_id = to_text(r[3]);
  if (r[4]) {
    json s = json::parse(*r[4], nullptr, false);
    if (s.is_object()) out.schedule = schedule_trigger{s.value("cron", ""), s.value("timezone", ""), s.value("prompt", "")};
  }
  if (r[5]) {
    json w = json::parse(*r[5], nullptr, false);
    if (w.is_object()) out.webhook = webhook_trigger{w.value("prompt", "")};
  }
  out.enabled = to_int(r[6]) != 0;
  out.consecutive_failures = to_int(r[7]);
  if (r[8]) out.next_fire_at = to_int(r[8]);
  out.problem = to_text(r[9]);
  out.approved_by = to_text(r[10]);
  out.webhook_secret_sealed = to_text(r[11]);
  out.last_run_id = r[12];
  out.last_fired_at = to_int(r[13]);
  out.last_outcome = to_text(r[14]);
  out.created_at = to_int(r[15]);
  out.updated_at = to_int(r[16]);
  return out;
}

value nullable(const std::optional<std::string>& s) { return s ? v(*s) : value::null(); }
value nullable(const std::optional<std::int64_t>& n) { return n ? v(*n) : value::null(); }

class sql_routine_store final : public routine_store {
 public:
  explicit sql_routine_store(std::shared_ptr<backend> db) : ex_(std::move(db)) {}

  result<std::vector<routine_record>> sync(std::string_view ws, std::string_view app, const std::vector<routine_spec>& specs,
                                           const std::string& approved_by, first_tick_fn first_tick, std::int64_t now) override {
    auto r = ex_.in_transaction([&](connection& c) -> result<void> {
      auto existing = c.exec("SELECT " + std::string(columns) + " FROM routines WHERE workspace_id = ? AND app_id = ?", {v(ws), v(app)});
      if (!existing) return tl::unexpected(existing.error());
      std::map<std::string, routine_record> by_agent;
      for (const auto& row : existing->data) {
        auto rec = record_of(row);
        by_agent[rec.agent_id] = rec;
      }
      for (const auto& spec : specs) {
        std::string problem;
        std::optional<std::int64_t> next;
        if (spec.schedule) next = first_tick(*spec.schedule, now, problem);
        auto it = by_agent.find(spec.agent_id);
        if (it == by_agent.end()) {
          std::string id = new_routine_id();
          if (id.empty()) return fail(api_error::internal, "no random bytes for a routine id");
          auto ins = c.exec("INSERT INTO routines (id, workspace_id, app_id, agent_id, schedule, webhook, enabled, consecutive_failures, "
                            "next_fire_at, problem, approved_by, created_at, updated_at) "
                            "VALUES (?, ?, ?, ?, ?, ?, 1, 0, CAST(? AS BIGINT), ?, ?, ?, ?)",
                            {v(id), v(ws), v(app), v(spec.agent_id), nullable(schedule_json(spec.schedule)),
                             nullable(webhook_json(spec.webhook)), nullable(next), v(problem), v(approved_by), v(now), v(now)});
          if (!ins) return tl::unexpected(ins.error());
        } else {
          // A schedule that did not change keeps its due tick (a publish never skips or repeats one).
          const bool same_schedule = schedule_json(it->second.schedule) == schedule_json(spec.schedule);
          std::optional<std::int64_t> keep = same_schedule && it->second.next_fire_at ? it->second.next_fire_at : next;
          auto up = c.exec("UPDATE routines SET schedule = ?, webhook = ?, next_fire_at = CAST(? AS BIGINT), problem = ?, "
                           "approved_by = ?, updated_at = ? WHERE id = ?",
                           {nullable(schedule_json(spec.schedule)), nullable(webhook_json(spec.webhook)),
                            nullable(problem.empty() ? keep : std::nullopt), v(problem), v(approved_by), v(now), v(it->second.id)});
          if (!up) return tl::unexpected(up.error());
          by_agent.erase(it);
        }
      }
      for (const auto& [agent, gone] : by_agent) {
        for (const char* table : {"routine_signatures", "routines"}) {
          auto del = c.exec(std::string("DELETE FROM ") + table + (std::string_view(table) == "routines" ? " WHERE id = ?" : " WHERE routine_id = ?"),
                            {v(gone.id)});
          if (!del) return tl::unexpected(del.error());
        }
      }
      return {};
    });
    if (!r) return tl::unexpected(r.error());
    return list(ws, app);
  }

  result<std::vector<routine_record>> list(std::string_view ws, std::string_view app) override {
    return many("SELECT " + std::string(columns) + " FROM routines WHERE workspace_id = ? AND app_id = ? ORDER BY agent_id",
                {v(ws), v(app)});
  }

  result<std::optional<routine_record>> get(std::string_view id) override {
    auto rows = many("SELECT " + std::string(columns) + " FROM routines WHERE id = ?", {v(id)});
    if (!rows) return tl::unexpected(rows.error());
    if (rows->empty()) return std::optional<routine_record>();
    return std::optional<routine_record>(std::move(rows->front()));
  }

  result<std::vector<routine_record>> due(std::int64_t now, std::size_t limit) override {
    return many("SELECT " + std::string(columns) + " FROM routines WHERE enabled = 1 AND next_fire_at IS NOT NULL AND "
                "next_fire_at <= ? ORDER BY next_fire_at LIMIT ?",
                {v(now), v(static_cast<std::int64_t>(limit))});
  }

  result<std::vector<routine_record>> started_before(std::int64_t claimed_before, std::int64_t claimed_after,
                                                     std::size_t limit) override {
    return many("SELECT " + std::string(columns) + " FROM routines WHERE last_outcome = 'started' AND last_run_id IS NOT NULL AND "
                "last_fired_at <= ? AND last_fired_at >= ? ORDER BY last_fired_at LIMIT ?",
                {v(claimed_before), v(claimed_after), v(static_cast<std::int64_t>(limit))});
  }

  result<bool> claim_tick(std::string_view id, std::int64_t tick, std::optional<std::int64_t> next, std::string_view outcome,
                          const std::optional<std::string>& run_id, std::int64_t now) override {
    auto n = ex_.exec_changes("UPDATE routines SET next_fire_at = CAST(? AS BIGINT), last_outcome = ?, "
                              "last_run_id = CASE WHEN ? = 'started' THEN ? ELSE last_run_id END, "
                              "last_fired_at = CASE WHEN ? = 'started' THEN ? ELSE last_fired_at END, updated_at = ? "
                              "WHERE id = ? AND enabled = 1 AND next_fire_at = ?",
                              {nullable(next), v(outcome), v(outcome), nullable(run_id), v(outcome), v(now), v(now), v(id), v(tick)});
    if (!n) return tl::unexpected(n.error());
    return *n == 1;
  }

  result<void> record_webhook_run(std::string_view id, std::string_view run_id, std::int64_t now) override {
    return one("UPDATE routines SET last_run_id = ?, last_fired_at = ?, last_outcome = 'webhook', updated_at = ? WHERE id = ?",
               {v(run_id), v(now), v(now), v(id)});
  }

  result<bool> record_run_end(std::string_view id, bool failed, std::int64_t now) override {
    bool switched = false;
    auto r = ex_.in_transaction([&](connection& c) -> result<void> {
      auto cur = c.exec("SELECT enabled, consecutive_failures FROM routines WHERE id = ?", {v(id)});
      if (!cur) return tl::unexpected(cur.error());
      if (cur->data.empty()) return {};
      routine_state s;
      s.enabled = to_int(cur->data.front()[0]) != 0;
      s.consecutive_failures = to_int(cur->data.front()[1]);
      auto e = on_run_end(s, failed);
      switched = e.switch_off;
      auto up = c.exec("UPDATE routines SET consecutive_failures = ?, enabled = CASE WHEN ? = 1 THEN 0 ELSE enabled END, "
                       "updated_at = ? WHERE id = ?",
                       {v(e.consecutive_failures), v(std::int64_t{e.switch_off ? 1 : 0}), v(now), v(id)});
      if (!up) return tl::unexpected(up.error());
      return {};
    });
    if (!r) return tl::unexpected(r.error());
    return switched;
  }

  result<void> set_enabled(std::string_view id, bool enabled, std::optional<std::int64_t> next, std::int64_t now) override {
    return one("UPDATE routines SET enabled = ?, consecutive_failures = CASE WHEN ? = 1 THEN 0 ELSE consecutive_failures END, "
               "next_fire_at = CASE WHEN ? = 1 THEN CAST(? AS BIGINT) ELSE next_fire_at END, updated_at = ? WHERE id = ?",
               {v(std::int64_t{enabled ? 1 : 0}), v(std::int64_t{enabled ? 1 : 0}), v(std::int64_t{enabled ? 1 : 0}), nullable(next),
                v(now), v(id)});
  }

  result<void> put_webhook_secret(std::string_view id, std::string_view sealed, std::int64_t now) override {
    return one("UPDATE routines SET webhook_secret = ?, updated_at = ? WHERE id = ?", {v(sealed), v(now), v(id)});
  }

  result<bool> first_use_of_signature(std::string_view id, std::string_view signature, std::int64_t expires_at,
                                      std::int64_t now) override {
    bool first = false;
    auto r = ex_.in_transaction([&](connection& c) -> result<void> {
      auto owner = c.exec("SELECT workspace_id, app_id FROM routines WHERE id = ?", {v(id)});
      if (!owner) return tl::unexpected(owner.error());
      if (owner->data.empty()) return fail(api_error::not_found, "no such routine");
      auto old = c.exec("DELETE FROM routine_signatures WHERE routine_id = ? AND expires_at < ?", {v(id), v(now)});
      if (!old) return tl::unexpected(old.error());
      auto ins = c.exec("INSERT INTO routine_signatures (workspace_id, app_id, routine_id, signature, expires_at) "
                        "VALUES (?, ?, ?, ?, ?) ON CONFLICT (routine_id, signature) DO NOTHING",
                        {v(to_text(owner->data.front()[0])), v(to_text(owner->data.front()[1])), v(id), v(signature), v(expires_at)});
      if (!ins) return tl::unexpected(ins.error());
      first = ins->changes == 1;
      return {};
    });
    if (!r) return tl::unexpected(r.error());
    return first;
  }

 private:
  result<std::vector<routine_record>> many(const std::string& text, const params& p) {
    auto rows = ex_.query(text, p);
    if (!rows) return tl::unexpected(rows.error());
    std::vector<routine_record> out;
    for (const auto& r : *rows) out.push_back(record_of(r));
    return out;
  }

  result<void> one(std::string_view text, const params& p) {
    auto r = ex_.query(text, p);
    if (!r) return tl::unexpected(r.error());
    return {};
  }

  executor ex_;
};

}  // namespace

std::unique_ptr<routine_store> make_routine_store(std::shared_ptr<backend> db) {
  return std::make_unique<sql_routine_store>(std::move(db));
}

}  // namespace platform::sql
