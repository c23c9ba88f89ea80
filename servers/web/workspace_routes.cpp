// Workspaces, members, sign-in, the signed-in person and local mode's provider setup. Not in
// the spec's route table, but `external` mode needs them: roles come from the store's
// memberships (design notes), so someone must be able to create a workspace and add people.
#include "workspace_routes.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "http.hpp"
#include "integration_routes.hpp"
#include "platform/runtime_registry_json.hpp"
#include "web_app.hpp"
#include "ui_routes.hpp"

namespace platform::web::workspace_routes {

using nlohmann::json;

void health(web_app& app, const route_call&, httplib::Response& res) {
  auto w = app.workers.availability();
  send_json(res, 200, json({{"ok", true}, {"activeTurns", app.chat.active_turns()},
                            {"workers", {{"up", w.up}, {"draining", w.draining}, {"down", w.down}}}}).dump());
}

void me(web_app& app, const route_call& call, httplib::Response& res) {
  const identity& who = call.by->who;
  json me = {{"id", who.user_id}, {"email", who.email}, {"name", who.name}};
  if (app.cfg.auth == auth_mode::none) me["defaultWorkspaceId"] = local_workspace_id;
  send_json(res, 200, me.dump());
}

void list_workspaces(web_app& app, const route_call& call, httplib::Response& res) {
  auto mine = app.db.workspaces_of(call.by->who.user_id);
  if (!mine) return send(res, mine.error());
  json out = json::array();
  for (const auto& w : *mine) out.push_back({{"id", w.id}, {"name", w.name}, {"role", to_string(w.role)}});
  send_json(res, 200, json({{"workspaces", out}}).dump());
}

void create_workspace(web_app& app, const route_call& call, httplib::Response& res) {
  const json& body = *call.body;
  auto name = body.find("name");
  if (name == body.end() || !name->is_string() || name->get<std::string>().empty() || name->get<std::string>().size() > 200) {
    return send(res, api_error::invalid_body, "name must be a string of 1 to 200 bytes");
  }
  std::string id = "ws_" + random_id(8);
  if (auto r = app.db.create_workspace(id, name->get<std::string>(), call.by->who.user_id, now_ms()); !r) {
    return send(res, r.error());
  }
  send_json(res, 201, json({{"id", id}, {"name", *name}, {"role", "owner"}}).dump());
}

void list_members(web_app& app, const route_call& call, httplib::Response& res) {
  auto people = app.db.members(call.ids.at(0));
  if (!people) return send(res, people.error());
  json out = json::array();
  for (const auto& m : *people) {
    out.push_back({{"userId", m.user.id}, {"email", m.user.email}, {"name", m.user.name}, {"role", to_string(m.role)}});
  }
  send_json(res, 200, json({{"members", out}}).dump());
}

// Admins and owners add people or change their role; nobody becomes or stops being the
// owner this way, so a workspace always keeps its owner.
void set_member(web_app& app, const route_call& call, httplib::Response& res) {
  const json& body = *call.body;
  const std::string& ws = call.ids.at(0);
  auto user = body.find("userId");
  auto role_field = body.find("role");
  if (user == body.end() || !user->is_string() || user->get<std::string>().empty() ||
      user->get<std::string>().size() > 256) {
    return send(res, api_error::invalid_body, "userId must be a string of 1 to 256 bytes");
  }
  auto role = role_field != body.end() && role_field->is_string()
                  ? workspace_role_from(role_field->get<std::string>()) : std::nullopt;
  if (!role || *role == workspace_role::owner) {
    return send(res, api_error::invalid_body, "role must be viewer, collaborator or admin");
  }
  auto current = app.db.membership(ws, user->get<std::string>());
  if (!current) return send(res, current.error());
  if (*current == workspace_role::owner) return send(res, api_error::conflict, "the owner's role cannot be changed");
  if (auto r = app.db.set_membership(ws, user->get<std::string>(), *role); !r) {
    return send(res, r.error());
  }
  send_json(res, 200, json({{"userId", *user}, {"role", to_string(*role)}}).dump());
}

// The owner stays: a workspace always has one, and no admin can take it away from them. The
// user id is a query parameter: an identity provider's ids need not fit a path segment.
void remove_member(web_app& app, const route_call& call, httplib::Response& res) {
  const std::string& ws = call.ids.at(0);
  const std::string user = call.req.get_param_value("userId");
  if (user.empty() || user.size() > 256) return send(res, api_error::invalid_body, "userId must be a query parameter of 1 to 256 bytes");
  auto current = app.db.membership(ws, user);
  if (!current) return send(res, current.error());
  if (!*current) return send(res, api_error::not_found, "no such member of this workspace");
  if (**current == workspace_role::owner) return send(res, api_error::conflict, "the owner cannot be removed from the workspace");
  auto removed = app.db.remove_membership(ws, user);
  if (!removed) return send(res, removed.error());
  if (!*removed) return send(res, api_error::not_found, "no such member of this workspace");
  send_json(res, 200, json({{"userId", user}, {"removed", true}}).dump());
}

// Browser sign-in in `external` mode: the identity token sent as `Authorization: Bearer`
// becomes the session cookie, HttpOnly (no script reads it) and SameSite=Strict (no other
// site's request carries it), valid as long as the token. Programs keep sending the header.
void open_session(web_app& app, const route_call& call, httplib::Response& res) {
  const httplib::Request& req = call.req;
  if (app.cfg.auth != auth_mode::external) return send(res, api_error::not_found, "local mode has no sign-in");
  std::string header = req.get_header_value("Authorization");
  if (header.rfind("Bearer ", 0) != 0) {
    return send(res, api_error::invalid_body, "send the identity token as Authorization: Bearer <token>");
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
void close_session(web_app&, const route_call&, httplib::Response& res) {
  res.set_header("Set-Cookie", "platform_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0");
  integration_routes::forget_oauth_attempt(res);
  res.status = 204;
}

// Provider setup (spec "Authentication" 6): only in `none` mode; `external` deployments
// configure the key before deployment and skip it.
void onboarding_provider(web_app& app, const route_call&, httplib::Response& res) {
  if (app.cfg.auth != auth_mode::none) return send(res, api_error::not_found, "provider setup is configured by the deployment");
  send_ui_page(app, res);
}

// The runtime registry for a model picker: ids, display names, defaults, parameter
// constraints, runtime-c's discovered models; nothing secret. `demoProvider` tells the page to
// label replies as scripted.
// The registry with the worker's "Ready" on each runtime, and on each runtime-c model that is
// not (issue 34): the picker marks them. Without an answer the registry goes out unmarked.
void list_runtimes(web_app& app, const route_call&, httplib::Response& res) {
  auto reply = runtime_registry_to_json(*app.runtimes.get());
  if (app.cfg.demo_provider && reply.size() > 1 && reply.back() == '}') reply.insert(reply.size() - 1, ",\"demoProvider\":true");
  auto readiness = app.workers.any().runtime_readiness();
  json ready = readiness ? json::parse(*readiness, nullptr, false) : json();
  if (!ready.is_object() || !ready.contains("runtimes") || !ready["runtimes"].is_object()) return send_json(res, 200, reply);
  json out = json::parse(reply);
  for (auto& rt : out["runtimes"]) {
    const json& r = ready["runtimes"].value(rt.value("id", ""), json::object());
    if (!r.is_object() || !r.contains("ready")) continue;
    rt["ready"] = r.value("ready", true);
    if (r.contains("reason")) rt["notReadyReason"] = r["reason"];
    const json& models = r.value("models", json::object());
    if (!models.is_object()) continue;
    for (auto& m : rt["models"]) {
      if (auto it = models.find(m.value("id", "")); it != models.end() && it->is_string()) m["notReadyReason"] = *it;
    }
  }
  send_json(res, 200, out.dump());
}
void detect_provider(web_app& app, const route_call& call, httplib::Response& res) {
  auto r = app.workers.any().detect_provider(call.req.get_param_value("fresh") == "1");
  if (!r) return send(res, r.error());
  send_json(res, 200, *r);
}

// Local mode's onboarding (spec "Authentication" 6): a key entered on the page goes to the
// worker, which keeps it for the runtime it serves; the reply only says it is set.
void put_provider_key(web_app& app, const route_call& call, httplib::Response& res) {
  if (app.cfg.auth != auth_mode::none) return send(res, api_error::not_found, "provider keys are configured by the deployment");
  const json& body = *call.body;
  const path_ids& ids = call.ids;
  if (!body.contains("value") || !body.at("value").is_string()) {
    return send(res, api_error::invalid_body, "the body is {\"value\": \"<the key>\"}");
  }
  // Every worker keeps its own copy: each may serve the app's next turn.
  result<void> saved;
  for (const auto& w : app.workers.all()) {
    saved = w.put_provider_key(ids.at(0), body.at("value").get<std::string>());
    if (!saved) break;
  }
  if (!saved) return send(res, saved.error());
  send_json(res, 200, json({{"name", ids.at(0)}, {"configured", true}}).dump());
}

}  // namespace platform::web::workspace_routes
