#include <doctest/doctest.h>

#include <set>
#include <string>

#include "platform/api_error.hpp"
#include "platform/internal_auth.hpp"
#include "platform/request_guard.hpp"

namespace api_error_test {

using namespace platform;

TEST_CASE("every api_error row has a unique snake_case code and an error status") {
  std::set<std::string_view> codes;
  for (const auto& row : api_error_table()) {
    CHECK_MESSAGE(codes.insert(row.code).second, row.code);
    CHECK(!row.code.empty());
    CHECK(row.code.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") == std::string_view::npos);
    CHECK(row.status >= 400);
    CHECK(row.status <= 599);
    CHECK(!row.meaning.empty());
  }
  CHECK(codes.size() == api_error_table().size());
}

TEST_CASE("a code names its row, and its row gives the one status") {
  for (const auto& row : api_error_table()) {
    auto e = api_error_named(row.code);
    REQUIRE(e.has_value());
    CHECK(code_of(*e) == row.code);
    CHECK(status_of(*e) == row.status);
    CHECK(status_of(relayed_error(row.code, "")) == row.status);
  }
  CHECK(status_of(api_error::not_found) == 404);
  CHECK(status_of(api_error::approval_stale) == 409);  // publish and the tools it blocks alike
  CHECK(status_of(api_error::store_unavailable) == 503);
  CHECK(!api_error_named("Not_Found"));
  CHECK(!api_error_named(""));
}

TEST_CASE("a code outside the set is a peer's failure (502) that passes the code on as it came") {
  for (std::string_view code : {"worker_http_409", "no_such_code"}) {
    auto e = relayed_error(code, "m");
    CHECK(e.code == api_error::peer_failure);
    CHECK(code_name(e) == code);
    CHECK(std::string_view(code_c_str(e)) == code);
    CHECK(status_of(e) == 502);
  }
  // A code of the set is its row, nothing relayed.
  auto own = relayed_error("worker_draining", "draining");
  CHECK(own.code == api_error::worker_draining);
  CHECK(own.relayed.empty());
  CHECK(code_name(own) == "worker_draining");
}

TEST_CASE("the request guard and the internal caller rule answer with rows of the set") {
  CHECK(describe(request_refusal::host_not_allowed).error == api_error::host_not_allowed);
  CHECK(status_of(describe(request_refusal::host_not_allowed).error) == 421);
  CHECK(status_of(describe(request_refusal::body_too_large).error) == 413);
  CHECK(status_of(describe(internal_refusal::wrong_token).error) == 401);
}

TEST_CASE("a failure names its row; a worker's refusal without a code is worker_http_<status>") {
  auto e = fail(api_error::workspace_stale, "send the draft first").value();
  CHECK(e.code == platform::api_error::workspace_stale);
  CHECK(e.message == "send the draft first");
  CHECK(is(e, api_error::workspace_stale));
  CHECK(!is(e, api_error::workspace_missing));
  CHECK(status_of(e) == status_of(api_error::workspace_stale));
  CHECK(code_name(e) == "workspace_stale");
  auto w = fail_worker_http(418, "the worker refused").value();
  CHECK(code_name(w) == "worker_http_418");
  CHECK(status_of(w) == 502);
  // A peer's code passes through as it came, and keeps its row's status when it is one.
  CHECK(status_of(fail_relayed("worker_draining", "draining").value()) == 503);
}

}  // namespace api_error_test
