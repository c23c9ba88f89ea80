#include "agent_runs.hpp"

#include <cstdio>
#include <memory>
#include <thread>

#include "access.hpp"
#include "budgets.hpp"
#include "routines.hpp"
#include "chat_service.hpp"
#include "events.hpp"
#include "governed_agents.hpp"
#include "http.hpp"
#include "platform/api_error.hpp"
#include "platform/run_capability.hpp"
#include "platform/user_stop.hpp"
#include "platform/agent_run_recovery.hpp"
#include "platform/bridge.hpp"
#include "platform/builder_turn.hpp"
#include "platform/runtime_registry_json.hpp"
#include "platform/ui_message.hpp"
#include "platform/ui_stream.hpp"
#include "platform/usage.hpp"
#include "stream_writer.hpp"
#include "web_app.hpp"
#include "web_metrics.hpp"
#include "../common/json_fields.hpp"

namespace platform::web {

using nlohmann::json;

namespace {

// A finished run's stream whose owner never released it (its web process died) stops
// counting as live after this long: viewers then end instead of waiting forever.
constexpr std::int64_t finished_stream_grace_ms = 30000;

// Stable per run: a replayed or re-opened viewer stream repeats it, so the client replaces
// the assistant message instead of adding one; the stored UI message carries it too.
std::string message_id_of(const run_key& key) { return "agent-" + key.run_id; }

json parsed_or_null(const std::optional<std::string>& text) { return text ? servers::parse_json_or_null(*text) : json(); }

// The totals of a RunUsage: list and status polling do not need the per-model breakdown.
json usage_summary(const std::optional<std::string>& usage_json) {
  json u = parsed_or_null(usage_json);
  if (!u.is_object()) return nullptr;
  json out = json::object();
  for (const char* k : {"totalCostUsd", "totalInputTokens", "totalOutputTokens", "totalCacheReadTokens",
                        "totalCacheCreationTokens"}) {
    out[k] = u.value(k, json(0));
  }
  return out;
}

void publish_agent_event(cache_store& cache, const run_key& key, agent_run_status status) {
  std::string_view type = status == agent_run_status::completed ? "run.completed" : "run.failed";
  auto r = cache.publish(workspace_channel(key.workspace_id), run_event(type, key, "agent", to_string(status), ""));
  if (!r) std::fprintf(stderr, "web: publish agent %.*s failed: %s\n", static_cast<int>(type.size()), type.data(),
                       code_c_str(r.error()));
}

// ---- the agent and the worker request ----------------------------------------------------

const json* find_agent(const json& doc, std::string_view agent_id) {
  auto agents = doc.find("agents");
  if (agents == doc.end() || !agents->is_array()) return nullptr;
  for (const auto& a : *agents) {
    if (a.is_object() && a.value("id", "") == agent_id) return &a;
  }
  return nullptr;
}

// {id, tools, dataCollections}: the part of the agent the worker grants tools from.
json agent_config_of(const json& agent) {
  return {{"id", agent.value("id", "")},
          {"tools", agent.value("tools", json::array())},
          {"dataCollections", agent.value("dataCollections", json::array())}};
}

// The tools the runtime may run: the agent's enabled builtins, its custom tools and, with
// dataCollections, the data tools. The worker grants the broker tools of the same config.
json allowed_tools_of(const json& config) {
  json out = json::array();
  json tools = config.value("tools", json::array());
  json collections = config.value("dataCollections", json::array());
  for (const auto& t : tools.is_array() ? tools : json::array()) {
    if (!t.is_object() || !t.value("enabled", true)) continue;
    std::string name = t.value("name", "");
    if (t.value("type", "") == "builtin" && (name == "WebSearch" || name == "WebFetch")) out.push_back(name);
    if (t.value("type", "") == "custom" && !name.empty()) out.push_back("mcp__app_tools__" + name);
  }
  if (collections.is_array() && !collections.empty()) {
    out.push_back("mcp__app_data__read_app_data");
    out.push_back("mcp__app_data__update_app_data");
  }
  return out;
}

result<json> runtime_settings_of(web_app& app, const run_key& key) {
  auto a = app.db.get_app(key.workspace_id, key.app_id);
  if (!a) return tl::unexpected(a.error());
  if (!*a) return fail(api_error::not_found, "no such app in this workspace");
  auto s = app_runtime_settings(app.runtimes, **a);
  if (!s) return tl::unexpected(s.error());
  return json::parse(normalized_settings_to_json(*s));
}

// `runtime_id` gets the runtime the run is sent to.
result<std::string> worker_body(web_app& app, const agent_run_record& run, const std::string& callback_url,
                                std::string& runtime_id) {
  run_key key{run.workspace_id, run.app_id, run.run_id};
  auto files = source_files_of(app, key.workspace_id, key.app_id, run_scope(run));
  if (!files) return tl::unexpected(files.error());
  auto settings = runtime_settings_of(app, key);
  if (!settings) return tl::unexpected(settings.error());
  runtime_id = servers::string_field(settings->value("settings", json::object()), "runtimeId");
  json config = servers::parse_json_within(run.agent_config_json);
  if (!config.is_object()) return fail(api_error::store_corrupt, "the run's agent config is not JSON");
  json body = {{"runId", run.run_id},
               {"runCapability", run_capability(app.capability_key, {run_kind::agent_run, run.workspace_id, run.app_id, run.run_id})},
               {"appId", run.app_id},
               {"workspaceId", run.workspace_id},
               {"prompt", run.prompt},
               {"systemPrompt", run.system_prompt},
               {"agentConfig", config},
               {"allowedTools", allowed_tools_of(config)},
               {"callbackUrl", callback_url},
               {"sourceFiles", *files},
               {"settings", *settings}};
  return compact_json(body);
}

std::string callback_url(const web_app& app, const std::string& local_origin) {
  return (app.cfg.web_url.empty() ? local_origin : app.cfg.web_url) + "/api/internal/agent-run-complete";
}

// GET /metrics: a run ended, counted under its app's runtime (runs do not keep theirs).
void count_agent_run_end(web_app& app, const run_key& key, servers::run_outcome outcome) {
  std::string runtime;
  if (auto settings = runtime_settings_of(app, key)) {
    runtime = servers::string_field(settings->value("settings", json::object()), "runtimeId");
  }
  web_stats.agent_runs_ended.add(runtime, outcome);
}

// `outcome`: a person's stop, or a failure.
result<void> fail_start(web_app& app, const run_key& key, const std::string& message,
                        servers::run_outcome outcome = servers::run_outcome::failed) {
  agent_run_completion done;
  done.status = agent_run_status::failed;
  done.error = message;
  done.now = now_ms();
  auto ended = app.db.app_agent_runs().finish(key, done);
  if (ended && *ended) {
    count_agent_run_end(app, key, outcome);
    if (auto s = app.db.app_agent_runs().summary(key); s && *s) routine_run_ended(app, **s, true);
    publish_agent_event(app.cache, key, agent_run_status::failed);
  }
  return {};
}

// ---- transcript → UI stream / UI messages ------------------------------------------------

// The stored transcript (worker messages without deltas) as a UI message stream: the bridge
// renders each complete assistant message, tool calls and results. A failure the transcript
// does not show (the worker never started the runtime) becomes the stream's error chunk.
std::string transcript_stream(const json& transcript, const run_key& key, const std::optional<std::string>& error) {
  bridge_options opt;
  opt.message_id = message_id_of(key);
  bridge b(opt);
  std::string out;
  if (transcript.is_array()) {
    for (const auto& m : transcript) b.feed_message(compact_json(m), out);
  }
  if (error && !b.outcome().is_error) b.fail(*error, out);
  b.finish(out);
  return out;
}

// The UIMessages of a transcript: the one assistant message the stream above assembles.
std::string transcript_messages(const std::string& sse) {
  ui_message_assembler assembled;
  std::size_t pos = 0;
  while (pos < sse.size()) {
    std::size_t end = sse.find("\n\n", pos);
    if (end == std::string::npos) break;
    std::string_view event(sse.data() + pos, end - pos);
    if (event.substr(0, 6) == "data: ") assembled.feed(event.substr(6));
    pos = end + 2;
  }
  if (assembled.empty()) return "[]";
  return "[" + assembled.message_json() + "]";
}

// ---- viewer streams ------------------------------------------------------------------------

// A viewer's pump: the worker's events of the run (buffered ones first, then live) through the
// same turn type and stream writer as a builder turn's (one stream entry per event, a replay
// head every half window, the cache store's outages waited out and a stream the store lost put
// back). Ends with the run's stream (finish, [DONE]), or at once when its viewer leaves
// (`cancel`: no [DONE], the other viewers hand over); either way the buffer is completed and
// the activeStreamId released.
struct stream_pump {
  request_cancel cancel;
  bool registered = true;  // the run's activeStreamId (released when the pump ends)
};

void run_pump(web_app& app, const run_key& key, const std::string& stream_id, const std::shared_ptr<stream_pump>& p) {
  servers::gauge_hold live(web_stats.agent_run_pumps);
  builder_turn turn({message_id_of(key), replay_window(app.cfg)});
  stream_writer writer(app.cache, app.local, app.batcher, stream_id, replay_window(app.cfg), app.cfg.cache_outage_limit);
  auto write = [&writer](builder_turn_output step) {
    for (auto event : step.events) {
      if (!writer.append(event)) return false;
    }
    if (step.head) writer.put_head(std::move(*step.head));
    return true;
  };
  // The run stays on the worker it started on; when none holds it, the app's worker answers
  // 404 (or cannot be reached) and the run's stream ends with that reason.
  auto holder = app.workers.agent_run_holder(key.app_id, key.run_id);
  const worker_client& worker = holder && *holder ? **holder : app.workers.for_app(key.app_id);
  auto& append_time = web_stats.chunk_append[static_cast<std::size_t>(stream_kind::agent_run)];
  auto read = worker.agent_run_events(key.app_id, key.run_id, [&](std::string_view data) {
    const auto arrived = std::chrono::steady_clock::now();
    builder_turn_output step = turn.feed(data);
    const bool appends = !step.events.empty();
    bool written = write(std::move(step));
    if (appends) append_time.observe_since(arrived);
    return written;
  }, &p->cancel);
  // The owning viewer left, not the run: no finish and no [DONE], so the viewers following
  // this buffer go on with the run's next stream (viewer_handover) instead of ending.
  if (!p->cancel.cancelled()) {
    builder_turn_end how;
    if (!read && !writer.gave_up()) {
      how.failure = is(read.error(), api_error::not_found) ? "The worker no longer holds this run's stream."
                                                           : "The run's stream broke: " + read.error().message;
    }
    how.stream_lost = writer.gave_up();
    write(turn.end(how));
    write(turn.done());
  }
  if (!writer.finish()) {
    std::fprintf(stderr, "web: stream of agent run=%s not completed: the cache store stayed unreachable\n",
                 key.run_id.c_str());
  }
  if (p->registered) (void)app.db.app_agent_runs().clear_active_stream(key, stream_id, now_ms());
}

// A viewer's stream lives while the run does, and a little after it ended (its last events
// are on their way).
std::function<bool()> agent_stream_alive(web_app& app, run_key key) {
  return [&app, key = std::move(key)] {
    auto s = app.db.app_agent_runs().summary(key);
    if (!s) return true;  // the store is down: keep the viewer, the run may be fine
    if (!*s) return false;
    return !is_finished((*s)->status) || now_ms() - (*s)->finished_at < finished_stream_grace_ms;
  };
}

void serve_transcript(web_app& app, const run_key& key, httplib::Response& res) {
  auto run = app.db.app_agent_runs().get(key);
  if (!run) return send(res, run.error());
  if (!*run) return send(res, api_error::not_found, "no such agent run for this app");
  json transcript = servers::parse_json_or_null((*run)->transcript_json);
  auto error = (*run)->status == agent_run_status::failed ? (*run)->error : std::nullopt;
  set_ui_stream_headers(res);
  res.status = 200;
  res.set_content(transcript_stream(transcript, key, error), "text/event-stream");
}

// A new stream fed from the worker's events by a pump of its own. `registered`: made the run's
// activeStreamId (false when another viewer registered first, or the run is no longer live;
// then nothing is started). Unregistered streams serve one viewer whose owner left after the
// run ended.
struct started_stream {
  std::string id;
  std::shared_ptr<stream_pump> pump;
};

result<std::optional<started_stream>> start_stream(web_app& app, const run_key& key, bool registered) {
  std::string stream_id = random_id();
  if (auto made = app.cache.create(stream_id); !made) return tl::unexpected(made.error());
  if (registered) {
    auto won = app.db.app_agent_runs().set_active_stream(key, stream_id, now_ms());
    if (!won || !*won) {
      (void)app.cache.complete(stream_id);
      if (!won) return tl::unexpected(won.error());
      return std::optional<started_stream>();
    }
  }
  auto pump = std::make_shared<stream_pump>();
  pump->registered = registered;
  std::thread([&app, key, stream_id, pump] { run_pump(app, key, stream_id, pump); }).detach();
  return std::optional<started_stream>(started_stream{stream_id, pump});
}

// What a viewer holds: the pump it started, if any (its leaving stops it).
struct viewer_state {
  std::mutex mu;
  std::shared_ptr<stream_pump> pump;
  void own(std::shared_ptr<stream_pump> p) {
    std::lock_guard lock(mu);
    pump = std::move(p);
  }
  void leave() {
    std::lock_guard lock(mu);
    if (pump) pump->cancel.cancel();
  }
};

// Waits until `stream_id` holds `cursor` events (a new stream replays the run from its start,
// quickly: the worker has buffered what the viewer saw). False when it does not in time. Each
// read starts where the last one ended, so the buffer is walked once.
bool caught_up(cache_store& cache, const std::string& stream_id, std::uint64_t cursor) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  std::uint64_t seen = 0;
  while (seen < cursor && std::chrono::steady_clock::now() < deadline) {
    auto r = cache.wait_read(stream_id, seen, 16384, std::chrono::seconds(1));
    if (!r || r->status != replay_status::ok) return false;
    seen = r->next_cursor;
    if (seen < cursor && r->terminal) return false;
  }
  return seen >= cursor;
}

// The stream a viewer goes on with when the one it followed ended without [DONE] (its owner
// left while the run goes on): the run's new active stream, registered by this viewer when
// nobody else did; after the run ended, a stream of this viewer's own. Every stream of a run
// carries the same events in the same order (the bridge over the worker's buffered messages),
// so the viewer reads on at its cursor without a gap or a repeat.
std::function<std::optional<std::string>(const std::string&, std::uint64_t)> viewer_handover(
    web_app& app, const run_key& key, std::shared_ptr<viewer_state> viewer) {
  auto pick = [&app, key, viewer](const std::string& ended) -> std::optional<std::string> {
    for (int attempt = 0; attempt < 3; ++attempt) {
      auto s = app.db.app_agent_runs().summary(key);
      if (!s || !*s) return std::nullopt;
      // The ended stream's pump releases the id right after completing it: not that one.
      if ((*s)->active_stream_id == ended) {
        (void)app.db.app_agent_runs().clear_active_stream(key, ended, now_ms());
        continue;
      }
      if ((*s)->active_stream_id) return (*s)->active_stream_id;
      auto started = start_stream(app, key, !is_finished((*s)->status));
      if (!started) return std::nullopt;
      if (*started) {
        viewer->own((*started)->pump);
        return (*started)->id;
      }
    }
    return std::nullopt;
  };
  return [&app, pick](const std::string& ended, std::uint64_t cursor) -> std::optional<std::string> {
    auto next = pick(ended);
    if (!next || !caught_up(app.cache, *next, cursor)) return std::nullopt;
    return next;
  };
}

void follow(web_app& app, const run_key& key, const std::string& stream_id, std::uint64_t cursor,
            std::optional<replay_read> first, std::shared_ptr<viewer_state> viewer, httplib::Response& res) {
  set_ui_stream_headers(res);
  follow_replay(res, app.cache, {stream_id, cursor, app.cfg.heartbeat, agent_stream_alive(app, key), std::move(first),
                                 [viewer] { viewer->leave(); }, viewer_handover(app, key, viewer), app.cfg.cache_outage_limit});
}

// Registers a new stream as the run's active one and starts its pump; false when another
// viewer registered first or the run is no longer live.
result<bool> own_stream(web_app& app, const run_key& key, httplib::Response& res) {
  auto started = start_stream(app, key, true);
  if (!started) return tl::unexpected(started.error());
  if (!*started) return false;
  auto viewer = std::make_shared<viewer_state>();
  viewer->own((*started)->pump);
  follow(app, key, (*started)->id, 0, std::nullopt, viewer, res);
  return true;
}

// Replay-then-follow of a stream another viewer owns; false when its buffer is gone.
bool follow_stream(web_app& app, const run_key& key, const std::string& stream_id, std::uint64_t cursor,
                   httplib::Response& res) {
  auto first = app.cache.read_from(stream_id, cursor, 16384);
  if (!first || first->status != replay_status::ok) return false;
  follow(app, key, stream_id, cursor, std::move(*first), std::make_shared<viewer_state>(), res);
  return true;
}

}  // namespace

result<json> governed_agent(web_app& app, std::string_view ws, std::string_view app_id, bool draft,
                            std::string_view agent_id) {
  json doc;
  if (draft) {
    auto view = load_agents(app, ws, app_id, source_scope::draft);
    if (!view) return tl::unexpected(view.error());
    if (!view->text) return fail(api_error::agent_not_found, "the app's draft has no agents.json");
    if (!view->config) return fail(api_error::agents_invalid, "the draft agents.json is not valid; fix it before running its agents");
    doc = servers::parse_json_within(*view->text);
  } else {
    auto policy = approved_payload(app, ws, app_id, source_scope::published);
    if (!policy) return tl::unexpected(policy.error());
    if (!*policy) return fail(api_error::agent_not_found, "the app has no published agents");
    doc = servers::parse_json_within((*policy)->payload_json);
  }
  const json* agent = doc.is_object() ? find_agent(doc, agent_id) : nullptr;
  if (!agent) return fail(api_error::agent_not_found, "no agent with that id in the app's " +
                                                 std::string(draft ? "draft" : "published") + " agents.json");
  return *agent;
}

agent_run_record new_agent_run(const run_key& key, const caller& who, const json& agent, bool draft, std::string prompt) {
  agent_run_record r;
  r.workspace_id = key.workspace_id;
  r.app_id = key.app_id;
  r.run_id = key.run_id;
  r.agent_id = agent.value("id", "");
  r.agent_name = agent.value("name", "");
  r.draft = draft;
  r.triggered_by_user_id = who.who.user_id;
  r.triggered_by_user_email = who.who.email;
  r.triggered_by_user_name = who.who.name;
  r.prompt = std::move(prompt);
  r.system_prompt = agent.value("systemPrompt", "");
  r.agent_config_json = compact_json(agent_config_of(agent));
  r.created_at = r.updated_at = now_ms();
  return r;
}

json agent_run_summary_json(const agent_run_summary& s) {
  return {{"id", s.run_id},
          {"runId", s.run_id},
          {"workspaceId", s.workspace_id},
          {"appId", s.app_id},
          {"agentId", s.agent_id},
          {"agentName", s.agent_name},
          {"sessionId", s.session_id ? json(*s.session_id) : json(nullptr)},
          {"status", to_string(s.status)},
          {"sourceVersion", s.draft ? "draft" : "published"},
          {"draft", s.draft},
          {"triggeredByUserId", s.triggered_by_user_id},
          {"result", parsed_or_null(s.result_json)},
          {"error", s.error ? json(*s.error) : json(nullptr)},
          {"stopReason", s.stop_reason.empty() ? json(nullptr) : json(s.stop_reason)},
          {"routineId", s.routine_id.empty() ? json(nullptr) : json(s.routine_id)},
          {"trigger", s.trigger.empty() ? json(nullptr) : json(s.trigger)},
          {"usage", usage_summary(s.usage_json)},
          {"activeStreamId", s.active_stream_id ? json(*s.active_stream_id) : json(nullptr)},
          {"createdAt", s.created_at},
          {"updatedAt", s.updated_at},
          {"startedAt", s.started_at == 0 ? json(nullptr) : json(s.started_at)},
          {"finishedAt", s.finished_at == 0 ? json(nullptr) : json(s.finished_at)}};
}

result<start_outcome> start_agent_run(web_app& app, const run_key& key, const std::string& local_origin) {
  auto claimed = app.db.app_agent_runs().claim_start(key, now_ms());
  if (!claimed) return tl::unexpected(claimed.error());
  if (!*claimed) {
    auto s = app.db.app_agent_runs().summary(key);
    if (!s) return tl::unexpected(s.error());
    if (!*s) return fail(api_error::not_found, "no such agent run for this app");
    return start_outcome{false, (*s)->status};
  }
  auto run = app.db.app_agent_runs().get(key);
  if (!run || !*run) return fail(api_error::store_unavailable, "the claimed run could not be read back");
  std::string runtime_id;
  auto body = worker_body(app, **run, callback_url(app, local_origin), runtime_id);
  if (!body) {
    (void)fail_start(app, key, "The run could not be prepared: " + body.error().message);
    return tl::unexpected(body.error());
  }
  // On the app's worker; one that cannot be reached or is draining did not start it, and the
  // app's next worker takes it.
  result<worker_client::reply> reply;
  for (const worker_client* worker : app.workers.for_new_work(key.app_id)) {
    reply = worker->start_agent_run(key.app_id, key.run_id, *body);
    error refused = reply ? reply->refusal("the worker refused the run") : reply.error();
    if ((reply && reply->status < 300) || !app.workers.moves_on(*worker, refused)) break;
  }
  // 409: the worker holds this run already (an earlier start whose reply was lost).
  if (reply && (reply->status == 202 || reply->status == 200 || reply->status == 409)) {
    web_stats.agent_runs_started.add(runtime_id);
    return start_outcome{true, agent_run_status::running};
  }
  error e = reply ? reply->refusal("the worker refused the run") : reply.error();
  (void)fail_start(app, key, "The worker could not start the run: " + e.message);
  return tl::unexpected(e);
}

void serve_agent_run_viewer(web_app& app, const run_key& key, std::uint64_t cursor, httplib::Response& res) {
  // A lost registration race or an expired buffer is resolved by looking again.
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto s = app.db.app_agent_runs().summary(key);
    if (!s) return send(res, s.error());
    if (!*s) return send(res, api_error::not_found, "no such agent run for this app");
    if ((*s)->active_stream_id) {
      if (follow_stream(app, key, *(*s)->active_stream_id, cursor, res)) return;
      // Its buffer expired (or its owner died before creating it): release it and go on.
      (void)app.db.app_agent_runs().clear_active_stream(key, *(*s)->active_stream_id, now_ms());
      continue;
    }
    if (is_finished((*s)->status)) return serve_transcript(app, key, res);
    if ((*s)->status == agent_run_status::pending) {
      res.status = 204;  // nothing started yet: nothing to view
      return;
    }
    auto owned = own_stream(app, key, res);
    if (!owned) return send(res, owned.error());
    if (*owned) return;
  }
  res.status = 204;
}

result<bool> complete_agent_run(web_app& app, const json& body) {
  auto str = [&](const char* k) { return body.contains(k) && body[k].is_string() ? body[k].get<std::string>() : ""; };
  run_key key{str("workspaceId"), str("appId"), str("runId")};
  std::string status_text = str("status");
  if (key.workspace_id.empty() || key.app_id.empty() || key.run_id.empty()) {
    return fail(api_error::invalid_body, "workspaceId, appId and runId are required strings");
  }
  if (status_text != "completed" && status_text != "failed") {
    return fail(api_error::invalid_body, "status must be completed or failed");
  }
  auto s = app.db.app_agent_runs().summary(key);
  if (!s) return tl::unexpected(s.error());
  if (!*s) return fail(api_error::not_found, "no such agent run for this app");
  if (is_finished((*s)->status)) return false;

  agent_run_completion done;
  done.status = status_text == "completed" ? agent_run_status::completed : agent_run_status::failed;
  if (body.contains("result") && !body["result"].is_null()) done.result_json = compact_json(body["result"]);
  if (body.contains("error") && !body["error"].is_null()) {
    done.error = body["error"].is_string() ? body["error"].get<std::string>() : compact_json(body["error"]);
  }
  std::optional<run_usage> recorded;
  if (body.contains("usage") && body["usage"].is_object()) {
    auto u = run_usage_from_json(compact_json(body["usage"]));
    if (u) {
      done.usage_json = run_usage_to_json(*u);
      recorded = *u;
    }
  }
  if (done.status == agent_run_status::failed) {
    std::string why = str("stopReason");
    if (why == user_stop_code || why == budget_stop_code) done.stop_reason = why;
  }
  json transcript = body.contains("transcript") && body["transcript"].is_array() ? body["transcript"] : json::array();
  // The runtime's session: the worker message shape's system init carries it.
  for (const auto& m : transcript) {
    if (m.is_object() && m.value("type", "") == "system" && m.value("subtype", "") == "init" && m.contains("session_id") &&
        m["session_id"].is_string() && !m["session_id"].get_ref<const std::string&>().empty()) {
      done.session_id = m["session_id"].get<std::string>();
      break;
    }
  }
  done.transcript_json = compact_json(transcript);
  done.messages_json = transcript_messages(
      transcript_stream(transcript, key, done.status == agent_run_status::failed ? done.error : std::nullopt));
  done.now = now_ms();
  auto ended = app.db.app_agent_runs().finish(key, done);
  if (!ended) return tl::unexpected(ended.error());
  if (*ended) {
    count_agent_run_end(app, key, done.status == agent_run_status::completed ? servers::run_outcome::completed
                                  : done.stop_reason.empty()                 ? servers::run_outcome::failed
                                                                             : servers::run_outcome::stopped);
    // Its recorded usage settles its ledger entry; without one its last estimate stands.
    if (recorded) {
      if (auto limits = run_budget_for(app.db, key.workspace_id, key.app_id, budget_run_kind::agent_run)) {
        run_spend spending{{key.workspace_id, key.app_id, key.run_id, key.run_id, budget_run_kind::agent_run}, *limits, {}};
        settle_run(app.db, app.cache, spending, recorded);
      }
    }
    routine_run_ended(app, **s, done.status == agent_run_status::failed);
    publish_agent_event(app.cache, key, done.status);
  }
  return *ended;
}

source_scope run_scope(const agent_run_record& run) { return run.draft ? source_scope::draft : source_scope::published; }

std::optional<agent_run_record> acting_run(web_app& app, const json& body, httplib::Response& res) {
  using servers::string_field;
  run_key key{string_field(body, "workspaceId"), string_field(body, "appId"), string_field(body, "runId")};
  auto run = app.db.app_agent_runs().get(key);
  if (!run) {
    send(res, run.error());
    return std::nullopt;
  }
  if (!*run) {
    send(res, api_error::not_found, "no such agent run for this app");
    return std::nullopt;
  }
  if ((*run)->agent_id != string_field(body, "agentId")) {
    send(res, api_error::forbidden, "this run belongs to another agent");
    return std::nullopt;
  }
  return std::move(**run);
}

agent_run_recovery::agent_run_recovery(web_app& app) : app_(app) {
  thread_ = std::thread([this] {
    std::unique_lock lock(mu_);
    while (!stopping_) {
      cv_.wait_for(lock, app_.cfg.agent_run_check, [&] { return stopping_; });
      if (stopping_) break;
      lock.unlock();
      check_once();
      lock.lock();
    }
  });
}

agent_run_recovery::~agent_run_recovery() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void agent_run_recovery::check_once() {
  std::int64_t now = now_ms();
  // A run the worker has just admitted is always there; give the start a moment.
  auto runs = app_.db.app_agent_runs().unfinished(now - 2000, 500);
  if (!runs) return;  // the store is down: try again next time
  std::map<std::string, std::int64_t> still_unreachable;
  run_recovery_policy policy{app_.cfg.agent_run_unreachable_limit.count()};
  for (const auto& r : *runs) {
    run_key key{r.workspace_id, r.app_id, r.run_id};
    auto holder = app_.workers.agent_run_holder(key.app_id, key.run_id);
    auto answer = !holder ? result<std::optional<std::string>>(tl::unexpected(holder.error()))
                  : !*holder ? result<std::optional<std::string>>(std::nullopt)
                             : (*holder)->agent_run_status(key.app_id, key.run_id);
    worker_run_view view = !answer ? worker_run_view::unreachable
                           : !*answer ? worker_run_view::missing
                           : **answer == "running" ? worker_run_view::running
                                                   : worker_run_view::finished;
    std::int64_t since = 0;
    if (view == worker_run_view::unreachable) {
      auto it = unreachable_since_.find(r.run_id);
      since = it == unreachable_since_.end() ? now : it->second;
      still_unreachable[r.run_id] = since;
    }
    auto reason = lost_run_reason(view, since, now, policy);
    if (!reason) continue;
    (void)fail_start(app_, key, *reason);
    if (app_.cfg.trace) {
      std::fprintf(stderr, "web: agent run lost app=%s run=%s worker=%s\n", key.app_id.c_str(), key.run_id.c_str(),
                   view == worker_run_view::missing ? "missing" : "unreachable");
    }
  }
  unreachable_since_ = std::move(still_unreachable);
}

result<agent_stop_outcome> stop_agent_run(web_app& app, const run_key& key, agent_run_status status) {
  if (is_finished(status)) return agent_stop_outcome::not_running;
  if (status == agent_run_status::pending) {
    (void)fail_start(app, key, std::string(platform::user_stop_reason), servers::run_outcome::stopped);
    return agent_stop_outcome::stopped;
  }
  auto holder = app.workers.agent_run_holder(key.app_id, key.run_id);
  if (!holder) return tl::unexpected(holder.error());
  using answer = worker_client::stop_answer;
  auto said = *holder ? (*holder)->stop_agent_run(key.app_id, key.run_id) : result<answer>(answer::not_held);
  if (!said) return tl::unexpected(said.error());
  switch (*said) {
    case answer::stopping: return agent_stop_outcome::stopping;
    case answer::ended: return agent_stop_outcome::not_running;  // its callback is on the way
    case answer::not_held: break;
  }
  // The worker lost it: nothing will ever complete it.
  (void)fail_start(app, key, "The worker no longer holds this run (it restarted or stopped); stopped by the user.",
                   servers::run_outcome::stopped);
  return agent_stop_outcome::stopped;
}

}  // namespace platform::web
