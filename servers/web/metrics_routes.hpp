#pragma once
// GET /metrics: the operator's Prometheus text (docs/operations.md, "Metrics"), behind the
// internal token. Counts and times only: no id, no prompt, no message.
#include <httplib.h>

#include "route_call.hpp"

namespace platform::web::metrics_routes {

void get_metrics(web_app& app, const route_call& call, httplib::Response& res);

}  // namespace platform::web::metrics_routes
