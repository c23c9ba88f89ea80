// The HTTP executor against real servers on 127.0.0.1: plain HTTP and TLS with a test CA made
// by the openssl CLI. Guards are proven by the server's connection count: a refused request
// never reaches it. Names are mapped to 127.0.0.1 by a resolver hook (no DNS), except
// `localhost`, which goes through the system resolver.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <map>

#include <nlohmann/json.hpp>

#include "adapters/http_executor.hpp"
#include "test_server.hpp"
#include "platform/api_error.hpp"

using namespace platform;
using nlohmann::json;
using test_support::pki;
using test_support::test_server;

namespace {

std::unique_ptr<http_executor> executor(http_executor_options o = {}) {
  auto e = http_executor::create(std::move(o));
  REQUIRE(e);
  return std::move(*e);
}

address_allow_list allow(const std::string& text) {
  auto a = address_allow_list::parse(text);
  REQUIRE(a);
  return *a;
}

// Options with an allow-list (empty text: none), a resolver hook and an extra CA file.
http_executor_options opts(const std::string& allowed, host_resolver resolver = {}, std::string ca = {}) {
  http_executor_options o;
  o.allow_list = allow(allowed);
  o.resolver = std::move(resolver);
  o.extra_ca_file = std::move(ca);
  return o;
}

template <class Change>
http_executor_options changed(http_executor_options o, Change change) {
  change(o);
  return o;
}

std::string loopback(const test_server& s) { return "127.0.0.1:" + std::to_string(s.port()); }

http_request request(std::string method, std::string url, std::vector<std::pair<std::string, std::string>> headers = {},
                     std::optional<std::string> body = {}) {
  return http_request{std::move(method), std::move(url), std::move(headers), std::move(body), ""};
}

json reply(const integration_tool_result& r) { return json::parse(r.to_json()); }

// Maps names to addresses without DNS and counts the lookups.
struct fake_dns {
  std::map<std::string, std::vector<std::string>> names;
  std::shared_ptr<std::atomic<int>> lookups = std::make_shared<std::atomic<int>>(0);

  host_resolver resolver() const {
    return [names = names, lookups = lookups](const std::string& host, std::chrono::milliseconds) -> result<std::vector<ip_address>> {
      ++*lookups;
      auto it = names.find(host);
      if (it == names.end()) return fail(api_error::dns_failed, "cannot resolve " + host + ": unknown name");
      std::vector<ip_address> out;
      for (const auto& text : it->second) out.push_back(parse_ipv4_strict(text) ? *parse_ipv4_strict(text) : *parse_ipv6(text));
      return out;
    };
  }
};

void check_failure(const integration_tool_result& r, std::string_view category, std::string_view code) {
  auto j = reply(r);
  CHECK_MESSAGE(j["success"] == false, j.dump());
  CHECK_MESSAGE(j["errorCategory"] == category, j.dump());
  CHECK_MESSAGE(j["errorCode"] == code, j.dump());
}

}  // namespace

TEST_CASE("an allow-listed loopback provider answers with JSON data") {
  test_server server;
  auto ex = executor(opts(loopback(server)));
  auto r = ex->execute(request("GET", "http://" + loopback(server) + "/ok"), "127.0.0.1");
  auto j = reply(r);
  CHECK(j["success"] == true);
  CHECK(j["statusCode"] == 200);
  CHECK(j["data"] == json::parse(R"({"ok":true,"items":[1,2,3]})"));
  CHECK(server.connections() == 1);
  auto seen = server.requests().at(0);
  CHECK(seen.header("host") == loopback(server));
  CHECK(seen.header("accept-encoding") == "identity");
  CHECK(seen.header("connection") == "close");
  CHECK(seen.header("user-agent") == "platform-http-executor/0.1");
}

TEST_CASE("without the allow-list, loopback is refused before any connection") {
  test_server server;
  for (const auto& url : {"http://" + loopback(server) + "/ok", "http://127.1:" + std::to_string(server.port()) + "/ok",
                          "http://2130706433:" + std::to_string(server.port()) + "/ok"}) {
    check_failure(executor()->execute(request("GET", url), "127.0.0.1"), "guard", "ADDRESS_NOT_ALLOWED");
  }
  // An entry for another port is no entry for this one.
  auto other_port = executor(opts("127.0.0.1:" + std::to_string(test_support::unused_port())));
  check_failure(other_port->execute(request("GET", "http://" + loopback(server) + "/ok"), "127.0.0.1"), "guard",
                "ADDRESS_NOT_ALLOWED");
  CHECK(server.connections() == 0);
}

TEST_CASE("localhost, resolved by the system resolver, is refused; allowed by name:port it connects") {
  test_server server;
  std::string url = "http://localhost:" + std::to_string(server.port()) + "/ok";
  auto refused = executor()->execute(request("GET", url), "localhost");
  check_failure(refused, "guard", "ADDRESS_NOT_ALLOWED");
  CHECK(refused.error->find("localhost resolves to a loopback address") != std::string::npos);
  CHECK(server.connections() == 0);
  // localhost may resolve to ::1 first, where nothing listens: the next checked address is used.
  auto named = executor(opts("localhost:" + std::to_string(server.port())));
  CHECK(reply(named->execute(request("GET", url), "localhost"))["success"] == true);
  CHECK(server.connections() == 1);
}

TEST_CASE("a name is resolved once per hop and the checked address is the one connected to") {
  test_server server;
  fake_dns dns{{{"api.acme.test", {"127.0.0.1"}}}};
  auto ex = executor(opts(loopback(server), dns.resolver()));
  auto j = reply(ex->execute(request("GET", "http://api.acme.test:" + std::to_string(server.port()) + "/echo"), "acme.test"));
  CHECK(j["success"] == true);
  CHECK(j["data"]["headers"]["host"] == "api.acme.test:" + std::to_string(server.port()));
  CHECK(*dns.lookups == 1);
}

TEST_CASE("a name with one internal address among public ones is refused") {
  test_server server;
  fake_dns dns{{{"api.acme.test", {"8.8.8.8", "10.0.0.7"}}, {"v6.acme.test", {"2606:4700::1", "fd00:ec2::254"}}}};
  auto ex = executor(opts("", dns.resolver()));
  auto r = ex->execute(request("GET", "https://api.acme.test/"), "acme.test");
  check_failure(r, "guard", "ADDRESS_NOT_ALLOWED");
  CHECK(reply(r)["details"]["addressClass"] == "private");
  CHECK(reply(ex->execute(request("GET", "https://v6.acme.test/"), "acme.test"))["details"]["addressClass"] == "cloud metadata");
}

TEST_CASE("scheme, domain and DNS failures") {
  test_server server;
  fake_dns dns;
  auto ex = executor(opts(loopback(server), dns.resolver()));
  check_failure(ex->execute(request("GET", "ftp://127.0.0.1/x"), "127.0.0.1"), "guard", "SCHEME_NOT_ALLOWED");
  check_failure(ex->execute(request("GET", "http://" + loopback(server) + "/ok"), "acme.test"), "guard", "HOST_NOT_ALLOWED");
  check_failure(ex->execute(request("GET", "http://evilacme.test/ok"), "acme.test"), "guard", "HOST_NOT_ALLOWED");
  check_failure(ex->execute(request("GET", "http://[::1%25lo]:80/"), "acme.test"), "guard", "HOST_NOT_ALLOWED");
  check_failure(ex->execute(request("GET", "not a url"), "acme.test"), "spec", "INVALID_URL");
  auto dns_failed = ex->execute(request("GET", "http://nowhere.acme.test/"), "acme.test");
  check_failure(dns_failed, "network", "DNS_FAILED");
  CHECK(dns_failed.retryable == true);
  CHECK(server.connections() == 0);
  auto closed = executor(opts("127.0.0.0/8"));
  check_failure(closed->execute(request("GET", "http://127.0.0.1:" + std::to_string(test_support::unused_port()) + "/"), "127.0.0.1"),
                "network", "CONNECT_FAILED");
}

TEST_CASE("a provider error is PROVIDER_HTTP_ERROR with a redacted body and no secret echo") {
  test_server server;
  auto ex = executor(opts(loopback(server)));
  auto r = ex->execute(request("GET", "http://" + loopback(server) + "/status/500", {{"X-Api-Key", "sk-test-secret-123"}}),
                       "127.0.0.1", {"sk-test-secret-123"});
  std::string text = r.to_json();
  auto j = json::parse(text);
  check_failure(r, "provider", "PROVIDER_HTTP_ERROR");
  CHECK(j["statusCode"] == 500);
  CHECK(j["retryable"] == true);
  CHECK(j["details"]["body"]["error"] == "bad key [REDACTED]");
  CHECK(j["details"]["body"]["token"] == "[REDACTED]");
  CHECK(text.find("sk-test-secret-123") == std::string::npos);
  // The request header alone is enough to scrub it, without the caller naming it.
  auto r404 = ex->execute(request("GET", "http://" + loopback(server) + "/status/404", {{"X-Api-Key", "sk-test-secret-456"}}),
                          "127.0.0.1");
  CHECK(r404.status_code == 404);
  CHECK(r404.to_json().find("sk-test-secret-456") == std::string::npos);
}

TEST_CASE("the deadline covers a silent server and a stalled body") {
  test_server server;
  auto ex = executor(changed(opts(loopback(server)), [](auto& o) { o.timeout = std::chrono::milliseconds(300); }));
  for (const char* path : {"/slow", "/slow-body"}) {
    auto start = std::chrono::steady_clock::now();
    auto r = ex->execute(request("GET", "http://" + loopback(server) + path), "127.0.0.1");
    auto took = std::chrono::steady_clock::now() - start;
    check_failure(r, "timeout", "TIMEOUT");
    CHECK(r.error->find("within 300 ms") != std::string::npos);
    CHECK(took >= std::chrono::milliseconds(300));
    CHECK(took < std::chrono::seconds(3));
  }
}

TEST_CASE("bodies over the limit stop the read, whatever the framing") {
  test_server server;
  auto ex = executor(opts(loopback(server)));
  for (const char* path : {"/huge", "/huge-chunked", "/huge-close"}) {
    auto r = ex->execute(request("GET", "http://" + loopback(server) + path), "127.0.0.1");
    check_failure(r, "limit", "RESPONSE_TOO_LARGE");
    CHECK_MESSAGE(r.error->find("larger than 2 MiB") != std::string::npos, path);
  }
  auto tight = executor(changed(opts(loopback(server)), [](auto& o) { o.max_response_bytes = 16; }));
  check_failure(tight->execute(request("GET", "http://" + loopback(server) + "/ok"), "127.0.0.1"), "limit", "RESPONSE_TOO_LARGE");
}

TEST_CASE("a chunked body is read whole") {
  test_server server;
  auto ex = executor(opts(loopback(server)));
  auto j = reply(ex->execute(request("GET", "http://" + loopback(server) + "/chunked"), "127.0.0.1"));
  CHECK(j["data"] == json::parse(R"({"chunked":true,"n":[1,2,3]})"));
}

TEST_CASE("redirects: three are followed, a fourth and loops are refused") {
  test_server server;
  auto ex = executor(opts(loopback(server)));
  auto three = reply(ex->execute(request("GET", "http://" + loopback(server) + "/redirect/3"), "127.0.0.1"));
  CHECK(three["data"]["hops"] == "done");
  CHECK(server.requests().size() == 4);
  check_failure(ex->execute(request("GET", "http://" + loopback(server) + "/redirect/4"), "127.0.0.1"), "limit",
                "TOO_MANY_REDIRECTS");
  check_failure(ex->execute(request("GET", "http://" + loopback(server) + "/loop"), "127.0.0.1"), "limit", "TOO_MANY_REDIRECTS");
  auto none = executor(changed(opts(loopback(server)), [](auto& o) { o.max_redirects = 0; }));
  check_failure(none->execute(request("GET", "http://" + loopback(server) + "/redirect/1"), "127.0.0.1"), "limit",
                "TOO_MANY_REDIRECTS");
}

TEST_CASE("redirects: every hop passes the guards again") {
  test_server server;
  test_server internal;  // another local service the provider points at
  fake_dns dns{{{"api.acme.test", {"127.0.0.1"}}, {"internal.acme.test", {"10.1.2.3"}}}};
  auto ex = executor(opts(loopback(server), dns.resolver()));
  auto via = [&](const std::string& to) {
    return request("GET", "http://api.acme.test:" + std::to_string(server.port()) + "/redirect-to?to=" + to);
  };
  check_failure(ex->execute(via("http://127.0.0.1:" + std::to_string(internal.port()) + "/ok"), "acme.test"), "guard",
                "HOST_NOT_ALLOWED");
  check_failure(ex->execute(via("http://internal.acme.test:" + std::to_string(internal.port()) + "/ok"), "acme.test"), "guard",
                "ADDRESS_NOT_ALLOWED");
  check_failure(ex->execute(via("http://api.acme.test:" + std::to_string(internal.port()) + "/ok"), "acme.test"), "guard",
                "ADDRESS_NOT_ALLOWED");
  check_failure(ex->execute(via("http://169.254.169.254/latest/meta-data/"), "acme.test"), "guard", "HOST_NOT_ALLOWED");
  check_failure(ex->execute(via("file:///etc/passwd"), "acme.test"), "guard", "SCHEME_NOT_ALLOWED");
  check_failure(ex->execute(via("http://evil.test/"), "acme.test"), "guard", "HOST_NOT_ALLOWED");
  // With an IP domain, the internal service on another port is the same host but not allowed.
  auto by_ip = executor(opts(loopback(server)));
  check_failure(by_ip->execute(request("GET", "http://" + loopback(server) + "/redirect-to?to=http://127.0.0.1:" +
                                                  std::to_string(internal.port()) + "/ok"),
                               "127.0.0.1"),
                "guard", "ADDRESS_NOT_ALLOWED");
  CHECK(internal.connections() == 0);
}

TEST_CASE("redirects: 303 turns POST into GET without a body, 307 keeps both") {
  test_server server;
  auto ex = executor(opts(loopback(server)));
  auto post = [&](const char* path) {
    return request("POST", "http://" + loopback(server) + path, {{"Content-Type", "application/json"}}, R"({"n":1})");
  };
  auto see_other = reply(ex->execute(post("/see-other"), "127.0.0.1"));
  CHECK(see_other["data"]["method"] == "GET");
  CHECK(see_other["data"]["body"] == "");
  CHECK(!see_other["data"]["headers"].contains("content-length"));
  CHECK(!see_other["data"]["headers"].contains("content-type"));
  auto temporary = reply(ex->execute(post("/temporary"), "127.0.0.1"));
  CHECK(temporary["data"]["method"] == "POST");
  CHECK(temporary["data"]["body"] == R"({"n":1})");
  CHECK(temporary["data"]["headers"]["content-type"] == "application/json");
}

TEST_CASE("redirects: a new origin gets no credential headers") {
  test_server server;
  test_server second;
  auto ex = executor(opts(loopback(server) + "," + loopback(second)));
  auto r = ex->execute(request("GET", "http://" + loopback(server) + "/redirect-to?to=http://" + loopback(second) + "/echo",
                               {{"X-Api-Key", "k-secret-1"}, {"Accept", "application/json"}}),
                       "127.0.0.1");
  auto j = reply(r);
  CHECK(j["success"] == true);
  CHECK(!j["data"]["headers"].contains("x-api-key"));
  CHECK(j["data"]["headers"]["accept"] == "application/json");
}

TEST_CASE("TLS: the certificate is verified for the URL's name, which is sent as SNI") {
  test_server tls(pki().good_cert, pki().good_key);
  fake_dns dns{{{"api.acme.test", {"127.0.0.1"}}}};
  auto ex = executor(opts(loopback(tls), dns.resolver(), pki().ca));
  std::string port = std::to_string(tls.port());
  auto j = reply(ex->execute(request("GET", "https://api.acme.test:" + port + "/echo"), "acme.test"));
  REQUIRE_MESSAGE(j["success"] == true, j.dump());
  CHECK(j["data"]["sni"] == "api.acme.test");
  CHECK(j["data"]["headers"]["host"] == "api.acme.test:" + port);
  // An IP literal host is verified against the certificate's IP names, without SNI.
  auto by_ip = reply(ex->execute(request("GET", "https://127.0.0.1:" + port + "/echo"), "127.0.0.1"));
  REQUIRE_MESSAGE(by_ip["success"] == true, by_ip.dump());
  CHECK(by_ip["data"]["sni"] == "");
  // https to http is a downgrade, refused even within the domain.
  check_failure(ex->execute(request("GET", "https://api.acme.test:" + port + "/redirect-to?to=http://api.acme.test:" + port + "/ok"),
                            "acme.test"),
                "guard", "SCHEME_NOT_ALLOWED");
}

TEST_CASE("TLS: a certificate for another name, or from an unknown CA, fails with TLS_FAILED") {
  test_server other(pki().other_cert, pki().other_key);
  test_server good(pki().good_cert, pki().good_key);
  fake_dns dns{{{"api.acme.test", {"127.0.0.1"}}}};
  auto ex = executor(opts("127.0.0.0/8", dns.resolver(), pki().ca));
  auto mismatch = ex->execute(request("GET", "https://api.acme.test:" + std::to_string(other.port()) + "/ok"), "acme.test");
  check_failure(mismatch, "network", "TLS_FAILED");
  CHECK_MESSAGE(mismatch.error->find("hostname mismatch") != std::string::npos, *mismatch.error);
  check_failure(ex->execute(request("GET", "https://127.0.0.1:" + std::to_string(other.port()) + "/ok"), "127.0.0.1"), "network",
                "TLS_FAILED");
  auto no_test_ca = executor(opts("127.0.0.0/8", dns.resolver()));
  auto unknown = no_test_ca->execute(request("GET", "https://api.acme.test:" + std::to_string(good.port()) + "/ok"), "acme.test");
  check_failure(unknown, "network", "TLS_FAILED");
  CHECK(good.requests().empty());
  CHECK(other.requests().empty());
}

TEST_CASE("bad options are refused at creation") {
  CHECK(http_executor::create(opts("", {}, "/nonexistent/ca.pem")).error().code == platform::api_error::invalid_tls_config);
  CHECK(http_executor::create(changed(opts(""), [](auto& o) { o.timeout = std::chrono::milliseconds(0); })).error().code == platform::api_error::invalid_options);
}
