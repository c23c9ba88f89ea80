#pragma once
// Who may do what on a workspace's apps (spec "Authentication" 1-2), shared by every route
// module: the caller's identity and role, the app of a path, the role predicates, and the
// registration of routes that take a body (httplib's own routing, by regex).
#include <httplib.h>

#include <optional>
#include <string>
#include <string_view>

#include "platform/identity_token.hpp"
#include "platform/store.hpp"
#include "router.hpp"

namespace platform::web {

struct web_app;

// The request's identity and workspace role.
struct caller {
  identity who;
  workspace_role role = workspace_role::viewer;
};

// Authenticates and resolves the role; on failure the 401/404/503 is already written.
std::optional<caller> authorize(web_app& app, const httplib::Request& req, httplib::Response& res,
                                std::string_view workspace_id);

// The app of {workspaceId, appId}, or a 404/503 already written.
std::optional<app_record> load_app(web_app& app, std::string_view ws, std::string_view app_id, httplib::Response& res);

// Everyone but viewers edits (builder chat, draft reads, draft data).
bool can_edit(workspace_role role);
// Admins and owners approve agents.json payloads and publish.
bool is_admin_or_owner(workspace_role role);
// Admin, owner or the app's creator may change the draft agents.json.
bool can_patch_agents(const caller& c, const app_record& app);
// Creators and collaborators (and admins, owners) read the draft; viewers the published app.
bool reads_draft(const caller& c, const app_record& app);

// A pattern with {} for ids, as a regex for httplib's routes (those that take a body).
std::string id_pattern_regex(std::string_view pattern);

using app_handler = void (*)(web_app&, const httplib::Request&, httplib::Response&, const path_ids&);

// Registers a body-taking route (POST, PUT, PATCH or DELETE) on httplib's routing, with the
// {} ids of `pattern` passed on as path_ids.
void on_body_route(httplib::Server& s, std::string_view method, std::string_view pattern, web_app& app,
                   app_handler fn);
// Registers a GET route on the segment router.
void on_get_route(router& r, std::string_view pattern, web_app& app, app_handler fn);

}  // namespace platform::web
