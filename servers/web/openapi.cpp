#include "openapi.hpp"

#include <set>
#include <string>
#include <vector>

#include "platform/run_capability.hpp"

#ifndef PLATFORM_PROJECT_VERSION
#define PLATFORM_PROJECT_VERSION "0.0.0"
#endif

namespace platform::web {
namespace {

using json = nlohmann::ordered_json;

[[noreturn]] void refuse(const openapi_route& r, std::string_view why) {
  throw openapi_refusal(std::string(r.method) + " " + std::string(r.path) + ": " + std::string(why));
}

bool one_line(std::string_view s) { return !s.empty() && s.find('\n') == std::string_view::npos; }

bool name_char(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; }

// The {name} segments of `r.path`, in order; a path the route tables do not write is refused.
std::vector<std::string> path_names(const openapi_route& r) {
  std::string_view path = r.path;
  if (path.size() < 2 || path.front() != '/' || path.back() == '/') refuse(r, "a path is /segment[/segment]...");
  std::vector<std::string> names;
  std::size_t at = 1;
  while (at <= path.size()) {
    std::size_t end = path.find('/', at);
    if (end == std::string_view::npos) end = path.size();
    std::string_view seg = path.substr(at, end - at);
    if (seg.empty()) refuse(r, "empty path segment");
    if (seg.find_first_of("{}") != std::string_view::npos) {
      if (seg.size() < 3 || seg.front() != '{' || seg.back() != '}') refuse(r, "an id segment is {name}, whole");
      std::string_view name = seg.substr(1, seg.size() - 2);
      for (char c : name) {
        if (!name_char(c)) refuse(r, "an id's name is [A-Za-z0-9_]");
      }
      for (const auto& n : names) {
        if (n == name) refuse(r, "two ids of one name");
      }
      names.emplace_back(name);
    }
    at = end + 1;
  }
  return names;
}

json security_of(openapi_auth auth) {
  switch (auth) {
    case openapi_auth::none: return json::array();
    case openapi_auth::identity:
      return json::array({{{"sessionCookie", json::array()}}, {{"identityToken", json::array()}}});
    case openapi_auth::internal: return json::array({{{"internalToken", json::array()}}});
    case openapi_auth::internal_run:
      return json::array({{{"internalToken", json::array()}, {"runCapability", json::array()}}});
  }
  return json::array();
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

json error_components(std::span<const api_error_info> codes) {
  json names = json::array();
  json table = json::object();
  std::string text =
      "The closed set of error codes (lib/platform/src/api_error.cpp), each with the one status a reply that "
      "ends with it has. A worker's refusal relayed without a code of this set is `peer_failure` (502), and then "
      "the body carries the worker's own code as it came (`worker_http_<status>` when it had none).\n\n"
      "| code | status | meaning |\n|---|---|---|\n";
  std::set<std::string_view> seen;
  for (const api_error_info& c : codes) {
    std::string code(c.code);
    if (c.code.empty()) throw openapi_refusal("an error code without a name");
    if (!seen.insert(c.code).second) throw openapi_refusal("error code " + code + " twice");
    if (!one_line(c.meaning)) throw openapi_refusal("error code " + code + " has no meaning");
    if (c.status < 400 || c.status > 599) throw openapi_refusal("error code " + code + " has no error status");
    names.push_back(code);
    table[code] = {{"status", c.status}, {"meaning", c.meaning}};
    text += "| `" + code + "` | " + std::to_string(c.status) + " | " + std::string(c.meaning) + " |\n";
  }
  if (names.empty()) throw openapi_refusal("no error codes");
  json schemas = {
      {"ErrorCode", {{"type", "string"}, {"enum", names}, {"description", text}, {"x-error-codes", table}}},
      {"Error",
       {{"type", "object"},
        {"description", "The error body of every route (the design notes)."},
        {"required", json::array({"error"})},
        {"properties",
         {{"error",
           {{"type", "object"},
            {"required", json::array({"code", "message"})},
            {"properties",
             {{"code", {{"$ref", "#/components/schemas/ErrorCode"}}},
              {"message", {{"type", "string"}, {"description", "What went wrong and what to do, in a sentence."}}}}}}}}}}},
  };
  return schemas;
}

json security_schemes() {
  return {
      {"sessionCookie",
       {{"type", "apiKey"},
        {"in", "cookie"},
        {"name", "platform_session"},
        {"description", "The session cookie POST /api/session sets (external auth mode)."}}},
      {"identityToken",
       {{"type", "http"},
        {"scheme", "bearer"},
        {"bearerFormat", "JWT"},
        {"description", "The identity provider's token as Authorization: Bearer (external auth mode)."}}},
      {"internalToken",
       {{"type", "http"},
        {"scheme", "bearer"},
        {"description",
         "INTERNAL_API_TOKEN as Authorization: Bearer; without a configured token, loopback callers only."}}},
      {"runCapability",
       {{"type", "apiKey"},
        {"in", "header"},
        {"name", std::string(run_capability_header)},
        {"description", "The capability the web gave the run the body names (platform/run_capability.hpp)."}}},
  };
}

}  // namespace

json openapi_document(std::span<const openapi_route> routes, std::span<const api_error_info> codes) {
  json paths = json::object();
  json tags = json::array();
  std::set<std::string_view> tag_names;
  std::set<std::string_view> operation_ids;
  static const std::set<std::string_view> methods = {"GET", "POST", "PUT", "PATCH", "DELETE"};
  for (const openapi_route& r : routes) {
    if (!methods.contains(r.method)) refuse(r, "an unknown method");
    auto names = path_names(r);
    if (!one_line(r.summary)) refuse(r, "the row has no summary (one line: what the route does)");
    if (!one_line(r.handler)) refuse(r, "the row has no handler name (its operationId)");
    if (!one_line(r.tag)) refuse(r, "the row has no area (its tag)");
    if (!one_line(r.caller)) refuse(r, "the row does not say who may call it");
    if (r.body != openapi_body::none && !one_line(r.body_description)) refuse(r, "the row's body has no description");
    if (r.body == openapi_body::none && !r.body_description.empty()) refuse(r, "a body description on a row without a body");
    if (!operation_ids.insert(r.handler).second) refuse(r, "operationId " + std::string(r.handler) + " twice");

    json& item = paths[std::string(r.path)];
    std::string method = lower(r.method);
    if (item.contains(method)) refuse(r, "two rows of one method and path");
    if (!names.empty() && !item.contains("parameters")) {
      json params = json::array();
      for (const auto& n : names) {
        params.push_back({{"name", n},
                          {"in", "path"},
                          {"required", true},
                          {"description", "An id: 1 to 128 of A-Z, a-z, 0-9, _ and -."},
                          {"schema", {{"type", "string"}, {"pattern", openapi_id_pattern}}}});
      }
      item["parameters"] = std::move(params);
    }
    if (tag_names.insert(r.tag).second) tags.push_back({{"name", r.tag}});

    json op = {
        {"operationId", r.handler},
        {"summary", r.summary},
        {"tags", json::array({r.tag})},
        {"security", security_of(r.auth)},
        {"x-caller", r.caller},
        {"responses",
         {{"2XX", {{"description", "The route's reply, as docs/http-api.md describes it."}}},
          {"4XX", {{"$ref", "#/components/responses/Error"}}},
          {"5XX", {{"$ref", "#/components/responses/Error"}}}}},
    };
    if (r.body != openapi_body::none) {
      op["requestBody"] = {{"required", r.body == openapi_body::required},
                           {"description", r.body_description},
                           {"content", {{"application/json", {{"schema", {{"type", "object"}}}}}}}};
    }
    item[method] = std::move(op);
  }
  if (paths.empty()) throw openapi_refusal("no routes");

  return {
      {"openapi", "3.1.0"},
      {"info",
       {{"title", "platform-web"},
        {"version", PLATFORM_PROJECT_VERSION},
        {"summary", "The application builder platform's web server: the builder page's API, app runtime routes and "
                    "the worker's internal routes."},
        {"description",
         "Generated from platform-web's route table (servers/web/web_routes.cpp) at start-up; docs/http-api.md "
         "describes every route's body and reply. With PLATFORM_AUTH_MODE=none the caller is the local owner and "
         "no credential is asked. Every refusal is the Error body, with a code of ErrorCode."}}},
      {"tags", std::move(tags)},
      {"paths", std::move(paths)},
      {"components",
       {{"schemas", error_components(codes)},
        {"responses",
         {{"Error",
           {{"description", "Refused: the error body, its code one of ErrorCode, the status that code's."},
            {"content", {{"application/json", {{"schema", {{"$ref", "#/components/schemas/Error"}}}}}}}}}}},
        {"securitySchemes", security_schemes()}}},
  };
}

}  // namespace platform::web
