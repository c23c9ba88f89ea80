// platform::app_agent_run_store over sql_util's executor. Every transition is one conditional
// UPDATE whose WHERE clause is the state rule, so replicas racing on a run need no locks.
#include "sql_app_agent_run_store.hpp"

#include "platform/api_error.hpp"
#include "platform/store.hpp"
#include "sql_util.hpp"

namespace platform::sql {
namespace {

constexpr std::string_view summary_columns =
    "id, workspace_id, app_id, agent_id, agent_name, status, draft, triggered_by_user_id, triggered_by_user_email, "
    "triggered_by_user_name, result, error, usage, active_stream_id, created_at, updated_at, started_at, finished_at, "
    "session_id, stop_reason, routine_id, trigger_kind";
constexpr std::string_view detail_columns = ", prompt, system_prompt, agent_config, transcript, messages";
constexpr std::string_view key_match = " WHERE workspace_id = ? AND app_id = ? AND id = ?";

params with_key(params p, const run_key& k) {
  p.push_back(v(k.workspace_id));
  p.push_back(v(k.app_id));
  p.push_back(v(k.run_id));
  return p;
}

std::string select(bool details) {
  std::string s = "SELECT ";
  s.append(summary_columns);
  if (details) s.append(detail_columns);
  s.append(" FROM app_agent_runs").append(key_match);
  return s;
}

result<void> read_summary(const row& r, agent_run_summary& s) {
  s.run_id = to_text(r[0]);
  s.workspace_id = to_text(r[1]);
  s.app_id = to_text(r[2]);
  s.agent_id = to_text(r[3]);
  s.agent_name = to_text(r[4]);
  auto status = agent_run_status_from(to_text(r[5]));
  if (!status) return fail(api_error::store_corrupt, "agent run " + s.run_id + " has an unknown status");
  s.status = *status;
  s.draft = to_int(r[6]) != 0;
  s.triggered_by_user_id = to_text(r[7]);
  s.triggered_by_user_email = to_text(r[8]);
  s.triggered_by_user_name = to_text(r[9]);
  s.result_json = r[10];
  s.error = r[11];
  s.usage_json = r[12];
  s.active_stream_id = r[13];
  s.created_at = to_int(r[14]);
  s.updated_at = to_int(r[15]);
  s.started_at = to_int(r[16]);
  s.finished_at = to_int(r[17]);
  s.session_id = r[18];
  s.stop_reason = to_text(r[19]);
  s.routine_id = to_text(r[20]);
  s.trigger = to_text(r[21]);
  return {};
}

result<std::vector<agent_run_summary>> summaries(const std::vector<row>& rows) {
  std::vector<agent_run_summary> out;
  for (const auto& r : rows) {
    agent_run_summary s;
    if (auto ok = read_summary(r, s); !ok) return tl::unexpected(ok.error());
    out.push_back(std::move(s));
  }
  return out;
}

class sql_app_agent_run_store final : public app_agent_run_store {
 public:
  explicit sql_app_agent_run_store(std::shared_ptr<backend> db) : ex_(std::move(db)) {}

  result<void> create(const agent_run_record& run) override {
    return ex_.in_transaction([&](connection& c) -> result<void> {
      auto app = c.exec("SELECT 1 FROM apps WHERE workspace_id = ? AND id = ?", {v(run.workspace_id), v(run.app_id)});
      if (!app) return tl::unexpected(app.error());
      if (app->data.empty()) return fail(api_error::store_invalid, "no app " + run.app_id + " in that workspace");
      auto r = c.exec(
          "INSERT INTO app_agent_runs (id, workspace_id, app_id, agent_id, agent_name, status, draft, "
          "triggered_by_user_id, triggered_by_user_email, triggered_by_user_name, prompt, system_prompt, "
          "agent_config, routine_id, trigger_kind, created_at, updated_at) "
          "VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
          {v(run.run_id), v(run.workspace_id), v(run.app_id), v(run.agent_id), v(run.agent_name),
           v(std::int64_t{run.draft ? 1 : 0}), v(run.triggered_by_user_id), v(run.triggered_by_user_email),
           v(run.triggered_by_user_name), v(run.prompt), v(run.system_prompt), v(run.agent_config_json),
           v(run.routine_id), v(run.trigger), v(run.created_at), v(run.created_at)});
      if (!r) return tl::unexpected(r.error());
      return {};
    });
  }

  result<std::optional<agent_run_record>> get(const run_key& key) override {
    auto rows = ex_.query(select(true), with_key({}, key));
    if (!rows) return tl::unexpected(rows.error());
    if (rows->empty()) return std::optional<agent_run_record>();
    const row& r = rows->front();
    agent_run_record run;
    if (auto s = read_summary(r, run); !s) return tl::unexpected(s.error());
    run.prompt = to_text(r[22]);
    run.system_prompt = to_text(r[23]);
    run.agent_config_json = to_text(r[24]);
    run.transcript_json = to_text(r[25]);
    run.messages_json = to_text(r[26]);
    return std::optional<agent_run_record>(std::move(run));
  }

  result<std::optional<agent_run_summary>> summary(const run_key& key) override {
    auto rows = ex_.query(select(false), with_key({}, key));
    if (!rows) return tl::unexpected(rows.error());
    if (rows->empty()) return std::optional<agent_run_summary>();
    agent_run_summary s;
    if (auto r = read_summary(rows->front(), s); !r) return tl::unexpected(r.error());
    return std::optional<agent_run_summary>(std::move(s));
  }

  result<std::vector<agent_run_summary>> list(std::string_view ws, std::string_view app, bool with_draft,
                                              const list_page& page) override {
    params p{v(ws), v(app)};
    std::string text = "SELECT ";
    text.append(summary_columns).append(" FROM app_agent_runs WHERE workspace_id = ? AND app_id = ?");
    if (!with_draft) text.append(" AND draft = 0");
    text.append(page_tail(page, p));
    auto rows = ex_.query(text, p);
    if (!rows) return tl::unexpected(rows.error());
    return summaries(*rows);
  }

  result<std::vector<agent_run_summary>> unfinished(std::int64_t started_before, std::size_t limit) override {
    std::string text = "SELECT ";
    text.append(summary_columns).append(" FROM app_agent_runs WHERE status IN ('running', 'streaming') "
                                        "AND started_at < ? ORDER BY started_at, id LIMIT ?");
    auto rows = ex_.query(text, {v(started_before), v(static_cast<std::int64_t>(limit))});
    if (!rows) return tl::unexpected(rows.error());
    return summaries(*rows);
  }

  result<bool> claim_start(const run_key& key, std::int64_t now) override {
    return changed_one("UPDATE app_agent_runs SET status = 'running', started_at = ?, updated_at = ?",
                       " AND status = 'pending'", with_key({v(now), v(now)}, key));
  }

  result<bool> set_active_stream(const run_key& key, std::string_view stream_id, std::int64_t now) override {
    return changed_one("UPDATE app_agent_runs SET active_stream_id = ?, status = 'streaming', updated_at = ?",
                       " AND active_stream_id IS NULL AND status IN ('running', 'streaming')",
                       with_key({v(stream_id), v(now)}, key));
  }

  result<bool> clear_active_stream(const run_key& key, std::string_view stream_id, std::int64_t now) override {
    // A finished run keeps its final status; only a live one goes back from streaming to running.
    auto p = with_key({v(now)}, key);
    p.push_back(v(stream_id));
    return changed_one("UPDATE app_agent_runs SET active_stream_id = NULL, updated_at = ?, "
                       "status = CASE WHEN status = 'streaming' THEN 'running' ELSE status END",
                       " AND active_stream_id = ?", std::move(p));
  }

  result<bool> finish(const run_key& key, const agent_run_completion& done) override {
    if (!is_finished(done.status)) return fail(api_error::store_invalid, "an agent run ends completed or failed");
    auto text_or_null = [](const std::optional<std::string>& s) { return s ? v(*s) : value{}; };
    return changed_one(
        "UPDATE app_agent_runs SET status = ?, result = ?, error = ?, usage = ?, transcript = ?, messages = ?, "
        "session_id = ?, stop_reason = ?, finished_at = ?, updated_at = ?",
        " AND status NOT IN ('completed', 'failed')",
        with_key({v(to_string(done.status)), text_or_null(done.result_json), text_or_null(done.error),
                  text_or_null(done.usage_json), v(done.transcript_json), v(done.messages_json),
                  text_or_null(done.session_id), v(done.stop_reason), v(done.now), v(done.now)},
                 key));
  }

 private:
  result<bool> changed_one(std::string_view head, std::string_view condition, const params& p) {
    std::string text(head);
    text.append(key_match).append(condition);
    auto n = ex_.exec_changes(text, p);
    if (!n) return tl::unexpected(n.error());
    return *n == 1;
  }

  executor ex_;
};

}  // namespace

std::unique_ptr<app_agent_run_store> make_app_agent_run_store(std::shared_ptr<backend> db) {
  return std::make_unique<sql_app_agent_run_store>(std::move(db));
}

}  // namespace platform::sql
