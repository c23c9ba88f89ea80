#pragma once
// Who may do what on a workspace's apps (spec "Authentication" 1-2): the caller's identity and
// role, the app of a path, and the role predicates. The route table's preamble uses them
// (route_call.hpp); so do the routes that decide on the request's content.
#include <httplib.h>

#include <optional>
#include <string>
#include <string_view>

#include "platform/identity_token.hpp"
#include "platform/store.hpp"

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

// Whether the cookies the page is given must be Secure: the page is served over https (a proxy
// says so, or a public origin is https).
bool secure_cookies(const web_app& app, const httplib::Request& req);

}  // namespace platform::web
