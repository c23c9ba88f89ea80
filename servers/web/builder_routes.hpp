#pragma once
// Apps, builder runs and the builder chat (spec "Builder run", "Chat stream resume rules"),
// and the workspace events; the rows are in web_routes.cpp.
#include "route_call.hpp"

namespace platform::web::builder_routes {

// The workspace's apps, newest first, each with its latest builder run.
void list_apps(web_app& app, const route_call& call, httplib::Response& res);
// {name, runtimeId?, runtimeModel?, runtimeParams?}: settings normalized, downgrades reported.
void create_app(web_app& app, const route_call& call, httplib::Response& res);
// The app with its draft preview (those who read the draft) and published preview.
void get_app(web_app& app, const route_call& call, httplib::Response& res);
// Renames the app or changes its runtime settings.
void update_app(web_app& app, const route_call& call, httplib::Response& res);
// Deletes the app with every row of it (409 while a turn or agent run is live), then asks
// every worker to remove what it holds of it, and publishes app.deleted.
void delete_app(web_app& app, const route_call& call, httplib::Response& res);
void list_runs(web_app& app, const route_call& call, httplib::Response& res);
void create_run(web_app& app, const route_call& call, httplib::Response& res);
// {messages, runtime settings?}: claims the run's turn and streams it (a lost claim: an empty
// successful stream).
void post_chat(web_app& app, const route_call& call, httplib::Response& res);
// The run with its persisted messages.
void get_chat(web_app& app, const route_call& call, httplib::Response& res);
// Resume (?cursor): the active stream from the cursor, or 204.
void resume_chat(web_app& app, const route_call& call, httplib::Response& res);
// Stops the streaming turn wherever it runs: 200 once ended, 202 while ending.
void stop_chat(web_app& app, const route_call& call, httplib::Response& res);
// SSE of the workspace's run events (with a catch-up of the streaming runs); of one run's.
void workspace_events(web_app& app, const route_call& call, httplib::Response& res);
void run_events(web_app& app, const route_call& call, httplib::Response& res);

}  // namespace platform::web::builder_routes
