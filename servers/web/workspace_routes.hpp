#pragma once
// Workspaces, members, sign-in, the signed-in person and local mode's provider setup
// (docs/http-api.md); the rows are in web_routes.cpp.
#include "route_call.hpp"

namespace platform::web::workspace_routes {

// Liveness, the turns this replica runs, and the workers it sees.
void health(web_app& app, const route_call& call, httplib::Response& res);
// The signed-in person (and local mode's workspace).
void me(web_app& app, const route_call& call, httplib::Response& res);
void list_workspaces(web_app& app, const route_call& call, httplib::Response& res);
// {name}: a workspace with the caller as its owner.
void create_workspace(web_app& app, const route_call& call, httplib::Response& res);
void list_members(web_app& app, const route_call& call, httplib::Response& res);
// {userId, role}: adds a person or changes a role; never to or from owner.
void set_member(web_app& app, const route_call& call, httplib::Response& res);
void remove_member(web_app& app, const route_call& call, httplib::Response& res);
// `external` mode: the identity token of `Authorization: Bearer` becomes the session cookie.
void open_session(web_app& app, const route_call& call, httplib::Response& res);
void close_session(web_app& app, const route_call& call, httplib::Response& res);
// The runtime registry for a model picker; nothing secret.
void list_runtimes(web_app& app, const route_call& call, httplib::Response& res);
// Local mode's onboarding page (spec "Authentication" 6), its provider detection and key.
void onboarding_provider(web_app& app, const route_call& call, httplib::Response& res);
void detect_provider(web_app& app, const route_call& call, httplib::Response& res);
void put_provider_key(web_app& app, const route_call& call, httplib::Response& res);

}  // namespace platform::web::workspace_routes
