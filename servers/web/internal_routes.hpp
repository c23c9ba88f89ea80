#pragma once
// Internal routes of the app agent runs (worker → web; docs/http-api.md "Internal routes"):
// POST /api/internal/agent-run-complete. Authenticated by INTERNAL_API_TOKEN
// (authenticator::internal_allowed), never by a browser identity.
#include <httplib.h>

namespace platform::web {

struct web_app;

void register_internal_agent_run_routes(httplib::Server& s, web_app& app);

}  // namespace platform::web
