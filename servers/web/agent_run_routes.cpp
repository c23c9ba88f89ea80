// App agent runs (spec "App agent run"): parse, call agent_runs.hpp, answer. The route table
// (web_routes.cpp) has authenticated the caller and loaded the app.
#include "../common/json_fields.hpp"
#include "agent_run_routes.hpp"

#include "budgets.hpp"

#include <nlohmann/json.hpp>

#include "access.hpp"
#include "agent_runs.hpp"
#include "http.hpp"
#include "page_routes.hpp"
#include "web_app.hpp"

namespace platform::web::agent_run_routes {

using nlohmann::json;

namespace {

constexpr std::size_t max_prompt_bytes = 64u << 10;

run_key key_of(const path_ids& ids) { return {ids.at(0), ids.at(1), ids.at(2)}; }

// Where this request came in: the callback origin when PLATFORM_WEB_URL is not set (local
// development, where the worker accepts loopback origins only).
std::string local_origin(const httplib::Request& req) {
  std::string host = req.local_addr.find(':') != std::string::npos ? "[" + req.local_addr + "]" : req.local_addr;
  return "http://" + host + ":" + std::to_string(req.local_port);
}

}  // namespace

// An app's agent runs, newest first, as projected summaries (no prompt, transcript or
// messages); draft runs only for those who read the draft.
void list_agent_runs(web_app& app, const route_call& call, httplib::Response& res) {
  auto page = page_of(call.req, res);
  if (!page) return;
  auto rows = app.db.app_agent_runs().list(call.app->workspace_id, call.app->id, reads_draft(*call.by, *call.app), *page);
  if (!rows) return send(res, rows.error());
  send_json(res, 200, page_json("runs", *rows, *page, agent_run_summary_json,
                                [](const agent_run_summary& s) { return list_cursor{s.created_at, s.run_id}; }));
}

void create_agent_run(web_app& app, const route_call& call, httplib::Response& res) {
  const json& body = *call.body;
  const std::string& ws = call.app->workspace_id;
  const std::string& app_id = call.app->id;
  auto agent_id = body.find("agentId");
  auto prompt = body.find("prompt");
  auto draft = body.find("draft");
  if (agent_id == body.end() || !agent_id->is_string() || agent_id->get<std::string>().empty()) {
    return send(res, api_error::invalid_body, "agentId must be a non-empty string");
  }
  if (prompt == body.end() || !prompt->is_string() || prompt->get<std::string>().empty() ||
      prompt->get<std::string>().size() > max_prompt_bytes) {
    return send(res, api_error::invalid_body, "prompt must be a string of 1 byte to 64 KiB");
  }
  if (draft != body.end() && !draft->is_boolean()) return send(res, api_error::invalid_body, "draft must be a boolean");
  bool is_draft = draft != body.end() && draft->get<bool>();
  if (is_draft && !reads_draft(*call.by, *call.app)) {
    return send(res, api_error::forbidden, "only the app's creators and collaborators run draft agents");
  }
  auto agent = governed_agent(app, ws, app_id, is_draft, agent_id->get<std::string>());
  if (!agent) return send(res, agent.error());
  auto run = new_agent_run({ws, app_id, "arun_" + random_id(12)}, *call.by, *agent, is_draft, *prompt);
  // A spent app or workspace budget refuses the run before it exists (409 budget_exhausted).
  if (auto admitted = admit_run(app.db, {ws, app_id, run.run_id, run.run_id, budget_run_kind::agent_run}); !admitted) {
    return send(res, admitted.error());
  }
  if (auto made = app.db.app_agent_runs().create(run); !made) return send(res, made.error());
  send_json(res, 201, agent_run_summary_json(run).dump());
}

void get_agent_run(web_app&, const route_call& call, httplib::Response& res) {
  send_json(res, 200, compact_json(agent_run_summary_json(*call.agent_run)));
}

// The explicit viewer path to a run's whole content: its UI messages (the transcript
// converted when the run ended; empty before). Never the prompt or the raw transcript.
void get_agent_run_messages(web_app& app, const route_call& call, httplib::Response& res) {
  run_key key = key_of(call.ids);
  auto run = app.db.app_agent_runs().get(key);
  if (!run) return send(res, run.error());
  if (!*run) return send(res, api_error::not_found, "no such agent run for this app");
  json reply = {{"id", key.run_id}, {"status", to_string((*run)->status)},
                {"messages", servers::parse_json_or_null((*run)->messages_json)}};
  send_json(res, 200, compact_json(reply));
}

// Starts the run (once) and, unless startOnly=1, opens a viewer stream on it.
void post_agent_run_stream(web_app& app, const route_call& call, httplib::Response& res) {
  const httplib::Request& req = call.req;
  run_key key = key_of(call.ids);
  const agent_run_summary* run = call.agent_run;
  if (run->status == agent_run_status::pending && call.by->who.user_id != run->triggered_by_user_id) {
    return send(res, api_error::forbidden, "only the user who triggered the run starts it");
  }
  auto started = start_agent_run(app, key, local_origin(req));
  if (!started) return send(res, started.error());
  if (req.get_param_value("startOnly") == "1") {
    json reply = {{"runId", key.run_id}, {"status", to_string(started->status)}, {"started", started->started}};
    return send_json(res, started->started ? 202 : 200, reply.dump());
  }
  serve_agent_run_viewer(app, key, 0, res);
}

void get_agent_run_stream(web_app& app, const route_call& call, httplib::Response& res) {
  run_key key = key_of(call.ids);
  auto at = stream_cursor_of(call.req, res);
  if (!at) return;
  std::uint64_t cursor = *at;
  serve_agent_run_viewer(app, key, cursor, res);
}

// The triggering user, or any editor, may stop a run; it fails with "Stopped by the user.".
void post_agent_run_stop(web_app& app, const route_call& call, httplib::Response& res) {
  run_key key = key_of(call.ids);
  const agent_run_summary* run = call.agent_run;
  if (run->triggered_by_user_id != call.by->who.user_id && !can_edit(call.by->role)) {
    return send(res, api_error::forbidden, "only the run's triggering user and editors stop it");
  }
  auto out = stop_agent_run(app, key, run->status);
  if (!out) return send(res, out.error());
  switch (*out) {
    case agent_stop_outcome::not_running: return send(res, api_error::not_running, "the run has ended already");
    case agent_stop_outcome::stopped: return send_json(res, 200, json({{"runId", key.run_id}, {"status", "failed"}}).dump());
    case agent_stop_outcome::stopping: return send_json(res, 202, json({{"runId", key.run_id}, {"status", "stopping"}}).dump());
  }
}

// Idempotent: the worker retries a callback whose reply it did not get, so an ended run
// answers 200 again (`duplicate: true`) and nothing is stored or published twice.
void agent_run_complete(web_app& app, const route_call& call, httplib::Response& res) {
  auto done = complete_agent_run(app, *call.body);
  if (done) return send_json(res, 200, json({{"ok", true}, {"duplicate", !*done}}).dump());
  send(res, done.error());
}

}  // namespace platform::web::agent_run_routes
