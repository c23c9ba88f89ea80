#include "routines.hpp"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "adapters/tz_zones.hpp"
#include "agent_runs.hpp"
#include "budgets.hpp"
#include "chat_service.hpp"
#include "events.hpp"
#include "governed_agents.hpp"
#include "http.hpp"
#include "platform/api_error.hpp"
#include "platform/compact_json.hpp"
#include "platform/hmac.hpp"
#include "platform/redaction.hpp"
#include "platform/webhook_signature.hpp"
#include "web_app.hpp"

namespace platform::web {

using nlohmann::json;

namespace {

// A webhook's body: at most this much (413 past it), kept redacted and bounded in the run.
constexpr std::size_t max_webhook_body = 64 * 1024;

std::string generation_of(const routine_record& r) { return r.webhook_secret_sealed.empty() ? "1" : r.webhook_secret_sealed; }

std::int64_t routine_now(const web_app& app) { return app.routine_now ? app.routine_now() : now_ms(); }

std::string origin_of(const web_app& app) { return app.cfg.web_url.empty() ? app.self_origin : app.cfg.web_url; }

std::vector<routine_spec> specs_of(const std::string& payload) {
  std::vector<routine_spec> out;
  json doc = json::parse(payload, nullptr, false);
  if (!doc.is_object() || !doc.contains("agents") || !doc["agents"].is_array()) return out;
  for (const auto& a : doc["agents"]) {
    if (!a.is_object() || !a.contains("triggers") || !a["triggers"].is_object()) continue;
    const json& t = a["triggers"];
    routine_spec s;
    s.agent_id = a.value("id", "");
    if (t.contains("schedule") && t["schedule"].is_object()) {
      const json& sc = t["schedule"];
      s.schedule = schedule_trigger{sc.value("cron", ""), sc.value("timezone", ""), sc.value("prompt", "")};
    }
    if (t.contains("webhook") && t["webhook"].is_object()) s.webhook = webhook_trigger{t["webhook"].value("prompt", "")};
    if (!s.agent_id.empty() && (s.schedule || s.webhook)) out.push_back(std::move(s));
  }
  return out;
}

json routine_json(const web_app& app, const routine_record& r) {
  json schedule = r.schedule ? json{{"cron", r.schedule->cron}, {"timezone", r.schedule->timezone}, {"prompt", r.schedule->prompt}}
                             : json(nullptr);
  json webhook = r.webhook ? json{{"prompt", r.webhook->prompt}, {"url", origin_of(app) + "/api/hooks/" + r.id}} : json(nullptr);
  return {{"id", r.id},
          {"agentId", r.agent_id},
          {"schedule", std::move(schedule)},
          {"webhook", std::move(webhook)},
          {"enabled", r.enabled},
          {"consecutiveFailures", r.consecutive_failures},
          {"failureLimit", routine_failure_limit},
          {"nextFireAt", r.next_fire_at ? json(*r.next_fire_at) : json(nullptr)},
          {"problem", r.problem.empty() ? json(nullptr) : json(r.problem)},
          {"runsAs", r.approved_by},
          {"lastRunId", r.last_run_id ? json(*r.last_run_id) : json(nullptr)},
          {"lastOutcome", r.last_outcome.empty() ? json(nullptr) : json(r.last_outcome)},
          {"lastFiredAt", r.last_fired_at == 0 ? json(nullptr) : json(r.last_fired_at)}};
}

// The routine of the path's app, or a 404 written.
std::optional<routine_record> routine_of_call(web_app& app, const route_call& call, httplib::Response& res) {
  auto r = app.db.routines().get(call.ids.at(2));
  if (!r) return send(res, r.error()), std::nullopt;
  if (!*r || (*r)->workspace_id != call.ids.at(0) || (*r)->app_id != call.ids.at(1)) {
    return send(res, api_error::not_found, "no such routine of this app"), std::nullopt;
  }
  return **r;
}

}  // namespace

std::optional<std::int64_t> first_tick(const schedule_trigger& s, std::int64_t now, std::string& problem) {
  auto cron = parse_cron(s.cron);
  if (!cron) {
    problem = cron.error().message;
    return std::nullopt;
  }
  auto zone = load_zone(s.timezone);
  if (!zone) {
    problem = zone.error().message;
    return std::nullopt;
  }
  auto next = next_tick(*cron, **zone, now);
  if (!next) problem = "the schedule never fires again";
  return next;
}

void sync_routines(web_app& app, std::string_view ws, std::string_view app_id) {
  auto pub = app.db.governance().publication(ws, app_id);
  if (!pub) {
    std::fprintf(stderr, "web: routines of app=%.*s not synced: %s\n", static_cast<int>(app_id.size()), app_id.data(), code_c_str(pub.error()));
    return;
  }
  std::vector<routine_spec> specs;
  std::string approver;
  if (*pub) {
    specs = specs_of((*pub)->approval.normalized_payload_json);
    approver = (*pub)->approval.approved_by;
  }
  if (auto r = app.db.routines().sync(ws, app_id, specs, approver, &first_tick, routine_now(app)); !r) {
    std::fprintf(stderr, "web: routines of app=%.*s not synced: %s\n", static_cast<int>(app_id.size()), app_id.data(), code_c_str(r.error()));
  }
}

std::string webhook_secret(const web_app& app, const routine_record& r) {
  return "whsec_" + hmac_sha256_hex(app.webhook_key, r.id + ":" + generation_of(r));
}

result<void> start_routine_run(web_app& app, const routine_record& r, const std::string& run_id, routine_trigger trigger,
                               const std::string& prompt) {
  run_key key{r.workspace_id, r.app_id, run_id};
  auto existing = app.db.app_agent_runs().summary(key);
  if (!existing) return tl::unexpected(existing.error());
  if (!*existing) {
    auto agent = governed_agent(app, r.workspace_id, r.app_id, false, r.agent_id);
    if (!agent) return tl::unexpected(agent.error());
    // The routine acts as the approver of the published agents.json: its OAuth tools use that
    // person's connected account, and the run says so (triggeredByUserId, routineId).
    caller as{identity{r.approved_by, "", "", 0}, workspace_role::admin};
    auto run = new_agent_run(key, as, *agent, false, prompt);
    run.routine_id = r.id;
    run.trigger = std::string(to_string(trigger));
    if (auto admitted = admit_run(app.db, {r.workspace_id, r.app_id, run_id, run_id, budget_run_kind::agent_run}); !admitted) {
      (void)app.db.routines().record_run_end(r.id, true, now_ms());
      return tl::unexpected(admitted.error());
    }
    auto made = app.db.app_agent_runs().create(run);
    if (!made && !is(made.error(), api_error::store_conflict)) return tl::unexpected(made.error());
  }
  auto started = start_agent_run(app, key, origin_of(app));
  if (!started) return tl::unexpected(started.error());
  return {};
}

void routine_run_ended(web_app& app, const agent_run_summary& run, bool failed) {
  if (run.routine_id.empty()) return;
  auto switched = app.db.routines().record_run_end(run.routine_id, failed, now_ms());
  if (!switched || !*switched) return;
  json event = {{"type", "routine.switched_off"}, {"workspaceId", run.workspace_id}, {"appId", run.app_id},
                {"routineId", run.routine_id}, {"agentId", run.agent_id}};
  if (auto r = app.cache.publish(workspace_channel(run.workspace_id), event.dump()); !r) {
    std::fprintf(stderr, "web: publish routine.switched_off failed: %s\n", code_c_str(r.error()));
  }
}

namespace routine_routes {

void list_routines(web_app& app, const route_call& call, httplib::Response& res) {
  const auto& ws = call.ids.at(0);
  const auto& app_id = call.ids.at(1);
  auto list = app.db.routines().list(ws, app_id);
  if (!list) return send(res, list.error());
  json routines = json::array();
  for (const auto& r : *list) routines.push_back(routine_json(app, r));
  // The draft's triggers are shown, never fired: they fire once published.
  json draft = json::array();
  if (reads_draft(*call.by, *call.app)) {
    if (auto view = load_agents(app, ws, app_id, source_scope::draft); view && view->config) {
      for (const auto& a : view->config->agents) {
        if (!a.triggers.any()) continue;
        draft.push_back({{"agentId", a.id},
                         {"schedule", a.triggers.schedule ? json{{"cron", a.triggers.schedule->cron}, {"timezone", a.triggers.schedule->timezone}}
                                                          : json(nullptr)},
                         {"webhook", a.triggers.webhook.has_value()}});
      }
    }
  }
  send_json(res, 200, json({{"routines", routines}, {"draft", draft}, {"canEdit", is_admin_or_owner(call.by->role)}}).dump());
}

void set_routine_enabled(web_app& app, const route_call& call, httplib::Response& res) {
  auto r = routine_of_call(app, call, res);
  if (!r) return;
  auto on = call.body->find("enabled");
  if (on == call.body->end() || !on->is_boolean()) return send(res, api_error::invalid_body, "enabled must be true or false");
  std::optional<std::int64_t> next;
  if (on->get<bool>() && r->schedule) {
    std::string problem;
    next = first_tick(*r->schedule, routine_now(app), problem);
  }
  if (auto done = app.db.routines().set_enabled(r->id, on->get<bool>(), next, now_ms()); !done) return send(res, done.error());
  auto after = app.db.routines().get(r->id);
  if (!after || !*after) return send(res, after ? error_of(api_error::store_corrupt, "the routine vanished") : after.error());
  send_json(res, 200, routine_json(app, **after).dump());
}

void reveal_webhook_secret(web_app& app, const route_call& call, httplib::Response& res) {
  auto r = routine_of_call(app, call, res);
  if (!r) return;
  if (!r->webhook) return send(res, api_error::not_found, "this routine has no webhook");
  send_json(res, 200, json({{"url", origin_of(app) + "/api/hooks/" + r->id}, {"secret", webhook_secret(app, *r)},
                            {"header", std::string(webhook_signature_header)}}).dump());
}

void rotate_webhook_secret(web_app& app, const route_call& call, httplib::Response& res) {
  auto r = routine_of_call(app, call, res);
  if (!r) return;
  if (!r->webhook) return send(res, api_error::not_found, "this routine has no webhook");
  const std::string next = std::to_string(std::stoll(generation_of(*r)) + 1);
  if (auto put = app.db.routines().put_webhook_secret(r->id, next, now_ms()); !put) return send(res, put.error());
  r->webhook_secret_sealed = next;
  send_json(res, 200, json({{"url", origin_of(app) + "/api/hooks/" + r->id}, {"secret", webhook_secret(app, *r)},
                            {"header", std::string(webhook_signature_header)}}).dump());
}

void receive_webhook(web_app& app, const route_call& call, httplib::Response& res) {
  const auto& req = call.req;
  if (req.body.size() > max_webhook_body) return send(res, api_error::body_too_large, "a webhook body is at most 64 KiB");
  auto found = app.db.routines().get(call.ids.at(0));
  if (!found) return send(res, found.error());
  if (!*found || !(*found)->webhook) return send(res, api_error::not_found, "no such webhook");
  const routine_record& r = **found;
  const std::int64_t now = now_ms();
  auto stamp = verify_webhook(webhook_secret(app, r), req.get_header_value(std::string(webhook_signature_header)), req.body, now / 1000);
  if (!stamp) return send(res, stamp.error());
  if (!r.enabled) return send(res, api_error::routine_off, "the routine is switched off: an admin can switch it on on the app's Runs tab");
  json body = json::parse(req.body, nullptr, false);
  if (body.is_discarded()) return send(res, api_error::invalid_json, "a webhook body is JSON");
  auto first = app.db.routines().first_use_of_signature(r.id, stamp->signature, (stamp->t + 2 * webhook_replay_window_s) * 1000, now);
  if (!first) return send(res, first.error());
  if (!*first) return send(res, api_error::webhook_replayed, "this signed request was received already: nothing was started");
  redaction_limits bounds;
  bounds.max_total_bytes = 16 * 1024;
  const std::string input = webhook_run_prompt(r.webhook->prompt, redact_json(req.body, bounds));
  const std::string run_id = "arun_" + random_id(12);
  if (auto started = start_routine_run(app, r, run_id, routine_trigger::webhook, input); !started) {
    return send(res, started.error());
  }
  (void)app.db.routines().record_webhook_run(r.id, run_id, now);
  send_json(res, 202, json({{"runId", run_id}, {"routineId", r.id}}).dump());
}

}  // namespace routine_routes

}  // namespace platform::web
