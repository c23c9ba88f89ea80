#pragma once
// Custom tools, app actions and their failure reports (docs/app-runtime.md "App actions and
// errors an app renders"); the rows are in web_routes.cpp. The work is tool_runner
// (tool_execution.hpp, web_app::tools) and request_repair (tool_repair.hpp).
#include "route_call.hpp"

namespace platform::web::tool_routes {

// {input, draft?}: runs an approved app action as the viewer.
void execute_app_tool(web_app& app, const route_call& call, httplib::Response& res);
// {result, input?, description?, attemptedTask?}: a draft action's failure, to the builder.
void report_app_tool_failure(web_app& app, const route_call& call, httplib::Response& res);
// The app's last 50 tool audit events.
void tool_audit(web_app& app, const route_call& call, httplib::Response& res);
// POST /api/internal/tool-execute: an app agent's custom tool, as the run's triggering user.
void internal_tool_execute(web_app& app, const route_call& call, httplib::Response& res);
// POST /api/internal/tool-failure-report: an app agent's tool failures, to the builder.
void internal_failure_report(web_app& app, const route_call& call, httplib::Response& res);

}  // namespace platform::web::tool_routes
