#include <doctest/doctest.h>

#include <httplib.h>

#include <span>
#include <string>
#include <string_view>
#include <thread>

#include "../common/route_table.hpp"

namespace route_table_test {

using platform::servers::any_id;
using platform::servers::match_path;
using platform::servers::path_ids;

bool digits_only(std::string_view name, std::string_view seg) {
  if (name != "n") return false;
  for (char c : seg) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

TEST_CASE("a path matches its pattern segment by segment, and the ids come out in order") {
  path_ids ids;
  CHECK(match_path("/api/workspaces/{workspace}/apps/{app}", "/api/workspaces/w1/apps/a_2", any_id, ids));
  CHECK(ids == path_ids{"w1", "a_2"});
  ids.clear();
  CHECK(match_path("/api/health", "/api/health", any_id, ids));
  CHECK(ids.empty());
}

TEST_CASE("no trailing slash, no empty or extra segment, no id outside its rule") {
  path_ids ids;
  for (std::string_view path : {"/api/workspaces/w1/apps/a1/", "/api/workspaces//apps/a1", "/api/workspaces/w1/apps",
                                "/api/workspaces/w1/apps/a1/runs", "api/workspaces/w1/apps/a1", "/api/workspaces/w%201/apps/a1",
                                "/api/workspaces/w.1/apps/a1", ""}) {
    ids.clear();
    CHECK_MESSAGE(!match_path("/api/workspaces/{workspace}/apps/{app}", path, any_id, ids), path);
  }
  CHECK(!match_path("/api/x/{id}", "/api/x/" + std::string(129, 'a'), any_id, ids));
  ids.clear();
  CHECK(match_path("/api/x/{id}", "/api/x/" + std::string(128, 'a'), any_id, ids));
  ids.clear();
  CHECK(match_path("/n/{n}", "/n/42", digits_only, ids));
  CHECK(!match_path("/n/{n}", "/n/4a", digits_only, ids));
  CHECK(!match_path("/m/{m}", "/m/1", digits_only, ids));  // a name the rule does not know
}

struct row {
  std::string_view method;
  std::string_view path;
  std::string_view name;
};

TEST_CASE("one table serves every method: GETs before a body is read, the rest with theirs") {
  static constexpr row rows[] = {
      {"GET", "/things/{thing}", "get"},
      {"POST", "/things/{thing}", "post"},
      {"DELETE", "/things/{thing}/parts/{part}", "delete"},
  };
  httplib::Server server;
  auto gets = platform::servers::serve_routes(
      server, std::span<const row>(rows), any_id,
      [](const row& r, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
        std::string out(r.name);
        for (const auto& id : ids) out += " " + id;
        if (!req.body.empty()) out += " body=" + req.body;
        res.set_content(out, "text/plain");
      },
      "no such route");
  platform::servers::set_error_replies(server, "no such route");
  server.set_pre_routing_handler([&gets](const httplib::Request& req, httplib::Response& res) {
    return gets(req, res) ? httplib::Server::HandlerResponse::Handled : httplib::Server::HandlerResponse::Unhandled;
  });
  int port = server.bind_to_any_port("127.0.0.1");
  REQUIRE(port > 0);
  std::thread t([&] { server.listen_after_bind(); });
  httplib::Client c("127.0.0.1", port);

  auto got = c.Get("/things/t1");
  REQUIRE(got);
  CHECK(got->body == "get t1");
  got = c.Post("/things/t2", "{\"a\":1}", "application/json");
  REQUIRE(got);
  CHECK(got->body == "post t2 body={\"a\":1}");
  got = c.Delete("/things/t3/parts/p4");
  REQUIRE(got);
  CHECK(got->body == "delete t3 p4");
  // A path no row of that method matches: the error body, for a GET and for a body's method.
  got = c.Get("/things/t1/extra");
  REQUIRE(got);
  CHECK(got->status == 404);
  CHECK(got->body == R"({"error":{"code":"not_found","message":"no such route"}})");
  got = c.Post("/nothing", "{}", "application/json");
  REQUIRE(got);
  CHECK(got->status == 404);
  CHECK(got->body == R"({"error":{"code":"not_found","message":"no such route"}})");
  got = c.Patch("/things/t1", "{}", "application/json");  // no PATCH row at all
  REQUIRE(got);
  CHECK(got->status == 404);
  server.stop();
  t.join();
}

}  // namespace route_table_test
