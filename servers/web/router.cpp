#include "router.hpp"

#include "platform/ids.hpp"

namespace platform::web {
namespace {

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < path.size()) {
    if (path[at] == '/') {
      ++at;
      continue;
    }
    auto end = path.find('/', at);
    if (end == std::string_view::npos) end = path.size();
    out.emplace_back(path.substr(at, end - at));
    at = end;
  }
  return out;
}

}  // namespace

bool valid_path_id(std::string_view s) { return is_valid_id(s); }

std::string id_pattern_regex(std::string_view pattern) {
  std::string out;
  for (std::size_t at = 0; at < pattern.size();) {
    if (pattern[at] == '{') {
      out += "([A-Za-z0-9_-]{1,128})";
      at = pattern.find('}', at) + 1;
    } else {
      out += pattern[at++];
    }
  }
  return out;
}

void router::get(std::string_view pattern, route_handler handler) {
  gets_.push_back({split_path(pattern), std::move(handler)});
}

void router::fallback(fallback_handler handler) { fallback_ = std::move(handler); }

bool router::match(const route& r, std::string_view path, path_ids& ids) {
  // Exact segments: no empty segments, no trailing slash.
  if (path.empty() || path.front() != '/') return false;
  std::size_t at = 1;
  for (std::size_t i = 0; i < r.segments.size(); ++i) {
    auto end = path.find('/', at);
    if (end == std::string_view::npos) end = path.size();
    std::string_view seg = path.substr(at, end - at);
    if (r.segments[i].front() == '{') {
      if (!valid_path_id(seg)) return false;
      ids.emplace_back(seg);
    } else if (seg != r.segments[i]) {
      return false;
    }
    at = end + 1;
    if (i + 1 < r.segments.size() && end == path.size()) return false;
  }
  return at == path.size() + 1;
}

bool router::dispatch(const httplib::Request& req, httplib::Response& res) const {
  if (req.method != "GET" && req.method != "HEAD") return false;
  path_ids ids;
  for (const auto& r : gets_) {
    ids.clear();
    if (match(r, req.path, ids)) {
      r.handler(req, res, ids);
      return true;
    }
  }
  return fallback_ && fallback_(req, res);
}

}  // namespace platform::web
