// Glue: parse, authorize, call agent_runs.hpp, answer.
#include "../common/json_fields.hpp"
#include "agent_run_routes.hpp"

#include <charconv>

#include <nlohmann/json.hpp>

#include "access.hpp"
#include "agent_runs.hpp"
#include "http.hpp"
#include "internal_routes.hpp"
#include "page_routes.hpp"
#include "routes.hpp"

namespace platform::web {

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

int status_of(const error& e) {
  if (e.code == "not_found" || e.code == "agent_not_found") return 404;
  if (e.code == "agents_invalid") return 422;
  if (e.code.rfind("worker_", 0) == 0) return 502;
  return 503;
}

void send_failure(httplib::Response& res, const error& e) {
  if (status_of(e) == 503) return send_store_error(res, e);
  send_error(res, status_of(e), e.code, e.message);
}

// The caller, the app and the run's summary, or the error already written. A draft run is
// visible only to those who read the draft; to anyone else it does not exist.
struct run_access {
  caller who;
  app_record app;
  agent_run_summary run;
};

std::optional<run_access> load_run(web_app& app, const httplib::Request& req, httplib::Response& res,
                                   const run_key& key) {
  auto c = authorize(app, req, res, key.workspace_id);
  if (!c) return std::nullopt;
  auto a = load_app(app, key.workspace_id, key.app_id, res);
  if (!a) return std::nullopt;
  auto s = app.db.agent_runs().summary(key);
  if (!s) {
    send_store_error(res, s.error());
    return std::nullopt;
  }
  if (!*s || ((*s)->draft && !reads_draft(*c, *a))) {
    send_error(res, 404, "not_found", "no such agent run for this app");
    return std::nullopt;
  }
  return run_access{*c, *a, **s};
}

// An app's agent runs, newest first, as projected summaries (no prompt, transcript or
// messages); draft runs only for those who read the draft.
void list_agent_runs(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
  auto c = authorize(app, req, res, ids.at(0));
  if (!c) return;
  auto a = load_app(app, ids.at(0), ids.at(1), res);
  if (!a) return;
  auto page = page_of(req, res);
  if (!page) return;
  auto rows = app.db.agent_runs().list(ids.at(0), ids.at(1), reads_draft(*c, *a), *page);
  if (!rows) return send_store_error(res, rows.error());
  send_json(res, 200, page_json("runs", *rows, *page, agent_run_summary_json,
                                [](const agent_run_summary& s) { return list_cursor{s.created_at, s.run_id}; }));
}

void create_agent_run(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
  auto c = authorize(app, req, res, ids.at(0));
  if (!c) return;
  auto a = load_app(app, ids.at(0), ids.at(1), res);
  if (!a) return;
  json body;
  if (!parse_json_body(req, res, app.cfg.max_body_bytes, body)) return;
  auto agent_id = body.find("agentId");
  auto prompt = body.find("prompt");
  auto draft = body.find("draft");
  if (agent_id == body.end() || !agent_id->is_string() || agent_id->get<std::string>().empty()) {
    return send_error(res, 400, "invalid_body", "agentId must be a non-empty string");
  }
  if (prompt == body.end() || !prompt->is_string() || prompt->get<std::string>().empty() ||
      prompt->get<std::string>().size() > max_prompt_bytes) {
    return send_error(res, 400, "invalid_body", "prompt must be a string of 1 byte to 64 KiB");
  }
  if (draft != body.end() && !draft->is_boolean()) return send_error(res, 400, "invalid_body", "draft must be a boolean");
  bool is_draft = draft != body.end() && draft->get<bool>();
  if (is_draft && !reads_draft(*c, *a)) {
    return send_error(res, 403, "forbidden", "only the app's creators and collaborators run draft agents");
  }
  auto agent = governed_agent(app, ids.at(0), ids.at(1), is_draft, agent_id->get<std::string>());
  if (!agent) return send_failure(res, agent.error());
  auto run = new_agent_run({ids.at(0), ids.at(1), "arun_" + random_id(12)}, *c, *agent, is_draft, *prompt);
  if (auto made = app.db.agent_runs().create(run); !made) return send_store_error(res, made.error());
  send_json(res, 201, agent_run_summary_json(run).dump());
}

void get_agent_run(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
  auto run = load_run(app, req, res, key_of(ids));
  if (run) send_json(res, 200, compact_json(agent_run_summary_json(run->run)));
}

// The explicit viewer path to a run's whole content: its UI messages (the transcript
// converted when the run ended; empty before). Never the prompt or the raw transcript.
void get_agent_run_messages(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
  run_key key = key_of(ids);
  if (!load_run(app, req, res, key)) return;
  auto run = app.db.agent_runs().get(key);
  if (!run) return send_store_error(res, run.error());
  if (!*run) return send_error(res, 404, "not_found", "no such agent run for this app");
  json reply = {{"id", key.run_id}, {"status", to_string((*run)->status)},
                {"messages", servers::parse_json_or_null((*run)->messages_json)}};
  send_json(res, 200, compact_json(reply));
}

// Starts the run (once) and, unless startOnly=1, opens a viewer stream on it.
void post_agent_run_stream(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
  run_key key = key_of(ids);
  auto run = load_run(app, req, res, key);
  if (!run) return;
  if (run->run.status == agent_run_status::pending && run->who.who.user_id != run->run.triggered_by_user_id) {
    return send_error(res, 403, "forbidden", "only the user who triggered the run starts it");
  }
  auto started = start_agent_run(app, key, local_origin(req));
  if (!started) return send_failure(res, started.error());
  if (req.get_param_value("startOnly") == "1") {
    json reply = {{"runId", key.run_id}, {"status", to_string(started->status)}, {"started", started->started}};
    return send_json(res, started->started ? 202 : 200, reply.dump());
  }
  serve_agent_run_viewer(app, key, 0, res);
}

void get_agent_run_stream(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
  run_key key = key_of(ids);
  std::uint64_t cursor = 0;
  if (req.has_param("cursor")) {
    std::string c = req.get_param_value("cursor");
    auto [p, ec] = std::from_chars(c.data(), c.data() + c.size(), cursor);
    if (ec != std::errc() || p != c.data() + c.size()) {
      return send_error(res, 400, "invalid_cursor", "cursor must be a non-negative integer");
    }
  }
  if (!load_run(app, req, res, key)) return;
  serve_agent_run_viewer(app, key, cursor, res);
}

// The triggering user, or any editor, may stop a run; it fails with "Stopped by the user.".
void post_agent_run_stop(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
  run_key key = key_of(ids);
  auto x = load_run(app, req, res, key);
  if (!x) return;
  if (x->run.triggered_by_user_id != x->who.who.user_id && !can_edit(x->who.role)) {
    return send_error(res, 403, "forbidden", "only the run's triggering user and editors stop it");
  }
  auto out = stop_agent_run(app, key, x->run.status);
  if (!out) return send_failure(res, out.error());
  switch (*out) {
    case agent_stop_outcome::not_running: return send_error(res, 409, "not_running", "the run has ended already");
    case agent_stop_outcome::stopped: return send_json(res, 200, json({{"runId", key.run_id}, {"status", "failed"}}).dump());
    case agent_stop_outcome::stopping: return send_json(res, 202, json({{"runId", key.run_id}, {"status", "stopping"}}).dump());
  }
}

}  // namespace

void register_agent_run_routes(httplib::Server& s, router& r, web_app& app) {
  const std::string runs = "/api/workspaces/{}/apps/{}/agent-runs";
  on_get_route(r, runs, app, list_agent_runs);
  on_body_route(s, "POST", runs, app, create_agent_run);
  on_get_route(r, runs + "/{}", app, get_agent_run);
  on_body_route(s, "POST", runs + "/{}/stream", app, post_agent_run_stream);
  on_body_route(s, "POST", runs + "/{}/stop", app, post_agent_run_stop);
  on_get_route(r, runs + "/{}/stream", app, get_agent_run_stream);
  on_get_route(r, runs + "/{}/messages", app, get_agent_run_messages);
  register_internal_agent_run_routes(s, app);
}

}  // namespace platform::web
