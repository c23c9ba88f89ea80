#pragma once
// The agent-runs routes (docs/http-api.md "App agent runs") and the worker's internal
// completion callback: POST/GET .../apps/{appId}/agent-runs[/{runId}[/stream]] and
// POST /api/internal/agent-run-complete.
#include <httplib.h>

#include "router.hpp"

namespace platform::web {

struct web_app;

void register_agent_run_routes(httplib::Server& s, router& r, web_app& app);

}  // namespace platform::web
