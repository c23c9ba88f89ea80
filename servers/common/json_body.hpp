#pragma once
// A JSON request body on either server, bounded before it is parsed: the size, then the
// nesting (the core's one-pass scan, platform/json_limits.hpp), then the syntax, each refused
// with the design notes' error body. Nothing a client sends reaches a recursive dump, copy
// or comparison deeper than the route allows.
#include <httplib.h>

#include <string>

#include <nlohmann/json.hpp>

#include "json_fields.hpp"
#include "platform/json_limits.hpp"
#include "request_checks.hpp"

namespace platform::servers {

// The body as a JSON object, or false with the reply written: 413 `body_too_large`, 400
// `too_deep`, `invalid_json` or `invalid_body` (not an object).
inline bool read_json_body(const httplib::Request& req, httplib::Response& res, const json_limits& limits,
                           nlohmann::json& out) {
  auto scanned = check_json_limits(req.body, limits);
  if (!scanned) {
    if (is(scanned.error(), api_error::too_large)) {
      send(res, api_error::body_too_large,
                       "the request body is larger than " + std::to_string(limits.max_bytes) + " bytes");
    } else {
      send(res, api_error::too_deep,
                       "the request body nests deeper than " + std::to_string(limits.max_depth) +
                           " levels of arrays and objects");
    }
    return false;
  }
  out = nlohmann::json::parse(req.body, nullptr, false);
  if (out.is_discarded()) {
    send(res, api_error::invalid_json, "the request body is not valid JSON");
    return false;
  }
  if (!out.is_object()) {
    send(res, api_error::invalid_body, "the request body must be a JSON object");
    return false;
  }
  return true;
}

}  // namespace platform::servers
