#include <doctest/doctest.h>

#include <string>

#include "platform/api_error.hpp"
#include "platform/url.hpp"

namespace url_test {

using namespace platform;

namespace {

url parsed(const std::string& text) {
  auto u = parse_url(text);
  REQUIRE_MESSAGE(u, text << ": " << (u ? std::string() : u.error().message));
  return *u;
}

std::string resolved(const std::string& base, const std::string& ref) {
  auto r = resolve_url(parsed(base), ref);
  return r ? r->text() : "error:" + std::string(platform::code_name(r.error()));
}

}  // namespace

TEST_CASE("scheme, host, port and target come apart") {
  auto u = parsed("HTTPS://API.Acme.Example:8443/v1/items?q=a%20b#frag");
  CHECK(u.scheme == "https");
  CHECK(u.host == "api.acme.example");
  CHECK(u.kind == host_kind::name);
  CHECK(u.port == 8443);
  CHECK(u.target == "/v1/items?q=a%20b");
  CHECK(u.authority() == "api.acme.example:8443");
  CHECK(u.origin() == "https://api.acme.example:8443");
  CHECK(u.text() == "https://api.acme.example:8443/v1/items?q=a%20b");

  auto d = parsed("http://acme.example");
  CHECK(d.port == 80);
  CHECK(d.target == "/");
  CHECK(d.authority() == "acme.example");
  CHECK(parsed("https://acme.example?x=1").target == "/?x=1");
  CHECK(parsed("https://acme.example:443/").authority() == "acme.example");
}

TEST_CASE("IP literal hosts are canonical and typed") {
  auto v4 = parsed("http://0x7f.1:9000/x");
  CHECK(v4.kind == host_kind::ipv4);
  CHECK(v4.host == "127.0.0.1");
  CHECK(v4.authority() == "127.0.0.1:9000");
  auto v6 = parsed("https://[2001:DB8:0::1]/");
  CHECK(v6.kind == host_kind::ipv6);
  CHECK(v6.host == "2001:db8::1");
  CHECK(v6.authority() == "[2001:db8::1]");
  CHECK(to_string(*v6.address()) == "2001:db8::1");
  CHECK(!parsed("https://acme.example/").address());
  // A last label that is not numeric makes a name, even when other labels are digits.
  CHECK(parsed("https://127.0.0.1.nip.example/").kind == host_kind::name);
}

TEST_CASE("path and query bytes that are never valid in a URL are percent-encoded") {
  CHECK(parsed("https://a.example/a b/\xc3\xa9?x=\"<>\"").target == "/a%20b/%C3%A9?x=%22%3C%3E%22");
  CHECK(parsed("https://a.example/already%20encoded").target == "/already%20encoded");
}

TEST_CASE("malformed URLs name what is wrong") {
  for (const auto& row : {std::pair{"", "invalid_url"}, {"acme.example/x", "invalid_url"}, {"https:acme.example", "invalid_url"},
                            {"https://", "invalid_url"}, {"https://:443/", "invalid_url"}, {"https://a.example:/", "invalid_url"},
                            {"https://a.example:0/", "invalid_url"}, {"https://a.example:65536/", "invalid_url"},
                            {"https://a.example:8x/", "invalid_url"}, {"https://a.example/\r\nX: y", "invalid_url"},
                            {"https://a.example/\t", "invalid_url"}, {"ftp://a.example/", "scheme_not_allowed"},
                            {"javascript:alert(1)", "scheme_not_allowed"}, {"https://a..example/", "invalid_host"},
                            {"https://.a.example/", "invalid_host"}, {"https://a.example./", "invalid_host"},
                            {"https://a_b!.example/", "invalid_host"}, {"https://xn--caf-dma.example/", ""},
                            {"https://caf\xc3\xa9.example/", "invalid_host"}, {"https://[::1/", "invalid_host"},
                            {"https://[::1]x/", "invalid_host"}, {"https://a@b.example/", "userinfo_not_allowed"},
                            {"https://:pw@b.example/", "userinfo_not_allowed"},
                            {"https://a.example\\b.example/", "invalid_host"}}) {
    const char* text = row.first;
    const char* code = row.second;
    auto u = parse_url(text);
    CHECK_MESSAGE((u ? std::string() : std::string(platform::code_name(u.error()))) == code, text);
  }
  CHECK(parse_url("https://" + std::string(64, 'a') + ".example/").error().code == platform::api_error::invalid_host);
  CHECK(parse_url("https://" + std::string(63, 'a') + ".example/"));
  CHECK(parse_url("https://a.example/" + std::string(20000, 'x')).error().code == platform::api_error::invalid_url);
}

TEST_CASE("redirect locations resolve per RFC 3986") {
  const std::string base = "https://api.acme.example/v1/items/list?page=2";
  CHECK(resolved(base, "https://other.example/x") == "https://other.example/x");
  CHECK(resolved(base, "//cdn.acme.example/a") == "https://cdn.acme.example/a");
  CHECK(resolved(base, "/v2/items") == "https://api.acme.example/v2/items");
  CHECK(resolved(base, "next") == "https://api.acme.example/v1/items/next");
  CHECK(resolved(base, "../other?x=1") == "https://api.acme.example/v1/other?x=1");
  CHECK(resolved(base, "?page=3") == "https://api.acme.example/v1/items/list?page=3");
  CHECK(resolved(base, "") == "https://api.acme.example/v1/items/list?page=2");
  CHECK(resolved(base, "#top") == "https://api.acme.example/v1/items/list?page=2");
  CHECK(resolved(base, "/a/./b/../../c") == "https://api.acme.example/c");
  CHECK(resolved(base, "/../../etc") == "https://api.acme.example/etc");
  CHECK(resolved(base, "  /spaced  ") == "https://api.acme.example/spaced");
  CHECK(resolved(base, "/a b") == "https://api.acme.example/a%20b");
  CHECK(resolved(base, "/\\evil.example/") == "https://api.acme.example/%5Cevil.example/");
  CHECK(resolved(base, "http://127.1:81/") == "http://127.0.0.1:81/");
  CHECK(resolved(base, "mailto:x@y") == "error:scheme_not_allowed");
  CHECK(resolved(base, "//user@evil.example/") == "error:userinfo_not_allowed");
  CHECK(resolved(base, "/x\ny") == "error:invalid_url");
  CHECK(resolved("http://[::1]:8080/a/b", "c") == "http://[::1]:8080/a/c");
}

TEST_CASE("the host must be the integration's domain or below it") {
  CHECK(host_in_domain(parsed("https://acme.example/"), "acme.example"));
  CHECK(host_in_domain(parsed("https://api.eu.acme.example/"), "acme.example"));
  CHECK(host_in_domain(parsed("https://API.ACME.EXAMPLE/"), "Acme.Example"));
  CHECK(!host_in_domain(parsed("https://evilacme.example/"), "acme.example"));
  CHECK(!host_in_domain(parsed("https://acme.example.evil.example/"), "acme.example"));
  CHECK(!host_in_domain(parsed("https://example/"), "acme.example"));
  CHECK(!host_in_domain(parsed("https://acme.example/"), ""));
  CHECK(!host_in_domain(parsed("https://acme.example/"), "acme.example."));
  // IP domains match only the same address, whatever its spelling; never "subdomains".
  CHECK(host_in_domain(parsed("http://127.0.0.1:8080/"), "127.0.0.1"));
  CHECK(host_in_domain(parsed("http://127.1:8080/"), "127.0.0.1"));
  CHECK(!host_in_domain(parsed("http://127.0.0.2/"), "127.0.0.1"));
  CHECK(!host_in_domain(parsed("http://10.0.0.1/"), "0.0.1"));
  CHECK(host_in_domain(parsed("http://[::1]/"), "::1"));
  CHECK(!host_in_domain(parsed("http://[::1]/"), "localhost"));
  CHECK(!host_in_domain(parsed("http://localhost/"), "127.0.0.1"));
}

}  // namespace url_test
