#pragma once
// Small pieces every worker route shares: the design notes' error body, the bounds of a
// request body and reading optional string fields of one (servers/common/json_fields.hpp).
#include <httplib.h>

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "../common/json_body.hpp"
#include "../common/json_fields.hpp"
#include "../common/request_checks.hpp"

namespace platform::worker {

// The design notes' error body: a code of the closed set with its status, or an `error` with
// its code's status (platform/api_error.hpp).
using servers::send;

using servers::string_field;

// What the web server sends: a turn's persisted messages (assistant messages hold runtime
// output, so the bound is that of stored JSON, not of a person's body), an agent's config, a
// file's content.
inline constexpr json_limits body_limits{.max_depth = stored_json_limits.max_depth, .max_bytes = 64u << 20};

// The body as a JSON object within body_limits, or false with the 4xx written.
inline bool parse_json_body(const httplib::Request& req, httplib::Response& res, nlohmann::json& out) {
  return servers::read_json_body(req, res, body_limits, out);
}

}  // namespace platform::worker
