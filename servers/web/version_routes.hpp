#pragma once
// An app's versions (issue 35; docs/http-api.md "Versions"): the list newest first, one
// version's files, one file's content, and the diff between two versions. The rows are in
// web_routes.cpp; those who read the draft (creators, collaborators, admins) see versions.
#include "route_call.hpp"

namespace platform::web::version_routes {

void list_versions(web_app& app, const route_call& call, httplib::Response& res);
void get_version(web_app& app, const route_call& call, httplib::Response& res);
void get_version_file(web_app& app, const route_call& call, httplib::Response& res);
void get_version_diff(web_app& app, const route_call& call, httplib::Response& res);
// Makes version {n}'s content the draft again, as a new version (history is never rewritten):
// the draft snapshot (agents.json with it, approved only if its hash was), the draft preview
// when that version had a build; the worker's workspace follows at the next turn (its digest
// no longer matches the draft). 409 app_busy while a builder turn streams.
void restore_version(web_app& app, const route_call& call, httplib::Response& res);

}  // namespace platform::web::version_routes
