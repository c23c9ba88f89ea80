// The pure parts of an HTTP action around the parsers: request bytes, redirect decisions and
// the replies.
#include <doctest/doctest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "platform/integration_error.hpp"
#include "platform/api_error.hpp"
#include "platform/http_action_result.hpp"
#include "platform/http_hop.hpp"
#include "platform/http_redirect.hpp"

namespace http_action_test {

using namespace platform;
using nlohmann::json;

namespace {

http_hop hop(const std::string& method, const std::string& url, std::optional<std::string> body = {},
             std::vector<std::pair<std::string, std::string>> headers = {}) {
  http_request r{method, url, std::move(headers), std::move(body), ""};
  auto h = first_hop(r);
  REQUIRE(h);
  return *h;
}

http_response response(int status, std::string body, std::vector<std::pair<std::string, std::string>> headers = {}) {
  return http_response{status, "", std::move(headers), std::move(body)};
}

}  // namespace

TEST_CASE("the request bytes: the executor owns framing, Host and encoding") {
  auto h = hop("POST", "https://api.acme.example:8443/v1/items?q=1", R"({"a":1})",
               {{"X-Api-Key", "k-123"}, {"Content-Type", "application/json"}, {"Host", "evil.example"},
                {"Content-Length", "999"}, {"Transfer-Encoding", "chunked"}, {"Connection", "keep-alive"},
                {"Accept-Encoding", "gzip"}});
  auto wire = write_http_request(h, "platform-test/1");
  REQUIRE(wire);
  CHECK(*wire ==
        "POST /v1/items?q=1 HTTP/1.1\r\nHost: api.acme.example:8443\r\nX-Api-Key: k-123\r\n"
        "Content-Type: application/json\r\nUser-Agent: platform-test/1\r\nContent-Length: 7\r\n"
        "Accept-Encoding: identity\r\nConnection: close\r\n\r\n{\"a\":1}");
  auto get = write_http_request(hop("GET", "http://[::1]/", {}, {{"User-Agent", "mine"}}), "platform-test/1");
  CHECK(*get == "GET / HTTP/1.1\r\nHost: [::1]\r\nUser-Agent: mine\r\nAccept-Encoding: identity\r\nConnection: close\r\n\r\n");
  CHECK(write_http_request(hop("PUT", "https://a.example/"), "")->find("Content-Length: 0\r\n") != std::string::npos);
}

TEST_CASE("header values that could end the line are refused, without echoing the value") {
  auto bad = write_http_request(hop("GET", "https://a.example/", {}, {{"X-Key", "secret\r\nX-Evil: 1"}}), "ua");
  REQUIRE(!bad);
  CHECK(bad.error().code == platform::api_error::invalid_request);
  CHECK(bad.error().message.find("secret") == std::string::npos);
  CHECK(!write_http_request(hop("GET", "https://a.example/", {}, {{"Bad Name", "v"}}), "ua"));
  CHECK(!write_http_request(hop("GET", "https://a.example/", {}, {{"X", std::string("a\0b", 3)}}), "ua"));
  CHECK(!write_http_request(hop("GET /x HTTP/1.1\r\n", "https://a.example/"), "ua"));
}

TEST_CASE("redirects: 303 becomes GET without a body, 307 and 308 keep both") {
  auto post = hop("POST", "https://api.acme.example/v1/jobs", "{}", {{"Content-Type", "application/json"}, {"X-Api-Key", "k"}});
  CHECK(is_followed_redirect(303));
  CHECK(!is_followed_redirect(304));
  CHECK(!is_followed_redirect(300));
  auto see_other = redirected(post, 303, "/v1/jobs/7");
  REQUIRE(see_other);
  CHECK(see_other->method == "GET");
  CHECK(!see_other->body);
  CHECK(see_other->headers == std::vector<std::pair<std::string, std::string>>{{"X-Api-Key", "k"}});
  CHECK(see_other->target.text() == "https://api.acme.example/v1/jobs/7");
  for (int status : {307, 308}) {
    auto kept = redirected(post, status, "/v2/jobs");
    REQUIRE(kept);
    CHECK(kept->method == "POST");
    CHECK(kept->body == "{}");
    CHECK(kept->headers.size() == 2);
  }
  for (int status : {301, 302}) CHECK(redirected(post, status, "/x")->method == "GET");
  CHECK(redirected(hop("PUT", "https://a.example/"), 302, "/x")->method == "PUT");
  CHECK(redirected(hop("HEAD", "https://a.example/"), 303, "/x")->method == "HEAD");
}

TEST_CASE("redirects: a new origin drops every header that may carry a credential") {
  auto h = hop("GET", "https://api.acme.example/", {},
               {{"Authorization", "Bearer t"}, {"X-Api-Key", "k"}, {"Accept", "application/json"}, {"User-Agent", "u"}});
  auto same = redirected(h, 302, "https://api.acme.example/other");
  CHECK(same->headers.size() == 4);
  auto other = redirected(h, 302, "https://files.acme.example/");
  CHECK(other->headers == std::vector<std::pair<std::string, std::string>>{{"Accept", "application/json"}, {"User-Agent", "u"}});
  CHECK(redirected(h, 302, "https://api.acme.example:8443/")->headers.size() == 2);
}

TEST_CASE("redirects: never from https to http, and Location errors pass through") {
  auto h = hop("GET", "https://api.acme.example/");
  CHECK(redirected(h, 301, "http://api.acme.example/").error().code == platform::api_error::insecure_redirect);
  CHECK(redirected(h, 301, "ftp://api.acme.example/").error().code == platform::api_error::scheme_not_allowed);
  CHECK(redirected(h, 301, "https://[::1%25lo]/").error().code == platform::api_error::invalid_host);
  CHECK(redirected(hop("GET", "http://a.example/"), 301, "https://a.example/"));
}

TEST_CASE("failures carry the design notes' category and code") {
  auto r = http_action_failed(integration_error::address_not_allowed, "refused");
  auto j = json::parse(r.to_json());
  CHECK(j["success"] == false);
  CHECK(j["errorCategory"] == "guard");
  CHECK(j["errorCode"] == "ADDRESS_NOT_ALLOWED");
  CHECK(j["retryable"] == false);
  CHECK(j["canRequestBuilderRepair"] == false);
  CHECK(category_of(integration_error::timeout) == error_category::timeout);
  CHECK(http_action_failed(integration_error::timeout, "t").retryable == true);
  CHECK(code_of(integration_error::response_too_large) == "RESPONSE_TOO_LARGE");
  CHECK(code_of(integration_error::too_many_redirects) == "TOO_MANY_REDIRECTS");
  CHECK(category_of(integration_error::tls_failed) == error_category::network);
  CHECK(http_action_failed(integration_error::invalid_url, "x").can_request_builder_repair == true);
  CHECK(failure_of_url_error(api_error::invalid_host) == integration_error::host_not_allowed);
  CHECK(failure_of_url_error(api_error::insecure_redirect) == integration_error::scheme_not_allowed);
}

TEST_CASE("a 2xx answer is the data: JSON as JSON, anything else as a string") {
  auto ok = http_action_result(response(200, R"({"items":[1,2]})", {{"Content-Type", "application/json; charset=utf-8"}}),
                               "https://a.example", {});
  auto j = json::parse(ok.to_json());
  CHECK(j["success"] == true);
  CHECK(j["statusCode"] == 200);
  CHECK(j["data"] == json::parse(R"({"items":[1,2]})"));
  auto text = json::parse(http_action_result(response(200, "42", {{"Content-Type", "text/plain"}}), "o", {}).to_json());
  CHECK(text["data"] == "42");
  auto problem = json::parse(http_action_result(response(201, "{not json", {{"Content-Type", "application/json"}}), "o", {}).to_json());
  CHECK(problem["data"] == "{not json");
  CHECK(!json::parse(http_action_result(response(204, ""), "o", {}).to_json()).contains("data"));
  auto gz = http_action_result(response(200, "\x1f\x8b", {{"Content-Encoding", "gzip"}}), "o", {});
  CHECK(gz.error_code == platform::integration_error::invalid_provider_response);
}

TEST_CASE("4xx and 5xx are PROVIDER_HTTP_ERROR with a redacted, bounded body and no secret echo") {
  std::string body = R"({"error":"invalid key sk-live-abcdef","token":"t0k3n","hint":"use Bearer zzz9","big":")" +
                     std::string(5000, 'x') + "\"}";
  auto secrets = credential_values({{"X-Api-Key", "sk-live-abcdef"}, {"Authorization", "Bearer qqqq1"}, {"Accept", "*/*"}});
  auto r = http_action_result(response(500, body, {{"Content-Type", "application/json"}}), "https://api.acme.example", secrets);
  std::string text = r.to_json();
  auto j = json::parse(text);
  CHECK(j["errorCategory"] == "provider");
  CHECK(j["errorCode"] == "PROVIDER_HTTP_ERROR");
  CHECK(j["statusCode"] == 500);
  CHECK(j["retryable"] == true);
  CHECK(j["details"]["statusCode"] == 500);
  CHECK(j["details"]["origin"] == "https://api.acme.example");
  CHECK(j["details"]["body"]["error"] == "invalid key [REDACTED]");
  CHECK(j["details"]["body"]["token"] == "[REDACTED]");
  CHECK(text.find("sk-live-abcdef") == std::string::npos);
  CHECK(text.find("zzz9") == std::string::npos);
  CHECK(text.size() < 4096 + 1024);
  auto unauthorized = http_action_result(response(401, ""), "o", {});
  CHECK(unauthorized.retryable == false);
  CHECK(unauthorized.resolution->find("integration settings") != std::string::npos);
  CHECK(unauthorized.category == platform::error_category::credentials);
  CHECK(unauthorized.error_code == platform::integration_error::provider_unauthorized);
  CHECK(unauthorized.can_request_builder_repair == false);
  auto forbidden = http_action_result(response(403, ""), "o", {});
  CHECK(forbidden.category == platform::error_category::permission);
  CHECK(forbidden.error_code == platform::integration_error::provider_forbidden);
}

TEST_CASE("secret values are scrubbed from 2xx data too, also in their JSON-escaped form") {
  std::vector<std::string> secrets{"a/b\"c-secret", "abc"};
  std::string body = R"({"echo":"a/b\"c-secret","short":"abc"})";
  auto j = json::parse(http_action_result(response(200, body, {{"Content-Type", "application/json"}}), "o", secrets).to_json());
  CHECK(j["data"]["echo"] == "[REDACTED]");
  CHECK(j["data"]["short"] == "abc");  // too short to scrub without mangling text
  CHECK(scrub_secrets("k1234 and k12345", {"k1234", "k12345"}) == "[REDACTED] and [REDACTED]");
  auto values = credential_values({{"Cookie", "sid=s3ss10n; theme=dark"}, {"X-Acme-Key", "acme-k"}});
  CHECK(std::find(values.begin(), values.end(), "s3ss10n") != values.end());
  CHECK(std::find(values.begin(), values.end(), "acme-k") != values.end());
}

}  // namespace http_action_test
