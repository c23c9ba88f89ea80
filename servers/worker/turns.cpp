// Builder turns on this worker (spec "Worker endpoints": POST /sessions/{appId}/messages and
// the session state): a turn request becomes a runtime turn whose worker messages stream back.
#include "turns.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "../common/request_checks.hpp"
#include "platform/compact_json.hpp"
#include "platform/runtime_registry.hpp"
#include "platform/source_digest.hpp"
#include "platform/transcript_handoff.hpp"
#include "platform/ui_stream.hpp"
#include "platform/user_stop.hpp"
#include "platform/worker_message.hpp"
#include "app_workspace.hpp"
#include "builder_checks.hpp"
#include "builder_tools.hpp"
#include "granted_turn.hpp"
#include "runtime_turn.hpp"
#include "source_snapshot.hpp"
#include "turn_settings.hpp"
#include "web_internal.hpp"
#include "worker_http.hpp"
#include "worker_stats.hpp"

namespace platform::worker {

using nlohmann::json;

namespace {

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
    send(res, api_error::invalid_body, "runId and prompt are required strings");
    return std::nullopt;
  }
  if (!valid_run_capability_field(body)) {
    send(res, api_error::invalid_body, "runCapability is required: the web's capability of this run");
    return std::nullopt;
  }
  auto normalized = settings_from_body(registry, body);
  if (!normalized) {
    send(res, normalized.error());
    return std::nullopt;
  }
  t.runtime_id = normalized->runtime_id;
  t.settings_args = normalized->args;
  t.protocol_params_json = normalized->protocol_params_json;
  t.model = normalized->runtime_model;
  const json& state = body.contains("sessionState") ? body["sessionState"] : json();
  if (state.is_object() && string_field(state, "runtimeId") == t.runtime_id) {
    std::string format = string_field(state, "format");
    t.restore = provider_session_state{t.runtime_id, string_field(state, "sessionId"), string_field(state, "data"),
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

// ProviderSessionState as the web stores it, or null.
json session_state_json(const std::optional<provider_session_state>& s) {
  if (!s) return nullptr;
  return {{"runtimeId", s->runtime_id}, {"sessionId", s->session_id}, {"data", s->data}, {"format", s->format}};
}

struct turn_stream {
  std::unique_ptr<granted_turn> turn;
  std::shared_ptr<turn_stop> stop = std::make_shared<turn_stop>();
  std::string workspace_dir;
  std::string files_before;  // workspace_fingerprint at the start of the turn
  turn_timing timing;
  // GET /metrics (worker_stats.hpp): the first line was timed; the turn's end was counted.
  bool first_line_seen = false;
  bool end_counted = false;
  void count_end(servers::run_outcome how) {
    if (end_counted) return;
    end_counted = true;
    worker_stats.builder_turns_ended.add(timing.runtime_id, how);
  }
};

// The builder's broker grant for this turn: the platform tools, acting on the app's workspace.
platform::result<std::unique_ptr<broker_lease>> builder_grant(const config& cfg, broker& brk, const json& body,
                                                    const turn_request& t, turn_timing& timing) {
  auto ctx = std::make_shared<turn_context>();
  ctx->k = turn_context::kind::builder;
  ctx->workspace_id = string_field(body, "workspaceId");
  ctx->app_id = t.app_id;
  ctx->run_id = t.run_id;
  ctx->run_capability = string_field(body, "runCapability");
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

// The session the turn resumes: the web's copy for this runtime (parse_turn), else one this
// worker still holds for the run; and the persisted messages that session does not cover
// (another runtime's turns) go to the runtime as a bounded transcript before the new message.
void resume_session(session_table& sessions, const json& body, turn_request& t) {
  session_source from = t.restore ? session_source::web : session_source::none;
  if (!t.restore) {
    if (auto own = sessions.get(t.app_id, t.run_id); own && own->runtime_id == t.runtime_id) {
      t.restore = std::move(own);
      from = session_source::worker;
    }
  }
  const json& messages = body.contains("messages") ? body["messages"] : json();
  if (!messages.is_array() || messages.size() <= 1) return;
  std::size_t earlier = messages.size() - 1;  // the last one is the new user message
  std::size_t covered = messages_covered(from, earlier, body.value("sessionCoversMessages", static_cast<long long>(earlier)));
  if (covered < earlier) {
    t.prompt = prompt_with_handoff(neutral_transcript(compact_json(messages), covered, earlier), t.prompt);
  }
}

// Whether this worker's workspace may take the turn (platform::check_workspace), or false with
// the refusal written.
bool workspace_takes_turn(const config& cfg, const std::string& app_id, const json& body, httplib::Response& res) {
  bool held = has_workspace(cfg, app_id);
  std::string want = string_field(body, "draftDigest");
  std::optional<std::string> have;
  if (held && !want.empty()) have = workspace_source_digest(app_workspace_dir(cfg, app_id));
  switch (check_workspace(body.value("hasDraft", false), held, want, have)) {
    case workspace_verdict::ready: return true;
    case workspace_verdict::missing:
      send(res, api_error::workspace_missing, "this worker has no workspace for the app; send its draft first");
      return false;
    case workspace_verdict::stale:
      send(res, api_error::workspace_stale, "this worker's workspace for the app is older than its draft; send the draft first");
      return false;
  }
  return false;
}

// The turn's stream, one worker message per call; at the end the runtime's exit without a
// result as an error message, then the closing line (the session kept for the next turn,
// whether the turn changed the workspace, its build's digest), and [DONE].
bool next_turn_chunk(turn_stream& state, session_table& sessions, const std::string& app_id, const std::string& run_id,
                     bool trace, httplib::DataSink& sink) {
  std::string line, out;
  if (state.turn->next(line)) {
    if (!state.first_line_seen) {
      state.first_line_seen = true;
      worker_stats.first_line[servers::runtime_slot(state.timing.runtime_id)].observe_since(state.timing.request);
    }
    std::optional<turn_timing::clock::time_point> first_text;
    if (trace && !state.timing.reported && carries_text(line)) first_text = turn_timing::clock::now();
    append_sse_data(out, line);
    bool written = sink.write(out.data(), out.size());
    if (first_text) state.timing.report(app_id, run_id, first_text);
    return written;
  }
  if (trace) state.timing.report(app_id, run_id, std::nullopt);
  int code = state.turn->exit_code();
  state.count_end(state.turn->result_seen()    ? servers::run_outcome::completed
                  : state.turn->interrupted() ? servers::run_outcome::stopped
                                              : servers::run_outcome::failed);
  if (!state.turn->result_seen()) {
    // Only the exit code: stderr may quote the prompt or files.
    json err = {{"type", "error"},
                {"error", state.turn->interrupted()
                              ? std::string(user_stop_reason)
                              : "The runtime exited with code " + std::to_string(code) + " before finishing the turn."}};
    append_sse_data(out, err.dump());
  }
  worker_message::turn_end end;
  auto session = state.turn->session();
  end.session_state_json = session_state_json(session).dump();
  if (session) sessions.put(app_id, run_id, std::move(*session));
  // After the session's capture, which may run the runtime once more (runtime-c's export): a
  // stop is answered when nothing of the turn runs.
  state.stop->ended();
  // Whether the turn wrote files, from the workspace itself rather than from tool names: a turn
  // that only read (ls, cat, Read) has nothing to build.
  std::string files_after = workspace_fingerprint(state.workspace_dir);
  end.workspace_changed = files_after.empty() || state.files_before.empty() || files_after != state.files_before;
  if (end.workspace_changed) {
    if (auto build = check_build_output(std::filesystem::path(state.workspace_dir) / "dist"); build.ok()) end.build_digest = build.digest;
  }
  std::string closing;
  worker_message::turn_end_line(closing, end);
  closing.pop_back();  // the SSE event's own line end follows
  append_sse_data(out, closing);
  if (trace) std::fprintf(stderr, "worker: turn end app=%s run=%s exit=%d\n", app_id.c_str(), run_id.c_str(), code);
  out += sse_done_event;
  sink.write(out.data(), out.size());
  sink.done();
  return true;
}

}  // namespace

void post_messages(worker_app& app, const worker_call& call, httplib::Response& res) {
  turn_timing timing;
  timing.request = turn_timing::clock::now();
  const config& cfg = app.cfg;
  const json& body = *call.body;
  std::string app_id = call.id(1);
  auto snapshot = app.registry.for_body(body);
  if (!snapshot) return send(res, snapshot.error());
  auto t = parse_turn(body, app_id, res, **snapshot);
  if (!t) return;
  app.capabilities.remember(app_id, string_field(body, "runCapability"));
  resume_session(app.sessions, body, *t);
  if (!workspace_takes_turn(cfg, app_id, body, res)) return;
  timing.workspace_start = turn_timing::clock::now();
  auto lease = builder_grant(cfg, app.brk, body, *t, timing);
  timing.granted = turn_timing::clock::now();
  if (!lease) return send(res, lease.error());
  if (!(*lease)->access().servers.empty()) t->broker = (*lease)->access();
  auto state = std::make_shared<turn_stream>();
  state->workspace_dir = app_workspace_dir(cfg, app_id);
  state->files_before = workspace_fingerprint(state->workspace_dir);
  timing.fingerprinted = turn_timing::clock::now();
  auto turn = start_runtime_turn(cfg, *t);
  timing.started = turn_timing::clock::now();
  if (!turn) return send(res, turn.error());
  if (cfg.trace) std::fprintf(stderr, "worker: turn start app=%s run=%s\n", app_id.c_str(), t->run_id.c_str());
  app.turns_started.fetch_add(1);
  worker_stats.builder_turns_started.add(t->runtime_id);
  timing.spawn = (*turn)->spawn_requested();
  if (timing.spawn == turn_timing::clock::time_point{}) timing.spawn = timing.started;
  timing.runtime_id = t->runtime_id;
  state->timing = std::move(timing);
  app.turns_running.fetch_add(1);
  state->turn = std::make_unique<granted_turn>(std::move(*turn), std::move(*lease));
  state->stop->attach(state->turn.get());
  app.running.add(app_id, t->run_id, state->stop);
  res.set_header("Cache-Control", "no-cache");
  res.set_chunked_content_provider(
      "text/event-stream",
      [state, &sessions = app.sessions, app_id, run_id = t->run_id, trace = cfg.trace](std::size_t, httplib::DataSink& sink) {
        return next_turn_chunk(*state, sessions, app_id, run_id, trace, sink);
      },
      [state, &app, app_id, run_id = t->run_id](bool) {  // a web server that went away ends the turn
        state->count_end(state->turn && state->turn->interrupted() ? servers::run_outcome::stopped : servers::run_outcome::failed);
        app.running.remove(app_id, run_id, state->stop.get());
        state->stop->ended();
        state->turn.reset();
        app.turns_running.fetch_sub(1);
      });
}

void stop_turn(worker_app& app, const worker_call& call, httplib::Response& res) {
  auto stop = app.running.find(call.id(1), call.id(2));
  if (!stop) return send(res, api_error::not_found, "no such builder turn runs on this worker");
  auto how = stop->stop(std::chrono::steady_clock::now() + std::chrono::seconds(5));
  if (how == turn_stop::outcome::still_running) {
    return send(res, api_error::internal, "the turn's runtime did not end within 5 s of its stop");
  }
  res.set_content(json({{"runId", call.id(2)}, {"stopped", how == turn_stop::outcome::stopped}}).dump(), "application/json");
}

void get_provider_session_state(worker_app& app, const worker_call& call, httplib::Response& res) {
  auto s = app.sessions.get(call.id(1), call.req.get_param_value("runId"));
  res.set_content(json({{"sessionState", session_state_json(s)}}).dump(), "application/json");
}

}  // namespace platform::worker
