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

}  // namespace platform::web::version_routes
