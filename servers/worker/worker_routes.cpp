// The worker's route table. Every route is one row: method, path, who may call it, whether a
// draining worker refuses it, the body it takes, and its handler. Paths name their ids ({app},
// {run}, {key}, {mcp}); a handler reads them as call.id(1), call.id(2) in that order. The web
// server calls with the internal token (checked here, once for every row that says so); the
// runtimes' MCP clients call the broker with their turn's own token, which the broker checks.
#include "worker_routes.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <span>
#include <string_view>

#include <nlohmann/json.hpp>

#include "../common/request_checks.hpp"
#include "platform/ascii.hpp"
#include "platform/ids.hpp"
#include "agent_runner.hpp"
#include "app_removal.hpp"
#include "detect_provider.hpp"
#include "opencode_models.hpp"
#include "preview_artifact.hpp"
#include "runtime_b.hpp"
#include "runtime_ready.hpp"
#include "source_snapshot.hpp"
#include "turns.hpp"
#include "worker_call.hpp"
#include "worker_http.hpp"
#include "worker_metrics.hpp"

namespace platform::worker {
namespace {

using nlohmann::json;
using handler = void (*)(worker_app&, const worker_call&, httplib::Response&);

enum class caller : unsigned char {
  web,      // the internal token
  web_app,  // the internal token and the capability of the app's latest builder turn
  runtime,  // a turn's broker token, checked by the broker
  anyone,   // /health
};

// What a draining worker does with the row (docs/operations.md, "Several workers").
enum class new_work : bool {
  no,       // serves it as ever
  refused,  // 503 worker_draining: the web server sends it to the app's next worker
};

enum class body_rule : unsigned char {
  none,
  object,  // a JSON object within body_limits (worker_http.hpp)
  typed,   // the same within the default limits: a person typed it (a provider key)
};

struct route {
  std::string_view method;
  std::string_view path;
  caller who;
  new_work draining;
  body_rule body;
  handler fn;
};

// ---- handlers too small for a file of their own ---------------------------------------------

void start_run(worker_app& app, const worker_call& call, httplib::Response& res) {
  start_agent_run(app.cfg, app.registry, app.brk, app.agent_runs, app.agent_runs_started, call.id(1), *call.body, res);
}

void stop_run(worker_app& app, const worker_call& call, httplib::Response& res) {
  stop_agent_run(app.agent_runs, call.id(1), call.id(2), res);
}

void run_status(worker_app& app, const worker_call& call, httplib::Response& res) {
  agent_run_status(app.agent_runs, call.id(1), call.id(2), res);
}

void run_events(worker_app& app, const worker_call& call, httplib::Response& res) {
  follow_agent_run(app.agent_runs, call.id(1), call.id(2), std::chrono::seconds(15), res);
}

void source_snapshot(worker_app& app, const worker_call& call, httplib::Response& res) { get_snapshot(app.cfg, call.id(1), res); }

void files(worker_app& app, const worker_call& call, httplib::Response& res) { put_file(app.cfg, call.id(1), *call.body, res); }

void source(worker_app& app, const worker_call& call, httplib::Response& res) { put_source(app.cfg, call.id(1), *call.body, res); }

void preview_artifact(worker_app& app, const worker_call& call, httplib::Response& res) {
  handle_preview_artifact(app.cfg, call.id(1), res);
}

void mcp(worker_app& app, const worker_call& call, httplib::Response& res) { app.brk.handle(call.id(1), call.req, res); }

void detect_provider(worker_app& app, const worker_call& call, httplib::Response& res) {
  handle_detect_provider(app.cfg, call.req.get_param_value("fresh") == "1", res);
}

void provider_key(worker_app& app, const worker_call& call, httplib::Response& res) {
  handle_put_provider_key(app.cfg, call.id(1), *call.body, res);
}

void opencode_models(worker_app& app, const worker_call&, httplib::Response& res) { handle_opencode_models(app.registry, res); }

void get_runtime_readiness(worker_app& app, const worker_call&, httplib::Response& res) {
  handle_runtime_readiness(app.cfg, app.registry, res);
}

void drain(worker_app& app, const worker_call&, httplib::Response& res) {
  app.draining.store(true);
  std::fprintf(stderr, "worker: draining (%lld turns running)\n", static_cast<long long>(app.turns_running.load()));
  res.set_content(json({{"ok", true}, {"draining", true}, {"turnsRunning", app.turns_running.load()}}).dump(), "application/json");
}

void undrain(worker_app& app, const worker_call&, httplib::Response& res) {
  app.draining.store(false);
  res.set_content(json({{"ok", true}, {"draining", false}}).dump(), "application/json");
}

void metrics(worker_app& app, const worker_call&, httplib::Response& res) { handle_metrics(app, res); }

void health(worker_app& app, const worker_call&, httplib::Response& res) {
  res.set_content(json({{"ok", true}, {"draining", app.draining.load()}, {"turnsRunning", app.turns_running.load()},
                        {"agentRunsRunning", app.agent_runs.running()}, {"sessions", app.sessions.size()},
                        {"turnsStarted", app.turns_started.load()}, {"agentRuns", app.agent_runs.size()},
                        {"brokerGrants", app.brk.live_grants()}, {"agentRunsStarted", app.agent_runs_started.load()},
                        {"codexProcessesStarted", codex_processes_started()}}).dump(),
                  "application/json");
}

// ---- the table ------------------------------------------------------------------------------

using enum caller;
using enum body_rule;
constexpr auto refuse = new_work::refused;  // while draining
constexpr auto serve = new_work::no;

// clang-format off
constexpr route routes[] = {
    // builder turns and the app's workspace (spec "Worker endpoints")
    {"POST",   "/sessions/{app}/messages",                web,     refuse, object, post_messages},
    {"GET",    "/sessions/{app}/session-state",           web,     serve,  none,   get_provider_session_state},
    {"POST",   "/sessions/{app}/turns/{run}/stop",        web,     serve,  none,   stop_turn},
    {"GET",    "/sessions/{app}/source-snapshot",         web_app, serve,  none,   source_snapshot},
    {"PUT",    "/sessions/{app}/files",                   web,     serve,  object, files},
    {"PUT",    "/sessions/{app}/source",                  web,     serve,  object, source},
    {"GET",    "/sessions/{app}/preview-artifact",        web_app, serve,  none,   preview_artifact},
    {"DELETE", "/sessions/{app}",                         web,     serve,  none,   delete_app_state},
    // app agent runs ({app} is the web's {appId}__agent__{runId})
    {"POST",   "/sessions/{app}/agent-run",               web,     refuse, object, start_run},
    {"POST",   "/sessions/{app}/agent-run/{run}/stop",    web,     serve,  none,   stop_run},
    {"GET",    "/sessions/{app}/agent-run/{run}",         web,     serve,  none,   run_status},
    {"GET",    "/sessions/{app}/agent-run/{run}/events",  web,     serve,  none,   run_events},
    // the MCP broker: the runtimes' tool calls
    {"POST",   "/mcp/{mcp}",                              runtime, serve,  none,   mcp},
    {"GET",    "/mcp/{mcp}",                              runtime, serve,  none,   mcp},
    {"DELETE", "/mcp/{mcp}",                              runtime, serve,  none,   mcp},
    // providers and runtimes
    {"GET",    "/detect-provider",                        web,     serve,  none,   detect_provider},
    {"PUT",    "/provider-keys/{key}",                    web,     serve,  typed,  provider_key},
    {"GET",    "/opencode/models",                        web,     serve,  none,   opencode_models},
    {"GET",    "/runtime-readiness",                      web,     serve,  none,   get_runtime_readiness},
    // the operator
    {"POST",   "/drain",                                  web,     serve,  none,   drain},
    {"DELETE", "/drain",                                  web,     serve,  none,   undrain},
    {"GET",    "/health",                                 anyone,  serve,  none,   health},
    {"GET",    "/metrics",                                web,     serve,  none,   metrics},
};
// clang-format on

// What each id of the table's paths may hold: a web app id, or an agent run's
// {appId}__agent__{runId}, is longer than the core's ids.
bool id_ok(std::string_view name, std::string_view seg) {
  auto all_of = [seg](auto ok) { return std::all_of(seg.begin(), seg.end(), ok); };
  // An app's id, or an agent run's {appId}__agent__{runId}: the id grammar, longer.
  if (name == "app") return seg.size() <= 200 && all_of([](char c) { return is_valid_id(std::string_view(&c, 1)); });
  if (name == "run") return is_valid_id(seg);
  if (name == "key") return seg.size() <= 64 && all_of([](char c) { return (c >= 'A' && c <= 'Z') || is_ascii_digit(c) || c == '_'; });
  if (name == "mcp") return seg == "platform" || seg == "app_tools" || seg == "app_data";
  return false;
}

}  // namespace

void register_routes(httplib::Server& server, worker_app& app, const request_guard_policy& guard, route_set rows) {
  std::span<const route> table(routes);
  // The broker's listener: the runtimes' rows, the first of the table's tail.
  if (rows == route_set::runtimes) {
    auto first = std::find_if(table.begin(), table.end(), [](const route& r) { return r.who == caller::runtime; });
    auto end = std::find_if(first, table.end(), [](const route& r) { return r.who != caller::runtime; });
    table = std::span<const route>(first, end);
  }
  auto run = [&app](const route& r, const httplib::Request& req, httplib::Response& res, const servers::path_ids& ids) {
    if ((r.who == caller::web || r.who == caller::web_app) && !servers::internal_caller_allowed(req, res, app.cfg.internal_token)) {
      return;
    }
    // A deleted app's routes answer as for an app never seen; its deletion may be repeated.
    if (r.path.starts_with("/sessions/") && r.method != "DELETE" && app.deleted.holds(ids.at(0))) {
      return send(res, api_error::not_found, "this app was deleted");
    }
    if (r.who == caller::web_app && !app.capabilities.holds(ids.at(0), req.get_header_value(std::string(run_capability_header)))) {
      return send(res, api_error::invalid_run_capability, "this app's routes need the capability of its latest builder turn");
    }
    if (r.draining == new_work::refused && app.draining.load()) {
      return send(res, api_error::worker_draining, "this worker is draining; send the work to another worker");
    }
    json body;
    if (r.body == body_rule::object && !parse_json_body(req, res, body)) return;
    if (r.body == body_rule::typed && !servers::read_json_body(req, res, json_limits{}, body)) return;
    r.fn(app, worker_call{req, ids, r.body == body_rule::none ? nullptr : &body}, res);
  };
  auto gets = servers::serve_routes(server, table, id_ok, run, "no such route");
  servers::set_error_replies(server, "no such route");
  // The GETs (before a body is read, without httplib's regex), after the request guard.
  server.set_pre_routing_handler([gets = std::move(gets), &guard](const httplib::Request& req, httplib::Response& res) {
    return servers::refused_by_guard(req, res, guard) || gets(req, res) ? httplib::Server::HandlerResponse::Handled
                                                                        : httplib::Server::HandlerResponse::Unhandled;
  });
}

}  // namespace platform::worker
