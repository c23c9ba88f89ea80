// platform-worker: runs agent sessions for the web server (spec "Worker endpoints"). Glue:
// configuration, the runtime runners, routes. No database access; sessions live in memory.
#include <httplib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "../common/listen.hpp"
#include "../common/find_upwards.hpp"
#include "../common/request_checks.hpp"
#include "platform/compact_json.hpp"
#include "platform/runtime_registry.hpp"
#include "platform/transcript_handoff.hpp"
#include "platform/ui_stream.hpp"
#include "platform/worker_message.hpp"
#include "agent_runner.hpp"
#include "broker.hpp"
#include "app_workspace.hpp"
#include "builder_tools.hpp"
#include "detect_provider.hpp"
#include "preview_artifact.hpp"
#include "granted_turn.hpp"
#include "opencode_models.hpp"
#include "web_internal.hpp"
#include "runtime_b.hpp"
#include "runtime_turn.hpp"
#include "worker_http.hpp"
#include "sessions.hpp"
#include "source_snapshot.hpp"
#include "turn_settings.hpp"
#include "worker_config.hpp"
#include "worker_registry.hpp"

namespace {

using nlohmann::json;
using namespace platform::worker;

httplib::Server* running = nullptr;
std::atomic<std::uint64_t> turns_started{0};  // for /health: tests count runtime queries
// Draining (docs/operations.md, "Several workers"): the operator is taking this worker away.
// It finishes its turns and agent runs and refuses new ones, so the web servers send them to
// the app's next worker; /health says so, and how much still runs.
std::atomic<bool> draining{false};
std::atomic<std::int64_t> turns_running{0};
void on_signal(int) {
  if (running) running->stop();
}


bool authorized(const config& cfg, const httplib::Request& req, httplib::Response& res) {
  return platform::servers::internal_caller_allowed(req, res, cfg.internal_token);
}

// The builder message body → a runtime turn. Settings are normalized again here from their
// three persisted fields, so no request can put arbitrary flags on a runtime's argv.
std::optional<turn_request> parse_turn(const json& body, const std::string& app_id, httplib::Response& res,
                                       const platform::runtime_registry& registry) {
  turn_request t;
  t.app_id = app_id;
  t.run_id = string_field(body, "runId");
  t.prompt = string_field(body, "prompt");
  t.system_prompt = string_field(body, "systemPrompt");
  if (t.run_id.empty() || t.prompt.empty()) {
    send_error(res, 400, "invalid_body", "runId and prompt are required strings");
    return std::nullopt;
  }
  auto normalized = settings_from_body(registry, body);
  if (!normalized) {
    send_error(res, 400, normalized.error().code, normalized.error().message);
    return std::nullopt;
  }
  t.runtime_id = normalized->runtime_id;
  t.settings_args = normalized->args;
  t.protocol_params_json = normalized->protocol_params_json;
  t.model = normalized->runtime_model;
  const json& state = body.contains("sessionState") ? body["sessionState"] : json();
  if (state.is_object() && string_field(state, "runtimeId") == t.runtime_id) {
    std::string format = string_field(state, "format");
    t.restore = provider_session{t.runtime_id, string_field(state, "sessionId"), string_field(state, "data"),
                                 format.empty() ? "jsonl" : format};
  }
  return t;
}

// A turn's timing for PLATFORM_CODEX_TRACE (issue 17: the platform's share of the time to the
// first text): the request's arrival, the runtime's spawn, start_runtime_turn's return and the
// first worker message carrying text. One line per turn, ids and numbers only.
struct turn_timing {
  using clock = std::chrono::steady_clock;
  // The worker's preparation before the spawn, in order: the request read (body, settings,
  // session, workspace checks), the workspace made ready, the broker grant, the workspace
  // fingerprint, then the runtime's own preparation (its temp home and config files).
  clock::time_point request, workspace_start, workspace_ready, granted, fingerprinted, spawn, started;
  std::string runtime_id;
  bool reported = false;

  static double ms(clock::time_point from, clock::time_point to) {
    return std::chrono::duration<double, std::milli>(to - from).count();
  }
  // `first_text`: when the first text line was read; none when the turn ended without text.
  void report(const std::string& app_id, const std::string& run_id, std::optional<clock::time_point> first_text) {
    if (reported) return;
    reported = true;
    char text_ms[32] = "none";
    if (first_text) std::snprintf(text_ms, sizeof text_ms, "%.2f", ms(spawn, *first_text));
    std::fprintf(stderr,
                 "worker: turn timing app=%s run=%s runtime=%s request_to_spawn_ms=%.2f spawn_to_started_ms=%.2f "
                 "spawn_to_first_text_ms=%s request_ms=%.2f workspace_ms=%.2f grant_ms=%.2f fingerprint_ms=%.2f "
                 "runtime_prep_ms=%.2f\n",
                 app_id.c_str(), run_id.c_str(), runtime_id.c_str(), ms(request, spawn), ms(spawn, started), text_ms,
                 ms(request, workspace_start), ms(workspace_start, workspace_ready), ms(workspace_ready, granted),
                 ms(granted, fingerprinted), ms(fingerprinted, spawn));
  }
};

// A worker message carrying text output: a text delta (runtime-a's own stream JSON, and the
// runtime-b and runtime-c normalizers' lines, which take its form).
bool carries_text(const std::string& line) { return line.find(R"("type":"text_delta")") != std::string::npos; }

struct turn_stream {
  std::unique_ptr<granted_turn> turn;
  std::string workspace_dir;
  std::string files_before;  // workspace_fingerprint at the start of the turn
  turn_timing timing;
};

// The builder's broker grant for this turn: the platform tools, acting on the app's workspace.
platform::result<std::unique_ptr<broker_lease>> builder_grant(const config& cfg, broker& brk, const json& body,
                                                    const turn_request& t, turn_timing& timing) {
  auto ctx = std::make_shared<turn_context>();
  ctx->k = turn_context::kind::builder;
  ctx->workspace_id = string_field(body, "workspaceId");
  ctx->app_id = t.app_id;
  ctx->run_id = t.run_id;
  ctx->runtime_id = t.runtime_id;
  ctx->workspace_dir = app_workspace_dir(cfg, t.app_id);
  ctx->web_origin = web_origin(cfg);
  // A new app starts from the template; a restored one with packages of its own gets them
  // installed. Not fatal: the builder can still talk, and done_building reports what is
  // missing. A build or install already running on the workspace sees to it itself.
  if (workspace_guard guard(ctx->workspace_dir); guard) {
    if (auto ws = ensure_app_workspace(cfg, ctx->workspace_dir); !ws) {
      std::string why = ws.error().message.substr(0, ws.error().message.find('\n'));
      std::fprintf(stderr, "worker: app workspace app=%s: %s\n", t.app_id.c_str(), why.c_str());
    }
  }
  timing.workspace_ready = turn_timing::clock::now();
  return brk.open(std::move(ctx), builder_tools(cfg));
}

// The app's workspace holds files (the template or the app's own).
bool has_workspace(const config& cfg, const std::string& app_id) {
  std::error_code ec;
  std::filesystem::path dir = app_workspace_dir(cfg, app_id);
  return std::filesystem::exists(dir / "package.json", ec) || std::filesystem::exists(dir / "agents.json", ec);
}

void post_messages(const config& cfg, session_table& sessions, worker_registry& registry, broker& brk,
                   const httplib::Request& req, httplib::Response& res) {
  turn_timing timing;
  timing.request = turn_timing::clock::now();
  if (!authorized(cfg, req, res)) return;
  if (draining.load()) return send_error(res, 503, "worker_draining", "this worker is draining; send the turn to another worker");
  std::string app_id = req.matches[1];
  json body;
  if (!parse_json_body(req, res, body)) return;
  auto snapshot = registry.for_body(body);
  if (!snapshot) return send_error(res, 503, snapshot.error().code, snapshot.error().message);
  auto t = parse_turn(body, app_id, res, **snapshot);
  if (!t) return;
  // A session this worker still holds for this runtime is newer than nothing; the web's copy
  // wins otherwise.
  const bool session_from_web = t->restore.has_value();
  if (!t->restore) {
    if (auto own = sessions.get(app_id, t->run_id); own && own->runtime_id == t->runtime_id) t->restore = std::move(own);
  }
  // The persisted messages this runtime's native session does not cover (another runtime's
  // turns) reach it as a bounded transcript before the user's new message.
  if (const json& messages = body.contains("messages") ? body["messages"] : json(); messages.is_array() && messages.size() > 1) {
    std::size_t earlier = messages.size() - 1;  // the last one is the new user message
    std::size_t covered = 0;
    if (session_from_web) {
      auto c = body.value("sessionCoversMessages", static_cast<std::int64_t>(earlier));
      covered = c < 0 ? 0 : std::min(static_cast<std::size_t>(c), earlier);
    } else if (t->restore) {
      covered = earlier;  // this worker's own session of the run: it saw the turns it ran
    }
    if (covered < earlier) {
      t->prompt = platform::prompt_with_handoff(
          platform::neutral_transcript(platform::compact_json(messages), covered, earlier),
          t->prompt);
    }
  }
  if (body.value("hasDraft", false) && !has_workspace(cfg, app_id)) {
    // Building on the template here would replace the app's draft after the turn: the web
    // server writes the draft in first (PUT files) and asks again.
    return send_error(res, 409, "workspace_missing", "this worker has no workspace for the app; send its draft first");
  }
  // A workspace left from before the app moved to another worker and back is stale: the
  // draft is newer (platform::source_digest).
  if (std::string want = string_field(body, "draftDigest"); !want.empty() && has_workspace(cfg, app_id)) {
    auto have = workspace_source_digest(app_workspace_dir(cfg, app_id));
    if (have && *have != want) {
      return send_error(res, 409, "workspace_stale", "this worker's workspace for the app is older than its draft; send the draft first");
    }
  }
  timing.workspace_start = turn_timing::clock::now();
  auto lease = builder_grant(cfg, brk, body, *t, timing);
  timing.granted = turn_timing::clock::now();
  if (!lease) return send_error(res, 503, lease.error().code, lease.error().message);
  if (!(*lease)->access().servers.empty()) t->broker = (*lease)->access();
  std::string workspace_dir = app_workspace_dir(cfg, app_id);
  std::string files_before = workspace_fingerprint(workspace_dir);
  timing.fingerprinted = turn_timing::clock::now();
  auto turn = start_runtime_turn(cfg, *t);
  timing.started = turn_timing::clock::now();
  if (!turn) return send_error(res, 503, turn.error().code, turn.error().message);
  if (cfg.trace) std::fprintf(stderr, "worker: turn start app=%s run=%s\n", app_id.c_str(), t->run_id.c_str());
  turns_started.fetch_add(1);
  auto state = std::make_shared<turn_stream>();
  timing.spawn = (*turn)->spawn_requested();
  if (timing.spawn == turn_timing::clock::time_point{}) timing.spawn = timing.started;
  timing.runtime_id = t->runtime_id;
  state->timing = std::move(timing);
  turns_running.fetch_add(1);
  state->turn = std::make_unique<granted_turn>(std::move(*turn), std::move(*lease));
  state->workspace_dir = std::move(workspace_dir);
  state->files_before = std::move(files_before);
  std::string run_id = t->run_id;
  res.set_header("Cache-Control", "no-cache");
  res.set_chunked_content_provider(
      "text/event-stream",
      [state, &sessions, app_id, run_id, &cfg](std::size_t, httplib::DataSink& sink) {
        std::string line, out;
        if (state->turn->next(line)) {
          std::optional<turn_timing::clock::time_point> first_text;
          if (cfg.trace && !state->timing.reported && carries_text(line)) first_text = turn_timing::clock::now();
          platform::append_sse_data(out, line);
          bool written = sink.write(out.data(), out.size());
          if (first_text) state->timing.report(app_id, run_id, first_text);
          return written;
        }
        if (cfg.trace) state->timing.report(app_id, run_id, std::nullopt);
        int code = state->turn->exit_code();
        if (!state->turn->result_seen()) {
          // Only the exit code: stderr may quote the prompt or files.
          json err = {{"type", "error"},
                      {"error", "The runtime exited with code " + std::to_string(code) + " before finishing the turn."}};
          platform::append_sse_data(out, err.dump());
        }
        if (auto s = state->turn->session()) sessions.put(app_id, run_id, std::move(*s));
        // Whether the turn wrote files, from the workspace itself rather than from tool names:
        // a turn that only read (ls, cat, Read) has nothing to build.
        std::string files_after = workspace_fingerprint(state->workspace_dir);
        bool changed = files_after.empty() || state->files_before.empty() || files_after != state->files_before;
        std::string changes;
        platform::worker_message::workspace_changes(changes, changed);
        changes.pop_back();  // the SSE event's own line end follows
        platform::append_sse_data(out, changes);
        if (cfg.trace) std::fprintf(stderr, "worker: turn end app=%s run=%s exit=%d\n", app_id.c_str(), run_id.c_str(), code);
        out += platform::sse_done_event;
        sink.write(out.data(), out.size());
        sink.done();
        return true;
      },
      [state](bool) {  // a web server that went away ends the turn
        state->turn.reset();
        turns_running.fetch_sub(1);
      });
}

void get_session_state(const config& cfg, session_table& sessions, const httplib::Request& req, httplib::Response& res) {
  if (!authorized(cfg, req, res)) return;
  auto s = sessions.get(req.matches[1], req.get_param_value("runId"));
  json state = nullptr;
  if (s) state = {{"runtimeId", s->runtime_id}, {"sessionId", s->session_id}, {"data", s->data}, {"format", s->format}};
  res.set_content(json({{"sessionState", state}}).dump(), "application/json");
}

}  // namespace

int main(int, char** argv) {
  auto cfg = config_from_env(platform::servers::executable_path(argv[0]));
  if (!cfg) {
    std::fprintf(stderr, "platform-worker: %s\n", cfg.error().message.c_str());
    return 2;
  }
  session_table sessions(cfg->session_ttl);
  broker brk(*cfg);
  worker_registry registry(*cfg, platform::builtin_runtime_registry());
  httplib::Server server;
  // One thread per connection: turn and agent-run streams are long-lived, and a client that
  // sends its request slowly holds a thread until a read waits longer than the read timeout;
  // the pool is sized so that neither starves the rest (docs/operations.md, "Slow clients").
  server.new_task_queue = [] { return new httplib::ThreadPool(1024); };
  server.set_read_timeout(10, 0);
  server.set_tcp_nodelay(true);  // a turn's messages are small writes: none waits for an ACK
  server.set_keep_alive_timeout(2);
  server.set_write_timeout(30, 0);
  server.set_payload_max_length(body_limits.max_bytes);
  const std::string app = "/sessions/([A-Za-z0-9_-]{1,200})";
  server.Post(app + "/messages", [&](const httplib::Request& req, httplib::Response& res) {
    post_messages(*cfg, sessions, registry, brk, req, res);
  });
  register_source_routes(server, *cfg, authorized);  // GET source-snapshot, PUT files
  server.Get(app + "/session-state", [&](const httplib::Request& req, httplib::Response& res) {
    get_session_state(*cfg, sessions, req, res);
  });
  agent_run_table agent_runs(cfg->max_agent_runs, cfg->agent_run_retention);
  std::atomic<std::uint64_t> agent_runs_started{0};
  server.Post(app + "/agent-run", [&](const httplib::Request& req, httplib::Response& res) {
    if (!authorized(*cfg, req, res)) return;
    if (draining.load()) return send_error(res, 503, "worker_draining", "this worker is draining; start the run on another worker");
    start_agent_run(*cfg, registry, brk, agent_runs, agent_runs_started, req.matches[1], req, res);
  });
  server.Post(app + "/agent-run/([A-Za-z0-9_-]{1,128})/stop", [&](const httplib::Request& req, httplib::Response& res) {
    if (authorized(*cfg, req, res)) stop_agent_run(agent_runs, req.matches[1], req.matches[2], res);
  });
  server.Get(app + "/agent-run/([A-Za-z0-9_-]{1,128})", [&](const httplib::Request& req, httplib::Response& res) {
    if (authorized(*cfg, req, res)) agent_run_status(agent_runs, req.matches[1], req.matches[2], res);
  });
  server.Get(app + "/agent-run/([A-Za-z0-9_-]{1,128})/events", [&](const httplib::Request& req, httplib::Response& res) {
    if (authorized(*cfg, req, res)) follow_agent_run(agent_runs, req.matches[1], req.matches[2], std::chrono::seconds(15), res);
  });
  // The MCP broker: runtimes authenticate with their turn's token, not the internal one.
  const std::string mcp = "/mcp/(platform|app_tools|app_data)";
  auto on_mcp = [&](const httplib::Request& req, httplib::Response& res) { brk.handle(req.matches[1].str(), req, res); };
  server.Post(mcp, on_mcp);
  server.Get(mcp, on_mcp);
  server.Delete(mcp, on_mcp);
  server.Get("/detect-provider", [&](const httplib::Request& req, httplib::Response& res) {
    if (authorized(*cfg, req, res)) handle_detect_provider(*cfg, req.get_param_value("fresh") == "1", res);
  });
  server.Get(app + "/preview-artifact", [&](const httplib::Request& req, httplib::Response& res) {
    if (authorized(*cfg, req, res)) handle_preview_artifact(*cfg, req.matches[1], res);
  });
  server.Put("/provider-keys/([A-Z0-9_]{1,64})", [&](const httplib::Request& req, httplib::Response& res) {
    if (authorized(*cfg, req, res)) handle_put_provider_key(*cfg, req.matches[1], req.body, res);
  });
  server.Get("/opencode/models", [&](const httplib::Request& req, httplib::Response& res) {
    if (authorized(*cfg, req, res)) handle_opencode_models(registry, res);
  });
  server.Post("/drain", [&](const httplib::Request& req, httplib::Response& res) {
    if (!authorized(*cfg, req, res)) return;
    draining.store(true);
    std::fprintf(stderr, "worker: draining (%lld turns running)\n", static_cast<long long>(turns_running.load()));
    res.set_content(json({{"ok", true}, {"draining", true}, {"turnsRunning", turns_running.load()}}).dump(), "application/json");
  });
  server.Delete("/drain", [&](const httplib::Request& req, httplib::Response& res) {
    if (!authorized(*cfg, req, res)) return;
    draining.store(false);
    res.set_content(json({{"ok", true}, {"draining", false}}).dump(), "application/json");
  });
  server.Get("/health", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(json({{"ok", true}, {"draining", draining.load()}, {"turnsRunning", turns_running.load()},
                          {"agentRunsRunning", agent_runs.running()}, {"sessions", sessions.size()}, {"turnsStarted", turns_started.load()},
                          {"agentRuns", agent_runs.size()}, {"brokerGrants", brk.live_grants()}, {"agentRunsStarted", agent_runs_started.load()},
                          {"codexProcessesStarted", codex_processes_started()}}).dump(),
                    "application/json");
  });
  server.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return;
    if (res.status == 404) send_error(res, 404, "not_found", "request failed");
    else if (res.status == 413) send_error(res, 413, "body_too_large", "the request body is too large");
    else send_error(res, res.status, "http_error", "request failed");
  });
  // No browser has any business here (the web server and the runtimes' MCP clients are the
  // only callers), and without a token only loopback host names are answered.
  platform::request_guard_policy guard;
  guard.browser_callers = false;
  guard.loopback_hosts_only = cfg->internal_token.empty();
  guard.max_body_bytes = body_limits.max_bytes;
  server.set_pre_routing_handler([&guard](const httplib::Request& req, httplib::Response& res) {
    return platform::servers::refused_by_guard(req, res, guard) ? httplib::Server::HandlerResponse::Handled
                                                                : httplib::Server::HandlerResponse::Unhandled;
  });
  running = &server;
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::signal(SIGPIPE, SIG_IGN);
  int port = platform::servers::bind_deep(server, cfg->host, cfg->port);
  if (port < 0) {
    std::fprintf(stderr, "platform-worker: cannot listen on %s:%d\n", cfg->host.c_str(), cfg->port);
    return 1;
  }
  // Runtimes run on this host: they reach the broker over loopback whatever address we bind.
  bool any = cfg->host == "0.0.0.0" || cfg->host == "::";
  cfg->broker_base_url = "http://" + std::string(any ? "127.0.0.1" : cfg->host) + ":" + std::to_string(port);
  std::printf("platform-worker listening on http://%s:%d\n", cfg->host.c_str(), port);
  std::fflush(stdout);
  bool ok = server.listen_after_bind();
  running = nullptr;
  return ok ? 0 : 1;
}
