#pragma once
// A path router by segments: "/api/workspaces/{workspace}/apps/{app}" matches an id (1–128 of
// [A-Za-z0-9_-]) at each {name}. httplib's own routes run std::regex_match on the path, which
// recurses per character and leaves some 30 KiB of touched stack on every pool thread that
// ever served one; with a thread per open viewer stream that was half a viewer's memory.
// GET routes go through here (set as the pre-routing handler, which httplib calls before it
// reads a body, so routes that take one stay with httplib).
#include <httplib.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace platform::web {

// The ids a route's {} segments matched, in order.
using path_ids = std::vector<std::string>;
using route_handler = std::function<void(const httplib::Request&, httplib::Response&, const path_ids&)>;
// Answers a GET no route matched, or returns false to leave it to httplib (a JSON 404).
using fallback_handler = std::function<bool(const httplib::Request&, httplib::Response&)>;

class router {
 public:
  void get(std::string_view pattern, route_handler handler);
  // Asked for every GET no route matches (the builder page's files and routes).
  void fallback(fallback_handler handler);
  // Runs the GET route matching the request; false when none does (httplib goes on).
  bool dispatch(const httplib::Request& req, httplib::Response& res) const;

 private:
  struct route {
    std::vector<std::string> segments;  // "{name}" for an id
    route_handler handler;
  };
  static bool match(const route& r, std::string_view path, path_ids& ids);
  std::vector<route> gets_;
  fallback_handler fallback_;
};

// True for a well-formed id segment.
bool valid_path_id(std::string_view s);

// A pattern with {name} for ids, as a regex for httplib's routes (those that take a body).
std::string id_pattern_regex(std::string_view pattern);

}  // namespace platform::web
