#pragma once
// The two request checks both servers make, as httplib glue over the core's rules: the
// cross-site request guard before routing (platform/request_guard.hpp) and the internal
// caller rule (platform/internal_auth.hpp). Each writes the design notes' error body when it
// refuses.
#include <httplib.h>

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

#include "platform/api_error.hpp"
#include "platform/error.hpp"
#include "platform/internal_auth.hpp"
#include "platform/json_text.hpp"
#include "platform/request_guard.hpp"
#include "error_counts.hpp"
#include "http_server.hpp"

namespace platform::servers {

inline void write_error_body(httplib::Response& res, int status, std::string_view code, std::string_view message) {
  std::string body = "{\"error\":{\"code\":";
  append_json_string(body, code);
  body += ",\"message\":";
  append_json_string(body, message);
  body += "}}";
  res.status = status;
  res.set_content(body, "application/json");
}

// Ends the request with `e`: its code as on the wire, its row's status, and its message (a
// store that is unavailable says so: the person can retry). The one way a route refuses, so
// each reply is counted here by its code's row (GET /metrics, error_counts.hpp).
inline void send(httplib::Response& res, const error& e) {
  count_error_reply(e.code);
  int status = status_of(e);
  write_error_body(res, status, code_name(e),
                   status == 503 && is_store_failure(e) ? "storage is unavailable: " + e.message : e.message);
}
inline void send(httplib::Response& res, api_error code, std::string_view message) {
  count_error_reply(code);
  write_error_body(res, status_of(code), code_of(code), message);
}

// True when the request was refused (and answered).
inline bool refused_by_guard(const httplib::Request& req, httplib::Response& res, const request_guard_policy& policy) {
  request_head head;
  head.method = req.method;
  const std::string host = req.get_header_value("Host");
  const std::string origin = req.get_header_value("Origin");
  const std::string site = req.get_header_value("Sec-Fetch-Site");
  const std::string type = req.get_header_value("Content-Type");
  head.host = host;
  head.origin = origin;
  head.sec_fetch_site = site;
  head.content_type = type;
  const std::string length = req.get_header_value("Content-Length");
  head.transfer_encoded = req.has_header("Transfer-Encoding");
  head.has_body = head.transfer_encoded || (!length.empty() && length.find_first_not_of('0') != std::string::npos);
  std::uint64_t declared = 0;
  if (auto [end, ec] = std::from_chars(length.data(), length.data() + length.size(), declared);
      !length.empty() && ec == std::errc() && end == length.data() + length.size()) {
    head.declared_length = declared;
  } else if (ec == std::errc::result_out_of_range) {
    head.declared_length = UINT64_MAX;
  }
  auto refusal = guard_request(head, policy);
  if (!refusal) return false;
  auto info = describe(*refusal);
  send(res, info.error, info.message);
  // The body it declared is not read: the connection cannot carry another request.
  if (*refusal == request_refusal::body_too_large || *refusal == request_refusal::length_required) {
    http_server::close_after_reply(res);
  }
  return true;
}

// True when the caller may use an internal route; otherwise answered with 401.
inline bool internal_caller_allowed(const httplib::Request& req, httplib::Response& res, std::string_view token) {
  auto refusal = check_internal_caller(token, req.get_header_value("Authorization"), req.remote_addr);
  if (!refusal) return true;
  auto info = describe(*refusal);
  send(res, info.error, info.message);
  return false;
}

}  // namespace platform::servers
