#include "routes.hpp"

#include <charconv>
#include <condition_variable>
#include <mutex>

#include <nlohmann/json.hpp>

#include "access.hpp"
#include "agent_run_routes.hpp"
#include "agents_routes.hpp"
#include "app_data_routes.hpp"
#include "events.hpp"
#include "http.hpp"
#include "integration_routes.hpp"
#include "onboarding_page.hpp"
#include "platform/ui_message.hpp"
#include "platform/ui_stream.hpp"
#include "platform/usage.hpp"
#include "tool_routes.hpp"
#include "channel_stream.hpp"

namespace platform::web {

using nlohmann::json;

namespace {

json app_json(const app_record& a) {
  return {{"id", a.id},
          {"workspaceId", a.workspace_id},
          {"name", a.name},
          {"createdBy", a.created_by},
          {"runtimeId", a.runtime_id},
          {"runtimeModel", a.runtime_model},
          {"runtimeParams", json::parse(a.runtime_params_json, nullptr, false)},
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
  if (with_messages) j["messages"] = json::parse(r.messages_json, nullptr, false);
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

std::map<std::string, std::string> string_map(const json& j) {
  std::map<std::string, std::string> out;
  if (!j.is_object()) return out;
  for (const auto& [k, v] : j.items()) out[k] = v.is_string() ? v.get<std::string>() : v.dump();
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

// Provider setup (spec "Authentication" 6): only in `none` mode; `external` deployments
// configure the key before deployment and skip it.
void onboarding_provider(web_app& app, const httplib::Request&, httplib::Response& res, const path_ids&) {
  if (app.cfg.auth != auth_mode::none) return send_error(res, 404, "not_found", "provider setup is configured by the deployment");
  res.set_content(std::string(onboarding_page), "text/html; charset=utf-8");
}

// ---- apps and runs ---------------------------------------------------------------------

void create_app(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
  const std::string& ws = ids.at(0);
  auto c = authorize(app, req, res, ws);
  if (!c) return;
  if (!can_edit(c->role)) return send_error(res, 403, "forbidden", "viewers cannot create apps");
  json body;
  if (!parse_json_body(req, res, app.cfg.max_body_bytes, body)) return;
  if (!body.contains("name") || !body["name"].is_string() || body["name"].get<std::string>().empty()) {
    return send_error(res, 400, "invalid_body", "name must be a non-empty string");
  }
  app_record a;
  a.id = "app_" + random_id(8);
  a.workspace_id = ws;
  a.name = body["name"];
  a.created_by = c->who.user_id;
  a.created_at = now_ms();
  if (auto r = app.db.create_app(a); !r) return send_store_error(res, r.error());
  send_json(res, 201, app_json(a).dump());
}

void get_app(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
  if (!authorize(app, req, res, ids.at(0))) return;
  auto a = load_app(app, ids.at(0), ids.at(1), res);
  if (a) send_json(res, 200, app_json(*a).dump());
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
  std::string messages_json = messages->dump(-1, ' ', false, json::error_handler_t::replace);
  auto count = count_ui_messages(messages_json);
  if (!count) return send_error(res, 400, "invalid_body", count.error().message);
  if (last_user_text(*messages).empty()) {
    return send_error(res, 400, "invalid_body", "the last user message has no text");
  }
  std::string runtime_id = body.value("runtimeId", a->runtime_id.empty() ? "runtime-a" : a->runtime_id);
  std::optional<std::string> model;
  if (body.contains("runtimeModel") && body["runtimeModel"].is_string()) model = body["runtimeModel"].get<std::string>();
  auto settings = normalize_runtime_settings(app.registry, runtime_id, model, string_map(body.value("runtimeParams", json::object())));
  if (!settings) return send_error(res, 400, settings.error().code, settings.error().message);
  if (!load_run(app, key, res)) return;

  turn_request t{key, messages_json, static_cast<std::int64_t>(*count), last_user_text(*messages), *settings, ""};
  auto started = app.chat.start(std::move(t));
  if (!started) return send_store_error(res, started.error());
  if (started->outcome == claim_outcome::not_found) return send_error(res, 404, "not_found", "no such run for this app");
  // A lost claim (duplicate or stale) is not an error: an empty successful stream.
  if (started->outcome != claim_outcome::claimed) return send_empty_stream(res);
  set_ui_stream_headers(res);
  follow_replay(res, app.cache, {started->stream_id, 0, app.cfg.heartbeat, stream_alive(app, key, started->stream_id), std::nullopt, nullptr});
}

void get_chat(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
  run_key key = key_of(ids);
  if (!authorize(app, req, res, key.workspace_id)) return;
  auto run = load_run(app, key, res);
  if (run) send_json(res, 200, run_json(*run, true).dump(-1, ' ', false, json::error_handler_t::replace));
}

// Resume rule 2: a streaming run that is not attachable yet gets a short wait for its
// run.stream_ready (or any end) before the answer.
run_stream_state wait_attachable(web_app& app, const run_key& key, run_stream_state run) {
  if (run.status != run_status::streaming || run.active_stream_id) return run;
  std::mutex mu;
  std::condition_variable cv;
  bool woke = false;
  auto sub = app.cache.subscribe(workspace_channel(key.workspace_id), [&](std::string_view, std::string_view msg) {
    if (msg.find(key.run_id) == std::string_view::npos) return;
    std::lock_guard lock(mu);
    woke = true;
    cv.notify_all();
  });
  auto again = app.db.builder_run_stream(key);  // the event may have come before the subscription
  if (again && *again && ((*again)->active_stream_id || (*again)->status != run_status::streaming)) return **again;
  std::unique_lock lock(mu);
  cv.wait_for(lock, app.cfg.attach_wait, [&] { return woke; });
  lock.unlock();
  again = app.db.builder_run_stream(key);
  if (again && *again) return **again;
  return run;
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
  if (run.status != run_status::streaming || !run.active_stream_id) {
    res.status = 204;
    return;
  }
  // The first read decides between 204 and a stream, and is sent as the stream's start.
  // Replays are used only when they start at the beginning of the run (or still hold the
  // cursor): anything else would show the viewer a message with a hole in it.
  auto first = app.cache.read_from(*run.active_stream_id, cursor, 16384);
  if (!first || first->status != replay_status::ok) {
    res.status = 204;
    return;
  }
  set_ui_stream_headers(res);
  follow_replay(res, app.cache, {*run.active_stream_id, cursor, app.cfg.heartbeat,
                                 stream_alive(app, key, *run.active_stream_id), std::move(*first), nullptr});
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
  auto r = app.worker.detect_provider();
  if (!r) return send_error(res, 502, r.error().code, r.error().message);
  send_json(res, 200, *r);
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
  post("/api/workspaces", create_workspace);
  const std::string ws = "/api/workspaces/{}";
  const std::string app_path = ws + "/apps/{}";
  const std::string run_path = app_path + "/runs/{}";

  get("/api/health", [](web_app& app, const httplib::Request&, httplib::Response& res, const path_ids&) {
    send_json(res, 200, json({{"ok", true}, {"activeTurns", app.chat.active_turns()}}).dump());
  });
  get("/api/me", [](web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids&) {
    auto who = app.auth.identify(req, res);
    if (!who) return;
    json me = {{"id", who->user_id}, {"email", who->email}, {"name", who->name}};
    if (app.cfg.auth == auth_mode::none) me["defaultWorkspaceId"] = local_workspace_id;
    send_json(res, 200, me.dump());
  });
  get(ws + "/members", list_members);
  post(ws + "/members", set_member);
  post(ws + "/apps", create_app);
  get(app_path, get_app);
  post(app_path + "/runs", create_run);
  post(run_path + "/chat", post_chat);
  get(run_path + "/chat", get_chat);
  get(run_path + "/chat/stream", resume_chat);
  get(ws + "/events", [](web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
    workspace_events(app, req, res, ids, std::nullopt);
  });
  get(run_path + "/events", [](web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
    run_key key = key_of(ids);
    if (!authorize(app, req, res, key.workspace_id) || !load_run(app, key, res)) return;
    workspace_events(app, req, res, ids, key);
  });
  get("/api/setup/detect-provider", detect_provider);
  register_agents_routes(s, r, app);
  register_app_data_routes(s, r, app);
  register_agent_run_routes(s, r, app);
  register_tool_routes(s, r, app);
  register_integration_routes(s, r, app);
}

}  // namespace platform::web
