#include "routes.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <condition_variable>
#include <mutex>

#include <nlohmann/json.hpp>

#include "../common/json_fields.hpp"
#include "access.hpp"
#include "agent_run_routes.hpp"
#include "agents_routes.hpp"
#include "app_data_routes.hpp"
#include "events.hpp"
#include "http.hpp"
#include "integration_routes.hpp"
#include "page_routes.hpp"
#include "platform/replay_head.hpp"
#include "platform/ui_message.hpp"
#include "platform/ui_stream.hpp"
#include "platform/usage.hpp"
#include "tool_routes.hpp"
#include "ui_routes.hpp"
#include "previews.hpp"
#include "channel_stream.hpp"
#include "web_server.hpp"

namespace platform::web {

using nlohmann::json;

bool secure_cookies(const web_app& app, const httplib::Request& req) {
  return req.get_header_value("X-Forwarded-Proto") == "https" ||
         std::any_of(app.cfg.public_origins.begin(), app.cfg.public_origins.end(),
                     [](const std::string& o) { return o.rfind("https://", 0) == 0; });
}

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
  if (with_messages) j["messages"] = servers::parse_json_or_null(r.messages_json);
  return j;
}

std::optional<builder_run_record> load_run(web_app& app, const run_key& key, httplib::Response& res) {
  auto r = app.db.get_builder_run(key);
  if (!r) {
    send_store_error(res, r.error());
    return std::nullopt;
  }
  if (!*r) {
    send_error(res, 404, "not_found", "no such run for this app");
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
      send_error(res, 400, "invalid_body", std::string(field) + " must be a non-empty string");
      return std::nullopt;
    }
    *target = it->get<std::string>();
  }
  if (auto it = body.find("runtimeParams"); it != body.end() && !it->is_null()) {
    if (!it->is_object()) {
      send_error(res, 400, "invalid_body", "runtimeParams must be an object of strings");
      return std::nullopt;
    }
    std::map<std::string, std::string> params;
    for (const auto& [k, v] : it->items()) {
      if (!v.is_string()) {
        send_error(res, 400, "invalid_body", "runtimeParams." + k + " must be a string");
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

// ---- workspaces and members -------------------------------------------------------------
// Not in the spec's route table, but `external` mode needs them: roles come from the store's
// memberships (design notes), so someone must be able to create a workspace and add people.

void list_workspaces(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids&) {
  auto who = app.auth.identify(req, res);
  if (!who) return;
  auto mine = app.db.workspaces_of(who->user_id);
  if (!mine) return send_store_error(res, mine.error());
  json out = json::array();
  for (const auto& w : *mine) out.push_back({{"id", w.id}, {"name", w.name}, {"role", to_string(w.role)}});
  send_json(res, 200, json({{"workspaces", out}}).dump());
}

void create_workspace(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids&) {
  auto who = app.auth.identify(req, res);
  if (!who) return;
  json body;
  if (!parse_json_body(req, res, app.cfg.max_body_bytes, body)) return;
  auto name = body.find("name");
  if (name == body.end() || !name->is_string() || name->get<std::string>().empty() || name->get<std::string>().size() > 200) {
    return send_error(res, 400, "invalid_body", "name must be a string of 1 to 200 bytes");
  }
  std::string id = "ws_" + random_id(8);
  if (auto r = app.db.create_workspace(id, name->get<std::string>(), who->user_id, now_ms()); !r) {
    return send_store_error(res, r.error());
  }
  send_json(res, 201, json({{"id", id}, {"name", *name}, {"role", "owner"}}).dump());
}

void list_members(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
  if (!authorize(app, req, res, ids.at(0))) return;
  auto people = app.db.members(ids.at(0));
  if (!people) return send_store_error(res, people.error());
  json out = json::array();
  for (const auto& m : *people) {
    out.push_back({{"userId", m.user.id}, {"email", m.user.email}, {"name", m.user.name}, {"role", to_string(m.role)}});
  }
  send_json(res, 200, json({{"members", out}}).dump());
}

// Admins and owners add people or change their role; nobody becomes or stops being the
// owner this way, so a workspace always keeps its owner.
void set_member(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
  auto c = authorize(app, req, res, ids.at(0));
  if (!c) return;
  if (c->role != workspace_role::owner && c->role != workspace_role::admin) {
    return send_error(res, 403, "forbidden", "only admins and owners manage members");
  }
  json body;
  if (!parse_json_body(req, res, app.cfg.max_body_bytes, body)) return;
  auto user = body.find("userId");
  auto role_field = body.find("role");
  if (user == body.end() || !user->is_string() || user->get<std::string>().empty() ||
      user->get<std::string>().size() > 256) {
    return send_error(res, 400, "invalid_body", "userId must be a string of 1 to 256 bytes");
  }
  auto role = role_field != body.end() && role_field->is_string()
                  ? workspace_role_from(role_field->get<std::string>()) : std::nullopt;
  if (!role || *role == workspace_role::owner) {
    return send_error(res, 400, "invalid_body", "role must be viewer, collaborator or admin");
  }
  auto current = app.db.membership(ids.at(0), user->get<std::string>());
  if (!current) return send_store_error(res, current.error());
  if (*current == workspace_role::owner) return send_error(res, 409, "conflict", "the owner's role cannot be changed");
  if (auto r = app.db.set_membership(ids.at(0), user->get<std::string>(), *role); !r) {
    return send_store_error(res, r.error());
  }
  send_json(res, 200, json({{"userId", *user}, {"role", to_string(*role)}}).dump());
}

// Browser sign-in in `external` mode: the identity token sent as `Authorization: Bearer`
// becomes the session cookie, HttpOnly (no script reads it) and SameSite=Strict (no other
// site's request carries it), valid as long as the token. Programs keep sending the header.
void open_session(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids&) {
  if (app.cfg.auth != auth_mode::external) return send_error(res, 404, "not_found", "local mode has no sign-in");
  std::string header = req.get_header_value("Authorization");
  if (header.rfind("Bearer ", 0) != 0) {
    return send_error(res, 400, "invalid_body", "send the identity token as Authorization: Bearer <token>");
  }
  auto who = app.auth.identify(req, res);
  if (!who) return;
  std::int64_t max_age = std::max<std::int64_t>(0, who->expires_at - now_ms() / 1000);
  res.set_header("Set-Cookie", "platform_session=" + header.substr(7) + "; Path=/; HttpOnly; SameSite=Strict; Max-Age=" +
                                   std::to_string(max_age) + (secure_cookies(app, req) ? "; Secure" : ""));
  send_json(res, 200, json({{"id", who->user_id}, {"email", who->email}, {"name", who->name}, {"expiresAt", who->expires_at}}).dump());
}

// Signing out also ends an OAuth connect this browser started: nobody else using it later can
// finish that attempt for the user who signed out.
void close_session(web_app&, const httplib::Request&, httplib::Response& res, const path_ids&) {
  res.set_header("Set-Cookie", "platform_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0");
  forget_oauth_attempt(res);
  res.status = 204;
}

// Provider setup (spec "Authentication" 6): only in `none` mode; `external` deployments
// configure the key before deployment and skip it.
void onboarding_provider(web_app& app, const httplib::Request&, httplib::Response& res, const path_ids&) {
  if (app.cfg.auth != auth_mode::none) return send_error(res, 404, "not_found", "provider setup is configured by the deployment");
  send_ui_page(app, res);
}

// ---- apps and runs ---------------------------------------------------------------------

bool valid_app_name(const json& name) {
  return name.is_string() && !name.get<std::string>().empty() && name.get<std::string>().size() <= 200;
}

// An app with its runtime settings (spec "Runtime settings": the three persisted fields),
// normalized against the registry as the worker sees it, downgrades applied and reported.
void create_app(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
  const std::string& ws = ids.at(0);
  auto c = authorize(app, req, res, ws);
  if (!c) return;
  if (!can_edit(c->role)) return send_error(res, 403, "forbidden", "viewers cannot create apps");
  json body;
  if (!parse_json_body(req, res, app.cfg.max_body_bytes, body)) return;
  if (!body.contains("name") || !valid_app_name(body["name"])) {
    return send_error(res, 400, "invalid_body", "name must be a string of 1 to 200 bytes");
  }
  auto wanted = settings_of(body, res);
  if (!wanted) return;
  app_record a;
  a.id = "app_" + random_id(8);
  a.workspace_id = ws;
  a.name = body["name"];
  a.created_by = c->who.user_id;
  a.created_at = now_ms();
  auto settings = app_runtime_settings(app.runtimes, a, *wanted);
  if (!settings) return send_error(res, 400, settings.error().code, settings.error().message);
  persist_settings(a, *settings);
  if (auto r = app.db.create_app(a); !r) return send_store_error(res, r.error());
  json out = app_json(a);
  out["downgrades"] = downgrades_json(*settings);
  send_json(res, 201, out.dump());
}

void get_app(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
  auto c = authorize(app, req, res, ids.at(0));
  if (!c) return;
  auto a = load_app(app, ids.at(0), ids.at(1), res);
  if (!a) return;
  json out = app_json(*a);
  // The draft preview is for those who read the draft; everyone sees the published app.
  out["preview"] = reads_draft(*c, *a) ? preview_json(app, req, ids.at(0), ids.at(1), source_scope::draft) : json(nullptr);
  out["publishedPreview"] = preview_json(app, req, ids.at(0), ids.at(1), source_scope::published);
  send_json(res, 200, out.dump());
}

// Renames the app or changes its runtime settings (the next builder turn, app-agent run and
// repair run use them). Editors only, like the builder chat whose POST changes them too.
void update_app(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
  auto c = authorize(app, req, res, ids.at(0));
  if (!c) return;
  auto a = load_app(app, ids.at(0), ids.at(1), res);
  if (!a) return;
  if (!can_edit(c->role)) return send_error(res, 403, "forbidden", "viewers cannot change apps");
  json body;
  if (!parse_json_body(req, res, app.cfg.max_body_bytes, body)) return;
  if (body.contains("name")) {
    if (!valid_app_name(body["name"])) return send_error(res, 400, "invalid_body", "name must be a string of 1 to 200 bytes");
    a->name = body["name"];
  }
  auto wanted = settings_of(body, res);
  if (!wanted) return;
  auto settings = app_runtime_settings(app.runtimes, *a, *wanted);
  if (!settings) return send_error(res, 400, settings.error().code, settings.error().message);
  persist_settings(*a, *settings);
  auto updated = app.db.update_app(*a);
  if (!updated) return send_store_error(res, updated.error());
  if (!*updated) return send_error(res, 404, "not_found", "no such app in this workspace");
  json out = app_json(*a);
  out["downgrades"] = downgrades_json(*settings);
  send_json(res, 200, out.dump());
}

// The workspace's apps, newest first, with each app's latest builder run (projected), from
// which a sidebar derives the "Call failed - builder fixing it" badge.
void list_apps(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
  if (!authorize(app, req, res, ids.at(0))) return;
  auto page = page_of(req, res);
  if (!page) return;
  auto rows = app.db.list_apps(ids.at(0), *page);
  if (!rows) return send_store_error(res, rows.error());
  send_json(res, 200, page_json("apps", *rows, *page, [](const app_listing& l) {
    json j = app_json(l.app);
    j["latestRun"] = l.latest_run ? run_json(*l.latest_run, false) : json(nullptr);
    return j;
  }, [](const app_listing& l) { return list_cursor{l.app.created_at, l.app.id}; }));
}

// An app's builder runs, newest first, without messages.
void list_runs(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
  if (!authorize(app, req, res, ids.at(0)) || !load_app(app, ids.at(0), ids.at(1), res)) return;
  auto page = page_of(req, res);
  if (!page) return;
  auto rows = app.db.list_builder_runs(ids.at(0), ids.at(1), *page);
  if (!rows) return send_store_error(res, rows.error());
  send_json(res, 200, page_json("runs", *rows, *page, [](const builder_run_record& r) { return run_json(r, false); },
                                [](const builder_run_record& r) { return list_cursor{r.created_at, r.key.run_id}; }));
}

// The runtime registry for a model picker: ids, display names, defaults, parameter
// constraints, runtime-c's discovered models; nothing secret. `demoProvider` tells the page to
// label replies as scripted.
void list_runtimes(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids&) {
  if (!app.auth.identify(req, res)) return;
  auto reply = runtime_registry_to_json(*app.runtimes.get());
  if (app.cfg.demo_provider && reply.size() > 1 && reply.back() == '}') reply.insert(reply.size() - 1, ",\"demoProvider\":true");
  send_json(res, 200, reply);
}

void create_run(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
  const std::string& ws = ids.at(0);
  const std::string& app_id = ids.at(1);
  auto c = authorize(app, req, res, ws);
  if (!c) return;
  if (!load_app(app, ws, app_id, res)) return;
  if (!can_edit(c->role)) return send_error(res, 403, "forbidden", "viewers cannot start builder runs");
  builder_run_record r;
  r.key = {ws, app_id, "run_" + random_id(12)};
  r.created_at = r.updated_at = now_ms();
  if (auto made = app.db.create_builder_run(r); !made) return send_store_error(res, made.error());
  send_json(res, 201, run_json(r, true).dump());
}

// ---- builder chat --------------------------------------------------------------------------

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

void post_chat(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
  const auto received = std::chrono::steady_clock::now();
  run_key key = key_of(ids);
  auto c = authorize(app, req, res, key.workspace_id);
  if (!c) return;
  auto a = load_app(app, key.workspace_id, key.app_id, res);
  if (!a) return;
  if (!can_edit(c->role)) return send_error(res, 403, "forbidden", "viewers cannot send builder messages");
  json body;
  if (!parse_json_body(req, res, app.cfg.max_body_bytes, body)) return;
  auto messages = body.find("messages");
  if (messages == body.end() || !messages->is_array() || messages->empty()) {
    return send_error(res, 400, "invalid_body", "messages must be a non-empty array of UI messages");
  }
  std::string messages_json = compact_json(*messages);
  auto count = count_ui_messages(messages_json);
  if (!count) return send_error(res, 400, "invalid_body", count.error().message);
  if (last_user_text(*messages).empty()) {
    return send_error(res, 400, "invalid_body", "the last user message has no text");
  }
  auto wanted = settings_of(body, res);
  if (!wanted) return;
  auto settings = app_runtime_settings(app.runtimes, *a, *wanted);
  if (!settings) return send_error(res, 400, settings.error().code, settings.error().message);
  if (!load_run(app, key, res)) return;
  // The chat's settings become the app's (spec "Runtime settings": applications persist them).
  app_record changed = *a;
  persist_settings(changed, *settings);
  if (changed.runtime_id != a->runtime_id || changed.runtime_model != a->runtime_model ||
      changed.runtime_params_json != a->runtime_params_json) {
    if (auto r = app.db.update_app(changed); !r) return send_store_error(res, r.error());
  }

  turn_request t{key, messages_json, static_cast<std::int64_t>(*count), last_user_text(*messages), *settings, "", received};
  auto started = app.chat.start(std::move(t));
  if (!started) return send_store_error(res, started.error());
  if (started->outcome == claim_outcome::not_found) return send_error(res, 404, "not_found", "no such run for this app");
  // A lost claim (duplicate or stale) is not an error: an empty successful stream.
  if (started->outcome != claim_outcome::claimed) return send_empty_stream(res);
  set_ui_stream_headers(res);
  // A builder turn's stream always ends with its [DONE]: nothing to continue on.
  follow_replay(res, app.cache, {started->stream_id, 0, app.cfg.heartbeat, stream_alive(app, key, started->stream_id),
                                 std::nullopt, nullptr, nullptr, app.cfg.cache_outage_limit});
}

void get_chat(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
  run_key key = key_of(ids);
  if (!authorize(app, req, res, key.workspace_id)) return;
  auto run = load_run(app, key, res);
  if (run) send_json(res, 200, compact_json(run_json(*run, true)));
}

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
  if (app.cfg.trace && run.status == run_status::streaming && !run.active_stream_id) {
    std::fprintf(stderr, "web: resume waits for an attachable stream run=%s\n", key.run_id.c_str());
  }
  return await_run(app, key, run, [](const run_stream_state& r) {
    return r.status == run_status::streaming && !r.active_stream_id;
  }, app.cfg.attach_wait);
}

// Stops a streaming builder turn wherever it runs (spec "Builder run": user stop → failed):
// the worker's runtime ends, what streamed so far is persisted, run.failed is published.
// Answers with the run's status once it ended (200), or 202 while its turn is still ending.
void stop_chat(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
  run_key key = key_of(ids);
  auto c = authorize(app, req, res, key.workspace_id);
  if (!c) return;
  if (!load_app(app, key.workspace_id, key.app_id, res)) return;
  if (!can_edit(c->role)) return send_error(res, 403, "forbidden", "viewers cannot stop builder turns");
  auto state = app.db.builder_run_stream(key);
  if (!state) return send_store_error(res, state.error());
  if (!*state) return send_error(res, 404, "not_found", "no such run for this app");
  if ((*state)->status != run_status::streaming) {
    return send_error(res, 409, "not_streaming", "the run has no turn to stop: it is " + std::string(to_string((*state)->status)));
  }
  if (auto r = app.chat.request_stop(key); !r) return send_store_error(res, r.error());
  auto run = await_run(app, key, **state, [](const run_stream_state& r) { return r.status == run_status::streaming; },
                       std::chrono::seconds(10));
  bool ended = run.status != run_status::streaming;
  send_json(res, ended ? 200 : 202, json({{"id", key.run_id}, {"status", to_string(run.status)}}).dump());
}

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

void resume_chat(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
  run_key key = key_of(ids);
  if (!authorize(app, req, res, key.workspace_id)) return;
  std::uint64_t cursor = 0;
  if (req.has_param("cursor")) {
    std::string c = req.get_param_value("cursor");
    auto [p, ec] = std::from_chars(c.data(), c.data() + c.size(), cursor);
    if (ec != std::errc() || p != c.data() + c.size()) {
      return send_error(res, 400, "invalid_cursor", "cursor must be a non-negative integer");
    }
  }
  auto state = app.db.builder_run_stream(key);
  if (!state) return send_store_error(res, state.error());
  if (!*state) return send_error(res, 404, "not_found", "no such run for this app");
  auto run = wait_attachable(app, key, **state);
  if (app.cfg.trace) {
    std::fprintf(stderr, "web: resume app=%s run=%s status=%s cursor=%llu attachable=%d\n", key.app_id.c_str(),
                 key.run_id.c_str(), std::string(to_string(run.status)).c_str(), static_cast<unsigned long long>(cursor),
                 run.active_stream_id ? 1 : 0);
  }
  if (run.status != run_status::streaming || !run.active_stream_id) {
    res.status = 204;
    return;
  }
  // The first read decides between 204 and a stream, and is sent as the stream's start.
  // Replays are used only when they start at the beginning of the run (or still hold the
  // cursor): anything else would show the viewer a message with a hole in it. A buffer that
  // dropped the turn's start answers a viewer from the beginning with its replay head.
  auto first = app.cache.read_from(*run.active_stream_id, cursor, 16384);
  if (first && first->status == replay_status::cursor_expired && cursor == 0) {
    first = read_from_head(app.cache, *run.active_stream_id);
  }
  if (!first || first->status != replay_status::ok) {
    res.status = 204;
    return;
  }
  set_ui_stream_headers(res);
  if (app.viewers && web_server::can_hand_over()) {
    // The headers go out, then the connection is the viewer hub's: no thread waits for it.
    auto plan = std::make_shared<viewer_plan>(viewer_plan{*run.active_stream_id, std::move(*first),
                                                          stream_alive(app, key, *run.active_stream_id), app.cfg.heartbeat,
                                                          app.cfg.cache_outage_limit});
    web_server::hand_over([hub = app.viewers, plan](int fd) { hub->adopt(fd, std::move(*plan)); });
    res.set_chunked_content_provider("text/event-stream", [](std::size_t, httplib::DataSink&) { return false; });
    return;
  }
  follow_replay(res, app.cache, {*run.active_stream_id, cursor, app.cfg.heartbeat,
                                 stream_alive(app, key, *run.active_stream_id), std::move(*first), nullptr, nullptr,
                                 app.cfg.cache_outage_limit});
}

// ---- workspace events ------------------------------------------------------------------------

void workspace_events(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids,
                      std::optional<run_key> only_run) {
  const std::string& ws = ids.at(0);
  if (!authorize(app, req, res, ws)) return;
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

void detect_provider(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids&) {
  if (!app.auth.identify(req, res)) return;
  auto r = app.workers.any().detect_provider(req.get_param_value("fresh") == "1");
  if (!r) return send_error(res, 502, r.error().code, r.error().message);
  send_json(res, 200, *r);
}

// Local mode's onboarding (spec "Authentication" 6): a key entered on the page goes to the
// worker, which keeps it for the runtime it serves; the reply only says it is set.
void put_provider_key(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
  if (app.cfg.auth != auth_mode::none) return send_error(res, 404, "not_found", "provider keys are configured by the deployment");
  if (!app.auth.identify(req, res)) return;
  json body;
  if (!parse_json_body(req, res, app.cfg.max_body_bytes, body)) return;
  if (!body.is_object() || !body.contains("value") || !body["value"].is_string()) {
    return send_error(res, 400, "invalid_body", "the body is {\"value\": \"<the key>\"}");
  }
  // Every worker keeps its own copy: each may serve the app's next turn.
  result<void> saved;
  for (const auto& w : app.workers.all()) {
    saved = w.put_provider_key(ids.at(0), body["value"].get<std::string>());
    if (!saved) break;
  }
  if (!saved) {
    bool bad_input = saved.error().code == "unknown_key" || saved.error().code == "invalid_key";
    return send_error(res, bad_input ? 400 : 502, saved.error().code, saved.error().message);
  }
  send_json(res, 200, json({{"name", ids.at(0)}, {"configured", true}}).dump());
}

}  // namespace

void register_routes(httplib::Server& s, router& r, web_app& app) {
  using handler_fn = void (*)(web_app&, const httplib::Request&, httplib::Response&, const path_ids&);
  auto get = [&](std::string_view pattern, handler_fn fn) {
    r.get(pattern, [&app, fn](const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
      fn(app, req, res, ids);
    });
  };
  auto post = [&](std::string_view pattern, handler_fn fn) {
    s.Post(id_pattern_regex(pattern), [&app, fn](const httplib::Request& req, httplib::Response& res) {
      path_ids ids(req.matches.begin() + 1, req.matches.end());
      fn(app, req, res, ids);
    });
  };
  get("/onboarding/provider", onboarding_provider);
  get("/api/workspaces", list_workspaces);
  post("/api/session", open_session);
  on_body_route(s, "DELETE", "/api/session", app, close_session);
  post("/api/workspaces", create_workspace);
  const std::string ws = "/api/workspaces/{}";
  const std::string app_path = ws + "/apps/{}";
  const std::string run_path = app_path + "/runs/{}";

  get("/api/health", [](web_app& app, const httplib::Request&, httplib::Response& res, const path_ids&) {
    auto w = app.workers.availability();
    send_json(res, 200, json({{"ok", true}, {"activeTurns", app.chat.active_turns()},
                              {"workers", {{"up", w.up}, {"draining", w.draining}, {"down", w.down}}}}).dump());
  });
  get("/api/me", [](web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids&) {
    auto who = app.auth.identify(req, res);
    if (!who) return;
    json me = {{"id", who->user_id}, {"email", who->email}, {"name", who->name}};
    if (app.cfg.auth == auth_mode::none) me["defaultWorkspaceId"] = local_workspace_id;
    send_json(res, 200, me.dump());
  });
  get("/api/runtimes", list_runtimes);
  get(ws + "/members", list_members);
  post(ws + "/members", set_member);
  get(ws + "/apps", list_apps);
  post(ws + "/apps", create_app);
  get(app_path, get_app);
  on_body_route(s, "PATCH", app_path, app, update_app);
  get(app_path + "/runs", list_runs);
  post(app_path + "/runs", create_run);
  post(run_path + "/chat", post_chat);
  get(run_path + "/chat", get_chat);
  get(run_path + "/chat/stream", resume_chat);
  post(run_path + "/stop", stop_chat);
  get(ws + "/events", [](web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
    workspace_events(app, req, res, ids, std::nullopt);
  });
  get(run_path + "/events", [](web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
    run_key key = key_of(ids);
    if (!authorize(app, req, res, key.workspace_id) || !load_run(app, key, res)) return;
    workspace_events(app, req, res, ids, key);
  });
  get("/api/setup/detect-provider", detect_provider);
  on_body_route(s, "PUT", "/api/setup/provider-keys/{}", app, put_provider_key);
  register_agents_routes(s, r, app);
  register_app_data_routes(s, r, app);
  register_agent_run_routes(s, r, app);
  register_tool_routes(s, r, app);
  register_integration_routes(s, r, app);
  register_ui_routes(r, app);
}

}  // namespace platform::web
