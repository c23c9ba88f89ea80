#pragma once
// The worker's endpoints (spec "Worker endpoints", docs/http-api.md), one table.
#include <httplib.h>

#include "worker_app.hpp"

namespace platform::worker {

void register_routes(httplib::Server& server, worker_app& app);

}  // namespace platform::worker
