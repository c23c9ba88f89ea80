// The cross-site request guard and the internal caller rule (platform/request_guard.hpp,
// platform/internal_auth.hpp).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "platform/host_header.hpp"
#include "platform/internal_auth.hpp"
#include "platform/request_guard.hpp"

namespace request_guard_test {

using namespace platform;

namespace {

request_head post(std::string_view host, std::string_view origin = {}, std::string_view site = {},
                  std::string_view type = "application/json") {
  return {"POST", host, origin, site, type, true, 2};
}

std::string code_of(const std::optional<request_refusal>& r) { return r ? std::string(platform::code_of(describe(*r).error)) : "allowed"; }

}  // namespace

TEST_CASE("web: a same-origin page and non-browser clients pass, other sites and origins do not") {
  request_guard_policy web;
  web.loopback_hosts_only = true;
  CHECK(code_of(guard_request(post("127.0.0.1:8787"), web)) == "allowed");  // curl, the worker
  CHECK(code_of(guard_request(post("127.0.0.1:8787", "http://127.0.0.1:8787", "same-origin"), web)) == "allowed");
  CHECK(code_of(guard_request(post("LOCALHOST:8787", "http://localhost:8787", "same-origin"), web)) == "allowed");
  CHECK(code_of(guard_request(post("127.0.0.1:8787", {}, "none"), web)) == "allowed");
  CHECK(code_of(guard_request(post("127.0.0.1:8787", "https://evil.example", "cross-site"), web)) == "cross_site_request");
  // An app preview is same-site with the builder on localhost, never same-origin.
  CHECK(code_of(guard_request(post("localhost:8787", "http://app1.preview.localhost:8787", "same-site"), web)) ==
        "cross_site_request");
  // Fetch Metadata alone, and Origin alone (browsers without Fetch Metadata), each suffice.
  CHECK(code_of(guard_request(post("127.0.0.1:8787", {}, "cross-site"), web)) == "cross_site_request");
  CHECK(code_of(guard_request(post("127.0.0.1:8787", "https://evil.example"), web)) == "cross_site_request");
  CHECK(code_of(guard_request(post("127.0.0.1:8787", "http://127.0.0.1:8788"), web)) == "cross_site_request");
  CHECK(code_of(guard_request(post("127.0.0.1:8787", "http://127.0.0.1:8787.evil.example"), web)) == "cross_site_request");
  // A sandboxed frame or a data: page.
  CHECK(code_of(guard_request(post("127.0.0.1:8787", "null"), web)) == "cross_site_request");
  // Reading is not guarded by origin (the answer cannot be read without CORS, and OAuth
  // callbacks are cross-site navigations).
  request_head get{"GET", "127.0.0.1:8787", "https://evil.example", "cross-site", {}, false, std::nullopt};
  CHECK(code_of(guard_request(get, web)) == "allowed");
}

TEST_CASE("web: JSON routes take only bodies declared JSON") {
  request_guard_policy web;
  CHECK(code_of(guard_request(post("h", {}, {}, "text/plain"), web)) == "unsupported_media_type");
  CHECK(code_of(guard_request(post("h", {}, {}, "application/x-www-form-urlencoded"), web)) == "unsupported_media_type");
  CHECK(code_of(guard_request(post("h", {}, {}, "multipart/form-data; boundary=x"), web)) == "unsupported_media_type");
  CHECK(code_of(guard_request(post("h", {}, {}, ""), web)) == "unsupported_media_type");
  CHECK(code_of(guard_request(post("h", {}, {}, "Application/JSON; charset=utf-8"), web)) == "allowed");
  CHECK(code_of(guard_request(post("h", {}, {}, "application/merge-patch+json"), web)) == "allowed");
  request_head empty{"POST", "h", {}, {}, "text/plain", false, std::nullopt};
  CHECK(code_of(guard_request(empty, web)) == "allowed");  // no body, nothing to misread
}

TEST_CASE("web: local mode answers loopback host names only, or the configured public origins") {
  std::vector<std::string> origins{"https://builder.example.com"};
  request_guard_policy local;
  local.loopback_hosts_only = true;
  for (std::string_view host : {"127.0.0.1:8787", "[::1]:8787", "localhost", "localhost.", "app.preview.localhost:8787"}) {
    CHECK(code_of(guard_request({"GET", host, {}, {}, {}, false, std::nullopt}, local)) == "allowed");
  }
  // A DNS-rebinding page: evil.example resolves to 127.0.0.1, so the browser thinks it is same-origin.
  CHECK(code_of(guard_request(post("evil.example:8787", "http://evil.example:8787", "same-origin"), local)) ==
        "host_not_allowed");
  CHECK(code_of(guard_request({"GET", "localhost.evil.example", {}, {}, {}, false, std::nullopt}, local)) == "host_not_allowed");
  CHECK(code_of(guard_request({"GET", "", {}, {}, {}, false, std::nullopt}, local)) == "host_not_allowed");
  local.trusted_origins = origins;
  CHECK(code_of(guard_request(post("builder.example.com", "https://builder.example.com", "same-origin"), local)) == "allowed");
  request_guard_policy proxied;
  proxied.trusted_origins = origins;
  // Behind a proxy that rewrites Host, the page's origin is still accepted.
  CHECK(code_of(guard_request(post("10.0.0.5:8787", "https://builder.example.com", "same-origin"), proxied)) == "allowed");
  CHECK(code_of(guard_request(post("10.0.0.5:8787", "https://other.example.com", "same-origin"), proxied)) ==
        "cross_site_request");
}

TEST_CASE("worker: any request a browser labels is refused, whatever the method") {
  request_guard_policy worker;
  worker.browser_callers = false;
  worker.loopback_hosts_only = true;
  CHECK(code_of(guard_request(post("127.0.0.1:8788"), worker)) == "allowed");
  CHECK(code_of(guard_request(post("127.0.0.1:8788", {}, "same-origin"), worker)) == "cross_site_request");
  CHECK(code_of(guard_request(post("127.0.0.1:8788", "http://127.0.0.1:8787"), worker)) == "cross_site_request");
  CHECK(code_of(guard_request({"GET", "127.0.0.1:8788", {}, "cross-site", {}, false, std::nullopt}, worker)) == "cross_site_request");
  CHECK(code_of(guard_request(post("127.0.0.1:8788", {}, {}, "text/plain"), worker)) == "unsupported_media_type");
  CHECK(code_of(guard_request(post("attacker.example:8788"), worker)) == "host_not_allowed");
  CHECK(status_of(describe(request_refusal::cross_site_request).error) == 403);
  CHECK(status_of(describe(request_refusal::unsupported_media_type).error) == 415);
  CHECK(status_of(describe(request_refusal::host_not_allowed).error) == 421);
}

TEST_CASE("a declared body over the limit is refused before it is read; a chunked one is refused whatever its size") {
  request_guard_policy web;
  web.max_body_bytes = 1000;
  auto big = post("127.0.0.1:8787");
  big.declared_length = 1001;
  CHECK(code_of(guard_request(big, web)) == "body_too_large");
  big.declared_length = 1000;
  CHECK(code_of(guard_request(big, web)) == "allowed");
  big.declared_length = UINT64_MAX;  // a Content-Length too large to be a number here
  CHECK(code_of(guard_request(big, web)) == "body_too_large");
  big.declared_length = std::nullopt;  // chunked: cpp-httplib would buffer it whole, unbounded
  big.transfer_encoded = true;
  CHECK(code_of(guard_request(big, web)) == "length_required");
  auto get = big;  // on any method: its body would be read as the next request
  get.method = "GET";
  CHECK(code_of(guard_request(get, web)) == "length_required");
  request_guard_policy worker;
  worker.browser_callers = false;
  CHECK(code_of(guard_request(big, worker)) == "length_required");
  // Another site learns nothing about sizes: it is refused for what it is first.
  auto cross = post("127.0.0.1:8787", "https://evil.example", "cross-site");
  cross.declared_length = 1u << 30;
  CHECK(code_of(guard_request(cross, web)) == "cross_site_request");
  CHECK(status_of(describe(request_refusal::body_too_large).error) == 413);
  CHECK(status_of(describe(request_refusal::length_required).error) == 411);
}

TEST_CASE("internal callers: the token when one is configured, else loopback peers only") {
  CHECK_FALSE(check_internal_caller("", "", "127.0.0.1"));
  CHECK_FALSE(check_internal_caller("", "", "127.0.0.53"));
  CHECK_FALSE(check_internal_caller("", "", "::1"));
  CHECK_FALSE(check_internal_caller("", "", "::ffff:127.0.0.1"));
  CHECK(check_internal_caller("", "", "10.0.0.2") == internal_refusal::not_loopback);
  CHECK(check_internal_caller("", "", "::ffff:10.0.0.2") == internal_refusal::not_loopback);
  CHECK(check_internal_caller("", "Bearer anything", "192.168.1.9") == internal_refusal::not_loopback);
  const std::string token(40, 'k');
  CHECK_FALSE(check_internal_caller(token, "Bearer " + token, "10.0.0.2"));
  CHECK_FALSE(check_internal_caller(token, "bearer " + token, "10.0.0.2"));
  // With a token, loopback is no excuse.
  CHECK(check_internal_caller(token, "", "127.0.0.1") == internal_refusal::wrong_token);
  CHECK(check_internal_caller(token, "Bearer " + token.substr(1), "127.0.0.1") == internal_refusal::wrong_token);
  CHECK(check_internal_caller(token, "Bearer " + token + "x", "127.0.0.1") == internal_refusal::wrong_token);
  CHECK(check_internal_caller(token, token, "127.0.0.1") == internal_refusal::wrong_token);
  CHECK(status_of(describe(internal_refusal::wrong_token).error) == 401);
}

TEST_CASE("a Host header's name and port") {
  CHECK(split_host_header("[::1]:8787").name == "[::1]");
  CHECK(split_host_header("[::1]:8787").port == "8787");
  CHECK(split_host_header("[::1]").port.empty());
  CHECK(split_host_header("a.preview.localhost:1").name == "a.preview.localhost");
  CHECK(split_host_header("a.preview.localhost:1").port == "1");
  CHECK(split_host_header("example.com").name == "example.com");
  CHECK(split_host_header("example.com").port.empty());
  CHECK(split_host_header("[::1").name == "[::1");
  CHECK(split_host_header("").name.empty());
}

}  // namespace request_guard_test
