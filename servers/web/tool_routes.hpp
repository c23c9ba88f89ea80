#pragma once
// Custom tools, app actions and their failure reports (docs/app-runtime.md "App actions and
// errors an app renders"):
//   POST /api/workspaces/{ws}/apps/{appId}/app-tools/{toolName}/execute        (viewer)
//   POST /api/workspaces/{ws}/apps/{appId}/app-tools/{toolName}/report-failure (editable draft access)
//   GET  /api/workspaces/{ws}/apps/{appId}/tool-audit                          (editable draft access)
//   POST /api/internal/tool-execute, POST /api/internal/tool-failure-report     (INTERNAL_API_TOKEN)
#include <httplib.h>

#include "router.hpp"

namespace platform::web {

struct web_app;

// Creates the HTTP executor from the operator's settings; a start-up failure (an unreadable
// CA file) ends the process, as a bad setting does.
void register_tool_routes(httplib::Server& s, router& r, web_app& app);

}  // namespace platform::web
