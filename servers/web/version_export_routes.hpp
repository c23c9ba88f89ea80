#pragma once
// Taking an app away (issue 35; docs/http-api.md "Versions"): one version as a zip of its files
// under one folder, and the whole history as a git bundle (`git clone app.bundle`), each
// version a commit by who asked for it, with the turn's words as its message. Generated from
// the store on every call, so any replica serves them; those who read the draft may.
#include "route_call.hpp"

namespace platform::web::version_export_routes {

void get_version_zip(web_app& app, const route_call& call, httplib::Response& res);
void get_history_bundle(web_app& app, const route_call& call, httplib::Response& res);

}  // namespace platform::web::version_export_routes
