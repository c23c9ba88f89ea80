#pragma once
// GET /detect-provider (spec "Worker endpoints", "Authentication" 7): for each runtime CLI
// whether it is installed, its version and whether this worker can use it, plus boolean hints
// for the credential variables — never their values. CLIs run with a timeout in a scratch
// HOME; the answer is cached briefly.
#include <nlohmann/json_fwd.hpp>

#include "worker_config.hpp"

namespace httplib {
struct Response;
}  // namespace httplib

namespace platform::worker {

void handle_detect_provider(const config& cfg, bool fresh, httplib::Response& res);
// The next detection probes again (a key was just entered).
void forget_detected_provider();

// PUT /provider-keys/{name} {"value"}: a key entered on the onboarding screen, kept by the
// worker for the runtime it serves. The reply says only that it is set.
void handle_put_provider_key(const config& cfg, const std::string& name, const nlohmann::json& body, httplib::Response& res);

}  // namespace platform::worker
