#include "route_table.hpp"

#include "platform/api_error.hpp"
#include "platform/ids.hpp"
#include "request_checks.hpp"

namespace platform::servers {

bool any_id(std::string_view, std::string_view segment) { return is_valid_id(segment); }

bool match_path(std::string_view pattern, std::string_view path, id_rule ok, path_ids& ids) {
  if (path.empty() || path.front() != '/' || pattern.empty() || pattern.front() != '/') return false;
  std::size_t p = 1, at = 1;
  while (true) {
    auto p_end = pattern.find('/', p);
    if (p_end == std::string_view::npos) p_end = pattern.size();
    auto end = path.find('/', at);
    if (end == std::string_view::npos) end = path.size();
    std::string_view want = pattern.substr(p, p_end - p);
    std::string_view seg = path.substr(at, end - at);
    if (want.size() > 2 && want.front() == '{' && want.back() == '}') {
      if (seg.empty() || !ok(want.substr(1, want.size() - 2), seg)) return false;
      ids.emplace_back(seg);
    } else if (seg != want) {
      return false;
    }
    bool pattern_done = p_end == pattern.size(), path_done = end == path.size();
    if (pattern_done || path_done) return pattern_done && path_done;
    p = p_end + 1;
    at = end + 1;
  }
}

void send_no_route(httplib::Response& res, std::string_view message) { send(res, api_error::not_found, message); }

void set_error_replies(httplib::Server& server, std::string_view not_found_message) {
  server.set_error_handler([missing = std::string(not_found_message)](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return;
    if (res.status == 404) return send_no_route(res, missing);
    if (res.status == 413) return send(res, api_error::body_too_large, "the request body is too large");
    int status = res.status;  // cpp-httplib's own refusal keeps its status
    send(res, api_error::http_error, "the request could not be served");
    res.status = status;
  });
}

}  // namespace platform::servers
