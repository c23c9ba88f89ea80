#pragma once
// GET /metrics on the worker: the operator's Prometheus text (docs/operations.md, "Metrics"),
// behind the internal token. Counts and times only: no id, no prompt.
#include <httplib.h>

#include "worker_app.hpp"

namespace platform::worker {

void handle_metrics(worker_app& app, httplib::Response& res);

}  // namespace platform::worker
