#pragma once
// The worker's calls to the web server's internal routes (spec "Internal routes"): JSON in,
// JSON out, authenticated with INTERNAL_API_TOKEN. Only the web origin the worker trusts is
// ever called, so the token cannot leak to anyone else.
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "platform/error.hpp"
#include "worker_config.hpp"

namespace platform::worker {

struct internal_reply {
  int status = 0;
  std::string body;
};

// POST `origin + path`, with the run's capability (run_capability.hpp). Errors: `web_unreachable` (no answer after bounded retries of
// connection failures; an HTTP status, even 5xx, is a reply). A tool's own time budget
// bounds the read.
result<internal_reply> post_internal(const config& cfg, const std::string& origin, const std::string& path,
                                     const std::string& capability, const std::string& json_body, int read_timeout_s = 60);

// Whether a dispatch body (a builder turn's, an app-agent run's) carries the run's capability:
// a non-empty string within run_capability_max_size.
bool valid_run_capability_field(const nlohmann::json& body);

// The web origin for a turn: PLATFORM_WEB_URL when set, else `fallback` (a loopback origin
// the request came with), else http://127.0.0.1:8787.
std::string web_origin(const config& cfg, const std::string& fallback = {});

}  // namespace platform::worker
