// The worker's route table. Every route is one row: method, path, who may call it, handler.
// Paths name their ids ({app}, {run}, {key}, {mcp}); a row's handler reads them from
// req.matches in that order. The web server calls with the internal token (checked here, once
// for every row that says so); the runtimes' MCP clients call the broker with their turn's own
// token, which the broker checks.
#include "worker_routes.hpp"

#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "../common/request_checks.hpp"
#include "agent_runner.hpp"
#include "detect_provider.hpp"
#include "opencode_models.hpp"
#include "preview_artifact.hpp"
#include "runtime_b.hpp"
#include "source_snapshot.hpp"
#include "turns.hpp"
#include "worker_http.hpp"

namespace platform::worker {
namespace {

using nlohmann::json;
using handler = void (*)(worker_app&, const httplib::Request&, httplib::Response&);

enum class caller : unsigned char {
  web,      // the internal token
  runtime,  // a turn's broker token, checked by the broker
  anyone,   // /health
};

struct route {
  std::string_view method;
  std::string_view path;
  caller who;
  handler fn;
};

// ---- handlers too small for a file of their own ---------------------------------------------

void start_run(worker_app& app, const httplib::Request& req, httplib::Response& res) {
  if (app.draining.load()) return send_error(res, api_error::worker_draining, "this worker is draining; start the run on another worker");
  start_agent_run(app.cfg, app.registry, app.brk, app.agent_runs, app.agent_runs_started, req.matches[1], req, res);
}

void stop_run(worker_app& app, const httplib::Request& req, httplib::Response& res) {
  stop_agent_run(app.agent_runs, req.matches[1], req.matches[2], res);
}

void run_status(worker_app& app, const httplib::Request& req, httplib::Response& res) {
  agent_run_status(app.agent_runs, req.matches[1], req.matches[2], res);
}

void run_events(worker_app& app, const httplib::Request& req, httplib::Response& res) {
  follow_agent_run(app.agent_runs, req.matches[1], req.matches[2], std::chrono::seconds(15), res);
}

void source_snapshot(worker_app& app, const httplib::Request& req, httplib::Response& res) {
  get_snapshot(app.cfg, req.matches[1], res);
}

void files(worker_app& app, const httplib::Request& req, httplib::Response& res) { put_file(app.cfg, req.matches[1], req, res); }

void source(worker_app& app, const httplib::Request& req, httplib::Response& res) { put_source(app.cfg, req.matches[1], req, res); }

void preview_artifact(worker_app& app, const httplib::Request& req, httplib::Response& res) {
  handle_preview_artifact(app.cfg, req.matches[1], res);
}

void mcp(worker_app& app, const httplib::Request& req, httplib::Response& res) { app.brk.handle(req.matches[1].str(), req, res); }

void detect_provider(worker_app& app, const httplib::Request& req, httplib::Response& res) {
  handle_detect_provider(app.cfg, req.get_param_value("fresh") == "1", res);
}

void provider_key(worker_app& app, const httplib::Request& req, httplib::Response& res) {
  handle_put_provider_key(app.cfg, req.matches[1], req.body, res);
}

void opencode_models(worker_app& app, const httplib::Request&, httplib::Response& res) { handle_opencode_models(app.registry, res); }

void drain(worker_app& app, const httplib::Request&, httplib::Response& res) {
  app.draining.store(true);
  std::fprintf(stderr, "worker: draining (%lld turns running)\n", static_cast<long long>(app.turns_running.load()));
  res.set_content(json({{"ok", true}, {"draining", true}, {"turnsRunning", app.turns_running.load()}}).dump(), "application/json");
}

void undrain(worker_app& app, const httplib::Request&, httplib::Response& res) {
  app.draining.store(false);
  res.set_content(json({{"ok", true}, {"draining", false}}).dump(), "application/json");
}

void health(worker_app& app, const httplib::Request&, httplib::Response& res) {
  res.set_content(json({{"ok", true}, {"draining", app.draining.load()}, {"turnsRunning", app.turns_running.load()},
                        {"agentRunsRunning", app.agent_runs.running()}, {"sessions", app.sessions.size()},
                        {"turnsStarted", app.turns_started.load()}, {"agentRuns", app.agent_runs.size()},
                        {"brokerGrants", app.brk.live_grants()}, {"agentRunsStarted", app.agent_runs_started.load()},
                        {"codexProcessesStarted", codex_processes_started()}}).dump(),
                  "application/json");
}

// ---- the table ------------------------------------------------------------------------------

constexpr route routes[] = {
    {"POST", "/sessions/{app}/messages", caller::web, post_messages},
    {"GET", "/sessions/{app}/session-state", caller::web, get_provider_session_state},
    {"GET", "/sessions/{app}/source-snapshot", caller::web, source_snapshot},
    {"PUT", "/sessions/{app}/files", caller::web, files},
    {"PUT", "/sessions/{app}/source", caller::web, source},
    {"GET", "/sessions/{app}/preview-artifact", caller::web, preview_artifact},
    {"POST", "/sessions/{app}/agent-run", caller::web, start_run},
    {"POST", "/sessions/{app}/agent-run/{run}/stop", caller::web, stop_run},
    {"GET", "/sessions/{app}/agent-run/{run}", caller::web, run_status},
    {"GET", "/sessions/{app}/agent-run/{run}/events", caller::web, run_events},
    {"POST", "/mcp/{mcp}", caller::runtime, mcp},
    {"GET", "/mcp/{mcp}", caller::runtime, mcp},
    {"DELETE", "/mcp/{mcp}", caller::runtime, mcp},
    {"GET", "/detect-provider", caller::web, detect_provider},
    {"PUT", "/provider-keys/{key}", caller::web, provider_key},
    {"GET", "/opencode/models", caller::web, opencode_models},
    {"POST", "/drain", caller::web, drain},
    {"DELETE", "/drain", caller::web, undrain},
    {"GET", "/health", caller::anyone, health},
};

// The path as httplib's regex: each {name} becomes its id's pattern as a group.
std::string path_regex(std::string_view path) {
  static constexpr std::pair<std::string_view, std::string_view> ids[] = {
      {"{app}", "([A-Za-z0-9_-]{1,200})"},
      {"{run}", "([A-Za-z0-9_-]{1,128})"},
      {"{key}", "([A-Z0-9_]{1,64})"},
      {"{mcp}", "(platform|app_tools|app_data)"},
  };
  std::string out;
  for (std::size_t i = 0; i < path.size();) {
    bool named = false;
    for (auto [name, pattern] : ids) {
      if (path.substr(i, name.size()) == name) {
        out += pattern;
        i += name.size();
        named = true;
        break;
      }
    }
    if (!named) out += path[i++];
  }
  return out;
}

}  // namespace

void register_routes(httplib::Server& server, worker_app& app) {
  for (const route& r : routes) {
    auto run = [&app, r](const httplib::Request& req, httplib::Response& res) {
      if (r.who == caller::web && !servers::internal_caller_allowed(req, res, app.cfg.internal_token)) return;
      r.fn(app, req, res);
    };
    std::string pattern = path_regex(r.path);
    if (r.method == "GET") server.Get(pattern, run);
    else if (r.method == "POST") server.Post(pattern, run);
    else if (r.method == "PUT") server.Put(pattern, run);
    else if (r.method == "DELETE") server.Delete(pattern, run);
  }
}

}  // namespace platform::worker
