#include "budgets.hpp"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "chat_service.hpp"
#include "events.hpp"
#include "http.hpp"
#include "platform/api_error.hpp"
#include "platform/compact_json.hpp"
#include "platform/store.hpp"
#include "web_app.hpp"
#include "../common/json_fields.hpp"

namespace platform::web {

using nlohmann::json;

result<run_budget> run_budget_for(store& db, std::string_view ws, std::string_view app_id, budget_run_kind kind) {
  auto s = db.budgets().settings(ws);
  if (!s) return tl::unexpected(s.error());
  auto o = db.budgets().app_overrides(ws, app_id);
  if (!o) return tl::unexpected(o.error());
  return run_budget_of(*s, *o, kind);
}

result<run_spend> admit_run(store& db, spend_entry_key entry) {
  run_spend run{std::move(entry), {}, {}};
  auto limits = run_budget_for(db, run.entry.workspace_id, run.entry.app_id, run.entry.kind);
  if (!limits) return tl::unexpected(limits.error());
  run.limits = *limits;
  if (run.limits.workspace_monthly.unlimited() && run.limits.app_monthly.unlimited()) return run;
  auto m = db.budgets().month(run.entry.workspace_id, run.entry.app_id, budget_month_start(now_ms()));
  if (!m) return tl::unexpected(m.error());
  if (auto refused = refuse_start(run.limits, *m)) return fail(api_error::budget_exhausted, refused->message);
  return run;
}

namespace {

void log_store(const char* what, const run_spend& run, const error& e) {
  std::fprintf(stderr, "web: budget %s of app=%s run=%s failed: %s\n", what, run.entry.app_id.c_str(), run.entry.run_id.c_str(),
               code_c_str(e));
}

// Each monthly budget at 80 % warns once a month, on the workspace's channel (ids and shares only).
void warn(store& db, cache_store& cache, const run_spend& run, const month_spend& m) {
  for (budget_scope scope : budgets_to_warn(run.limits, m)) {
    const bool app = scope == budget_scope::app;
    std::string key = app ? "app:" + run.entry.app_id : "workspace";
    auto first = db.budgets().first_warning(run.entry.workspace_id, key, budget_month_start(now_ms()));
    if (!first || !*first) continue;
    json event = {{"type", "budget.warning"},
                  {"workspaceId", run.entry.workspace_id},
                  {"budget", std::string(to_string(scope))},
                  {"usedFraction", app ? run.limits.app_monthly.used_fraction(m.app)
                                       : run.limits.workspace_monthly.used_fraction(m.workspace)}};
    if (app) event["appId"] = run.entry.app_id;
    if (auto r = cache.publish(workspace_channel(run.entry.workspace_id), event.dump()); !r) {
      std::fprintf(stderr, "web: publish budget.warning failed: %s\n", code_c_str(r.error()));
    }
  }
}

}  // namespace

std::optional<budget_stop> spend_step(store& db, cache_store& cache, run_spend& run, const run_usage& so_far) {
  run.so_far = spend_of(so_far);
  auto m = db.budgets().reserve(run.entry, run.so_far, now_ms());
  if (!m) {
    log_store("reservation", run, m.error());
    // The run's own cap needs no store.
    return stop_at_step(run.limits, run.so_far, {});
  }
  warn(db, cache, run, *m);
  return stop_at_step(run.limits, run.so_far, *m);
}

void settle_run(store& db, cache_store& cache, run_spend& run, const std::optional<run_usage>& recorded) {
  if (recorded) run.so_far = spend_of(*recorded);
  else if (run.so_far == spend{}) return;  // nothing spent, nothing reserved
  auto m = db.budgets().settle(run.entry, run.so_far, now_ms());
  if (!m) return log_store("settling", run, m.error());
  warn(db, cache, run, *m);
}

namespace budget_routes {
namespace {

json parsed(const std::string& text) { return json::parse(text); }

json share(const spend_limit& l, const spend& s) {
  return {{"limit", parsed(spend_limit_to_json(l))},
          {"limitText", describe_limit(l)},
          {"spent", parsed(spend_to_json(s))},
          {"usedFraction", l.unlimited() ? json(nullptr) : json(l.used_fraction(s))},
          {"warning", !l.unlimited() && l.used_fraction(s) >= budget_warning_fraction},
          {"exhausted", l.reached_by(s)}};
}

json month_json(std::int64_t now) { return {{"start", budget_month_start(now)}, {"end", budget_month_end(now)}}; }

}  // namespace

void get_workspace_budget(web_app& app, const route_call& call, httplib::Response& res) {
  const auto& ws = call.ids.at(0);
  auto s = app.db.budgets().settings(ws);
  if (!s) return send(res, s.error());
  const std::int64_t now = now_ms();
  auto m = app.db.budgets().month(ws, "", budget_month_start(now));
  if (!m) return send(res, m.error());
  json body = {{"settings", parsed(budget_settings_to_json(*s))},
               {"month", month_json(now)},
               {"workspace", share(s->workspace_monthly, m->workspace)},
               {"canEdit", is_admin_or_owner(call.by->role)}};
  send_json(res, 200, body.dump());
}

void put_workspace_budget(web_app& app, const route_call& call, httplib::Response& res) {
  auto s = budget_settings_from_json(compact_json(*call.body));
  if (!s) return send(res, s.error());
  if (auto put = app.db.budgets().put_settings(call.ids.at(0), *s, now_ms()); !put) return send(res, put.error());
  get_workspace_budget(app, call, res);
}

void get_app_budget(web_app& app, const route_call& call, httplib::Response& res) {
  const auto& ws = call.ids.at(0);
  const auto& app_id = call.ids.at(1);
  auto s = app.db.budgets().settings(ws);
  if (!s) return send(res, s.error());
  auto o = app.db.budgets().app_overrides(ws, app_id);
  if (!o) return send(res, o.error());
  const std::int64_t now = now_ms();
  auto m = app.db.budgets().month(ws, app_id, budget_month_start(now));
  if (!m) return send(res, m.error());
  auto turn = run_budget_of(*s, *o, budget_run_kind::builder_turn);
  auto agent = run_budget_of(*s, *o, budget_run_kind::agent_run);
  json body = {{"overrides", parsed(app_budget_overrides_to_json(*o))},
               {"defaults", parsed(budget_settings_to_json(*s))},
               {"month", month_json(now)},
               {"app", share(turn.app_monthly, m->app)},
               {"workspace", share(turn.workspace_monthly, m->workspace)},
               {"builderTurn", {{"limit", parsed(spend_limit_to_json(turn.run_cap))}, {"limitText", describe_limit(turn.run_cap)}}},
               {"agentRun", {{"limit", parsed(spend_limit_to_json(agent.run_cap))}, {"limitText", describe_limit(agent.run_cap)}}},
               {"canEdit", is_admin_or_owner(call.by->role)}};
  send_json(res, 200, body.dump());
}

void put_app_budget(web_app& app, const route_call& call, httplib::Response& res) {
  auto o = app_budget_overrides_from_json(compact_json(*call.body));
  if (!o) return send(res, o.error());
  if (auto put = app.db.budgets().put_app_overrides(call.ids.at(0), call.ids.at(1), *o, now_ms()); !put) {
    return send(res, put.error());
  }
  get_app_budget(app, call, res);
}

void agent_run_spend(web_app& app, const route_call& call, httplib::Response& res) {
  const json& body = *call.body;
  run_key key{servers::string_field(body, "workspaceId"), servers::string_field(body, "appId"), servers::string_field(body, "runId")};
  auto usage_it = body.find("usage");
  if (usage_it == body.end() || !usage_it->is_object()) return send(res, api_error::invalid_body, "usage must be a RunUsage object");
  auto usage = run_usage_from_json(compact_json(*usage_it));
  if (!usage) return send(res, api_error::invalid_body, "usage is not a RunUsage: " + usage.error().message);
  auto run = app.db.app_agent_runs().summary(key);
  if (!run) return send(res, run.error());
  if (!*run) return send(res, api_error::not_found, "no such agent run for this app");
  auto limits = run_budget_for(app.db, key.workspace_id, key.app_id, budget_run_kind::agent_run);
  if (!limits) return send(res, limits.error());
  run_spend spending{{key.workspace_id, key.app_id, key.run_id, key.run_id, budget_run_kind::agent_run}, *limits, {}};
  auto stop = spend_step(app.db, app.cache, spending, *usage);
  json reply = {{"stop", stop.has_value()}};
  if (stop) {
    reply["stopReason"] = std::string(budget_stop_code);
    reply["message"] = stop->message;
    reply["budget"] = std::string(to_string(stop->scope));
  }
  send_json(res, 200, reply.dump());
}

}  // namespace budget_routes

}  // namespace platform::web
