#pragma once
// The worker's endpoints (spec "Worker endpoints", docs/http-api.md), one table.
#include <httplib.h>

#include "platform/request_guard.hpp"
#include "worker_app.hpp"

namespace platform::worker {

// Which rows a listener answers: all of them (the worker's own port), or only the runtimes'
// (/mcp/*: the broker's own listener, the one the sandboxes' broker doors lead to).
enum class route_set { all, runtimes };

// Also sets the server's error replies and its pre-routing handler: the request guard, then
// the GET rows (servers/common/route_table.hpp). `guard` outlives the server.
void register_routes(httplib::Server& server, worker_app& app, const request_guard_policy& guard,
                     route_set rows = route_set::all);

}  // namespace platform::worker
