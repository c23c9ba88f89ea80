#pragma once
// An app's releases (issue 35; docs/http-api.md "Releases"): every publish, direct or through
// a review, and every rollback, newest first; and the rollback itself, which publishes an
// earlier release again exactly (its version's source, its build, its approved agents.json
// payload) and records that as a release. The draft, its approval and the app's data are
// untouched. Everyone in the workspace sees the releases; admins and owners roll back.
#include "route_call.hpp"

namespace platform::web::release_routes {

void list_releases(web_app& app, const route_call& call, httplib::Response& res);
void roll_back(web_app& app, const route_call& call, httplib::Response& res);
// What publish and review approval call once the app is published: the release of what went
// live. A failure is logged; the publish stands.
void record_release(web_app& app, const app_record& a, const release_request& request);
// An approved rollback review's rollback; false when an error was written.
bool roll_back_for_review(web_app& app, const app_record& a, std::int64_t number, const release_request& request,
                          httplib::Response& res);

}  // namespace platform::web::release_routes
