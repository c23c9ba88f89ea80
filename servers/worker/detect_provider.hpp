#pragma once
// GET /detect-provider (spec "Worker endpoints", "Authentication" 7): for each runtime CLI
// whether it is installed, its version and whether this worker can use it, plus boolean hints
// for the credential variables — never their values. CLIs run with a timeout in a scratch
// HOME; the answer is cached briefly.
#include "worker_config.hpp"

namespace httplib {
struct Response;
}  // namespace httplib

namespace platform::worker {

void handle_detect_provider(const config& cfg, httplib::Response& res);

}  // namespace platform::worker
