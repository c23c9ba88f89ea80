#include "worker_metrics.hpp"

namespace platform::worker {

void handle_metrics(worker_app&, httplib::Response& res) { res.set_content("", "text/plain; version=0.0.4; charset=utf-8"); }

}  // namespace platform::worker
