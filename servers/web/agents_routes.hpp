#pragma once
// Governed agents and publishing (spec "Browser-facing routes", "Agent config approval"); the
// rows are in web_routes.cpp.
#include "route_call.hpp"

namespace platform::web::agents_routes {

// Draft (those who read it) or published (viewers) agents.json with its approval state.
void get_agents(web_app& app, const route_call& call, httplib::Response& res);
// The whole agents.json into the draft, stored even when invalid; the reply says what to fix.
void patch_agents(web_app& app, const route_call& call, httplib::Response& res);
// {approvalHash}: approves exactly the draft payload that was shown.
void approve_agents(web_app& app, const route_call& call, httplib::Response& res);
// Promotes the approved payload with the draft snapshot.
void publish_app(web_app& app, const route_call& call, httplib::Response& res);
void list_reviews(web_app& app, const route_call& call, httplib::Response& res);
void request_review(web_app& app, const route_call& call, httplib::Response& res);
void approve_review(web_app& app, const route_call& call, httplib::Response& res);
void reject_review(web_app& app, const route_call& call, httplib::Response& res);

}  // namespace platform::web::agents_routes
