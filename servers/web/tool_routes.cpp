// Glue of the tool routes: who may run which approved tool for whom, and the failure reports.
// The work is tool_runner (tool_execution.hpp) and request_repair (tool_repair.hpp).
#include "tool_routes.hpp"


#include <nlohmann/json.hpp>

#include "access.hpp"
#include "agent_runs.hpp"
#include "governed_agents.hpp"
#include "http.hpp"
#include "platform/redaction.hpp"
#include "platform/secret_scrub.hpp"
#include "web_app.hpp"
#include "tool_execution.hpp"
#include "tool_repair.hpp"
#include "tool_shaping.hpp"
#include "../common/json_fields.hpp"

namespace platform::web::tool_routes {

using nlohmann::json;

namespace {

// Reports reach the builder's prompt: 8 KiB at most, secret-named members masked.
const redaction_limits report_limits{.max_string_bytes = 1024, .max_members = 30, .max_depth = 6,
                                     .max_total_bytes = 8192};


using servers::string_field;

// The tool input as JSON text: the agent's JSON string, or an object from app code.
std::optional<std::string> input_text(const json& body) {
  auto it = body.find("input");
  if (it == body.end() || it->is_null()) return std::string();
  if (it->is_string()) return it->get<std::string>();
  if (it->is_object()) return compact_json(*it);
  return std::nullopt;
}

// Why no approved policy governs `scope`: never approved, stale, or never published.
void send_blocked(web_app& app, std::string_view ws, std::string_view app_id, source_scope scope,
                  httplib::Response& res) {
  if (scope == source_scope::published) {
    return send(res, api_error::not_published, "the app has not been published, so its tools cannot run");
  }
  auto approval = app.db.governance().approval(ws, app_id);
  if (!approval) return send(res, approval.error());
  if (!*approval) {
    return send(res, api_error::not_approved, "custom tools and app actions run only after an admin or owner "
                                                "approves agents.json");
  }
  send(res, api_error::approval_stale, "agents.json changed since its approval: custom tools and app actions are "
                                         "blocked until an admin or owner approves it again");
}

// The approved tool `name` of `scope` (the agent's when `agent_id` is set, else a top-level
// appTools item), with the approval hash; otherwise the error is written.
std::optional<std::pair<tool, std::string>> approved_tool(web_app& app, std::string_view ws, std::string_view app_id,
                                                          source_scope scope, std::string_view name,
                                                          std::optional<std::string_view> agent_id,
                                                          httplib::Response& res) {
  auto policy = approved_payload(app, ws, app_id, scope);
  if (!policy) {
    send(res, policy.error());
    return std::nullopt;
  }
  if (!*policy) {
    send_blocked(app, ws, app_id, scope, res);
    return std::nullopt;
  }
  const tool* t = (*policy)->config.find_tool(name, agent_id);
  if (!t || t->type != tool_type::custom) {
    if (agent_id) send(res, api_error::tool_not_approved, "the tool is not in the approved agents.json payload for this agent");
    else send(res, api_error::tool_not_found, "no such app action in the approved agents.json appTools");
    return std::nullopt;
  }
  if (!t->enabled) {
    send(res, api_error::tool_disabled, "the tool is switched off on the agents page");
    return std::nullopt;
  }
  return std::pair<tool, std::string>{*t, (*policy)->hash};
}

void send_repair(web_app& app, const repair_request& r, httplib::Response& res) {
  auto reply = request_repair(app, r);
  if (!reply) {
    if (is_store_failure(reply.error())) return send(res, reply.error());
    return send(res, api_error::repair_not_started, "the builder repair run could not be started: " + std::string(code_name(reply.error())));
  }
  send_json(res, reply->value("ok", false) ? 202 : 200, compact_json(*reply));
}

json endpoint_json(const tool& t) {
  json e = json::object();
  if (t.endpoint) e = {{"method", t.endpoint->method}, {"url", t.endpoint->url}};
  return e;
}

json integration_json(const tool& t) {
  if (!t.integration) return json::object();
  return {{"name", t.integration->name}, {"domain", t.integration->domain}, {"keySlug", t.integration->key_slug}};
}

}  // namespace

// ---- app actions ---------------------------------------------------------------------------

// The viewer is authenticated again on every call, and OAuth actions act as that viewer.
void execute_app_tool(web_app& app, const route_call& call, httplib::Response& res) {
  const json& body = *call.body;
  const path_ids& ids = call.ids;
  auto draft = body.find("draft");
  if (draft != body.end() && !draft->is_boolean()) return send(res, api_error::invalid_body, "draft must be a boolean");
  bool is_draft = draft != body.end() && draft->get<bool>();
  if (is_draft && !reads_draft(*call.by, *call.app)) return send(res, api_error::forbidden, "only the app's editors run draft actions");
  auto input = input_text(body);
  if (!input) return send(res, api_error::invalid_body, "input must be an object or a JSON string");
  auto scope = is_draft ? source_scope::draft : source_scope::published;
  auto t = approved_tool(app, ids.at(0), ids.at(1), scope, ids.at(2), std::nullopt, res);
  if (!t) return;
  auto reply = app.tools->run(app, t->first, {ids.at(0), ids.at(1), call.by->who.user_id, *input});
  // A repair is filed against the draft's spec by its editors (report-failure): a failure of
  // the published page offers none, since none of its viewers' reports could name the spec
  // that failed there.
  if (!is_draft && reply.can_request_builder_repair) reply.can_request_builder_repair = false;
  send_json(res, 200, reply.to_json());
}

// Draft only: the report names the approved draft spec (resolved here, never taken from the
// body) and what the app saw, redacted and bounded.
void report_app_tool_failure(web_app& app, const route_call& call, httplib::Response& res) {
  const json& body = *call.body;
  const path_ids& ids = call.ids;
  const std::string &ws = ids.at(0), &app_id = ids.at(1);
  const std::string& user_id = call.by->who.user_id;
  auto result = body.find("result");
  if (result == body.end() || !result->is_object()) return send(res, api_error::invalid_body, "result must be the action's result object");
  auto t = approved_tool(app, ws, app_id, source_scope::draft, ids.at(2), std::nullopt, res);
  if (!t) return;
  std::string code = safe_error_code(string_field(*result, "errorCode"));
  json seen = json::object();
  for (const char* k : {"success", "error", "errorCode", "errorCategory", "statusCode", "retryable", "details"}) {
    if (result->contains(k)) seen[k] = (*result)[k];
  }
  json report = {{"source", "app_action"}, {"toolName", t->first.name}, {"endpoint", endpoint_json(t->first)},
                 {"integration", integration_json(t->first)}, {"input", body.value("input", json())},
                 {"result", seen}, {"description", body.value("description", json(""))},
                 {"attemptedTask", body.value("attemptedTask", json(""))}};
  // A person may paste a secret into the description: the app's own secret values go before
  // the generic redaction (which knows names, not values).
  auto secrets = known_secret_values(app, t->first, {ws, app_id, user_id, {}});
  repair_request r{ws, app_id, "app_action", "user:" + user_id, t->first.name, code,
                   parse_error_category(string_field(*result, "errorCategory")),
                   failure_fingerprint(ws, app_id, t->first.name, code, t->first.endpoint),
                   redact_json(scrub_secrets(compact_json(report), secrets), report_limits),
                   {{"approvalHash", t->second}, {"userId", user_id}}};
  send_repair(app, r, res);
}

void tool_audit(web_app& app, const route_call& call, httplib::Response& res) {
  auto events = app.db.audit().recent(call.app->workspace_id, call.app->id, 50);
  if (!events) return send(res, events.error());
  json out = json::array();
  for (const auto& e : *events) {
    out.push_back({{"id", e.id}, {"kind", e.kind}, {"actor", e.actor}, {"toolName", e.tool_name},
                   {"fingerprint", e.fingerprint}, {"outcome", e.outcome},
                   {"builderRunId", e.builder_run_id.empty() ? json(nullptr) : json(e.builder_run_id)},
                   {"metadata", servers::parse_json_or_null(e.metadata_json)}, {"createdAt", e.created_at}});
  }
  send_json(res, 200, compact_json(json{{"events", out}}));
}

// ---- internal (worker → web) ---------------------------------------------------------------

// The user is the run's triggeredByUserId, never a body field; the tool must be in the
// approved payload of the run's scope for the run's agent.
void internal_tool_execute(web_app& app, const route_call& call, httplib::Response& res) {
  const json& body = *call.body;
  auto input = input_text(body);
  if (!input || string_field(body, "toolName").empty()) {
    return send(res, api_error::invalid_body, "toolName is required and input must be a JSON string or object");
  }
  auto run = acting_run(app, body, res);
  if (!run) return;
  if (is_finished(run->status)) return send(res, api_error::run_finished, "this run has ended");
  auto t = approved_tool(app, run->workspace_id, run->app_id, run_scope(*run), string_field(body, "toolName"),
                         run->agent_id, res);
  if (!t) return;
  auto reply = app.tools->run(app, t->first, {run->workspace_id, run->app_id, run->triggered_by_user_id, *input});
  send_json(res, 200, reply.to_json());
}

namespace {

// The worker's JSON-string texts (already redacted there) as plain values for the report.
json unquoted(const json& v) {
  if (!v.is_string()) return v;
  json inner = servers::parse_json_within(v.get<std::string>(), json_limits{});  // a model wrote it
  return inner.is_discarded() ? v : inner;
}

}  // namespace

void internal_failure_report(web_app& app, const route_call& call, httplib::Response& res) {
  const json& body = *call.body;
  auto failures = body.find("failures");
  std::string name = string_field(body, "toolName");
  if (name.empty() || failures == body.end() || !failures->is_array() || failures->empty() || !failures->back().is_object()) {
    return send(res, api_error::invalid_body, "toolName and a non-empty failures array are required");
  }
  auto run = acting_run(app, body, res);
  if (!run) return;
  // The approved spec when the policy still holds; else the endpoint template the worker
  // recorded (a stale draft keeps its repair: the builder is what fixes it).
  std::optional<tool_endpoint> endpoint;
  std::string approval_hash;
  std::vector<std::string> secrets;
  if (auto policy = approved_payload(app, run->workspace_id, run->app_id, run_scope(*run)); policy && *policy) {
    if (const tool* t = (*policy)->config.find_tool(name, run->agent_id)) {
      endpoint = t->endpoint;
      secrets = known_secret_values(app, *t, {run->workspace_id, run->app_id, run->triggered_by_user_id, {}});
    }
    approval_hash = (*policy)->hash;
  }
  const json& last = failures->back();
  json recorded_endpoint = last.value("endpoint", json::object());
  if (!endpoint && recorded_endpoint.is_object()) {
    endpoint = tool_endpoint{string_field(recorded_endpoint, "method"), string_field(recorded_endpoint, "url"), {}, {}, {}};
  }
  json error = last.value("error", json::object());
  std::string code = safe_error_code(error.is_object() ? string_field(error, "errorCode") : "");
  json report = {{"source", "agent_tool"}, {"agentRunId", run->run_id}, {"agentId", run->agent_id},
                 {"toolName", name}, {"description", unquoted(body.value("description", json("")))},
                 {"attemptedTask", unquoted(body.value("attemptedTask", json("")))}, {"failures", *failures}};
  repair_request r{run->workspace_id, run->app_id, "agent_tool", "agent_run:" + run->run_id, name, code,
                   error.is_object() ? parse_error_category(string_field(error, "errorCategory")) : std::nullopt,
                   failure_fingerprint(run->workspace_id, run->app_id, name, code, endpoint),
                   redact_json(scrub_secrets(compact_json(report), secrets), report_limits),
                   {{"agentRunId", run->run_id}, {"agentId", run->agent_id}, {"approvalHash", approval_hash},
                    {"failureCount", failures->size()}}};
  send_repair(app, r, res);
}

}  // namespace platform::web::tool_routes
