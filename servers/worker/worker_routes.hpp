#pragma once
// The worker's endpoints (spec "Worker endpoints", docs/http-api.md), one table.
#include <httplib.h>

#include "worker_app.hpp"

namespace platform::worker {

// Which rows a listener answers: all of them (the worker's own port), or only the runtimes'
// (/mcp/*: the broker's own listener, the one the sandboxes' broker doors lead to).
enum class route_set { all, runtimes };

void register_routes(httplib::Server& server, worker_app& app, route_set rows = route_set::all);

}  // namespace platform::worker
