// Apps, builder runs and the builder chat (spec "Builder run", "Chat stream resume rules"),
// and the workspace events. The route table (web_routes.cpp) has authenticated the caller,
// loaded the app and checked the role; here: the body, the store and the streams.
#include "builder_routes.hpp"

#include <condition_variable>
#include <cstdio>
#include <mutex>

#include <nlohmann/json.hpp>

#include "../common/json_fields.hpp"
#include "channel_stream.hpp"
#include "events.hpp"
#include "http.hpp"
#include "page_routes.hpp"
#include "platform/chat_resume.hpp"
#include "platform/replay_head.hpp"
#include "platform/ui_message.hpp"
#include "platform/ui_stream.hpp"
#include "platform/usage.hpp"
#include "previews.hpp"
#include "web_app.hpp"
#include "../common/http_server.hpp"

namespace platform::web::builder_routes {

using nlohmann::json;

namespace {

json app_json(const app_record& a) {
  return {{"id", a.id},
          {"workspaceId", a.workspace_id},
          {"name", a.name},
          {"createdBy", a.created_by},
          {"runtimeId", a.runtime_id},
          {"runtimeModel", a.runtime_model},
          {"runtimeParams", servers::parse_json_or_null(a.runtime_params_json)},
          {"createdAt", a.created_at}};
}

json run_json(const builder_run_record& r, bool with_messages) {
  json j = {{"id", r.key.run_id},
            {"workspaceId", r.key.workspace_id},
            {"appId", r.key.app_id},
            {"status", to_string(r.status)},
            {"activeStreamId", r.active_stream_id ? json(*r.active_stream_id) : json(nullptr)},
            {"usage", r.usage ? json::parse(run_usage_to_json(*r.usage)) : json(nullptr)},
            {"messageCount", r.message_count},
            {"createdAt", r.created_at},
            {"updatedAt", r.updated_at}};
  if (!r.run_reason.empty()) j["runReason"] = r.run_reason;
  j["stopReason"] = r.stop_reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.stop_reason);
  if (!r.stop_message.empty()) j["stopMessage"] = r.stop_message;
  if (with_messages) j["messages"] = servers::parse_json_or_null(r.messages_json);
  return j;
}

std::optional<builder_run_record> load_run(web_app& app, const run_key& key, httplib::Response& res) {
  auto r = app.db.get_builder_run(key);
  if (!r) {
    send(res, r.error());
    return std::nullopt;
  }
  if (!*r) {
    send(res, api_error::not_found, "no such run for this app");
    return std::nullopt;
  }
  return *r;
}

run_key key_of(const path_ids& ids) { return {ids.at(0), ids.at(1), ids.at(2)}; }

// runtimeId, runtimeModel and runtimeParams of a body, each optional; a 400 already written
// when one has the wrong type.
std::optional<settings_request> settings_of(const json& body, httplib::Response& res) {
  settings_request r;
  for (auto [field, target] : {std::pair{"runtimeId", &r.runtime_id}, std::pair{"runtimeModel", &r.runtime_model}}) {
    auto it = body.find(field);
    if (it == body.end() || it->is_null()) continue;
    if (!it->is_string() || it->get<std::string>().empty()) {
      send(res, api_error::invalid_body, std::string(field) + " must be a non-empty string");
      return std::nullopt;
    }
    *target = it->get<std::string>();
  }
  if (auto it = body.find("runtimeParams"); it != body.end() && !it->is_null()) {
    if (!it->is_object()) {
      send(res, api_error::invalid_body, "runtimeParams must be an object of strings");
      return std::nullopt;
    }
    std::map<std::string, std::string> params;
    for (const auto& [k, v] : it->items()) {
      if (!v.is_string()) {
        send(res, api_error::invalid_body, "runtimeParams." + k + " must be a string");
        return std::nullopt;
      }
      params[k] = v.get<std::string>();
    }
    r.runtime_params = std::move(params);
  }
  return r;
}

json downgrades_json(const normalized_settings& s) {
  json out = json::array();
  for (const auto& d : s.downgrades) out.push_back({{"param", d.param}, {"from", d.from}, {"to", d.to}, {"reason", d.reason}});
  return out;
}

// The last user message's text parts, joined: what the runtime is asked.
std::string last_user_text(const json& messages) {
  for (auto it = messages.rbegin(); it != messages.rend(); ++it) {
    if (!it->is_object() || it->value("role", "") != "user") continue;
    std::string text;
    if (auto parts = it->find("parts"); parts != it->end() && parts->is_array()) {
      for (const auto& p : *parts) {
        if (p.is_object() && p.value("type", "") == "text" && p.contains("text") && p["text"].is_string()) {
          if (!text.empty()) text += "\n";
          text += p["text"].get<std::string>();
        }
      }
    }
    return text;
  }
  return {};
}

bool valid_app_name(const json& name) {
  return name.is_string() && !name.get<std::string>().empty() && name.get<std::string>().size() <= 200;
}

}  // namespace

// ---- apps and runs ---------------------------------------------------------------------

// An app with its runtime settings (spec "Runtime settings": the three persisted fields),
// normalized against the registry as the worker sees it, downgrades applied and reported.
void create_app(web_app& app, const route_call& call, httplib::Response& res) {
  const json& body = *call.body;
  const std::string& ws = call.ids.at(0);
  if (!body.contains("name") || !valid_app_name(body["name"])) {
    return send(res, api_error::invalid_body, "name must be a string of 1 to 200 bytes");
  }
  auto wanted = settings_of(body, res);
  if (!wanted) return;
  app_record a;
  a.id = "app_" + random_id(8);
  a.workspace_id = ws;
  a.name = body["name"];
  a.created_by = call.by->who.user_id;
  a.created_at = now_ms();
  auto settings = app_runtime_settings(app.runtimes, a, *wanted);
  if (!settings) return send(res, settings.error());
  persist_settings(a, *settings);
  if (auto r = app.db.create_app(a); !r) return send(res, r.error());
  json out = app_json(a);
  out["downgrades"] = downgrades_json(*settings);
  send_json(res, 201, out.dump());
}

void get_app(web_app& app, const route_call& call, httplib::Response& res) {
  const httplib::Request& req = call.req;
  const path_ids& ids = call.ids;
  json out = app_json(*call.app);
  // The draft preview is for those who read the draft; everyone sees the published app.
  out["preview"] = reads_draft(*call.by, *call.app) ? preview_json(app, req, ids.at(0), ids.at(1), source_scope::draft) : json(nullptr);
  out["publishedPreview"] = preview_json(app, req, ids.at(0), ids.at(1), source_scope::published);
  send_json(res, 200, out.dump());
}

// Renames the app or changes its runtime settings (the next builder turn, app-agent run and
// repair run use them). Editors only, like the builder chat whose POST changes them too.
void update_app(web_app& app, const route_call& call, httplib::Response& res) {
  const json& body = *call.body;
  app_record a = *call.app;
  if (body.contains("name")) {
    if (!valid_app_name(body["name"])) return send(res, api_error::invalid_body, "name must be a string of 1 to 200 bytes");
    a.name = body["name"];
  }
  auto wanted = settings_of(body, res);
  if (!wanted) return;
  auto settings = app_runtime_settings(app.runtimes, a, *wanted);
  if (!settings) return send(res, settings.error());
  persist_settings(a, *settings);
  auto updated = app.db.update_app(a);
  if (!updated) return send(res, updated.error());
  if (!*updated) return send(res, api_error::not_found, "no such app in this workspace");
  json out = app_json(a);
  out["downgrades"] = downgrades_json(*settings);
  send_json(res, 200, out.dump());
}

namespace {

// Every worker may hold the app's workspace (it moves when one drains or goes down). One that
// does not answer keeps it: the store's delete stands, and the log says where to look.
json forget_on_workers(const worker_pool& workers, const app_record& a) {
  int removed = 0, missed = 0;
  for (const auto& w : workers.all()) {
    if (auto r = w.forget_app(a.id); r) {
      ++removed;
    } else {
      ++missed;
      std::fprintf(stderr, "web: app %s deleted; worker %s did not remove its workspace (%s), which stays on that worker\n",
                   a.id.c_str(), w.base_url().c_str(), code_c_str(r.error()));
    }
  }
  return {{"cleaned", removed}, {"missed", missed}};
}

}  // namespace

void delete_app(web_app& app, const route_call& call, httplib::Response& res) {
  const app_record& a = *call.app;
  auto outcome = app.db.delete_app(a.workspace_id, a.id);
  if (!outcome) return send(res, outcome.error());
  switch (*outcome) {
    case app_deletion::not_found: return send(res, api_error::not_found, "no such app in this workspace");
    case app_deletion::builder_turn_streaming:
      return send(res, api_error::app_busy, "the builder is still working on this app: stop its turn or let it finish, then delete the app");
    case app_deletion::agent_run_active:
      return send(res, api_error::app_busy, "an agent of this app is still running: stop the run or let it finish, then delete the app");
    case app_deletion::deleted: break;
  }
  std::fprintf(stderr, "web: app %s of workspace %s deleted by %s\n", a.id.c_str(), a.workspace_id.c_str(),
               call.by->who.user_id.c_str());
  publish_app_event(app.cache, "app.deleted", a.workspace_id, a.id);
  json workers = forget_on_workers(app.workers, a);
  send_json(res, 200, json({{"id", a.id}, {"deleted", true}, {"workers", workers}}).dump());
}

// The workspace's apps, newest first, with each app's latest builder run (projected), from
// which a sidebar derives the "Call failed - builder fixing it" badge.
void list_apps(web_app& app, const route_call& call, httplib::Response& res) {
  auto page = page_of(call.req, res);
  if (!page) return;
  auto rows = app.db.list_apps(call.ids.at(0), *page);
  if (!rows) return send(res, rows.error());
  send_json(res, 200, page_json("apps", *rows, *page, [](const app_listing& l) {
    json j = app_json(l.app);
    j["latestRun"] = l.latest_run ? run_json(*l.latest_run, false) : json(nullptr);
    return j;
  }, [](const app_listing& l) { return list_cursor{l.app.created_at, l.app.id}; }));
}

// An app's builder runs, newest first, without messages.
void list_runs(web_app& app, const route_call& call, httplib::Response& res) {
  auto page = page_of(call.req, res);
  if (!page) return;
  auto rows = app.db.list_builder_runs(call.app->workspace_id, call.app->id, *page);
  if (!rows) return send(res, rows.error());
  send_json(res, 200, page_json("runs", *rows, *page, [](const builder_run_record& r) { return run_json(r, false); },
                                [](const builder_run_record& r) { return list_cursor{r.created_at, r.key.run_id}; }));
}

void create_run(web_app& app, const route_call& call, httplib::Response& res) {
  const std::string& ws = call.app->workspace_id;
  const std::string& app_id = call.app->id;
  builder_run_record r;
  r.key = {ws, app_id, "run_" + random_id(12)};
  r.created_at = r.updated_at = now_ms();
  if (auto made = app.db.create_builder_run(r); !made) return send(res, made.error());
  send_json(res, 201, run_json(r, true).dump());
}

// ---- builder chat --------------------------------------------------------------------------

namespace {

void send_empty_stream(httplib::Response& res) {
  set_ui_stream_headers(res);
  res.status = 200;
  res.set_content(std::string(sse_done_event), "text/event-stream");
}

// True while the run still streams `stream_id` (a follower's liveness check).
std::function<bool()> stream_alive(web_app& app, run_key key, std::string stream_id) {
  return [&app, key = std::move(key), stream_id = std::move(stream_id)] {
    auto r = app.db.builder_run_stream(key);
    if (!r) return true;  // the store is down: keep the viewer, the run may be fine
    return *r && (*r)->status == run_status::streaming && (*r)->active_stream_id == stream_id;
  };
}

}  // namespace

void post_chat(web_app& app, const route_call& call, httplib::Response& res) {
  const auto received = call.received;
  run_key key = key_of(call.ids);
  const app_record* a = call.app;
  const json& body = *call.body;
  auto messages = body.find("messages");
  if (messages == body.end() || !messages->is_array() || messages->empty()) {
    return send(res, api_error::invalid_body, "messages must be a non-empty array of UI messages");
  }
  std::string messages_json = compact_json(*messages);
  auto count = count_ui_messages(messages_json);
  if (!count) return send(res, api_error::invalid_body, count.error().message);
  if (last_user_text(*messages).empty()) {
    return send(res, api_error::invalid_body, "the last user message has no text");
  }
  auto wanted = settings_of(body, res);
  if (!wanted) return;
  auto settings = app_runtime_settings(app.runtimes, *a, *wanted);
  if (!settings) return send(res, settings.error());
  // The chat's settings become the app's (spec "Runtime settings": applications persist them).
  app_record changed = *a;
  persist_settings(changed, *settings);
  if (changed.runtime_id != a->runtime_id || changed.runtime_model != a->runtime_model ||
      changed.runtime_params_json != a->runtime_params_json) {
    if (auto r = app.db.update_app(changed); !r) return send(res, r.error());
  }

  turn_request t{key, messages_json, static_cast<std::int64_t>(*count), last_user_text(*messages), *settings, "", received};
  if (call.by) t.asked_by = call.by->who.user_id;
  auto started = app.chat.start(std::move(t));
  if (!started) return send(res, started.error());
  if (started->outcome == claim_outcome::not_found) return send(res, api_error::not_found, "no such run for this app");
  // A lost claim (duplicate or stale) is not an error: an empty successful stream.
  if (started->outcome != claim_outcome::claimed) return send_empty_stream(res);
  set_ui_stream_headers(res);
  // A builder turn's stream always ends with its [DONE]: nothing to continue on.
  follow_replay(res, app.cache, {started->stream_id, 0, app.cfg.heartbeat, stream_alive(app, key, started->stream_id),
                                 std::nullopt, nullptr, nullptr, app.cfg.cache_outage_limit});
}

void get_chat(web_app& app, const route_call& call, httplib::Response& res) {
  run_key key = key_of(call.ids);
  auto run = load_run(app, key, res);
  if (run) send_json(res, 200, compact_json(run_json(*run, true)));
}

namespace {

// Waits up to `timeout` for the run's next workspace event while `waiting(run)` holds, then
// reads the run again. The run is read once after subscribing too: its event may have come
// before the subscription.
run_stream_state await_run(web_app& app, const run_key& key, run_stream_state run,
                           const std::function<bool(const run_stream_state&)>& waiting,
                           std::chrono::milliseconds timeout) {
  if (!waiting(run)) return run;
  std::mutex mu;
  std::condition_variable cv;
  bool woke = false;
  auto sub = app.cache.subscribe(workspace_channel(key.workspace_id), [&](std::string_view, std::string_view msg) {
    if (msg.find(key.run_id) == std::string_view::npos) return;
    std::lock_guard lock(mu);
    woke = true;
    cv.notify_all();
  });
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto again = app.db.builder_run_stream(key);
    if (again && *again) run = **again;
    if (!waiting(run)) return run;
    std::unique_lock lock(mu);
    if (!cv.wait_until(lock, deadline, [&] { return woke; })) return run;
    woke = false;
  }
}

// Resume rule 2: a streaming run that is not attachable yet gets a short wait for its
// run.stream_ready (or any end) before the answer.
run_stream_state wait_attachable(web_app& app, const run_key& key, run_stream_state run) {
  if (app.cfg.trace && resume_waits(run)) {
    std::fprintf(stderr, "web: resume waits for an attachable stream run=%s\n", key.run_id.c_str());
  }
  return await_run(app, key, run, resume_waits, app.cfg.attach_wait);
}

}  // namespace

// Stops a streaming builder turn wherever it runs (spec "Builder run": user stop → failed):
// the worker's runtime ends, what streamed so far is persisted, run.failed is published.
// Answers with the run's status once it ended (200), or 202 while its turn is still ending.
void stop_chat(web_app& app, const route_call& call, httplib::Response& res) {
  run_key key = key_of(call.ids);
  if (call.run->status != run_status::streaming) {
    return send(res, api_error::not_streaming, "the run has no turn to stop: it is " + std::string(to_string(call.run->status)));
  }
  if (auto r = app.chat.request_stop(key); !r) return send(res, r.error());
  auto run = await_run(app, key, *call.run, [](const run_stream_state& r) { return r.status == run_status::streaming; },
                       std::chrono::seconds(10));
  bool ended = run.status != run_status::streaming;
  send_json(res, ended ? 200 : 202, json({{"id", key.run_id}, {"status", to_string(run.status)}}).dump());
}

namespace {

// The stream from its beginning when its buffer no longer holds it: the replay head, then the
// buffer from where the head ends (expired when the head is missing or already behind the
// buffer, which the producer's half-window schedule makes rare).
result<replay_read> read_from_head(cache_store& cache, const std::string& stream_id) {
  auto head = cache.get_head(stream_id);
  if (!head) return tl::unexpected(head.error());
  replay_read expired;
  expired.status = replay_status::cursor_expired;
  if (!*head) return expired;
  auto tail = cache.read_from(stream_id, (*head)->upto, 16384);
  if (!tail || tail->status != replay_status::ok) return tail;
  return read_with_head(std::move(**head), std::move(*tail));
}

}  // namespace

void resume_chat(web_app& app, const route_call& call, httplib::Response& res) {
  run_key key = key_of(call.ids);
  auto at = stream_cursor_of(call.req, res);
  if (!at) return;
  std::uint64_t cursor = *at;
  auto run = wait_attachable(app, key, *call.run);
  if (app.cfg.trace) {
    std::fprintf(stderr, "web: resume app=%s run=%s status=%s cursor=%llu attachable=%d\n", key.app_id.c_str(),
                 key.run_id.c_str(), std::string(to_string(run.status)).c_str(), static_cast<unsigned long long>(cursor),
                 run.active_stream_id ? 1 : 0);
  }
  if (!resume_attaches(run)) {
    res.status = 204;
    return;
  }
  // The first read decides between 204 and a stream (platform/chat_resume.hpp), and is sent
  // as the stream's start.
  auto first = app.cache.read_from(*run.active_stream_id, cursor, 16384);
  if (first && after_first_read(first->status, cursor) == resume_read::from_head) {
    first = read_from_head(app.cache, *run.active_stream_id);
  }
  if (!first || after_first_read(first->status, cursor) != resume_read::stream) {
    res.status = 204;
    return;
  }
  set_ui_stream_headers(res);
  if (app.viewers && platform::servers::http_server::can_hand_over()) {
    // The headers go out, then the connection is the viewer hub's: no thread waits for it.
    auto plan = std::make_shared<viewer_plan>(viewer_plan{*run.active_stream_id, std::move(*first),
                                                          stream_alive(app, key, *run.active_stream_id), app.cfg.heartbeat,
                                                          app.cfg.cache_outage_limit});
    platform::servers::http_server::hand_over(res, [hub = app.viewers, plan](int fd) { hub->adopt(fd, std::move(*plan)); });
    res.set_chunked_content_provider("text/event-stream", [](std::size_t, httplib::DataSink&) { return false; });
    return;
  }
  follow_replay(res, app.cache, {*run.active_stream_id, cursor, app.cfg.heartbeat,
                                 stream_alive(app, key, *run.active_stream_id), std::move(*first), nullptr, nullptr,
                                 app.cfg.cache_outage_limit});
}

// ---- workspace events ------------------------------------------------------------------------

namespace {

void follow_events(web_app& app, const std::string& ws, httplib::Response& res, std::optional<run_key> only_run) {
  channel_stream_options o;
  o.channel = workspace_channel(ws);
  o.heartbeat = app.cfg.heartbeat;
  if (only_run) {
    o.filter = [id = "\"" + only_run->run_id + "\""](std::string_view msg) { return msg.find(id) != std::string_view::npos; };
  }
  // Catch-up: the builder runs streaming right now.
  o.catch_up = [&app, ws, only_run] {
    std::vector<std::string> out;
    auto streaming = app.db.streaming_builder_runs(ws);
    if (!streaming) return out;
    for (const auto& r : *streaming) {
      if (only_run && r.key.run_id != only_run->run_id) continue;
      out.push_back(run_event(r.active_stream_id ? "run.stream_ready" : "run.starting", r.key, "builder", "streaming",
                              r.run_reason));
    }
    return out;
  };
  stream_channel(app.cache, res, std::move(o));
}

}  // namespace

void workspace_events(web_app& app, const route_call& call, httplib::Response& res) {
  follow_events(app, call.ids.at(0), res, std::nullopt);
}

void run_events(web_app& app, const route_call& call, httplib::Response& res) {
  run_key key = key_of(call.ids);
  follow_events(app, key.workspace_id, res, key);
}

}  // namespace platform::web::builder_routes
