#pragma once
// Both servers' route tables, one idea: a row names its method and its path ("/a/{x}/b", a
// {name} segment is an id), and the server's own preamble runs it. This module holds what the
// tables share: the path syntax and its one matcher, the dispatch onto cpp-httplib, and the
// error replies for what no row answers.
//
// GET and HEAD rows are dispatched from the pre-routing handler, which cpp-httplib calls before
// it reads a body: httplib's own routes run std::regex_match on the path, which recurses per
// character and leaves some 30 KiB of touched stack on every pool thread that ever served one
// (with a thread per open viewer stream, half a viewer's memory). The other methods take
// bodies, which httplib reads only for a route it matched: one catch-all route per method reads
// it, and the same matcher picks the row.
#include <httplib.h>

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace platform::servers {

// The ids a row's {} segments matched, in order.
using path_ids = std::vector<std::string>;

// Which bytes an id named `name` may hold in one path segment.
using id_rule = bool (*)(std::string_view name, std::string_view segment);

// An id as the core's ids are (platform/ids.hpp): 1–128 of [A-Za-z0-9_-].
bool any_id(std::string_view name, std::string_view segment);

// `path` against `pattern`, segment by segment and exactly (no empty segment, no trailing
// slash); the {} segments' ids are appended to `ids`. `ids` may hold a partial match on false.
bool match_path(std::string_view pattern, std::string_view path, id_rule ok, path_ids& ids);

// The error body (design notes) for the statuses httplib answers itself: 404 when no row
// matched, 413 for a body over the limit, and its other refusals with their status.
void set_error_replies(httplib::Server& server, std::string_view not_found_message);
// The 404 of a path no row matches.
void send_no_route(httplib::Response& res, std::string_view message);

using route_dispatch = std::function<bool(const httplib::Request&, httplib::Response&)>;

// Serves `rows` (each with `method` and `path` members) through `run(row, req, res, ids)`.
// Returns the GET/HEAD dispatcher, for the server's pre-routing handler to call (false when no
// GET row matches); registers the other methods with `server` here.
template <class Row, class Run>
route_dispatch serve_routes(httplib::Server& server, std::span<const Row> rows, id_rule ok, Run run,
                            std::string_view not_found_message) {
  auto find = [rows, ok](std::string_view method, const httplib::Request& req, path_ids& ids) -> const Row* {
    for (const Row& row : rows) {
      if (row.method != method) continue;
      ids.clear();
      if (match_path(row.path, req.path, ok, ids)) return &row;
    }
    return nullptr;
  };
  for (std::string_view method : {"POST", "PUT", "PATCH", "DELETE"}) {
    bool used = false;
    for (const Row& row : rows) used = used || row.method == method;
    if (!used) continue;
    auto handler = [find, run, method, missing = std::string(not_found_message)](const httplib::Request& req,
                                                                                 httplib::Response& res) {
      path_ids ids;
      if (const Row* row = find(method, req, ids)) return run(*row, req, res, ids);
      send_no_route(res, missing);
    };
    if (method == "POST") server.Post("/.*", handler);
    else if (method == "PUT") server.Put("/.*", handler);
    else if (method == "PATCH") server.Patch("/.*", handler);
    else server.Delete("/.*", handler);
  }
  return [find, run](const httplib::Request& req, httplib::Response& res) {
    if (req.method != "GET" && req.method != "HEAD") return false;
    path_ids ids;
    const Row* row = find("GET", req, ids);
    if (!row) return false;
    run(*row, req, res, ids);
    return true;
  };
}

}  // namespace platform::servers
